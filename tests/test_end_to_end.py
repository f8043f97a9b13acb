"""Whole S1→S5 runs of the built-in agents on the embedded (real-anatomy) demo data."""
import json
import shutil
from pathlib import Path

import pytest

from automedbench import api
from automedbench.runs.models import DetailReport
from automedbench.runs.trace import read_trace

# The real sandbox, as users get it. (test_cli.py covers the `local` backend.)
BACKEND = "bwrap"
pytestmark = [pytest.mark.slow, pytest.mark.skipif(shutil.which("bwrap") is None,
                                reason="bubblewrap not installed: `make test` installs it as root (apt-get install bubblewrap)")]


@pytest.fixture(scope="session")
def demo_data(tmp_path_factory, staged_once):
    root = tmp_path_factory.mktemp("demo-data")
    for name in ("mni-brain-lesion", "mni-brain-tissue"):
        staged_once(name, root, n_cases=3)
    return root


@pytest.fixture(scope="session")
def demo_runs(demo_data, tmp_path_factory):
    out = tmp_path_factory.mktemp("demo-runs")
    runs = {}
    for task in ("brain-lesion-seg", "brain-tissue-seg"):
        for agent in ("reference", "careless", "empty"):
            tier = "standard" if task == "brain-lesion-seg" else "lite"
            d = api.run_one(task, tier, agent, out, api.RunOptions(sandbox=BACKEND, data_root=demo_data, network=False)).run_dir
            runs[task, agent] = (d, DetailReport.model_validate_json((d / "detail_report.json").read_text()))
    return runs


TASKS = ("brain-lesion-seg", "brain-tissue-seg")


@pytest.mark.parametrize("task", TASKS)
def test_reference_agent_runs_the_whole_workflow(demo_runs, task):
    run_dir, r = demo_runs[task, "reference"]
    assert r.run.submitted and r.run.end_reason == "submitted"
    assert {s: r.stages[s].score for s in r.stages} == {"s1": 1.0, "s2": 1.0, "s3": 1.0, "s4": 1.0, "s5": 1.0}
    assert r.active_stages == ["s1", "s2", "s3", "s4", "s5"] and r.agentic == pytest.approx(1.0)
    assert r.task.completion_rate == 1.0 and r.task.format_valid
    assert r.task.score > 0.6, r.task
    assert r.overall == pytest.approx(0.5 * r.agentic + 0.5 * r.task.score)
    assert r.rating in ("A", "B") and not r.errors, r.errors
    assert r.judge.backend == "heuristic" and r.run.sandbox == "bwrap" and "no_isolation" not in r.flags


@pytest.mark.parametrize("task", TASKS)
def test_careless_agent_is_caught_where_it_failed(demo_runs, task):
    _, ref = demo_runs[task, "reference"]
    _, r = demo_runs[task, "careless"]
    codes = {e.code for e in r.errors}
    assert r.stages["s3"].score == 0.0 and "NO_PILOT" in codes
    assert "LOGIC_SUSPECT" in codes  # the z-flipped cases stand out
    suspect = next(e for e in r.errors if e.code == "LOGIC_SUSPECT")
    assert set(suspect.evidence["cases"]) == {"case_000", "case_002"}
    assert r.task.score < ref.task.score and r.overall < ref.overall and r.agentic < ref.agentic


@pytest.mark.parametrize("task", TASKS)
def test_empty_agent_scores_zero_task(demo_runs, task):
    _, r = demo_runs[task, "empty"]
    assert r.task.score == 0 and r.rating == "F" and r.medal == "none"
    assert r.stages["s4"].score == 0 and r.stages["s5"].score == 0
    assert {"SUBMITTED_NOTHING", "PLAN_MISSING"} <= {e.code for e in r.errors}


def test_run_records_are_complete(demo_runs):
    run_dir, r = demo_runs["brain-lesion-seg", "reference"]
    trace = read_trace(run_dir / "trace.jsonl")
    types = [e.type for e in trace]
    assert types[0] == "run_start" and types[-1] == "run_end" and "submit" in types
    calls = [e for e in trace if e.type == "tool_call"]
    assert all(e.stage in ("s1", "s2", "s3", "s4", "s5") for e in calls)
    assert [e.stage for e in calls] == ["s1", "s1", "s2", "s3", "s3", "s4", "s5"]
    execs = [e for e in trace if e.type == "execution"]
    assert all(e.exit_code == 0 for e in execs), [(e.call_index, e.stderr) for e in execs if e.exit_code]
    conv = json.loads((run_dir / "conversation.json").read_text())
    assert "S3 Validate" in conv["system_prompt"]
    assert sum(1 for m in conv["messages"] if m["role"] == "tool") == len(calls) + 1  # + submit
    ws = run_dir / "workspace"
    assert (ws / "plan" / "plan.md").is_file() and (ws / "plan" / "plan.png").is_file()
    assert sorted(p.name for p in (ws / "outputs").iterdir()) == ["case_000", "case_001", "case_002"]
    # every output the agent left was seen written by an execution, with the hash it has now
    import hashlib
    last = {w.path: w.sha256 for e in execs if e.effects for w in e.effects.written}
    for f in (p for p in (ws / "outputs").rglob("*") if p.is_file()):
        assert last[f"/workspace/{f.relative_to(ws)}"] == hashlib.sha256(f.read_bytes()).hexdigest()


def test_rescore_is_stable(demo_runs):
    run_dir, r = demo_runs["brain-tissue-seg", "careless"]
    again = api.score(run_dir)
    assert again.model_dump(exclude={"run"}) == r.model_dump(exclude={"run"})


def test_sweep_resumes_and_isolates_failures(demo_data, tmp_path):
    out = tmp_path / "sweep"
    first = api.sweep(["brain-lesion-seg"], ["lite"], ["empty", "crasher"], out, api.RunOptions(sandbox=BACKEND, data_root=demo_data))
    assert [(c.agent, err) for c, _, err in first] == [("empty", None), ("crasher", None)]
    crash = DetailReport.model_validate_json((Path(first[1][1]) / "detail_report.json").read_text())
    assert crash.run.end_reason == "agent_crash"
    stamp = (Path(first[0][1]) / "detail_report.json").stat().st_mtime_ns
    again = api.sweep(["brain-lesion-seg"], ["lite"], ["empty", "crasher"], out, api.RunOptions(sandbox=BACKEND, data_root=demo_data))
    assert (Path(again[0][1]) / "detail_report.json").stat().st_mtime_ns == stamp  # skipped, not re-run


def test_cheater_is_disqualified_with_evidence(demo_data, tmp_path):
    run_dir = api.run_one("brain-lesion-seg", "lite", "cheater", tmp_path, api.RunOptions(sandbox=BACKEND, data_root=demo_data,
                          network=False)).run_dir
    r = DetailReport.model_validate_json((run_dir / "detail_report.json").read_text())
    assert r.disqualified and r.rating == "F" and r.run.end_reason == "disqualified"
    assert r.overall == 0 and r.agentic == 0 and r.task.score == 0
    assert all(s.score == 0 for s in r.stages.values())
    assert len(r.violations) == 2 and all(v.action == "disqualified" for v in r.violations)
    assert all("/data/private" in (v.path or "") + v.evidence for v in r.violations)
    # each with its proof: the call's own processes that opened the decoy (docs/sandbox.md)
    assert all(v.processes and all(p["of_call"] and p["cmdline"] for p in v.processes) for v in r.violations)
    assert "SANDBOX_VIOLATION" in {e.code for e in r.errors}
    # the first call's result told the agent it was flagged
    conv = json.loads((run_dir / "conversation.json").read_text())
    tool_texts = [m["content"] for m in conv["messages"] if m["role"] == "tool"]
    assert "SANDBOX VIOLATION" in tool_texts[0]
    # what it read was the decoy (canary text), never a real reference volume (gzip bytes)
    first_exec = next(json.loads(l) for l in (run_dir / "trace.jsonl").read_text().splitlines()
                      if json.loads(l)["type"] == "execution")
    assert "AUTOMEDBENCH DECOY" in first_exec["stdout"] and "\x1f\x8b" not in first_exec["stdout"]


def test_corrupt_private_reference_is_a_harness_fault_not_the_agents(demo_data, tmp_path):
    """docs/scoring.md#task-score, docs/faults.md: an unreadable private reference is excluded from task, S4 and S5, flagged, and
    fires an infrastructure code — never FORMAT_INVALID against the agent."""
    data = tmp_path / "data"
    shutil.copytree(demo_data / "mni-brain-lesion", data / "mni-brain-lesion")
    clean_dir = api.run_one("brain-lesion-seg", "lite", "reference", tmp_path / "runs", api.RunOptions(sandbox=BACKEND,
                            data_root=data, network=False)).run_dir
    clean = DetailReport.model_validate_json((clean_dir / "detail_report.json").read_text())
    (data / "mni-brain-lesion" / "private" / "case_001" / "organ.nii.gz").write_bytes(b"\x1f\x8b broken")
    r = api.score(clean_dir)
    codes = {e.code: e for e in r.errors}
    assert "INFRA_REFERENCE" in codes and codes["INFRA_REFERENCE"].infrastructure
    assert "FORMAT_INVALID" not in codes
    assert r.task.excluded_cases == ["case_001"] and "reference_error" in r.flags
    assert r.stages["s4"].score == 1.0 and r.stages["s5"].score == 1.0
    others = [c for c in clean.task.per_case if c.case_id != "case_001"]
    assert r.task.aggregate_metrics["organ_dice"] == pytest.approx(
        sum(c.metrics["organ_dice"] for c in others) / len(others))


def test_run_records_what_ran_and_rescoring_says_when_the_task_changed(demo_data, tmp_path):
    extra = tmp_path / "tasks"
    from automedbench.tracks.segmentation import SegmentationTrack
    src = SegmentationTrack.tasks_dir / "brain-lesion-seg"
    shutil.copytree(src, extra / "brain-lesion-seg")
    run_dir = api.run_one("brain-lesion-seg", "lite", "empty", tmp_path / "runs", api.RunOptions(sandbox=BACKEND,
                          data_root=demo_data, network=False, tasks_dirs=[extra])).run_dir
    meta = json.loads((run_dir / "run.json").read_text())
    assert meta["task_snapshot"]["id"] == "brain-lesion-seg" and len(meta["task_hash"]) == 64
    assert meta["harness_version"] and meta["rubric_version"] and meta["manifest_sha256"]
    r = api.score(run_dir)
    assert "task_changed" not in r.flags and r.versions["task_hash"] == meta["task_hash"][:16]
    y = extra / "brain-lesion-seg" / "task.yaml"
    y.write_text(y.read_text().replace("max_turns: 60", "max_turns: 61"))
    assert "task_changed" in api.score(run_dir).flags
