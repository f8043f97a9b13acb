"""docs/faults.md with a real CLI subprocess and the loopback fake server: a run stopped by Ctrl-C or
SIGTERM is closed as `interrupted` and never scored as a normal run; re-judging with a judge
that fails keeps the saved verdicts, says why and exits non-zero."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tests.helpers import amb

from automedbench import api

from .fake_openai import call, completion
from .scripted_llm import write_agents_yaml

# The CLI as a terminal starts it: a test runner's shell may have started us with SIGINT
# ignored (inherited by children), a terminal's Ctrl-C is not.
_BOOT = ("import runpy, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
         "sys.argv[0] = 'automedbench'; runpy.run_module('automedbench.cli', run_name='__main__')")
CLI_WITH_CTRL_C = [sys.executable, "-c", _BOOT]


def _wait_for(predicate, timeout=60.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def _alive(token: str) -> list[int]:
    """Processes whose command line holds `token` (the agent's sleeping code)."""
    pids = []
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                if token.encode() in (p / "cmdline").read_bytes():
                    pids.append(int(p.name))
            except OSError:
                pass
    return pids


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_interrupted_run_is_closed_and_not_scored(fake_openai, tiny, sig):
    env, tmp = tiny
    cfg = write_agents_yaml(tmp / "agents.yaml", fake_openai.url)
    token = f"amb-interrupt-{os.getpid()}-{sig.name}"
    fake_openai.push(completion(tool_calls=[call("execute_code", {"language": "bash",
                                                                  "code": f"# S2\nsleep 120; echo {token}"})]))
    out = tmp / "runs"
    proc = subprocess.Popen([*CLI_WITH_CTRL_C, "run", "--task", "tiny-seg", "--agent", "fake-agent",
                             "--agent-config", str(cfg), "--sandbox", "local", "--out", str(out)],
                            env={**os.environ, **env}, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        # generous: CLI start-up, the model call and the sandbox on a loaded shared machine
        started = _wait_for(lambda: bool(_alive(token)), 180)
        assert started, f"the agent's command never started (exit {proc.poll()})"
        proc.send_signal(sig)
        _, stderr = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 130, f"exit {proc.returncode}: {stderr[-2000:]}"
    assert "interrupted" in stderr and "Traceback" not in stderr
    assert _wait_for(lambda: not _alive(token), 30), "the agent's process outlived the harness"
    run_dir = next(out.iterdir())
    meta = json.loads((run_dir / "run.json").read_text())
    assert meta["run"]["end_reason"] == "interrupted" and meta["run"]["end_detail"] == sig.name
    trace = [json.loads(line) for line in (run_dir / "trace.jsonl").read_text().splitlines()]
    assert trace[-1]["type"] == "run_end" and trace[-1]["kind"] == "interrupted"
    assert (run_dir / "conversation.json").is_file() and not (run_dir / "detail_report.json").exists()

    refused = amb("score", run_dir, env=env, check=False)
    assert refused.returncode == 2 and "interrupted" in refused.stderr and "--force" in refused.stderr
    assert not (run_dir / "detail_report.json").exists()
    amb("score", "--force", run_dir, env=env)
    report = json.loads((run_dir / "detail_report.json").read_text())
    assert "interrupted" in report["flags"]
    codes = {e["code"] for e in report["errors"]}
    assert "RUN_INTERRUPTED" in codes and "NOT_SUBMITTED" not in codes


def test_rejudge_with_a_failing_judge_keeps_saved_verdicts(fake_openai, tiny):
    env, tmp = tiny
    cfg = write_agents_yaml(tmp / "agents.yaml", fake_openai.url)
    with open(cfg, "a") as fh:
        fh.write("""  - name: unreachable-judge
    model: m
    base_url: http://127.0.0.1:9/v1
    retry: {max_retries: 1, backoff_base_s: 0.01, backoff_max_s: 0.02}
""")
    # the run is the setting (the `judge` command is what is tested): made in-process
    run_dir = api.run_one("tiny-seg", "lite", "careless", tmp / "runs", api.RunOptions(
        sandbox="local", data_root=env["AUTOMEDBENCH_DATA"], tasks_dirs=[env["AUTOMEDBENCH_TASKS"]])).run_dir
    judge_before = (run_dir / "judge.json").read_bytes()
    report_before = (run_dir / "detail_report.json").read_bytes()
    assert json.loads(report_before)["stages"]["s3"]["score"] == 0.0

    # no key: a user error before any call
    no_key = amb("judge", run_dir, "--judge", "gpt-4.1", env={**env, "OPENAI_API_KEY": ""}, check=False)
    assert no_key.returncode == 2 and "OPENAI_API_KEY" in no_key.stderr
    # unparseable answers (every retry), then an unreachable endpoint: infrastructure, verdicts kept
    fake_openai.push(*[completion("I think the agent did fine.")] * 3)
    for judge in ("fake-judge", "unreachable-judge"):
        failed = amb("judge", run_dir, "--judge", judge, "--agent-config", cfg, env=env, check=False)
        assert failed.returncode == 1, failed.stderr
        assert "judge failed" in failed.stderr and "saved verdicts were kept" in failed.stderr
        assert (run_dir / "judge.json").read_bytes() == judge_before
        assert (run_dir / "detail_report.json").read_bytes() == report_before
    assert "not a JSON object" in failed.stderr or "connection" in failed.stderr.lower()
