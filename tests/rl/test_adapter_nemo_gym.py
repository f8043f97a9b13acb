"""The NeMo Gym adapter (docs/rl.md "Frameworks"), exercised by NeMo Gym's own servers (`ng_run`:
its simple_agent and vllm_model beside our resources server) and rollout collection
(`ng_collect_rollouts +num_repeats=4`) against the loopback server that replays scripted tool
calls: the docs' example (examples/rl/nemo_gym_collect.py) collects 4 groups of 4 episodes, and
each reward NeMo Gym reports equals the overall score `automedbench score` writes for that run
folder. An episode that ended as infrastructure is NeMo Gym's failure row, never a reward.

nemo-gym 0.4.0 needs Python >= 3.12 and an openai the verifiers pin excludes: it runs in its own
venv (`make test-rl-nemo-gym`); elsewhere these tests skip and say so."""
import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("nemo_gym", reason="the NeMo Gym adapter needs nemo-gym 0.4.0 (Python >= 3.12, its own venv, extra [rl-nemo-gym]): "
                    "run `make test-rl-nemo-gym`")

REPO = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.slow, pytest.mark.bwrap,
              pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed"),
              pytest.mark.filterwarnings("ignore::RuntimeWarning")]


def _example():
    spec = importlib.util.spec_from_file_location("nemo_gym_collect", REPO / "examples" / "rl" / "nemo_gym_collect.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _scored_overall(run_dir: str) -> float | None:
    """`automedbench score RUN_DIR` re-scores the folder; the number is read from the file it writes."""
    report = Path(run_dir) / "detail_report.json"
    report.unlink()
    done = subprocess.run([sys.executable, "-m", "automedbench", "score", run_dir],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(report.read_text())["overall"]


def test_sixteen_episodes_through_nemo_gym_collection_equal_the_run_folders_scores(tmp_path):
    rows = _example().main(["--out", str(tmp_path), "--groups", "4", "--per-group", "4"])
    assert len(rows) == 16 and [(r["group"], r["rollout"]) for r in rows] == [(g, k) for g in range(4) for k in range(4)]
    assert len({r["run_dir"] for r in rows}) == 16
    assert [r["seed"] for r in rows] == [g * 1000 + k for g in range(4) for k in range(4)]
    assert not any(r["failed"] or r["infra"] for r in rows)
    for r in rows:
        scored = _scored_overall(r["run_dir"])
        assert scored is not None and r["reward"] == scored == r["components"]["overall"], r
        rec = json.loads(Path(r["run_dir"], "run.json").read_text())
        assert rec["episode"]["group"] == f"nemo-gym-{r['group']}" and rec["episode"]["seed"] == r["seed"]
    # the scripted variants (each played by 4 of the 16 conversations, in the order they start) differ
    # in quality: the rewards are not one number
    assert len({r["reward"] for r in rows}) >= 3, [r["reward"] for r in rows]
    # NeMo Gym's own files: every rollout in its rollouts jsonl, none in the failures sidecar
    work = tmp_path / "nemo_gym"
    assert len((work / "rollouts.jsonl").read_text().splitlines()) == 16
    assert not (work / "rollouts_failures.jsonl").read_text().strip()


def test_an_infra_episode_is_nemo_gyms_failure_row_not_a_reward(tmp_path):
    """The servers' sandbox cannot start (a missing runtime): each episode ends as infrastructure
    at /seed_session; /verify marks it, and NeMo Gym's collection files it as a failure."""
    ex = _example()
    server, options = _example_scripted(tmp_path)
    try:
        rows = ex.collect(server.url, "fake-model", tmp_path, task="brain-lesion-seg", tier="lite", options=options,
                          groups=1, per_group=2,
                          server_env={"AUTOMEDBENCH_AGENT_RUNTIME": str(tmp_path / "no-such-runtime")})
    finally:
        server.stop()
    assert len(rows) == 2 and all(r["failed"] and r["infra"] for r in rows)
    assert all(r["failure_class"] == "automedbench_infra" and r["end_reason"] == "infra_error" for r in rows)
    work = tmp_path / "nemo_gym"
    assert not (work / "rollouts.jsonl").read_text().strip()     # what aggregation and training read
    assert len((work / "rollouts_failures.jsonl").read_text().splitlines()) == 2
    for r in rows:
        report = json.loads(Path(r["run_dir"], "detail_report.json").read_text())
        assert report["overall"] is None and report["run"]["end_detail"] == "sandbox_start_failed"


def test_the_network_option_reaches_the_episodes_sandbox(tmp_path):
    """The resources server's `network`: unset, the task decides (brain-lesion-seg says on);
    false, the episode's sandbox has none (run.json's limits record what ran)."""
    from automedbench.rl import MedEnv
    from automedbench.rl.adapters.nemo_gym import AutoMedBenchResourcesServerConfig, run_options
    from tests.helpers import tiny_lesion_dataset

    tiny_lesion_dataset(tmp_path / "data" / "mni-brain-lesion", n_cases=3)
    fields = {"task_id": "brain-lesion-seg", "data_root": str(tmp_path / "data"), "sandbox": "bwrap"}
    assert run_options(AutoMedBenchResourcesServerConfig.model_construct(**fields)).network is None
    off = run_options(AutoMedBenchResourcesServerConfig.model_construct(**fields, network=False))
    assert off.network is False
    env = MedEnv("brain-lesion-seg", "lite", out_dir=tmp_path / "eps", options=off)
    obs = env.reset(seed=0)
    env.close()
    assert json.loads(Path(obs.run_dir, "run.json").read_text())["limits"]["network"] is False


def _example_scripted(out: Path):
    spec = importlib.util.spec_from_file_location("verifiers_collect", REPO / "examples" / "rl" / "verifiers_collect.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.scripted_setup(out)
