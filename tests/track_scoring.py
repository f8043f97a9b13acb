"""Helpers for the track tests: score a workspace through the core's own scorer
(scoring.task_score.score_workspace), and run scripted-agent code in a workspace."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from automedbench.scoring.task_score import score_workspace


def score_outputs(track, dataset_root: Path, outputs: Path, options):
    """(TaskResult, one CaseRecord per expected case) for `<workspace>/outputs`."""
    assert outputs.name == "outputs", "score_workspace reads <workspace>/outputs"
    manifest = json.loads((dataset_root / "manifest.json").read_text())
    cases = [{k: v for k, v in c.items() if k != "files"} for c in manifest["cases"]]
    result, outcomes = score_workspace(track, outputs.parent, dataset_root / "private", cases, options)
    return result, [o.record for o in outcomes]


def run_scripted(code: str, workspace: Path) -> str:
    """Run one piece of scripted-agent code in the workspace (cwd), as execute_code does."""
    workspace.mkdir(parents=True, exist_ok=True)
    r = subprocess.run([sys.executable, "-c", code], cwd=workspace, capture_output=True, text=True,
                       timeout=300, check=False)
    assert r.returncode == 0, r.stderr[-2000:]
    return r.stdout
