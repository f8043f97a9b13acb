"""The judge's replays lay the workspace down as the agent had it, owned by the sandbox's uid
(lifecycle/experiments.py `_reset`, docs/judge.md "Experiments"): a replayed call may write into
a folder an earlier call made, or rewrite a file. The reference agent's look copies its check
script into `scripts/`, which its setup call made; with the folder laid down as the harness's,
every replay of that look failed on the copy (PermissionError) and the look was left to the
recorded facts ("it exited 1, the recorded call 0")."""
from __future__ import annotations

import json
import shutil

import pytest

from automedbench import api

pytestmark = [pytest.mark.slow, pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")]


def test_a_look_that_writes_into_an_earlier_folder_is_replayed(tmp_path, staged_once):
    staged_once("mni-brain-lesion", tmp_path / "data", n_cases=3)
    report = api.run_one("brain-lesion-seg", "lite", "reference", tmp_path / "runs",
                         api.RunOptions(sandbox="bwrap", data_root=tmp_path / "data", network=False))
    experiments = json.loads((report.run_dir / "evidence" / "experiments.json").read_text())
    (look,) = [c for c in experiments["calls"] if c["mutated"]]
    assert look["decidable"], look["why"]
    assert all(v["exit_code"] == 0 for v in look["variants"] if not v["malign"]), look
    assert any(v["malign"] and v["changed"] for v in look["variants"]), look
    code = json.loads((report.run_dir / "conversation.json").read_text())
    assert "scripts/s3_inspect.py" in json.dumps(code)     # the look writes into scripts/, made earlier
