"""AutoMedBench tasks inside Inspect AI (docs/agents.md "Inspect AI"): Inspect's own runner
(`inspect_ai.eval`) with its scripted model (`mockllm/model`, custom outputs: scripted tool calls)
drives its react() agent, whose bash() and python() tools run in our sandbox through the
`automedbench` sandbox provider. The same commands through our loop (the loopback scripted
server) and through Inspect earn the same task score and S1-S5; `automedbench score` of the run
folder Inspect left beside its log gives the numbers Inspect's scorer returned; words without work
earn S3 0; a look at the private references or the harness source is blocked and coded."""
import importlib.util
import json
import math
import os
import shutil
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from automedbench import api
from automedbench.agents import AgentContext
from automedbench.agents.scripted import reference_calls, words_no_work_calls
from automedbench.runs.models import DetailReport
from automedbench.runs.trace import read_trace
from automedbench.tasks import get_task

from .fake_openai import call, completion, usage

needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")
pytestmark = [pytest.mark.skipif(importlib.util.find_spec("inspect_ai") is None,
                                 reason="inspect-ai is a test dependency (pyproject.toml)"),
              pytest.mark.filterwarnings("ignore::RuntimeWarning"), pytest.mark.filterwarnings("ignore::DeprecationWarning")]


@pytest.fixture(scope="module", autouse=True)
def _inspect_imported():
    """Inspect AI and our integration of it, imported when this file's tests run rather than
    when pytest collects the file: ~2 s of imports that every xdist worker paid at collection
    for the one worker that runs these tests (docs/testing.md "What is slow, and why")."""
    global inspect_ai, ModelOutput, ModelUsage, get_model, registry_find_sandboxenv
    global SCORES, AutoMedBenchSandbox, as_call, automedbench, inspect_values
    import inspect_ai
    from inspect_ai.model import ModelOutput, ModelUsage, get_model
    from inspect_ai.util._sandbox.registry import registry_find_sandboxenv

    from automedbench.integrations.inspect_ai import SCORES, AutoMedBenchSandbox, as_call, automedbench, inspect_values

ROOT = Path(__file__).resolve().parents[2]
TASK, TIER = "brain-lesion-seg", "lite"


@pytest.fixture(autouse=True)
def _offline_inspect(tmp_path, monkeypatch):
    """Inspect writes its settings and caches under the home folder: keep them in tmp_path."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "home" / "data"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "home" / "cache"))
    monkeypatch.delenv("INSPECT_LOG_DIR", raising=False)


def _context() -> AgentContext:
    """What the agent is told inside bwrap (lifecycle/session.py builds it the same way)."""
    task = get_task(TASK)
    return AgentContext(task_id=task.id, tier=TIER, data_dir="/data/public", workspace_dir="/workspace",
                        kickoff="", output_files=task.output_files, input_files=task.input_files, track=task.track,
                        track_options=task.options, candidates=list(task.tiers.standard.candidates),
                        target_keywords=list(task.target_keywords))


def _tokens(i: int) -> tuple[int, int]:
    return 1000 + 100 * i, 50 + i


def loop_script(calls: list[tuple[str, str]]) -> list[dict]:
    """Our loop's replies: each call through execute_code, then submit_results."""
    return [completion(tool_calls=[call("execute_code", {"language": lang, "code": code})],
                       usage_=usage(*_tokens(i))) for i, (lang, code) in enumerate(calls)] + \
        [completion(tool_calls=[call("submit_results", {})], usage_=usage(*_tokens(len(calls))))]


def inspect_script(calls: list[tuple[str, str]]) -> "list[ModelOutput]":
    """Inspect's scripted model: each call through its python() or bash() tool, then react()'s
    submit tool; usage given (else mockllm counts tokens with a tokenizer it downloads)."""
    outs = [ModelOutput.for_tool_call("mockllm/model", "python" if lang == "python" else "bash",
                                      {"code": code} if lang == "python" else {"command": code})
            for lang, code in calls]
    outs.append(ModelOutput.for_tool_call("mockllm/model", "submit", {"answer": "done"}))
    for i, out in enumerate(outs):
        tin, tout = _tokens(i)
        out.usage = ModelUsage(input_tokens=tin, output_tokens=tout, total_tokens=tin + tout)
    return outs


@pytest.fixture
def lesion_data(tmp_path, staged_once):
    root = tmp_path / "data"
    staged_once("mni-brain-lesion", root, n_cases=3)
    return root


def _inspect_run(calls: list[tuple[str, str]], logs: Path, data: Path, backend: str = "bwrap"):
    """inspect_ai.eval of the task with the scripted model: (the eval log, its sample's score,
    the run folder, our detail report)."""
    model = get_model("mockllm/model", custom_outputs=inspect_script(calls))
    t = automedbench(task=TASK, tier=TIER, sandbox=backend, network=False, data_root=str(data), exec_timeout_s=120)
    (log,) = inspect_ai.eval(t, model=model, log_dir=str(logs), display="none", log_level="warning")
    assert log.status == "success", log.error
    (sample,) = log.samples
    score = sample.scores["automedbench_scorer"]
    run_dir = Path(score.metadata["run_dir"])
    return log, score, run_dir, DetailReport.model_validate_json((run_dir / "detail_report.json").read_text())


def _stages(r: DetailReport) -> dict:
    return {s: (st.score, st.items) for s, st in r.stages.items()}


def _values(r: DetailReport) -> dict:
    stages = {str(k): v.score for k, v in r.stages.items()}
    return {**{s: stages.get(s) for s in SCORES[:5]}, "agentic": r.agentic, "task": r.task.score, "overall": r.overall}


def _cli_score(run_dir: Path) -> DetailReport:
    """`automedbench score RUN_DIR` as a user types it: the report rewritten from the folder."""
    (run_dir / "detail_report.json").unlink()
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    res = subprocess.run([sys.executable, "-m", "automedbench", "score", str(run_dir)], capture_output=True,
                         text=True, env=env, timeout=600)
    assert res.returncode == 0, res.stdout + res.stderr
    return DetailReport.model_validate_json((run_dir / "detail_report.json").read_text())


def test_the_provider_and_the_task_are_registered_through_inspects_entry_point():
    """`inspect eval` finds the sandbox by name through the entry point pyproject.toml declares."""
    ours = [ep for ep in entry_points(group="inspect_ai") if ep.name == "automedbench"]
    assert ours and ours[0].value == "automedbench.integrations.inspect_ai"
    assert registry_find_sandboxenv("automedbench") is AutoMedBenchSandbox


def test_inspects_exec_requests_become_calls_of_ours():
    """Inspect's bash() and python() tools are recorded as what the model wrote."""
    assert as_call(["bash", "--login", "-c", "ls -la"]) == ("bash", "ls -la")
    assert as_call(["bash", "--login", "-c", "python3 -"], input="print(1)\n") == ("python", "print(1)\n")
    assert as_call(["python3", "-c", "print(2)"]) == ("python", "print(2)")
    lang, code = as_call(["wc", "-c"], input="abc", cwd="sub", env={"A": "x y"})
    assert lang == "bash" and code.startswith("export A='x y'; cd sub && base64 -d <<'AMB_IN_")
    assert "| wc -c\nYWJj\n" in code


@needs_bwrap
@pytest.mark.slow
def test_the_reference_trajectory_earns_the_same_through_inspect_and_our_loop(fake_openai, lesion_data, tmp_path):
    calls = reference_calls(_context())
    cfg = tmp_path / "agents.yaml"
    cfg.write_text(f"agents:\n  - name: loop-fake\n    model: fake-coder\n    base_url: {fake_openai.url}\n"
                   "    retry: {max_retries: 1, backoff_base_s: 0.01, backoff_max_s: 0.02}\n")
    fake_openai.push(*loop_script(calls))
    loop = api.run_one(TASK, TIER, "loop-fake", tmp_path / "loop", api.RunOptions(
        sandbox="bwrap", data_root=lesion_data, network=False, agent_configs=[cfg], exec_timeout_s=120))
    logs = tmp_path / "logs"
    log, score, run_dir, ours = _inspect_run(calls, logs, lesion_data)

    assert loop.run.end_reason == ours.run.end_reason == "submitted"
    # the honest workflow did its work: every case written and scored, its pilot inspected
    assert loop.task.completion_rate == 1.0 and loop.task.score > 0.6 and loop.stages["s3"].score == 1.0
    assert ours.task.score == loop.task.score and ours.task.per_case == loop.task.per_case
    assert _stages(ours) == _stages(loop)
    assert ours.agentic == loop.agentic and ours.overall == loop.overall
    assert {e.code for e in ours.errors} == {e.code for e in loop.errors}
    # one model turn per call and one to submit, tokens as the scripted model reported them
    assert (ours.run.turns, ours.run.tokens_in, ours.run.tokens_out) == \
        (loop.run.turns, loop.run.tokens_in, loop.run.tokens_out) == (len(calls) + 1,
                                                                      sum(_tokens(i)[0] for i in range(len(calls) + 1)),
                                                                      sum(_tokens(i)[1] for i in range(len(calls) + 1)))

    # Inspect's scores are ours, and the run folder lies beside Inspect's log
    assert score.value == _values(ours) and set(score.value) == set(SCORES)
    assert run_dir.parent == logs.resolve() / "automedbench" and Path(log.location).parent == logs.resolve()
    assert log.results is not None and {s.name for s in log.results.scores} == set(SCORES)
    assert log.results.headline.score == "overall"
    assert {s.name: s.metrics["mean"].value for s in log.results.scores} == score.value
    # `automedbench score RUN_DIR` of that folder gives the same numbers
    again = _cli_score(run_dir)
    assert _values(again) == score.value and again.task.per_case == ours.task.per_case
    assert {e.code for e in again.errors} == {e.code for e in ours.errors}

    # the record: every call Inspect's, each with its effects, as our loop's calls are
    trace = read_trace(run_dir / "trace.jsonl")
    tool_calls = [e for e in trace if e.type == "tool_call"]
    assert [(e.language, e.code) for e in tool_calls] == calls
    assert all(e.data["source"]["scaffold"] == "inspect-ai" and e.data["source"]["action"] == "exec"
               for e in tool_calls)
    loop_execs = [e for e in read_trace(loop.run_dir / "trace.jsonl") if e.type == "execution"]
    execs = [e for e in trace if e.type == "execution"]
    assert [(e.stage, e.exit_code, sorted(w.path for w in e.effects.written)) for e in execs] == \
        [(e.stage, e.exit_code, sorted(w.path for w in e.effects.written)) for e in loop_execs]
    assert [e.type for e in trace if e.type in ("submit", "run_end")] == ["submit", "run_end"]
    meta = json.loads((run_dir / "run.json").read_text())
    assert meta["agent_config"]["kind"] == "inspect-ai" and meta["agent_config"]["model"] == "mockllm/model"
    # one model, two scaffolds: the record says which drove each run (docs/agents.md "Scaffold and model")
    assert (ours.run.scaffold, loop.run.scaffold) == (f"inspect-ai:{meta['agent_config']['solver']}", "automedbench-loop")
    # the model saw our system prompt, rendered for the sandbox, and our kickoff
    (sample,) = log.samples
    conv = json.loads((run_dir / "conversation.json").read_text())
    assert any(m.role == "system" and m.text == conv["system_prompt"] for m in sample.messages)
    assert "/data/public" in conv["system_prompt"] and conv["messages"][0]["content"] == sample.messages[2].text
    assert sum(1 for m in conv["messages"] if m["role"] == "tool") == len(calls)


@needs_bwrap
@pytest.mark.slow
def test_words_without_work_earn_no_validation_through_inspect(lesion_data, tmp_path):
    _, score, _, r = _inspect_run(words_no_work_calls(_context()), tmp_path / "logs", lesion_data)
    assert r.run.end_reason == "submitted" and r.task.completion_rate == 1.0
    assert r.stages["s3"].score == 0 and score.value["s3"] == 0
    assert "NO_PILOT" in {e.code for e in r.errors}


@pytest.mark.slow
@needs_bwrap
def test_an_escape_attempt_through_inspect_is_blocked_and_coded(lesion_data, tmp_path):
    source = ROOT / "src" / "automedbench" / "scoring" / "score_run.py"
    calls = [("bash", f"# S2 look for the harness\ncat {source}; ls {ROOT}"),
             ("bash", "# S2 look for references\nls /data/private; cat /data/private/*/* | head -c 200"),
             ("bash", "# S2 again\ncat /data/private/*/*"),
             ("bash", "echo never run")]
    log, score, run_dir, r = _inspect_run(calls, tmp_path / "logs", lesion_data)
    assert r.disqualified and r.run.end_reason == "disqualified" and r.overall == 0 == score.value["overall"]
    assert len(r.violations) == 2 and all("/data/private" in (v.path or "") + v.evidence for v in r.violations)
    assert "SANDBOX_VIOLATION" in {e.code for e in r.errors} and "SANDBOX_VIOLATION" in score.metadata["errors"]
    execs = [e for e in read_trace(run_dir / "trace.jsonl") if e.type == "execution"]
    # the harness source is not there; what the first look read was the decoy, never a reference
    assert execs[0].exit_code != 0 and "def score_run" not in execs[0].stdout
    assert "AUTOMEDBENCH DECOY" in execs[1].stdout and len(execs) == 3
    # the first look was answered with the warning; the second ended the sample at a custom limit
    # (its result never reached the model), and the last call never ran
    (sample,) = log.samples
    tool_texts = [m.text for m in sample.messages if m.role == "tool"]
    assert len(tool_texts) == 2 and "SANDBOX VIOLATION" in tool_texts[1]
    assert sample.limit is not None and sample.limit.type == "custom" and "disqualified" in sample.limit.reason


def test_inspects_file_api_and_other_commands_are_recorded_calls(lesion_data, tmp_path):
    """A solver of Inspect's own using the sandbox API directly (local backend: what is tested is
    the mapping of Inspect's calls onto recorded calls, not isolation): write_file, read_file,
    an argv with stdin and a working folder; a missing file and a folder are Inspect's errors;
    another user is refused without a call."""
    from inspect_ai.solver import solver
    from inspect_ai.util import SandboxUserUnsupportedError, sandbox

    seen: dict = {}

    @solver
    def file_work():
        async def solve(state, generate):
            sb = sandbox()
            await sb.write_file("notes/deep/a.txt", "héllo\n")
            seen["text"] = await sb.read_file("notes/deep/a.txt")
            await sb.write_file("notes/b.bin", b"\x00\xff\x10")
            seen["bytes"] = await sb.read_file("notes/b.bin", text=False)
            res = await sb.exec(["wc", "-c"], input="abcd", cwd="notes")
            seen["wc"] = (res.success, res.stdout.strip())
            for bad, exc in (("missing.txt", FileNotFoundError), ("notes", IsADirectoryError)):
                try:
                    await sb.read_file(bad)
                except exc:
                    seen[bad] = exc.__name__
            try:
                await sb.exec(["id"], user="root")
            except SandboxUserUnsupportedError:
                seen["root"] = "refused"
            return state
        return solve

    t = automedbench(task=TASK, tier=TIER, sandbox="local", data_root=str(lesion_data), exec_timeout_s=60)
    (log,) = inspect_ai.eval(t, solver=file_work(), model=get_model("mockllm/model"), log_dir=str(tmp_path / "logs"),
                             display="none", log_level="warning")
    assert log.status == "success", log.error
    assert seen == {"text": "héllo\n", "bytes": b"\x00\xff\x10", "wc": (True, "4"),
                    "missing.txt": "FileNotFoundError", "notes": "IsADirectoryError", "root": "refused"}
    run_dir = Path(log.samples[0].scores["automedbench_scorer"].metadata["run_dir"])
    assert (run_dir / "workspace" / "notes" / "deep" / "a.txt").read_text() == "héllo\n"
    trace = read_trace(run_dir / "trace.jsonl")
    calls = [e for e in trace if e.type == "tool_call"]
    assert [e.data["source"]["action"] for e in calls] == ["write_file", "read_file", "write_file", "read_file",
                                                          "exec", "read_file", "read_file"]
    execs = [e for e in trace if e.type == "execution"]
    written = [sorted(Path(w.path).name for w in e.effects.written) for e in execs]
    assert written[0] == ["a.txt"] and written[2] == ["b.bin"]
    assert any(Path(r).name == "a.txt" for r in execs[1].effects.read)
    # nothing was submitted: the run ends as the agent's own stop, and is still scored
    meta = json.loads((run_dir / "run.json").read_text())
    assert meta["run"]["end_reason"] == "agent_finished"
    # the scaffold is Inspect's, with the solver that drove it (docs/agents.md "Scaffold and model")
    assert meta["agent_config"]["solver"] == "file_work" and meta["run"]["scaffold"] == "inspect-ai:file_work"
    assert json.loads((run_dir / "detail_report.json").read_text())["run"]["scaffold"] == "inspect-ai:file_work"
    # a value our report leaves null (an infra-ended run's) is Inspect's unscored NaN, never 0
    report = DetailReport.model_validate_json((run_dir / "detail_report.json").read_text())
    values = inspect_values(report.model_copy(update={"overall": None}))
    assert math.isnan(values["overall"]) and values["task"] == report.task.score == 0.0


def test_the_tasks_turn_limit_ends_the_sample_and_the_run_is_scored(lesion_data, tmp_path):
    """A reply past the task's turn limit runs nothing: the run ends max_turns after the turns our
    loop would have allowed, Inspect ends the sample at its custom limit, and the scorer still
    closes and scores the run (local backend: the limit is tested, not isolation)."""
    tasks = tmp_path / "tasks"
    shutil.copytree(ROOT / "src/automedbench/tracks/segmentation/tasks" / TASK, tasks / "lesion-short")
    yaml_file = tasks / "lesion-short" / "task.yaml"
    text = yaml_file.read_text()
    assert f"id: {TASK}" in text and "max_turns: 60" in text
    yaml_file.write_text(text.replace(f"id: {TASK}", "id: lesion-short").replace("max_turns: 60", "max_turns: 2"))
    outs = inspect_script([("bash", f"# S1\necho turn {i} > t{i}.txt") for i in range(4)])
    t = automedbench(task="lesion-short", tier=TIER, sandbox="local", data_root=str(lesion_data),
                     tasks_dir=str(tasks), exec_timeout_s=60)
    (log,) = inspect_ai.eval(t, model=get_model("mockllm/model", custom_outputs=outs), log_dir=str(tmp_path / "logs"),
                             display="none", log_level="warning")
    (sample,) = log.samples
    assert sample.limit is not None and sample.limit.type == "custom"
    score = sample.scores["automedbench_scorer"]
    run_dir = Path(score.metadata["run_dir"])
    rec = json.loads((run_dir / "run.json").read_text())["run"]
    assert (rec["end_reason"], rec["turns"], rec["submitted"]) == ("max_turns", 2, False)
    assert score.metadata["end_reason"] == "max_turns" and "BUDGET_EXHAUSTED" in score.metadata["errors"]
    assert sorted(p.name for p in (run_dir / "workspace").glob("t*.txt")) == ["t0.txt", "t1.txt"]
    assert [e.type for e in read_trace(run_dir / "trace.jsonl")].count("tool_call") == 2


SCRIPTED_SOLVER = '''
import json
from inspect_ai.solver import solver
from inspect_ai.util import sandbox

CALLS = json.loads({calls!r})


@solver
def scripted():
    """The reference calls through the sandbox, as Inspect's bash() and python() tools send them."""
    async def solve(state, generate):
        for lang, code in CALLS:
            if lang == "bash":
                await sandbox().exec(["bash", "--login", "-c", code])
            else:
                await sandbox().exec(["bash", "--login", "-c", "python3 -"], input=code)
        return state
    return solve
'''


@needs_bwrap
@pytest.mark.slow
def test_inspect_eval_on_the_command_line_leaves_our_run_folder_beside_its_log(lesion_data, tmp_path):
    """`inspect eval automedbench/automedbench ...` as a user types it (the task found through the
    entry point), with a solver file of the user's that never asks the model: our run folder lies
    beside Inspect's log, and `automedbench score` of it gives the numbers in Inspect's log."""
    from inspect_ai.log import list_eval_logs, read_eval_log

    calls = reference_calls(_context())
    solver_file = tmp_path / "my_solver.py"
    solver_file.write_text(SCRIPTED_SOLVER.format(calls=json.dumps(calls)))
    logs = tmp_path / "logs"
    inspect_cli = Path(sys.executable).with_name("inspect")
    env = {**os.environ, "INSPECT_LOG_DIR": str(logs)}
    res = subprocess.run([str(inspect_cli), "eval", "automedbench/automedbench", "-T", f"task={TASK}", "-T", f"tier={TIER}",
                          "-T", "sandbox=bwrap", "-T", "network=false", "-T", f"data_root={lesion_data}",
                          "--solver", f"{solver_file}@scripted", "--model", "mockllm/model", "--display", "none"],
                         capture_output=True, text=True, env=env, cwd=tmp_path, timeout=900)
    assert res.returncode == 0, res.stdout + res.stderr
    (info,) = list_eval_logs(str(logs))
    log = read_eval_log(info)
    assert log.status == "success", log.error
    (sample,) = log.samples
    score = sample.scores["automedbench_scorer"]
    run_dir = Path(score.metadata["run_dir"])
    assert run_dir.parent == logs.resolve() / "automedbench"
    r = DetailReport.model_validate_json((run_dir / "detail_report.json").read_text())
    # nothing asked the model or submitted: the run ends as the agent's own stop, its work scored
    assert r.run.end_reason == "agent_finished" and r.run.turns == 0 and r.task.completion_rate == 1.0
    assert r.task.score > 0.6 and score.value == _values(r)
    assert [e.code for e in read_trace(run_dir / "trace.jsonl") if e.type == "tool_call"] == [c for _, c in calls]
    again = _cli_score(run_dir)
    assert _values(again) == score.value and {e.code for e in again.errors} == {e.code for e in r.errors}


def test_parallel_tool_calls_of_one_reply_are_recorded_one_after_the_other_in_one_turn(lesion_data, tmp_path):
    """react() runs the bash() calls of one reply concurrently; the sandbox records them one at a
    time, both in that reply's turn (local backend: the recording is tested, not isolation)."""
    from inspect_ai.model import ChatMessageAssistant
    from inspect_ai.tool import ToolCall

    both = ModelOutput.from_message(ChatMessageAssistant(content="two at once", model="mockllm/model", tool_calls=[
        ToolCall(id="c1", function="bash", arguments={"command": "# S1\nsleep 0.3; echo a > a.txt"}),
        ToolCall(id="c2", function="bash", arguments={"command": "echo b > b.txt"})]), stop_reason="tool_calls")
    submit = ModelOutput.for_tool_call("mockllm/model", "submit", {"answer": "done"})
    for out in (both, submit):
        out.usage = ModelUsage(input_tokens=100, output_tokens=10, total_tokens=110)
    t = automedbench(task=TASK, tier=TIER, sandbox="local", data_root=str(lesion_data), exec_timeout_s=60)
    (log,) = inspect_ai.eval(t, model=get_model("mockllm/model", custom_outputs=[both, submit]),
                             log_dir=str(tmp_path / "logs"), display="none", log_level="warning")
    assert log.status == "success", log.error
    run_dir = Path(log.samples[0].scores["automedbench_scorer"].metadata["run_dir"])
    trace = read_trace(run_dir / "trace.jsonl")
    events = [(e.type, e.turn, e.call_index) for e in trace if e.type in ("tool_call", "execution", "submit")]
    # each call's tool_call and execution together (never interleaved), both in turn 1
    assert events == [("tool_call", 1, 1), ("execution", 1, 1), ("tool_call", 1, 2), ("execution", 1, 2),
                      ("submit", 2, 3)]
    assert sorted(e.code.splitlines()[-1] for e in trace if e.type == "tool_call") == \
        ["echo b > b.txt", "sleep 0.3; echo a > a.txt"]
    rec = json.loads((run_dir / "run.json").read_text())["run"]
    assert (rec["turns"], rec["tokens_in"], rec["submitted"], rec["end_reason"]) == (2, 200, True, "submitted")
