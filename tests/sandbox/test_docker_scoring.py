"""A docker run is scored in a scoring container of its own (no network, the run read-only,
the only place the private references are mounted), and gives the in-process score."""
from __future__ import annotations

import json
import logging
import os
from pathlib import Path

import pytest

from automedbench import api
from automedbench.datasets import stage
from automedbench.runs.models import DetailReport
from automedbench.scoring.score_run import score_run

WHERE = ("scoring_container", "scoring_netns", "scoring_interfaces", "scored_outside_container")
pytestmark = pytest.mark.slow   # a whole docker run and its scoring container (~15 s, docs/testing.md)


def _scores(report: DetailReport) -> dict:
    """The report less where it was scored."""
    out = report.model_dump()
    out["versions"] = {k: v for k, v in out["versions"].items() if k not in WHERE}
    out["flags"] = [f for f in out["flags"] if f != "scored_outside_container"]
    return out


def _tree(run_dir: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(run_dir)): (p.stat().st_mtime_ns, p.stat().st_size)
            for p in sorted(run_dir.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def docker_run(docker_image, tmp_path_factory):
    """The reference agent on a demo task in the docker sandbox, scored as `run` scores it."""
    root = tmp_path_factory.mktemp("dkr-score")
    stage("mni-brain-lesion", root / "data", n_cases=2, quiet=True)
    old = os.environ.get("AUTOMEDBENCH_DOCKER_IMAGE")
    os.environ["AUTOMEDBENCH_DOCKER_IMAGE"] = docker_image
    try:
        report = api.run_one("brain-lesion-seg", "standard", "reference", root / "runs", api.RunOptions(sandbox="docker",
                             data_root=root / "data", network=False))
    finally:
        if old is None:
            os.environ.pop("AUTOMEDBENCH_DOCKER_IMAGE", None)
        else:
            os.environ["AUTOMEDBENCH_DOCKER_IMAGE"] = old
    run_dir = report.run_dir
    saved = DetailReport.model_validate_json((run_dir / "detail_report.json").read_text())
    assert _scores(saved) == _scores(report) and saved.versions == report.versions
    return run_dir, saved


def test_docker_run_is_scored_in_a_container_without_network(docker_run, docker_image):
    run_dir, r = docker_run
    assert r.run.sandbox == f"docker@{docker_image}" and r.run.end_reason == "submitted"
    v = r.versions
    # scored by the container the harness started (its name is its hostname; the agent's
    # container is called `sandbox` inside), in a network namespace of its own with loopback only
    assert v["scoring_container"].startswith("amb-score-"), v
    assert v["scoring_netns"].startswith("net:[") and v["scoring_netns"] != os.readlink("/proc/self/ns/net")
    assert v["scoring_interfaces"] == "lo"
    assert "scored_outside_container" not in r.flags and "scored_outside_container" not in v
    assert r.task.score is not None and r.task.score > 0.6 and r.task.completion_rate == 1.0


def test_container_score_equals_the_in_process_score(docker_run, tmp_path):
    run_dir, in_container = docker_run
    here = score_run(run_dir, out_dir=tmp_path)   # out_dir: score in this process
    assert "scoring_container" not in here.versions
    assert _scores(here) == _scores(in_container)
    assert json.loads((tmp_path / "detail_report.json").read_text())["overall"] == in_container.overall


def test_rescoring_in_the_container_writes_only_the_report(docker_run):
    run_dir, first = docker_run
    before = _tree(run_dir)
    again = api.score(run_dir)
    after = _tree(run_dir)
    changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
    # judge.json reused, workspace untouched; the thumbnails are drawn again (same cases, same names)
    assert [k for k in changed if not k.startswith("pictures/")] == ["detail_report.json"], changed
    assert sorted(k for k in after if k.startswith("pictures/")) == sorted(k for k in before if k.startswith("pictures/"))
    assert any(k.startswith("pictures/") and k.endswith(".png") for k in after), "scoring in the container drew no picture"
    assert again.versions["scoring_container"] != first.versions["scoring_container"]   # a fresh container
    assert _scores(again) == _scores(first)


def test_no_engine_at_scoring_time_scores_in_process_loudly(docker_run, monkeypatch, caplog, tmp_path):
    run_dir, in_container = docker_run
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/no-engine.sock")
    with caplog.at_level(logging.WARNING, logger="automedbench.scoring.score_run"):
        r = api.score(run_dir)
    assert "scored_outside_container" in r.flags
    assert "no Docker engine" in r.versions["scored_outside_container"]
    assert "scoring_container" not in r.versions
    assert any("not in a scoring container" in rec.getMessage() for rec in caplog.records)
    assert _scores(r) == _scores(in_container)
    saved = DetailReport.model_validate_json((run_dir / "detail_report.json").read_text())
    assert "scored_outside_container" in saved.flags


def test_a_scoring_container_that_cannot_start_its_command_is_tried_once_more(docker_run, docker_image, monkeypatch,
                                                                               caplog):
    """docs/sandbox.md: a container whose command was never exec'd (the engine's start-up race,
    seen under load as `exec ...: no such file or directory`) is replaced by a second one; when
    that fails too the run is scored in process, saying both failed. Made to fail for real here:
    the command names an interpreter the container does not have."""
    from automedbench.errors import ScoringContainerUnavailable
    from automedbench.sandbox.docker.backend import command_never_started, score_in_container

    run_dir, report = docker_run
    data_root = run_dir.parents[1] / "data"   # the fixture's root: runs/ and data/ side by side
    monkeypatch.setattr("sys.executable", "/nonexistent/python3")
    with caplog.at_level(logging.WARNING, logger="automedbench.sandbox.docker.backend"):
        with pytest.raises(ScoringContainerUnavailable, match=r"a second container too") as raised:
            score_in_container(run_dir, sandbox=report.run.sandbox, dataset_root=data_root / "mni-brain-lesion",
                               tasks_dirs=[])
    assert "no such file or directory" in str(raised.value).lower(), raised.value
    assert [r.getMessage() for r in caplog.records if "trying a new one" in r.getMessage()], caplog.records
    assert not command_never_started(1, "Traceback: ValueError: bad case")   # a scorer that ran and failed: no retry
