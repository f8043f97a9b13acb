"""mini-swe-agent in our sandbox (docs/agents.md "mini-swe-agent"): its own loop (DefaultAgent) with
our Environment (each bash action one recorded call) and our Model (the entry's endpoint: here the
loopback scripted server). The same commands through our loop and through mini-swe-agent earn the
same task score and S1-S5; words without work earn S3 0; a look at the private references is
blocked and coded; the record says the calls came from mini-swe-agent."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from automedbench import api
from automedbench.agents import AgentError, check_ready, get_agent
from automedbench.agents.listing import list_agents
from automedbench.agents.mini_swe_agent import SUBMIT_COMMAND, MiniSweAgentError
from automedbench.agents.scripted import reference_calls, words_no_work_calls
from automedbench.llm.registry import LLMConfigError
from automedbench.runs.models import DetailReport
from automedbench.runs.trace import read_trace

from .bash_scaffold import agent_context, as_bash, bash_tool_script, loop_script
from .fake_openai import call, completion, error, usage

pytest.importorskip("minisweagent", reason="mini-swe-agent is not installed (make test installs it: docs/agents.md)")
needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")
pytestmark = [pytest.mark.filterwarnings("ignore::RuntimeWarning")]

ROOT = Path(__file__).resolve().parents[2]
TASK, TIER = "brain-lesion-seg", "lite"
SECRET = "sk-mini-DO-NOT-LEAK-0a1b2c3d"


def _agents_file(path: Path, url: str, scaffold: Path | None = None) -> Path:
    retry = "{max_retries: 1, backoff_base_s: 0.01, backoff_max_s: 0.02}"
    extra = f"\n    scaffold_config: {scaffold.name}" if scaffold else ""
    path.write_text(f"""agents:
  - name: loop-fake
    model: fake-coder
    base_url: {url}
    api_key_env: AMB_MINI_KEY
    pricing: {{input_per_mtok: 2.0, output_per_mtok: 8.0, cached_input_per_mtok: 0.5}}
    retry: {retry}
  - name: mini-fake
    kind: mini-swe-agent{extra}
    model: fake-coder
    base_url: {url}
    api_key_env: AMB_MINI_KEY
    pricing: {{input_per_mtok: 2.0, output_per_mtok: 8.0, cached_input_per_mtok: 0.5}}
    retry: {retry}
""")
    return path


@pytest.fixture
def lesion_data(tmp_path, staged_once):
    root = tmp_path / "data"
    staged_once("mni-brain-lesion", root, n_cases=3)
    return root


def _run(agent: str, out: Path, data: Path, cfg: Path) -> tuple[Path, DetailReport]:
    run_dir = api.run_one(TASK, TIER, agent, out, api.RunOptions(sandbox="bwrap", data_root=data, network=False,
                                                                 agent_configs=[cfg], exec_timeout_s=120)).run_dir
    return run_dir, DetailReport.model_validate_json((run_dir / "detail_report.json").read_text())


def _cli_run(agent: str, out: Path, data: Path, cfg: Path) -> tuple[Path, DetailReport]:
    """`automedbench run --agent NAME` as a user types it."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    res = subprocess.run([sys.executable, "-m", "automedbench", "run", "--task", TASK, "--tier", TIER,
                          "--agent", agent, "--agent-config", str(cfg), "--sandbox", "bwrap", "--network", "off",
                          "--data-root", str(data), "--out", str(out)],
                         capture_output=True, text=True, env=env, timeout=600)
    assert res.returncode == 0, res.stdout + res.stderr
    run_dir = next(p for p in out.iterdir() if (p / "detail_report.json").is_file())
    return run_dir, DetailReport.model_validate_json((run_dir / "detail_report.json").read_text())


def _stages(r: DetailReport) -> dict:
    return {s: (st.score, st.items) for s, st in r.stages.items()}


@needs_bwrap
@pytest.mark.slow
def test_the_reference_commands_earn_the_same_through_mini_swe_agent_and_our_loop(fake_openai, lesion_data,
                                                                                   tmp_path, monkeypatch):
    monkeypatch.setenv("AMB_MINI_KEY", SECRET)
    cfg = _agents_file(tmp_path / "agents.yaml", fake_openai.url)
    commands = [as_bash(lang, code) for lang, code in reference_calls(agent_context(TASK, TIER))]
    fake_openai.push(*loop_script(commands))
    loop_dir, loop = _run("loop-fake", tmp_path / "loop", lesion_data, cfg)
    fake_openai.push(*bash_tool_script(commands))
    mini_dir, mini = _cli_run("mini-fake", tmp_path / "mini", lesion_data, cfg)

    assert loop.run.end_reason == mini.run.end_reason == "submitted"
    # the honest workflow did its work: every case written and scored, its pilot inspected
    assert loop.task.completion_rate == 1.0 and loop.task.score > 0.6 and loop.stages["s3"].score == 1.0
    assert mini.task.score == loop.task.score and mini.task.per_case == loop.task.per_case
    assert _stages(mini) == _stages(loop)
    assert mini.agentic == loop.agentic and mini.overall == loop.overall
    assert {e.code for e in mini.errors} == {e.code for e in loop.errors}
    # tokens and cost counted as our loop counts them, one model turn per command and one to submit
    assert (mini.run.turns, mini.run.tokens_in, mini.run.tokens_out) == \
        (loop.run.turns, loop.run.tokens_in, loop.run.tokens_out) == (len(commands) + 1,
                                                                      sum(1000 + 100 * i for i in range(len(commands) + 1)),
                                                                      sum(50 + i for i in range(len(commands) + 1)))
    assert mini.run.cost_usd == loop.run.cost_usd > 0

    # the record: every call is mini-swe-agent's, each with its effects, as our loop's calls are
    trace = read_trace(mini_dir / "trace.jsonl")
    calls = [e for e in trace if e.type == "tool_call"]
    assert [e.code for e in calls] == commands
    assert all(e.data["source"]["scaffold"] == "mini-swe-agent" and e.data["source"]["version"] for e in calls)
    loop_execs = [e for e in read_trace(loop_dir / "trace.jsonl") if e.type == "execution"]
    mini_execs = [e for e in trace if e.type == "execution"]
    assert [(e.stage, e.exit_code, sorted(w.path for w in e.effects.written)) for e in mini_execs] == \
        [(e.stage, e.exit_code, sorted(w.path for w in e.effects.written)) for e in loop_execs]
    assert [e.type for e in trace if e.type in ("submit", "run_end")] == ["submit", "run_end"]
    meta = json.loads((mini_dir / "run.json").read_text())
    assert meta["agent_config"]["kind"] == "mini-swe-agent" and meta["agent_config"]["model"] == "fake-coder"
    # one model, two scaffolds: the record says which drove each run (docs/agents.md "Scaffold and model")
    assert (meta["run"]["scaffold"], mini.run.scaffold, loop.run.scaffold) == \
        ("mini-swe-agent", "mini-swe-agent", "automedbench-loop")
    # the model saw mini-swe-agent's prompt (ours, plus how its bash tool and submission work) and
    # its own rendering of results; the key went on the wire only
    chats = fake_openai.chat_requests()
    first = chats[len(commands) + 1]["body"]
    assert [t["function"]["name"] for t in first["tools"]] == ["bash"]
    assert SUBMIT_COMMAND in first["messages"][0]["content"] and "S3 Validate" in first["messages"][0]["content"]
    assert "<returncode>0</returncode>" in chats[-1]["body"]["messages"][-1]["content"]
    assert chats[-1]["headers"]["authorization"] == f"Bearer {SECRET}"
    conv = json.loads((mini_dir / "conversation.json").read_text())
    assert SUBMIT_COMMAND in conv["system_prompt"]
    assert sum(1 for m in conv["messages"] if m["role"] == "tool") == len(commands)
    for f in mini_dir.rglob("*"):
        if f.is_file():
            assert SECRET.encode() not in f.read_bytes(), f


@needs_bwrap
@pytest.mark.slow
def test_words_without_work_earn_no_validation_through_mini_swe_agent(fake_openai, lesion_data, tmp_path, monkeypatch):
    monkeypatch.setenv("AMB_MINI_KEY", SECRET)
    cfg = _agents_file(tmp_path / "agents.yaml", fake_openai.url)
    commands = [as_bash(lang, code) for lang, code in words_no_work_calls(agent_context(TASK, TIER))]
    fake_openai.push(*bash_tool_script(commands))
    _, r = _run("mini-fake", tmp_path / "runs", lesion_data, cfg)
    assert r.run.end_reason == "submitted" and r.task.completion_rate == 1.0
    assert r.stages["s3"].score == 0
    assert "NO_PILOT" in {e.code for e in r.errors}


@needs_bwrap
def test_a_look_at_the_private_references_is_blocked_and_coded(fake_openai, lesion_data, tmp_path, monkeypatch):
    monkeypatch.setenv("AMB_MINI_KEY", SECRET)
    cfg = _agents_file(tmp_path / "agents.yaml", fake_openai.url)
    source = ROOT / "src" / "automedbench" / "scoring" / "score_run.py"
    fake_openai.push(*bash_tool_script([f"# S2 look for the harness\ncat {source}; ls {ROOT}",
                                        "# S2 look for references\nls /data/private; cat /data/private/*/* | head -c 200",
                                        "# S2 again\ncat /data/private/*/*"]))
    run_dir, r = _run("mini-fake", tmp_path / "runs", lesion_data, cfg)
    assert r.disqualified and r.run.end_reason == "disqualified" and r.overall == 0
    assert len(r.violations) == 2 and all("/data/private" in (v.path or "") + v.evidence for v in r.violations)
    assert "SANDBOX_VIOLATION" in {e.code for e in r.errors}
    # the first look at the references was answered with the warning, in mini-swe-agent's rendering
    # of the result; what it read was the decoy, never a reference volume
    first_answer = fake_openai.chat_requests()[2]["body"]["messages"][-1]["content"]
    assert "SANDBOX VIOLATION" in first_answer and "\x1f\x8b" not in first_answer
    execs = [e for e in read_trace(run_dir / "trace.jsonl") if e.type == "execution"]
    # the harness source is not in the sandbox
    assert execs[0].exit_code != 0 and "def score_run" not in execs[0].stdout
    assert "AUTOMEDBENCH DECOY" in execs[1].stdout


def test_an_entry_of_kind_mini_swe_agent_is_checked_before_it_runs(tmp_path, fake_openai):
    cfg = _agents_file(tmp_path / "agents.yaml", fake_openai.url)
    agent = get_agent("mini-fake", [cfg])
    assert type(agent).__name__ == "MiniSweAgent" and agent.model == "fake-coder"
    kinds = {r["name"]: r["kind"] for r in list_agents([cfg])}   # `automedbench agents list`
    assert kinds["mini-fake"] == "mini-swe-agent" and kinds["loop-fake"] == "llm" and kinds["reference"] == "scripted"
    with pytest.raises(LLMConfigError, match="AMB_MINI_KEY"):
        check_ready(agent)
    os.environ["AMB_MINI_KEY"] = "x"
    try:
        check_ready(agent)
        bad = tmp_path / "mini.yaml"
        for text, words in [("environment:\n  env: {PAGER: cat}\n", "AutoMedBench's sandbox"),
                            ("model:\n  model_kwargs: {drop_params: true}\n", "agent entry's"),
                            ("agent:\n  step_limit: many\n", "step_limit"),
                            ("agent: [1]\n", "must be a mapping")]:
            bad.write_text(text)
            with pytest.raises(MiniSweAgentError, match=words):
                check_ready(get_agent("mini-fake", [_agents_file(tmp_path / "agents.yaml", fake_openai.url, bad)]))
    finally:
        del os.environ["AMB_MINI_KEY"]
    (tmp_path / "other.yaml").write_text(f"agents:\n  - name: x\n    kind: inspect\n    model: m\n    base_url: {fake_openai.url}\n")
    with pytest.raises(LLMConfigError, match="field 'kind': .*unknown kind 'inspect'"):
        get_agent("x", [tmp_path / "other.yaml"])
    (tmp_path / "other.yaml").write_text("agents:\n  - name: x\n    kind: mini-swe-agent\n    scaffold_config: nope.yaml\n"
                                         f"    model: m\n    base_url: {fake_openai.url}\n")
    with pytest.raises(LLMConfigError, match="nope.yaml' does not exist"):
        get_agent("x", [tmp_path / "other.yaml"])
    with pytest.raises(AgentError):
        get_agent("no-such-agent", [cfg])


def _limited_file(path: Path, url: str) -> Path:
    path.write_text(f"""agents:
  - name: mini-limited
    kind: mini-swe-agent
    model: fake-coder
    base_url: {url}
    limits: {{max_total_tokens: 2500}}
    retry: {{max_retries: 0}}
""")
    return path


def test_a_reply_it_cannot_act_on_is_refused_and_the_entrys_limits_end_the_run(fake_openai, lesion_data, tmp_path):
    """Local backend: what is tested here is mini-swe-agent's loop around our ToolBox, not isolation."""
    cfg = _limited_file(tmp_path / "agents.yaml", fake_openai.url)
    fake_openai.push(completion("wrong tool", tool_calls=[call("python", {"code": "print(1)"})], usage_=usage(1000, 50)),
                     completion(tool_calls=[call("bash", {"command": "# S1\necho one"})], usage_=usage(1000, 50)),
                     completion(tool_calls=[call("bash", {"command": "echo two >&2; exit 3"})], usage_=usage(1000, 50)))
    run_dir = api.run_one(TASK, TIER, "mini-limited", tmp_path / "runs", api.RunOptions(
        sandbox="local", data_root=lesion_data, agent_configs=[cfg])).run_dir
    meta = json.loads((run_dir / "run.json").read_text())["run"]
    # the third reply crossed 2500 tokens: the run ends before a fourth request, as our loop's
    assert meta["end_reason"] == "max_tokens" and meta["turns"] == 3 and meta["tokens_in"] == 3000
    trace = read_trace(run_dir / "trace.jsonl")
    assert [e.code for e in trace if e.type == "tool_call"] == ["# S1\necho one", "echo two >&2; exit 3"]
    rejected = [e for e in trace if e.type == "warning" and e.kind == "tool_call_rejected"]
    assert len(rejected) == 1 and "Unknown tool 'python'" in rejected[0].message
    chats = fake_openai.chat_requests()
    assert len(chats) == 3 and "Unknown tool 'python'" in chats[1]["body"]["messages"][-1]["content"]
    # a failed command's result as mini-swe-agent renders it (kept in the conversation; the run
    # ended before it was sent): its exit code and both streams
    last = json.loads((run_dir / "conversation.json").read_text())["messages"][-1]
    assert last["role"] == "tool" and "<returncode>3</returncode>" in last["content"] and "two" in last["content"]


def test_a_provider_that_refuses_the_request_is_an_infrastructure_end(fake_openai, lesion_data, tmp_path):
    cfg = _limited_file(tmp_path / "agents.yaml", fake_openai.url)
    fake_openai.push(error(400, "bad request: no such parameter"))
    run_dir = api.run_one(TASK, TIER, "mini-limited", tmp_path / "runs", api.RunOptions(
        sandbox="local", data_root=lesion_data, agent_configs=[cfg])).run_dir
    meta = json.loads((run_dir / "run.json").read_text())["run"]
    assert (meta["end_reason"], meta["end_detail"]) == ("infra_error", "provider_error")
    assert any(e.type == "error" and e.kind == "infrastructure" for e in read_trace(run_dir / "trace.jsonl"))
