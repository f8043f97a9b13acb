"""A sweep uses the LLM answer judge the same way `automedbench run --answer-judge` does: the
judge is a run option (RunOptions.answer_judge), checked before any cell runs, recorded in
run.json, and asked (here: the loopback fake OpenAI server) when the VQA cells are scored."""
from __future__ import annotations

import json

import pytest
from tests.llm.fake_openai import FakeOpenAI, completion

from automedbench.api import run_sweep
from automedbench.datasets import stage
from automedbench.errors import UserError
from automedbench.runs.sweep import RunOptions, SweepSpec

from .conftest import reports_under


@pytest.fixture
def grader(tmp_path):
    """An answer-judge registry entry `grader` served by the fake server: every verdict is 1."""
    srv = FakeOpenAI().start()
    srv.default = lambda request: completion(content='{"score": 1}')
    cfg = tmp_path / "judges.yaml"
    cfg.write_text("agents:\n  - name: grader\n    model: grader-model\n"
                   f"    base_url: {srv.url}\n    timeout_s: 20\n    retry: {{max_retries: 0}}\n")
    try:
        yield srv, cfg
    finally:
        srv.stop()


def test_a_sweep_scores_with_the_answer_judge(tmp_path, grader, monkeypatch):
    srv, cfg = grader
    data = tmp_path / "data"
    stage("vqa-demo-open", data, quiet=True, n_cases=4, seed=1)
    monkeypatch.setenv("AUTOMEDBENCH_JUDGE_CACHE", str(tmp_path / "judge-cache"))
    options = RunOptions(sandbox="local", network=False, data_root=str(data), agent_configs=[str(cfg)],
                         answer_judge="grader")
    spec = SweepSpec(agents=["reference"], tasks=["vqa-demo-open"], tiers=["lite"], options=options)
    results = run_sweep(spec, tmp_path / "runs")
    assert [r.status for r in results] == ["done"], results
    (report_file,) = reports_under(tmp_path / "runs")
    task = json.loads(report_file.read_text())["task"]
    assert task["components"] == ["deterministic"], task   # the judge is beside the score, no component
    assert task["aggregate_metrics"]["judge_coverage"] == 1.0
    assert task["aggregate_metrics"]["judged_score"] == 1.0
    run_json = json.loads((report_file.parent / "run.json").read_text())
    assert run_json["answer_judge"] == "grader"
    asked = [r for r in srv.requests if (r["body"] or {}).get("model") == "grader-model"]
    assert len(asked) == 4                      # one verdict per question


def test_an_unknown_answer_judge_stops_the_sweep_before_any_run(tmp_path, grader):
    _, cfg = grader
    data = tmp_path / "data"
    stage("vqa-demo-open", data, quiet=True, n_cases=2, seed=1)
    options = RunOptions(sandbox="local", network=False, data_root=str(data), agent_configs=[str(cfg)],
                         answer_judge="no-such-judge")
    spec = SweepSpec(agents=["reference"], tasks=["vqa-demo-open"], tiers=["lite"], options=options)
    with pytest.raises(UserError, match="no-such-judge"):
        run_sweep(spec, tmp_path / "runs")
    assert not reports_under(tmp_path / "runs")


def test_a_sweep_without_an_answer_judge_keeps_its_lock_fingerprint():
    """The option is left out of the lock while unset, so sweep roots written before it
    existed still resume."""
    spec = SweepSpec(agents=["reference"], tasks=["vqa-demo-open"])
    assert "answer_judge" not in spec.lock_config()["options"]
    judged = spec.model_copy(update={"options": RunOptions(answer_judge="grader")})
    assert judged.lock_config()["options"]["answer_judge"] == "grader"
