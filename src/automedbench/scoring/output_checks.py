"""The harness's own check of each output unit right after the call that wrote it
(docs/judge.md "Per-output checks").

The judge must know whether the pilot's output was any good, whatever the agent printed about
it, and whether a later rewrite fixed it. So after every call, for the output units the call
wrote (a case folder holding contract files, wherever in the workspace it lies, or a cohort
file), the harness runs the track's own per-case check: the contract and plausibility part of
scoring (`check_case`: the track's contract and plausibility rules), whether the output is
trivial (`CaseCheck.non_trivial`), and whether a file
holds the bytes of one of the case's inputs, and the track's own plausibility test
(`Track.plausibility`: the relations the track declares between the output's facts and its
input's, tracks/relations.py; docs/judge.md "Plausibility"). No reference values are
compared: nothing here is a score. It also keeps the content facts of each file as written (tracks/content_facts.py), so a
later look is compared with what the file held then, even if it was rewritten since.

At most MAX_UNITS_PER_CALL units are checked per call (re-written ones first, then new ones in
the order written): the pilot and its fixes are always seen, a batch call costs a few cases.
A failure of the checker itself is a warning on the call, never the agent's fault.
"""
from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import Any

from ..runs.models import Effects, OutputCheck
from ..tracks.base import SubmittedCase, Track
from ..tracks.cohort import read_cohort
from ..tracks.content_facts import describe, same_content, same_kind

MAX_UNITS_PER_CALL = 4
MAX_COHORT_ROWS = 64          # rows of a cohort file checked (each with its case's expected values)
_HASH_CHUNK = 1 << 20

OutputChecker = Callable[[Any], list[OutputCheck]]


class OutputChecks:
    """Checks the units one sandbox's calls write. `workspace` and `public` are (host dir,
    inside path) pairs; `private` is the dataset's private folder (for each case's expected
    grid, read by the track's `load_reference`; the values are never compared here)."""

    def __init__(self, track: Track[Any], options: Any, cases: list[dict[str, Any]], private: Path,
                 workspace: tuple[Path, str], public: tuple[Path, str]):
        self.track, self.options = track, options
        self.layout = track.submission(options)
        self.names = set(self.layout.file_names)
        self.cases = {str(c["case_id"]): c for c in cases}
        self.private = private
        self.workspace = (Path(workspace[0]), workspace[1].rstrip("/"))
        self.public = (Path(public[0]), public[1].rstrip("/"))
        self._ref_meta: dict[str, dict[str, Any] | None] = {}
        self._checked: set[str] = set()              # units checked before (a rewrite is checked first)
        self._input_sizes: dict[int, list[Path]] | None = None
        self._input_shas: dict[Path, str] = {}

    # ---- the call ----------------------------------------------------------------------
    def __call__(self, effects: Any) -> list[OutputCheck]:
        eff = effects if isinstance(effects, Effects) else Effects.model_validate(effects)
        units = self._units(eff)
        ordered = sorted(units, key=lambda u: u not in self._checked)[:MAX_UNITS_PER_CALL]
        out = []
        for unit in ordered:
            shas = units[unit]
            check = self._check_cohort(unit, shas) if self.layout.kind == "cohort" else self._check_case(unit, shas)
            if check is not None:
                self._checked.add(unit)
                out.append(check)
        return out

    def _units(self, eff: Effects) -> dict[str, dict[str, str | None]]:
        """unit inside path -> {file inside path: sha256} for the contract files this call wrote."""
        units: dict[str, dict[str, str | None]] = {}
        root = self.workspace[1] + "/"
        for w in eff.written:
            p = PurePosixPath(w.path)
            if w.op == "transient" or not w.path.startswith(root) or p.name not in self.names:
                continue    # a transient file is gone: nothing left to check
            if self.layout.kind == "cohort":
                units.setdefault(w.path, {})[w.path] = w.sha256
            elif p.parent.name in self.cases:
                units.setdefault(str(p.parent), {})[w.path] = w.sha256
        return units

    def _host(self, inside: str) -> Path:
        rel = inside[len(self.workspace[1]):].lstrip("/")
        return self.workspace[0] / rel

    def _reference_meta(self, case_id: str) -> dict[str, Any] | None:
        if case_id not in self._ref_meta:
            try:
                _, meta = self.track.load_reference(self.private / case_id, self.cases[case_id], self.options)
                self._ref_meta[case_id] = meta
            except Exception:   # our reference is unreadable: nothing to check against (scoring says so)
                self._ref_meta[case_id] = None
        return self._ref_meta[case_id]

    def _facts(self, files: dict[str, str | None]) -> dict[str, dict[str, Any]]:
        out = {}
        for inside in files:
            cf = describe(self._host(inside))
            if cf is not None:
                out[inside] = {"kind": cf.kind, "facts": {k: list(v) if isinstance(v, tuple) else v
                                                          for k, v in cf.facts.items()}}
        return out

    # ---- per-case units ----------------------------------------------------------------
    def _check_case(self, unit: str, files: dict[str, str | None]) -> OutputCheck | None:
        case_id = PurePosixPath(unit).name
        host_dir = self._host(unit)
        if not host_dir.is_dir():
            return None          # written and moved away in the same call: nothing left to check
        ref_meta = self._reference_meta(case_id)
        facts = self._facts(files)
        if ref_meta is None:
            return None
        implausible = ""
        try:
            check = self.track.check_case(SubmittedCase(case_id, dir=host_dir), ref_meta, self.options)
            valid, reason, non_trivial = check.valid, check.reason, check.non_trivial
            if valid:
                implausible = self.track.plausibility(check.prediction, self.public[0] / case_id, self.options)
        except Exception as exc:   # a checker must not raise; if one does, the unit is invalid
            valid, reason, non_trivial = False, f"format check failed unexpectedly: {type(exc).__name__}", False
        copies = [inside for inside, sha in files.items()
                  if sha and (self._is_input(self._host(inside), sha) or self._holds_input(self._host(inside), case_id))]
        trivial_ok = self.track.trivial_can_be_right
        problem = reason if not valid else ("a copy of the input: " + ", ".join(copies) if copies
                                            else implausible if implausible
                                            else "" if non_trivial or trivial_ok
                                            else "trivial output (empty or constant)")
        return OutputCheck(path=unit, case_id=case_id, files=files, valid=valid,
                           non_trivial=(non_trivial or trivial_ok) if valid else None, copy_of_input=bool(copies),
                           implausible=bool(implausible), problem=problem, facts=facts)

    # ---- cohort files --------------------------------------------------------------------
    def _check_cohort(self, unit: str, files: dict[str, str | None]) -> OutputCheck | None:
        host = self._host(unit)
        if not host.is_file():
            return None
        parsed = read_cohort(host.parent, self.layout, list(self.cases))
        facts = self._facts(files)
        if parsed.file_error:
            return OutputCheck(path=unit, files=files, valid=False, problem=parsed.file_error, facts=facts)
        problems, non_trivial = [], False
        for case_id, row in list(parsed.rows.items())[:MAX_COHORT_ROWS]:
            ref_meta = self._reference_meta(case_id)
            if ref_meta is None:
                continue
            try:
                check = self.track.check_case(SubmittedCase(case_id, row=row), ref_meta, self.options)
            except Exception as exc:
                problems.append(f"{case_id}: format check failed unexpectedly: {type(exc).__name__}")
                continue
            if not check.valid:
                problems.append(f"{case_id}: {check.reason}")
            non_trivial = non_trivial or (check.valid and (check.non_trivial or self.track.trivial_can_be_right))
        problems += [f"{cid}: {why}" for cid, why in parsed.case_errors.items()]
        if not parsed.rows and not problems:
            problems.append("no row for any expected case")
        valid = not problems
        return OutputCheck(path=unit, files=files, valid=valid, non_trivial=non_trivial if valid else None,
                           problem="; ".join(problems[:3]) if problems else
                           ("" if non_trivial else "trivial output (every row trivial)"), facts=facts)

    # ---- a copy of the input ---------------------------------------------------------------
    def _is_input(self, host: Path, sha: str) -> bool:
        """Whether `host` (whose sha256 is `sha`) holds the bytes of a public input file: sizes
        first (one walk of the public folder, no reading), then the hashes of same-size inputs."""
        try:
            size = host.stat().st_size
        except OSError:
            return False
        if self._input_sizes is None:
            self._input_sizes = {}
            for dirpath, _dirs, names in os.walk(self.public[0]):
                for name in names:
                    p = Path(dirpath) / name
                    try:
                        self._input_sizes.setdefault(p.stat().st_size, []).append(p)
                    except OSError:
                        continue
        for candidate in self._input_sizes.get(size, [])[:16]:
            if candidate not in self._input_shas:
                self._input_shas[candidate] = _sha256(candidate)
            if self._input_shas[candidate] == sha:
                return True
        return False


    def _holds_input(self, host: Path, case_id: str) -> bool:
        """Whether the file holds one of the case's input arrays, re-saved (other bytes, the same
        voxels or pixels): the case's own public files of the same kind are compared."""
        case_dir = self.public[0] / case_id
        if not case_dir.is_dir():
            return False
        for candidate in sorted(case_dir.iterdir())[:16]:
            if candidate.is_file() and same_kind(host, candidate) and same_content(host, candidate):
                return True
        return False


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    try:
        with open(path, "rb") as fh:
            while chunk := fh.read(_HASH_CHUNK):
                h.update(chunk)
    except OSError:
        return ""
    return h.hexdigest()
