"""The calls of a trace as the judge reads them (exit code, output, effects; never a stage tag) and the
facts' citation type (docs/judge.md "Evidence: facts from effects, never words")."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import PurePosixPath
from typing import Any, Iterable, NamedTuple

from ...agent_paths import DATA_INSIDE, WORKSPACE_INSIDE
from ...runs.models import OutputCheck, TraceEvent

MAX_TEXT = 20_000                   # characters of a call's output compared with content facts


@dataclass(frozen=True)
class Roots:
    """The workspace and public-data folders as the agent saw them: /workspace and /data/public
    in the isolating sandboxes, host paths with the `local` backend (run_start records them)."""

    workspace: str = WORKSPACE_INSIDE
    data: str = DATA_INSIDE

    @cached_property
    def outputs(self) -> str:
        return f"{self.workspace}/outputs/"

    @cached_property
    def plan(self) -> str:
        return f"{self.workspace}/plan/"

    @classmethod
    def of(cls, trace: list[TraceEvent]) -> Roots:
        start = next((e for e in trace if e.type == "run_start"), None)
        data = (start.data or {}) if start is not None else {}
        return cls(str(data.get("workspace_dir") or WORKSPACE_INSIDE).rstrip("/"),
                   str(data.get("data_dir") or DATA_INSIDE).rstrip("/"))


@dataclass(frozen=True)
class Write:
    path: str
    op: str
    size: int | None
    sha256: str | None


class FileStep(NamedTuple):
    """One step of effects.order: w (write), r (read), b (read back), with the output read by then."""
    op: str
    path: str
    size: int | None
    out: int            # stdout bytes the harness had read when the step was seen
    err: int            # stderr bytes


@dataclass
class CallFacts:
    """What one execution did, from its exit code, its output and its effects."""

    index: int
    exit_code: int | None
    timed_out: bool
    printed: bool
    has_effects: bool
    text: str = ""                                 # what it printed (stdout + stderr), for content facts
    code: str = ""                                 # what it ran, for silent checks
    written: list[Write] = field(default_factory=list)
    read: list[str] = field(default_factory=list)
    read_back: list[str] = field(default_factory=list)       # files it wrote, then opened again itself
    checks: list[OutputCheck] = field(default_factory=list)  # the harness's check of the units it wrote
    bytes_in: int = 0
    units: set[str] = field(default_factory=set)   # output units this call produced (method runs)
    unit_writes: list[Write] = field(default_factory=list)   # the files of those units, wherever written
    copies: list[Write] = field(default_factory=list)        # unit files copied from an earlier call's
    roots: Roots = field(default_factory=Roots)
    # the order of its writes, reads and read-backs (effects.order, schema 1.7; None: not known),
    # and, once split into the steps it took (steps.py), which step of its call this is
    order: list[FileStep] | None = None
    stdout: str = ""                 # the call's own output, kept apart only when it has an order
    stderr: str = ""
    step: int = 0
    continues: bool = False          # a later step of the same call follows (the script went on)
    held: set[str] = field(default_factory=set)    # files earlier steps of the same call opened
    reads_complete: bool = True      # every read of its processes is in `read` (docs/sandbox.md "Whose reads")
    made_up: list[Write] = field(default_factory=list)   # unit files written from no input (made_from.py)
    stand_in: bool = False           # it ran another method than the batch's (pilots.py)
    # contract files of a method run fed by a case, in a scratch folder no case names (a crop of
    # a case, a test folder): a smoke run, not a unit (facts.py "smoke")
    smoke_writes: list[Write] = field(default_factory=list)
    ran: list[tuple[str, str]] = field(default_factory=list)  # source files it ran, with their text (sources.py)
    started: set[str] = field(default_factory=set)   # cases whose inputs it read itself (made_from.py)

    @property
    def produced(self) -> bool:
        """The call wrote an output or a unit of work (a method run), anywhere."""
        return bool(self.output_writes or self.unit_writes)

    @property
    def unit_paths(self) -> list[str]:
        """Every unit file this call wrote, runs and copies alike."""
        return [w.path for w in self.unit_writes + self.copies]

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.timed_out

    @cached_property     # written/read are set once, when the call is collected
    def output_writes(self) -> list[Write]:
        return [w for w in self.written if w.path.startswith(self.roots.outputs)]

    @cached_property     # written/read are set once, when the call is collected
    def public_reads(self) -> list[str]:
        return [p for p in self.read if p.startswith(self.roots.data + "/")]

    @cached_property     # written/read are set once, when the call is collected
    def output_reads(self) -> list[str]:
        return [p for p in self.read if p.startswith(self.roots.outputs)]


@dataclass
class Fact:
    """A fact and what it rests on: the call indices and file paths a reader can check."""

    holds: bool
    calls: list[int] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    note: str = ""

    def cite(self) -> str:
        where = []
        if self.calls:
            where.append("calls " + ", ".join(f"#{c}" for c in self.calls[:8])
                         + (f" (+{len(self.calls) - 8})" if len(self.calls) > 8 else ""))
        if self.paths:
            where.append("files " + ", ".join(self.paths[:4]) + (f" (+{len(self.paths) - 4})" if len(self.paths) > 4 else ""))
        return "; ".join(where) or "no call"


def _name(path: str) -> str:
    """The last component of an inside path (str ops: PurePosixPath costs ~40 us a call, and a
    long run's facts split tens of thousands of paths; bench/judge_throughput.py)."""
    return path.rpartition("/")[2]


def _parent(path: str) -> str:
    head, sep, _ = path.rpartition("/")
    return head if head or not sep else "/"


_PYC = re.compile(r"^(?P<dir>.*)/__pycache__/(?P<mod>[^/.]+)\.[^/]*\.pyc$")


def _source_of(path: str) -> str:
    """Python imports a module from its cached bytecode when the cache is fresh, opening
    `__pycache__/m.cpython-XY.pyc` instead of `m.py`: such a read is a read of `m.py`."""
    if "/__pycache__/" not in path:     # what the pattern needs: most reads run no regex
        return path
    m = _PYC.match(path)
    return f"{m['dir']}/{m['mod']}.py" if m else path


def _file_steps(order: Iterable[Any], kept: set[str]) -> list[FileStep]:
    """effects.order as FileSteps: every write, and the reads and read-backs of files in `kept`
    (a read of cached bytecode as a read of its source), each path mapped once."""
    out = []
    for st in order:
        path = _source_of(st.path) if st.op == "r" else st.path
        if st.op == "w" or path in kept:
            out.append(FileStep(st.op, path, st.size, st.out, st.err))
    return out


def _named_by(code: str, path: str) -> bool:
    """The code names the file or its own directory (not just the data root)."""
    file = PurePosixPath(path)   # once per call and read (not on the hot path)
    return file.name in code or (bool(file.parent.name) and file.parent.name in code)


def _own_reads(read: list[str], code: str, roots: Roots) -> list[str]:
    """Public reads the code names, for a shared public folder (docs/sandbox.md "Whose reads")."""
    return [p for p in read if not p.startswith(roots.data + "/") or _named_by(code, p)]


def collect_calls(trace: list[TraceEvent], roots: Roots | None = None) -> list[CallFacts]:
    roots = roots or Roots.of(trace)
    codes = {e.call_index: e.code or "" for e in trace if e.type == "tool_call" and e.call_index is not None}
    calls = []
    for e in trace:
        if e.type != "execution" or e.call_index is None:
            continue
        eff = e.effects
        c = CallFacts(index=e.call_index, exit_code=e.exit_code, timed_out=bool(e.timed_out),
                      reads_complete=eff is not None, printed=bool((e.stdout or "").strip() or (e.stderr or "").strip()),
                      has_effects=eff is not None, roots=roots, text=((e.stdout or "") + "\n" + (e.stderr or ""))[:MAX_TEXT],
                      code=codes.get(e.call_index, "") or e.code or "")
        if eff is not None:
            c.written = [Write(w.path, w.op, w.size, w.sha256) for w in eff.written]
            c.read = list(dict.fromkeys(_source_of(p) for p in eff.read))
            c.read_back = list(eff.read_back)
            if eff.reads_attributed is False:
                # reads any host process could have made: never credited (docs/sandbox.md "Whose reads")
                c.read = c.read_back = []
                c.reads_complete = False
            elif eff.reads_shared:
                c.read = _own_reads(c.read, codes.get(e.call_index, ""), roots)
                c.reads_complete = False
            if eff.order is not None:
                c.order = _file_steps(eff.order, {*c.read, *c.read_back})
                c.stdout, c.stderr = e.stdout or "", e.stderr or ""
            c.bytes_in = eff.net.bytes_in if eff.net is not None else 0
        c.checks = list(e.output_checks or [])
        calls.append(c)
    return calls
