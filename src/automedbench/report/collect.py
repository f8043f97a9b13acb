"""Find and load `detail_report.json` files for the leaderboard.

`collect_reports(paths)` accepts run directories, parent directories (walked recursively)
and `detail_report.json` files. It never raises on a bad report: an unreadable, malformed
or schema-invalid report is skipped and a warning is recorded on the returned list
(`.warnings`), and also logged. Duplicate run ids are kept once (the first found in sorted
path order) with a warning.

A directory that holds a `detail_report.json` is a run directory and is not descended into:
a `detail_report.json` that an agent wrote inside its own `workspace/` is never collected.
"""
from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable
from typing import SupportsIndex, overload
from pathlib import Path

from ..run_files import RunFiles
from ..runs.models import DetailReport
from ..runs.record import RunFileError, RunRecord, short_error

log = logging.getLogger(__name__)

REPORT_NAME = RunFiles.REPORT


class ReportList(list[DetailReport]):
    """A `list[DetailReport]` that also carries what happened while collecting.

    - `warnings`: one human-readable line per skipped report / missing path / duplicate.
    - `run_dirs`: run_id -> the run directory its report was read from.
    """

    def __init__(self, items: Iterable[DetailReport] = (), *,
                 warnings: list[str] | None = None,
                 run_dirs: dict[str, Path] | None = None):
        super().__init__(items)
        self.warnings: list[str] = list(warnings or [])
        self.run_dirs: dict[str, Path] = dict(run_dirs or {})

    @overload
    def __getitem__(self, key: SupportsIndex) -> DetailReport: ...
    @overload
    def __getitem__(self, key: slice) -> ReportList: ...

    def __getitem__(self, key: SupportsIndex | slice) -> DetailReport | ReportList:
        # a slice keeps the warnings and run dirs
        if isinstance(key, slice):
            return ReportList(super().__getitem__(key), warnings=self.warnings, run_dirs=self.run_dirs)
        return super().__getitem__(key)


def _find_report_files(root: Path, warn: Callable[[str], None] | None = None) -> list[Path]:
    """Every detail_report.json under root; run directories are leaves."""
    found: list[Path] = []

    def onerror(exc: OSError) -> None:
        if warn is not None:
            warn(f"{exc.filename}: cannot list ({exc.strerror or exc})")

    for dirpath, dirnames, filenames in os.walk(root, onerror=onerror, followlinks=False):
        if REPORT_NAME in filenames:
            found.append(Path(dirpath) / REPORT_NAME)
            dirnames[:] = []  # a run dir: do not look inside workspace/ etc.
            continue
        # hidden folders (a sweep's archived `.attempts/`, tool caches) hold no board runs
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
    return sorted(found)


def load_report(path: Path) -> DetailReport:
    """The report of the run folder `path` is in (through RunRecord, runs/record.py); raises
    RunFileError on any problem (callers that must not crash catch)."""
    report = RunRecord.open(Path(path).parent).report
    if report is None:
        raise RunFileError(Path(path), "no such file")
    return report


def collect_reports(paths: Iterable[Path | str]) -> ReportList:
    """Collect the detail reports under `paths` (see module doc). Never raises for bad data."""
    warnings: list[str] = []
    files: list[Path] = []
    seen_files: set[Path] = set()

    def warn(msg: str) -> None:
        warnings.append(msg)
        log.warning(msg)

    for raw in paths:
        p = Path(raw)
        try:
            if p.is_file():
                candidates = [p] if p.name == REPORT_NAME else []
                if not candidates:
                    warn(f"{p}: not a {REPORT_NAME} file; ignored")
            elif p.is_dir():
                candidates = _find_report_files(p, warn)
                if not candidates:
                    warn(f"{p}: no {REPORT_NAME} found")
            else:
                warn(f"{p}: no such file or directory")
                candidates = []
        except OSError as exc:  # permission problems while walking
            warn(f"{p}: {short_error(exc)}")
            candidates = []
        for f in candidates:
            key = f.resolve()
            if key not in seen_files:  # same file reached through two given paths
                seen_files.add(key)
                files.append(f)

    reports: list[DetailReport] = []
    run_dirs: dict[str, Path] = {}
    for f in files:
        try:
            rep = load_report(f)
        except RunFileError as exc:  # any bad report is skipped, never fatal
            warn(f"{f}: skipped ({exc.why})")
            continue
        rid = rep.run.run_id
        if rid in run_dirs:
            warn(f"{f}: duplicate run_id {rid!r} (already read from {run_dirs[rid]}); skipped")
            continue
        run_dirs[rid] = f.parent
        reports.append(rep)
    return ReportList(reports, warnings=warnings, run_dirs=run_dirs)
