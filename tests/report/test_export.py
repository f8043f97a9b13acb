"""`automedbench export RUN_DIR --format inspect`, read back with inspect_ai's own reader."""
from __future__ import annotations

import json

import pytest
from tests.cli_forkserver import run_cli
from tests.report.site_fixture import write_trace



def test_inspect_log_reads_back_with_inspect_ai(tmp_path, make_report, make_run):
    log_mod = pytest.importorskip("inspect_ai.log", reason="inspect_ai is not installed: pip install 'automedbench[inspect]'")
    r = make_report("run-7", agent="beta", task="seg-a", stages={"s1": 1.0, "s2": None, "s3": 0.0, "s4": 1.0, "s5": 1.0},
                    errors=[{"code": "NO_PILOT", "category": "verification/recovery", "step": "S3",
                             "evidence": {"call": 4}}], tokens_in=1234, tokens_out=56)
    d = make_run(tmp_path, r)
    write_trace(d)
    proc = run_cli(["export", str(d), "--format", "inspect", "--out", str(tmp_path / "log.json")], timeout=60)
    assert proc.returncode == 0, proc.stderr
    log = log_mod.read_eval_log(str(tmp_path / "log.json"))
    assert log.status == "success" and log.eval.task == "automedbench/seg-a"
    (sample,) = log.samples
    assert sample.id == "run-7"
    assert set(sample.scores) == {"overall", "agentic", "task", "s1", "s3", "s4", "s5"}   # null S2 left out
    assert sample.scores["overall"].value == pytest.approx(r.overall)
    assert sample.metadata["errors"][0]["code"] == "NO_PILOT"
    roles = [m.role for m in sample.messages]
    assert roles[0] == "system" and roles.count("assistant") == 6 and roles.count("tool") == 0
    calls = [m for m in sample.messages if m.role == "assistant"]
    assert calls[0].tool_calls[0].function == "execute_code" and calls[0].text == "Now step 1."
    assert log.stats.model_usage[log.eval.model].input_tokens == 1234
    metrics = log.results.scores[0].metrics
    assert metrics["task"].value == pytest.approx(r.task.score)


@pytest.mark.parametrize("name", ["log.eval", "log.json"])
def test_eval_zip_and_json_both_read_back_with_model_events(tmp_path, make_report, make_run, name):
    import zipfile
    log_mod = pytest.importorskip("inspect_ai.log", reason="inspect_ai is not installed: pip install 'automedbench[inspect]'")
    r = make_report("run-9", agent="beta", task="seg-a", tokens_in=600, tokens_out=120)
    d = make_run(tmp_path, r)
    write_trace(d)
    out = tmp_path / name
    proc = run_cli(["export", str(d), "--format", "inspect", "--out", str(out)], timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert zipfile.is_zipfile(out) == name.endswith(".eval")          # Inspect reads .eval as a zip
    log = log_mod.read_eval_log(str(out))
    (sample,) = log.samples
    assert sample.id == "run-9" and sample.scores["task"].value == pytest.approx(r.task.score)
    models = [e for e in sample.events if e.event == "model"]
    assert len(models) == 6                                          # one per model call in the trace
    assert all(e.output.usage.input_tokens == 100 and e.output.usage.output_tokens == 20 for e in models)
    assert models[0].working_time == pytest.approx(0.2)


def test_export_user_errors(tmp_path):
    for args in (["export", str(tmp_path)], ["export", str(tmp_path), "--format", "atif"]):
        proc = run_cli(args, timeout=60)
        assert proc.returncode == 2 and proc.stderr.startswith("error:"), proc.stderr
    (tmp_path / "detail_report.json").write_text(json.dumps({"run": 1}))
    proc = run_cli(["export", str(tmp_path)], timeout=60)
    assert proc.returncode == 2 and "unreadable report" in proc.stderr


@pytest.mark.parametrize("end_reason, status", [
    ("submitted", "success"), ("agent_finished", "success"), ("disqualified", "success"),
    ("infra_error", "error"), ("harness_error", "error"), ("interrupted", "error"),
    # schema 1.0's provider endings: runs/models.py reads them as infrastructure, so must export
    ("provider_error", "error"), ("provider_unavailable", "error"),
])
def test_runs_nobody_is_scored_on_export_as_errors(tmp_path, make_report, make_run, end_reason, status):
    from automedbench.export import inspect_log
    from automedbench.runs.models import UNSCORED_END_REASONS
    d = make_run(tmp_path, make_report("run-e", end_reason=end_reason, submitted=False))
    write_trace(d)
    log = inspect_log(d)
    assert log["status"] == status == ("error" if end_reason in UNSCORED_END_REASONS else "success")
    assert ("error" in log["samples"][0]) == (status == "error")
    if status == "error":
        assert end_reason in log["samples"][0]["error"]["message"]
