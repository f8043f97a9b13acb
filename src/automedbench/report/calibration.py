"""The judges' measured calibration for the leaderboard footer (docs/site.md "Leaderboard footer").

`automedbench judge-eval --save` writes a judge's last measurement (its EvalReport as JSON):
by default one file per judge under `<home>/calibration/`, or to a FILE given. `report` reads
the files named with `--judge-calibration`, else every file in that folder. The footer names
each judge the board's runs were scored with and its kappa per judged stage; a judge without
a measurement is shown as "not measured", never left out.
"""
from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from ..scoring.judge_eval import calibration_dir, judge_label


def default_calibration_files() -> list[Path]:
    """Every saved measurement in the default folder (`judge-eval --save` without a FILE)."""
    folder = calibration_dir()
    return sorted(folder.glob("*.json")) if folder.is_dir() else []


def load_calibrations(files: Iterable[Path] | None = None) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """({judge name: its measurement}, [warnings]) from `files`, else from the default folder.
    A file that is not a judge-eval result is skipped with a warning, never a crash. When two
    files measure one judge, the later file (by name order, then as given) wins."""
    if files is None:
        files = default_calibration_files()
    found: dict[str, dict[str, Any]] = {}
    warnings: list[str] = []
    for path in files:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
            judge, stages = data["judge"], data["stages"]
            if not isinstance(judge, dict) or not isinstance(stages, dict):
                raise TypeError("'judge' and 'stages' must be objects")
        except (OSError, ValueError, KeyError, TypeError) as exc:
            warnings.append(f"{path}: not a judge-eval --save result ({type(exc).__name__}: {exc}); calibration not shown")
            continue
        found[judge_label(judge)] = {
            "file": str(path), "n_trajectories": data.get("n_trajectories"), "n_labels": data.get("n_labels"),
            "tracks": [str(t) for t in data.get("tracks") or []], "tiers": [str(t) for t in data.get("tiers") or []],
            "floor_failures": len(data.get("floor_failures") or []),
            "stages": {s: (v.get("kappa") if isinstance(v, dict) else None) for s, v in sorted(stages.items())},
        }
    return found, warnings


def footer_rows(judges: Sequence[str], calibrations: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per judge of the board: its name and its measurement, or None (= not measured)."""
    return [{"name": j, "calibration": calibrations.get(j)} for j in judges]
