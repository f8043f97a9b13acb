"""The one reader of a run folder (docs/run_record.md "Reading a run folder").

    rec = RunRecord.open(run_dir)
    rec.meta          run.json            RunMeta | None
    rec.report        detail_report.json  DetailReport | None (its run_dir set; an older report's
                                          run.scaffold filled from run.json)
    rec.judge         judge.json          SavedVerdict | None
    rec.conversation  conversation.json   Conversation | None
    rec.trace         trace.jsonl         list[TraceEvent] (lines that do not parse or validate skipped)
    rec.trace_lines   trace.jsonl         list[dict] (lines that do not parse skipped; unvalidated)
    rec.experiments   evidence/experiments.json   dict | None (validated by scoring/experiments.py)

One error policy for every file: nothing is read before it is asked for, and each file at most
once (the value, or the error, is kept). A file that is absent is None: a run has no report
before it is scored, no judge.json before it is judged. A file that is present but cannot be
read, is not UTF-8, is not JSON or does not validate raises `RunFileError`, naming the file and
the first problem on one line; a caller that tolerates a bad file catches it. The trace is a log
written line by line while the run went on, so it is read line by line: a torn last line (a
killed run) or a line of another schema is skipped, counted in `trace_skipped`; no trace is [].

Only the lifecycle (and scoring, which writes the report and judge.json) writes these files;
everything else reads them here (tests/runs/test_record.py checks that with a grep of src/).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from ..errors import UserError, first_field_error
from .layout import RunFiles, RunMeta
from .models import UNKNOWN_SCAFFOLD, Conversation, DetailReport, JudgeInfo, StageResult, TraceEvent

T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)
_ABSENT = object()   # a file that is not there (a file holding `null` is present, and wrong)


ErrorKind = Literal["unreadable", "not_json", "schema", "no_run_dir"]


class RunFileError(UserError, ValueError):
    """A file of a run folder that is present but unreadable, or a path that is no run folder.
    `path` is the file (or folder), `why` the first problem, one line; `kind`: the file could
    not be read or is not UTF-8 (unreadable), is not JSON (not_json: a torn write), is JSON of
    another schema (schema: e.g. a newer harness's), or the path is no folder (no_run_dir)."""

    def __init__(self, path: Path, why: str, kind: ErrorKind = "unreadable"):
        super().__init__(f"{path}: {why}")
        self.path = Path(path)
        self.why = why
        self.kind: ErrorKind = kind


class SavedVerdict(BaseModel):
    """judge.json: the judge that gave S1..S3 and its verdict per stage (None: not judged).
    Keys beside these two are ignored, as scoring always has."""
    model_config = ConfigDict(extra="ignore")
    judge: JudgeInfo
    stages: dict[str, StageResult | None]


def short_error(exc: BaseException) -> str:
    """One line for what is wrong with a file's content (the words every reader prints)."""
    if isinstance(exc, ValidationError):
        first = first_field_error(exc)
        more = f" (+{first.more} more)" if first.more else ""
        return f"schema error at {first.field}: {first.msg}{more}"
    if isinstance(exc, json.JSONDecodeError):
        return f"invalid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
    if isinstance(exc, UnicodeDecodeError):
        return "not UTF-8 text"
    if isinstance(exc, OSError):
        return f"cannot read ({exc.strerror or exc})"
    return f"{type(exc).__name__}: {exc}"


def parse_trace_lines(text: str) -> tuple[list[dict[str, Any]], int]:
    """The JSON objects of a trace's lines, and how many non-blank lines were not one."""
    events: list[dict[str, Any]] = []
    skipped = 0
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            ev = json.loads(line)
        except ValueError:
            skipped += 1
            continue
        if isinstance(ev, dict):
            events.append(ev)
        else:
            skipped += 1
    return events, skipped


def validate_trace(lines: list[dict[str, Any]]) -> tuple[list[TraceEvent], int]:
    """The lines that are TraceEvents, and how many were not (another schema's)."""
    events: list[TraceEvent] = []
    skipped = 0
    for line in lines:
        try:
            events.append(TraceEvent.model_validate(line))
        except ValidationError:
            skipped += 1
    return events, skipped


class RunRecord:
    """A run folder, read lazily (module doc)."""

    def __init__(self, run_dir: Path | str):
        self.files = RunFiles(run_dir)
        self._cache: dict[str, tuple[Any, RunFileError | None]] = {}
        self.trace_skipped = 0

    @classmethod
    def open(cls, run_dir: Path | str) -> RunRecord:
        """The record of `run_dir`; RunFileError when it is not a folder. Reads no file."""
        path = Path(run_dir)
        if not path.is_dir():
            raise RunFileError(path, "not a run directory (no such folder)", "no_run_dir")
        return cls(path)

    @property
    def dir(self) -> Path:
        return self.files.dir

    @property
    def workspace(self) -> Path:
        return self.files.workspace

    @property
    def blobs(self) -> Path:
        """evidence/blobs: the bytes of the files each call left (runs/blobs.py reads them)."""
        return self.files.blobs

    # ---- the files ----------------------------------------------------------------------

    @property
    def meta(self) -> RunMeta | None:
        return self._once("meta", lambda: self._model(self.files.meta, RunMeta))

    @property
    def report(self) -> DetailReport | None:
        def load() -> DetailReport | None:
            report = self._model(self.files.report, DetailReport)
            if report is not None:
                report._run_dir = self.dir
                if report.run.scaffold is None:
                    report.run.scaffold = self._scaffold()
            return report
        return self._once("report", load)

    @property
    def judge(self) -> SavedVerdict | None:
        return self._once("judge", lambda: self._model(self.files.judge, SavedVerdict))

    @property
    def conversation(self) -> Conversation | None:
        return self._once("conversation", lambda: self._model(self.files.conversation, Conversation))

    @property
    def experiments(self) -> dict[str, Any] | None:
        def load() -> dict[str, Any] | None:
            data = self._json(self.files.experiments)
            if data is _ABSENT:
                return None
            if not isinstance(data, dict):
                raise RunFileError(self.files.experiments, "not a JSON object", "schema")
            return data
        return self._once("experiments", load)

    @property
    def trace_lines(self) -> list[dict[str, Any]]:
        def load() -> list[dict[str, Any]]:
            try:
                text = self.files.trace.read_bytes().decode("utf-8", errors="replace")
            except FileNotFoundError:
                return []
            except OSError as exc:
                raise RunFileError(self.files.trace, short_error(exc)) from None
            lines, self.trace_skipped = parse_trace_lines(text)
            return lines
        return self._once("trace_lines", load)

    @property
    def trace(self) -> list[TraceEvent]:
        def load() -> list[TraceEvent]:
            events, invalid = validate_trace(self.trace_lines)
            self.trace_skipped += invalid
            return events
        return self._once("trace", load)

    def _scaffold(self) -> str:
        """A report scored before schema 1.10 has no run.scaffold: run.json's (derived from its
        agent_config when it has none either), else "unknown" (docs/agents.md "Scaffold and model")."""
        try:
            meta = self.meta
        except RunFileError:
            meta = None
        return (meta.run.scaffold if meta is not None else None) or UNKNOWN_SCAFFOLD

    # ---- one policy ---------------------------------------------------------------------

    def _once(self, key: str, load: Callable[[], T]) -> T:
        if key not in self._cache:
            try:
                self._cache[key] = (load(), None)
            except RunFileError as exc:
                self._cache[key] = (None, exc)
        value, error = self._cache[key]
        if error is not None:
            raise error
        return value  # type: ignore[no-any-return]

    def _json(self, path: Path) -> Any:
        """The JSON in `path`; _ABSENT when absent; RunFileError when unreadable."""
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return _ABSENT
        except (OSError, UnicodeDecodeError) as exc:
            raise RunFileError(path, short_error(exc)) from None
        try:
            return json.loads(text)
        except (ValueError, RecursionError) as exc:   # RecursionError: nesting too deep to parse
            raise RunFileError(path, short_error(exc), "not_json") from None

    def _model(self, path: Path, model: type[M]) -> M | None:
        data = self._json(path)
        if data is _ABSENT:
            return None
        try:
            return model.model_validate(data)
        except ValidationError as exc:
            raise RunFileError(path, short_error(exc), "schema") from None
