"""The call-graph walk of a real run (docs/architecture.md "The walk"): a task id from `run_one`
to the record, and the run folder through `score`, traced call by call (bench/call_walk.py).
Each function on the path is entered once, but for the ones `REPEATS` names with their reason;
no call climbs from a lower layer to a higher one; the task id is resolved once."""
import importlib.util
import shutil
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")]
BENCH = Path(__file__).resolve().parents[1] / "bench"


def _bench(name):
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module        # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def walks(tmp_path_factory, staged_once):
    call_walk = _bench("call_walk")
    root = tmp_path_factory.mktemp("walk-data")
    staged_once("xray-markers", root)
    run_walk, score_walk = call_walk.walk("xray-marker-det", "reference", "bwrap", root,
                                          tmp_path_factory.mktemp("walk-runs"))
    return call_walk, run_walk, score_walk, call_walk.code_stats().read_layers(BENCH.parent / "pyproject.toml")


def test_each_function_on_the_run_path_is_entered_once(walks):
    call_walk, run_walk, _, layers = walks
    entries = run_walk.entries
    for step in ("automedbench.lifecycle.run:run_one", "automedbench.lifecycle.prepare:prepare_run",
                 "automedbench.tasks:get_task", "automedbench.lifecycle.session:open_run",
                 "automedbench.lifecycle.act:act", "automedbench.lifecycle.session:close_run",
                 "automedbench.scoring.score_run:score_run"):
        assert entries[step] == 1, (step, entries[step])
    assert run_walk.unexplained() == {}, call_walk.describe("run", run_walk, layers)
    assert set(run_walk.repeated()) <= set(call_walk.REPEATS)
    assert run_walk.climbs(layers) == []


def test_each_function_on_the_score_path_is_entered_once(walks):
    call_walk, _, score_walk, layers = walks
    entries = score_walk.entries
    for step in ("automedbench.api:score", "automedbench.scoring.score_run:score_run",
                 "automedbench.scoring.score_run:load_meta", "automedbench.tasks:get_task",
                 "automedbench.scoring.score_run:judge_verdict"):
        assert entries[step] == 1, (step, entries[step])
    assert score_walk.unexplained() == {}, call_walk.describe("score", score_walk, layers)
    assert score_walk.climbs(layers) == []
