"""Groups for GRPO (docs/rl.md "Groups"): n episodes of one task instance with different seeds on
the sweep executors, their rewards read back from the run folders, mean and std over the
non-infra episodes, infra episodes listed apart."""
import json
import socket
import statistics

import pytest

from automedbench.errors import UserError
from automedbench.rl import RewardComponents, run_group
from automedbench.run_files import RunFiles

from .conftest import needs_bwrap
from .policies import ReplayPolicy, SomeSeedsDown, looks_and_submits, scripted_llm_messages

pytestmark = [needs_bwrap, pytest.mark.slow, pytest.mark.filterwarnings("ignore::RuntimeWarning")]
TASK, TIER = "brain-lesion-seg", "lite"


def _dead_url() -> str:
    with socket.socket() as s:       # a port nothing listens on: connections are refused
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def test_a_group_of_four_on_two_workers(options, tmp_path):
    """Seeds 0..3 on a process pool of 2: seeds 0 and 2 replay a worked trajectory, 1 looks and
    submits, 3's provider is down (infra: listed apart, out of the mean and std)."""
    policy = SomeSeedsDown(ReplayPolicy([scripted_llm_messages(), looks_and_submits()]), {3}, _dead_url())
    group = run_group(TASK, TIER, 4, policy, workers=2, out_dir=tmp_path, options=options, group_id="g1")
    assert [e.seed for e in group.episodes] == [0, 1, 2, 3] and len({e.run_dir for e in group.episodes}) == 4
    assert [e.index for e in group.infra] == [3] and group.episodes[3].reward is None
    assert group.episodes[3].components.end_detail == "provider_unavailable"
    scored = [e.reward for e in group.episodes[:3]]
    assert all(r is not None for r in scored) and scored[0] == scored[2] and scored[0] > scored[1]
    assert group.rewards == scored
    assert group.mean == pytest.approx(statistics.fmean(scored)) and group.mean is not None
    assert group.std == pytest.approx(statistics.pstdev(scored)) and group.std > 0
    adv = group.advantages()
    assert adv[3] is None and adv[0] > 0 > adv[1]
    for e in group.episodes:
        assert e.error is None, e.error
        assert RewardComponents.from_run_dir(e.run_dir).model_dump() == e.components.model_dump()
        meta = json.loads(RunFiles(e.run_dir).meta.read_text())
        assert meta["episode"]["group_id"] == "g1" and meta["episode"]["seed"] == e.seed
        assert meta["case_ids"] == ["case_000", "case_001", "case_002"]    # one task instance for every seed
    assert len({e.worker for e in group.episodes}) == 2      # the pool's two worker processes


def test_user_errors_stop_a_group_before_any_episode(options, tmp_path):
    with pytest.raises(UserError, match="unknown task|no-such-task"):
        run_group("no-such-task", TIER, 2, ReplayPolicy([looks_and_submits()]), out_dir=tmp_path, options=options)
    with pytest.raises(UserError, match="2 episodes but 1 seeds"):
        run_group(TASK, TIER, 2, ReplayPolicy([looks_and_submits()]), seeds=[5], out_dir=tmp_path, options=options)
    assert not any(tmp_path.rglob("run.json"))


def test_a_group_on_ray(options, tmp_path):
    """The same group on a local Ray instance (2 CPUs): each episode a Ray task, not this process."""
    ray = pytest.importorskip("ray", reason="Ray is not installed: pip install 'automedbench[ray]'")
    import os
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        group = run_group(TASK, TIER, 2, ReplayPolicy([looks_and_submits()]), workers=2, executor="ray",
                          out_dir=tmp_path, options=options)
    finally:
        ray.shutdown()
    assert [e.error for e in group.episodes] == [None, None]
    assert group.rewards[0] == group.rewards[1] and group.std == 0.0 and not group.infra
    assert str(os.getpid()) not in {e.worker.rsplit(":", 1)[1] for e in group.episodes}
    for e in group.episodes:
        assert RewardComponents.from_run_dir(e.run_dir).model_dump() == e.components.model_dump()
