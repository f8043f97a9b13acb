"""docs/faults.md: faults are charged to whoever caused them. User errors stop before anything runs;
a sandbox that cannot start or dies ends the run as `infra_error`, never as the agent's F."""
import json
import shutil
from pathlib import Path

import pytest

from automedbench import api
from automedbench.runs.models import DetailReport
from automedbench.runs.trace import read_trace
from automedbench.sandbox import SANDBOX_BACKENDS, register_backend
from tests.helpers import amb, tiny_lesion_dataset

needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")

AGENT_CODES = {"PLAN_MISSING", "NO_PILOT", "SUBMITTED_NOTHING", "NOT_SUBMITTED", "MISSING_CASES"}


@pytest.mark.parametrize("args, env_extra, needle", [
    (["--sandbox", "nosuch"], {}, "unknown sandbox backend 'nosuch'"),
    (["--sandbox", "docker"], {"AUTOMEDBENCH_DOCKER_IMAGE": ""}, "AUTOMEDBENCH_DOCKER_IMAGE"),
    (["--judge", "nosuchjudge"], {}, "unknown agent/judge 'nosuchjudge'"),
    (["--judge", "gpt-4.1"], {"OPENAI_API_KEY": ""}, "OPENAI_API_KEY"),
])
def test_user_errors_stop_before_anything_runs(tiny, args, env_extra, needle):
    env, tmp = tiny
    out = tmp / "runs"
    for command in (["run", "--agent", "reference"], ["sweep", "--agent", "reference"]):
        proc = amb(*command, "--task", "tiny-seg", *args, "--out", out, env={**env, **env_extra}, check=False)
        assert proc.returncode == 2, proc.stderr
        assert needle in proc.stderr and "Traceback" not in proc.stderr
        assert len([line for line in proc.stderr.splitlines() if line.strip()]) == 1, proc.stderr
        assert not out.exists() or not any(out.rglob("run.json"))      # no run, no F charged to anyone


@needs_bwrap
def test_sandbox_that_cannot_start_is_infra_error_not_the_agents_f(tiny):
    env, tmp = tiny
    proc = amb("run", "--task", "tiny-seg", "--agent", "reference", "--sandbox", "bwrap", "--out", tmp / "runs",
               env={**env, "AUTOMEDBENCH_AGENT_RUNTIME": str(tmp / "no-such-runtime")}, check=False)
    assert proc.returncode == 1 and "infrastructure fault" in proc.stderr, proc.stderr
    run_dir = Path(proc.stdout.strip().splitlines()[-1])
    r = DetailReport.model_validate_json((run_dir / "detail_report.json").read_text())
    assert r.run.end_reason == "infra_error" and r.run.end_detail == "sandbox_start_failed"
    assert all(s.score is None for s in r.stages.values()) and r.active_stages == []
    assert r.agentic is None and r.task.score is None and r.overall is None and r.rating is None
    assert "infra_error" in r.flags and "judge_incomplete" not in r.flags
    codes = {e.code for e in r.errors}
    assert codes == {"INFRA_SANDBOX"} and not codes & AGENT_CODES
    assert "no-such-runtime" in r.errors[0].evidence["excerpt"]
    assert read_trace(run_dir / "trace.jsonl")[-1].kind == "infra_error"


@needs_bwrap
def test_sandbox_dying_under_the_agent_is_infra_error(tmp_path):
    """The host side of a real bwrap sandbox vanishes mid-run (as a /tmp cleaner would do)."""
    from automedbench.sandbox.bwrap.backend import BwrapSandbox

    class DiesAfterTwoCalls(BwrapSandbox):
        calls = 0

        def execute(self, language, code, timeout_s=None):
            DiesAfterTwoCalls.calls += 1
            if DiesAfterTwoCalls.calls == 3:
                shutil.rmtree(self._stage)
            return super().execute(language, code, timeout_s)

    tiny_lesion_dataset(tmp_path / "data" / "mni-brain-lesion", n_cases=2)
    register_backend("bwrap-dies", DiesAfterTwoCalls)
    try:
        run_dir = api.run_one("brain-lesion-seg", "lite", "reference", tmp_path / "runs", api.RunOptions(sandbox="bwrap-dies",
                              data_root=tmp_path / "data", network=False)).run_dir
    finally:
        SANDBOX_BACKENDS.remove("bwrap-dies")
    r = DetailReport.model_validate_json((run_dir / "detail_report.json").read_text())
    assert r.run.end_reason == "infra_error" and r.run.end_detail == "sandbox_died"
    assert [e.exit_code for e in read_trace(run_dir / "trace.jsonl") if e.type == "execution"] == [0, 0]
    assert r.overall is None and r.task.score is None and all(s.score is None for s in r.stages.values())
    assert {e.code for e in r.errors} == {"INFRA_SANDBOX"}
    # what the agent had written before is kept as a diagnostic, not scored
    assert (run_dir / "workspace" / "plan" / "plan.md").is_file()
    assert (run_dir / "conversation.json").is_file()


def test_version_and_help_name_what_options_take():
    assert amb("--version").stdout.strip().startswith("automedbench ")
    # every command's help in-process (typer's CliRunner runs the same app and prints the same
    # text, without a ~1 s interpreter start per command: docs/testing.md "Build once");
    # `run --help` below is the real subprocess.
    # An option shows what it takes (its metavar), a flag nothing; only an argument may carry
    # typer's type label (`TASK <str>`), which no public typer setting removes (docs/cli.md)
    from typer.testing import CliRunner

    from automedbench.cli import app
    for command in (["run"], ["sweep"], ["demo"], ["score"], ["judge"], ["report"], ["analyze"], ["export"],
                    ["prompt"], ["tasks", "show"], ["data", "stage"], ["agents", "list"], ["sandbox", "exec"], []):
        shown = CliRunner().invoke(app, [*command, "--help"], env={"COLUMNS": "200"}, prog_name="automedbench")
        text = shown.stdout
        assert shown.exit_code == 0 and "Usage: automedbench" in text, (shown.exit_code, text, shown.exception)
        assert "<bool>" not in text, text
        options = [line.strip().split("  ")[0] for line in text.splitlines() if line.strip().startswith("-")]
        assert "--help" in options and not [o for o in options if "<" in o], text
    run_help = amb("run", "--help", env={"COLUMNS": "200"}).stdout
    assert "lite|standard|pro" in run_help
    for option in ("--task", "--tier", "--agent", "--out", "--sandbox", "--network", "--judge", "--data-root",
                   "--tasks-dir", "--agent-config"):
        line = next(line for line in run_help.splitlines() if f" {option} " in line)
        assert len(line.split(option, 1)[1].split()) >= 2, f"{option} is not documented: {line!r}"


def test_runs_table_fits_the_terminal(tiny):
    env, tmp = tiny
    proc = amb("run", "--task", "tiny-seg", "--agent", "empty", "--sandbox", "local", "--out", tmp / "runs", env=env)
    run_dir = proc.stdout.strip().splitlines()[-1]
    for width in (80, 120):
        text = amb("score", run_dir, env={**env, "COLUMNS": str(width)}).stdout
        assert max(len(line) for line in text.splitlines()) <= width and "…" not in text, text
    report = json.loads((Path(run_dir) / "detail_report.json").read_text())
    # Lite's not-applicable S1 items are left out, not passed: an agent that wrote nothing gets S1 = 0
    assert report["stages"]["s1"]["score"] == 0 and set(report["stages"]["s1"]["items"]) == {"s1a", "s1b", "s1c"}


@pytest.mark.slow
@needs_bwrap
def test_first_runs_wall_time_excludes_the_one_time_runtime_build(tmp_path, monkeypatch):
    monkeypatch.setenv("AUTOMEDBENCH_HOME", str(tmp_path / "home"))   # no agent runtime built here yet
    monkeypatch.delenv("AUTOMEDBENCH_AGENT_RUNTIME", raising=False)
    tiny_lesion_dataset(tmp_path / "data" / "mni-brain-lesion", n_cases=2)
    runs = [api.run_one("brain-lesion-seg", "lite", "empty", tmp_path / "runs", api.RunOptions(sandbox="bwrap",
                        data_root=tmp_path / "data", network=False)).run_dir for _ in range(2)]
    first, second = (DetailReport.model_validate_json((d / "detail_report.json").read_text()).run for d in runs)
    assert first.setup_time_s > 2 * second.setup_time_s                # the build is the first run's setup
    assert first.wall_time_s < second.wall_time_s + first.setup_time_s / 2, (first, second)
    trace = read_trace(runs[0] / "trace.jsonl")
    assert trace[0].type == "run_start" and trace[0].t < 0.5 and trace[0].data["setup_time_s"] == first.setup_time_s
    assert trace[-1].t == pytest.approx(first.wall_time_s, abs=0.05)   # the agent's clock starts at run_start
    # what the build compiled (docs/sandbox.md, "The agent runtime"): the packages, not their test suites
    [site] = (tmp_path / "home").glob("agent-runtime/*/site")
    assert list((site / "scipy" / "ndimage" / "__pycache__").glob("_interpolation.cpython-3*.pyc"))
    assert (site / "scipy" / "ndimage" / "tests").is_dir() and not (site / "scipy" / "ndimage" / "tests" / "__pycache__").exists()


def test_sweep_retries_a_cell_the_sandbox_failed(tmp_path):
    """docs/faults.md: a sweep re-runs infra-ended cells; the retry's report is what the cell keeps."""
    from automedbench.sandbox import SandboxError
    from automedbench.sandbox.local import LocalSandbox

    starts = []

    def flaky(spec):   # the first start fails (an engine not up yet), later ones work
        starts.append(spec.workspace)
        if len(starts) == 1:
            raise SandboxError("container engine not reachable")
        return LocalSandbox(spec)

    tiny_lesion_dataset(tmp_path / "data" / "mni-brain-lesion", n_cases=2)
    register_backend("flaky", flaky)
    try:
        [(_, run_dir, error)] = api.sweep(["brain-lesion-seg"], ["lite"], ["empty"], tmp_path / "sweep",
                                             api.RunOptions(sandbox="flaky", data_root=tmp_path / "data"), retries=1)
    finally:
        SANDBOX_BACKENDS.remove("flaky")
    assert error is None and len(starts) == 2
    r = DetailReport.model_validate_json((Path(run_dir) / "detail_report.json").read_text())
    assert r.run.end_reason == "submitted" and "infra_error" not in r.flags and r.task.score == 0
