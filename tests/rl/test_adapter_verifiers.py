"""The verifiers adapter (docs/rl.md "Frameworks"), exercised by verifiers' own rollout collection
(`env.evaluate`) against the loopback server that replays scripted tool calls: the docs' example
(examples/rl/verifiers_collect.py) collects 4 groups of 4 episodes, and each reward verifiers
reports equals the overall score `automedbench score` writes for that run folder. An episode the
provider ended is verifiers' infrastructure error, never a reward of 0."""
import importlib.util
import json
import math
import shutil
from pathlib import Path

import pytest

from automedbench.lifecycle import rescore
from tests.cli_forkserver import run_cli

pytest.importorskip("verifiers", reason="the verifiers adapter needs the [rl] extra: pip install -e '.[rl]'")

REPO = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.slow, pytest.mark.bwrap,
              pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed"),
              pytest.mark.filterwarnings("ignore::RuntimeWarning"), pytest.mark.filterwarnings("ignore::UserWarning")]


def _example():
    spec = importlib.util.spec_from_file_location("verifiers_collect", REPO / "examples" / "rl" / "verifiers_collect.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _scored_overall(run_dir: str, cli: bool = True) -> float | None:
    """`automedbench score RUN_DIR` (or the API it calls, lifecycle.rescore) re-scores the folder
    from its outputs and trace; the number is read from the detail_report.json it writes."""
    report = Path(run_dir) / "detail_report.json"
    report.unlink()
    if cli:
        done = run_cli(["score", run_dir], timeout=300)
        assert done.returncode == 0, done.stderr
    else:
        rescore(run_dir)
    return json.loads(report.read_text())["overall"]


def test_sixteen_episodes_through_verifiers_evaluate_equal_the_run_folders_scores(tmp_path):
    rows = _example().main(["--out", str(tmp_path), "--groups", "4", "--per-group", "4"])
    assert len(rows) == 16 and sorted(r["group"] for r in rows) == [g for g in range(4) for _ in range(4)]
    assert len({r["run_dir"] for r in rows}) == 16 and len({r["seed"] for r in rows}) == 16
    assert all(Path(r["run_dir"], "run.json").is_file() for r in rows)
    assert not any(r["infra"] or r["error"] for r in rows)
    hashes = set()
    for i, r in enumerate(rows):
        scored = _scored_overall(r["run_dir"], cli=i % 4 == 0)   # the CLI for one a group (each starts a process)
        assert scored is not None and r["reward"] == scored, r
        assert r["metrics"]["overall"] == scored
        rec = json.loads(Path(r["run_dir"], "run.json").read_text())
        assert rec["run"]["agent"] == "external" and rec["episode"]["group"] == f"verifiers-{r['group']}"
        assert rec["episode"]["seed"] == r["seed"]
        # the policy is the model verifiers asked (docs/rl.md "Which policy"): one configuration for all 16
        assert rec["agent_config"]["kind"] == "external" and rec["agent_config"]["model"] == "fake-model"
        hashes.add(rec["run"]["config_hash"])
    assert len(hashes) == 1
    # the scripted variants (each played by 4 of the 16 conversations, in the order they start) differ
    # in quality: the rewards are not one number
    assert len({r["reward"] for r in rows}) >= 3, [r["reward"] for r in rows]
    assert json.loads((tmp_path / "rollouts.json").read_text()) == rows


def test_a_provider_failure_is_verifiers_infra_error_not_reward_zero(tmp_path):
    rows = _example().main(["--out", str(tmp_path), "--groups", "1", "--per-group", "3",
                            "--order", "fail,full,submit_only"])
    failed = [r for r in rows if r["infra"]]
    ok = [r for r in rows if not r["infra"]]
    assert len(failed) == 1 and len(ok) == 2
    bad = failed[0]
    assert bad["reward"] is None and bad["end_reason"] == "infra_error"
    assert "InfraError" in json.dumps(bad["error"]) or "infrastructure" in json.dumps(bad["error"])
    assert all(v is None for k, v in bad["metrics"].items() if k in ("task", "agentic", "overall"))
    report = json.loads(Path(bad["run_dir"], "detail_report.json").read_text())
    assert report["overall"] is None
    assert (report["run"]["end_reason"], report["run"]["end_detail"]) == ("infra_error", "provider_error")
    assert ok[0]["reward"] == _scored_overall(ok[0]["run_dir"]) and not math.isnan(ok[0]["reward"])
    # the group's statistics (docs/rl.md "Group statistics over verifiers rollouts"): verifiers' own
    # are lost to the infra rollout (avg_reward NaN, every advantage 0); the example's group_stats
    # drops it and normalises over the two scored rollouts, whose rewards differ
    assert rows[0]["verifiers_avg_reward"] is None and all(r["verifiers_advantage"] == 0 for r in rows)
    assert ok[0]["reward"] != ok[1]["reward"] and bad["advantage"] is None
    best, worst = sorted(ok, key=lambda r: r["reward"], reverse=True)
    assert best["advantage"] == pytest.approx(1.0, abs=1e-4) and worst["advantage"] == pytest.approx(-1.0, abs=1e-4)


def test_unknown_task_is_a_clear_error_before_any_rollout(tmp_path):
    import verifiers as vf

    from automedbench.errors import UserError
    # verifiers wraps a loader's error in its own RuntimeError; ours is the cause, with its message
    with pytest.raises(RuntimeError, match="unknown task 'no-such-task'") as caught:
        vf.load_environment("automedbench.rl.adapters.verifiers_env", task_id="no-such-task", out_dir=tmp_path)
    assert isinstance(caught.value.__cause__, UserError)
    assert not any(tmp_path.iterdir())
