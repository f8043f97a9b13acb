"""CLI agents behind the model gateway (docs/agents.md "CLI agents behind the gateway"):
mini-swe-agent's own CLI (`mini`) runs inside bwrap as one process; its model requests reach the
gateway through the forwarder on the sandbox's loopback and the Unix socket bound into it; the
upstream is the loopback scripted server. The same commands through our loop and through the CLI
earn the same task score and S1-S5; words without work earn S3 0; a look at the private
references is blocked and coded; the key is nowhere in the sandbox's view; tokens and cost are
the scripted server's usage priced by the entry."""
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from automedbench import api
from automedbench.agents import check_ready, get_agent
from automedbench.agents.cli_agent import PLACEHOLDER_KEY
from automedbench.agents.listing import list_agents
from automedbench.agents.mini_swe_agent import SUBMIT_COMMAND
from automedbench.agents.scripted import reference_calls, words_no_work_calls
from automedbench.gateway import ChatMeter, Gateway
from automedbench.gateway.server import MAX_CONNECTIONS
from automedbench.llm.client import ChatClient
from automedbench.llm.registry import load_agent_configs
from automedbench.runs.models import DetailReport
from automedbench.runs.trace import read_trace

from .bash_scaffold import agent_context, as_bash, bash_tool_script, loop_script, scripted_usage
from .fake_openai import call, completion, usage

pytest.importorskip("minisweagent", reason="mini-swe-agent is not installed (make test installs it: docs/agents.md)")
needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")
pytestmark = [pytest.mark.filterwarnings("ignore::RuntimeWarning"), needs_bwrap]

ROOT = Path(__file__).resolve().parents[2]
TASK, TIER = "brain-lesion-seg", "lite"
SECRET = "sk-cli-DO-NOT-LEAK-9f8e7d6c"
PRICING = "{input_per_mtok: 2.0, output_per_mtok: 8.0, cached_input_per_mtok: 0.5}"


def _agents_file(path: Path, url: str, limits: str = "", scaffold: Path | None = None) -> Path:
    retry = "{max_retries: 1, backoff_base_s: 0.01, backoff_max_s: 0.02}"
    lim = f"\n    limits: {limits}" if limits else ""
    lim += f"\n    scaffold_config: {scaffold}" if scaffold else ""
    path.write_text(f"""agents:
  - name: loop-fake
    model: fake-coder
    base_url: {url}
    api_key_env: AMB_CLI_KEY
    pricing: {PRICING}
    retry: {retry}
  - name: cli-fake
    kind: cli
    model: fake-coder
    base_url: {url}
    api_key_env: AMB_CLI_KEY
    pricing: {PRICING}
    retry: {retry}{lim}
""")
    return path


@pytest.fixture
def lesion_data(tmp_path, staged_once):
    root = tmp_path / "data"
    staged_once("mni-brain-lesion", root, n_cases=3)
    return root


def _run(agent: str, out: Path, data: Path, cfg: Path, exec_timeout_s: float = 300) -> tuple[Path, DetailReport]:
    run_dir = api.run_one(TASK, TIER, agent, out, api.RunOptions(sandbox="bwrap", data_root=data, network=False,
                                                                 agent_configs=[cfg],
                                                                 exec_timeout_s=exec_timeout_s)).run_dir
    return run_dir, DetailReport.model_validate_json((run_dir / "detail_report.json").read_text())


def _stages(r: DetailReport) -> dict:
    return {s: (st.score, st.items) for s, st in r.stages.items()}


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


def _priced(usages: list[dict]) -> float:
    """The entry's pricing of the scripted usage (2.0 in, 0.5 cached in, 8.0 out per Mtok)."""
    return sum(((u["prompt_tokens"] - 500) * 2.0 + 500 * 0.5 + u["completion_tokens"] * 8.0) / 1e6 for u in usages)


@pytest.mark.slow
def test_the_reference_commands_earn_the_same_through_the_cli_and_our_loop(fake_openai, lesion_data, tmp_path,
                                                                           monkeypatch):
    monkeypatch.setenv("AMB_CLI_KEY", SECRET)
    cfg = _agents_file(tmp_path / "agents.yaml", fake_openai.url)
    commands = [as_bash(lang, code) for lang, code in reference_calls(agent_context(TASK, TIER))]
    fake_openai.push(*loop_script(commands))
    loop_dir, loop = _run("loop-fake", tmp_path / "loop", lesion_data, cfg)
    fake_openai.push(*bash_tool_script(commands))
    cli_dir, cli = _cli_run("cli-fake", tmp_path / "cli", lesion_data, cfg)

    assert loop.run.end_reason == cli.run.end_reason == "submitted"
    assert loop.task.completion_rate == 1.0 and loop.task.score > 0.6 and loop.stages["s3"].score == 1.0
    assert cli.task.score == loop.task.score and cli.task.per_case == loop.task.per_case
    assert _stages(cli) == _stages(loop)
    assert cli.agentic == loop.agentic and cli.overall == loop.overall
    assert {e.code for e in cli.errors} == {e.code for e in loop.errors}
    # tokens and cost: the scripted server's usage, priced by the entry, one turn per command + the submission
    usages = [scripted_usage(i) for i in range(len(commands) + 1)]
    assert (cli.run.turns, cli.run.tokens_in, cli.run.tokens_out) == \
        (loop.run.turns, loop.run.tokens_in, loop.run.tokens_out) == \
        (len(commands) + 1, sum(u["prompt_tokens"] for u in usages), sum(u["completion_tokens"] for u in usages))
    assert cli.run.cost_usd == loop.run.cost_usd == pytest.approx(_priced(usages), abs=1e-6)

    # the record: every command the CLI ran is one call with its effects, as our loop's calls
    trace = read_trace(cli_dir / "trace.jsonl")
    calls = [e for e in trace if e.type == "tool_call"]
    assert [e.code for e in calls] == commands
    assert all(e.data["source"]["path"] == "cli-gateway" and e.data["source"]["calls_from"] == "gateway"
               and e.data["source"]["scaffold"] == "mini-swe-agent" for e in calls)
    loop_execs = [e for e in read_trace(loop_dir / "trace.jsonl") if e.type == "execution"]
    cli_execs = [e for e in trace if e.type == "execution"]
    assert [(e.stage, e.exit_code, sorted(w.path for w in e.effects.written)) for e in cli_execs] == \
        [(e.stage, e.exit_code, sorted(w.path for w in e.effects.written)) for e in loop_execs]
    assert [e.type for e in trace if e.type in ("submit", "run_end")] == ["submit", "run_end"]
    # the agent's own trajectory agreed with the calls recorded
    assert not [e for e in trace if e.type == "warning" and (e.kind or "").startswith("cli_trajectory")]
    meta = json.loads((cli_dir / "run.json").read_text())
    assert meta["agent_config"]["kind"] == "cli"
    # one model, two scaffolds: the record says which drove each run (docs/agents.md "Scaffold and model")
    assert (meta["run"]["scaffold"], cli.run.scaffold, loop.run.scaffold) == ("cli:mini", "cli:mini", "automedbench-loop")
    # upstream: the key on the wire only; the agent sent the placeholder to the gateway
    chats = fake_openai.chat_requests()[len(commands) + 1:]
    assert len(chats) == len(commands) + 1
    assert all(c["headers"]["authorization"] == f"Bearer {SECRET}" for c in chats)
    assert [t["function"]["name"] for t in chats[0]["body"]["tools"]] == ["bash"]
    assert "S3 Validate" in chats[0]["body"]["messages"][0]["content"]
    assert "<returncode>0</returncode>" in chats[-1]["body"]["messages"][-1]["content"]
    # the conversation as the model saw it: mini's system message, each result, no placeholder key
    conv = json.loads((cli_dir / "conversation.json").read_text())
    assert SUBMIT_COMMAND in conv["system_prompt"] and "S3 Validate" in conv["system_prompt"]
    assert sum(1 for m in conv["messages"] if m["role"] == "tool") == len(commands)
    assert sum(1 for m in conv["messages"] if m["role"] == "assistant") == len(commands) + 1
    for f in cli_dir.rglob("*"):
        if f.is_file():
            assert SECRET.encode() not in f.read_bytes(), f


@pytest.mark.slow
def test_words_without_work_earn_no_validation_through_the_cli(fake_openai, lesion_data, tmp_path, monkeypatch):
    monkeypatch.setenv("AMB_CLI_KEY", SECRET)
    cfg = _agents_file(tmp_path / "agents.yaml", fake_openai.url)
    commands = [as_bash(lang, code) for lang, code in words_no_work_calls(agent_context(TASK, TIER))]
    fake_openai.push(*bash_tool_script(commands))
    _, r = _run("cli-fake", tmp_path / "runs", lesion_data, cfg)
    assert r.run.end_reason == "submitted" and r.task.completion_rate == 1.0
    assert r.stages["s3"].score == 0
    assert "NO_PILOT" in {e.code for e in r.errors}


def test_a_look_at_the_private_references_is_blocked_and_coded(fake_openai, lesion_data, tmp_path, monkeypatch):
    monkeypatch.setenv("AMB_CLI_KEY", SECRET)
    cfg = _agents_file(tmp_path / "agents.yaml", fake_openai.url)
    source = ROOT / "src" / "automedbench" / "scoring" / "score_run.py"
    fake_openai.push(*bash_tool_script([f"# S2 look for the harness\ncat {source}; ls {ROOT}",
                                        "# S2 look for references\nls /data/private; cat /data/private/*/* | head -c 200",
                                        "# S2 again\ncat /data/private/*/*", "echo never"]))
    run_dir, r = _run("cli-fake", tmp_path / "runs", lesion_data, cfg)
    assert r.disqualified and r.run.end_reason == "disqualified" and r.overall == 0
    assert len(r.violations) == 2 and all("/data/private" in (v.path or "") + v.evidence for v in r.violations)
    assert "SANDBOX_VIOLATION" in {e.code for e in r.errors}
    chats = fake_openai.chat_requests()
    # the first look at the references was answered with the warning in the agent's result; after
    # the second the gateway refused the run's next request, so the model was asked three times only
    assert len(chats) == 3
    assert "SANDBOX VIOLATION" in chats[2]["body"]["messages"][-1]["content"]
    execs = [e for e in read_trace(run_dir / "trace.jsonl") if e.type == "execution"]
    # the harness source is not in the CLI's sandbox either (its own binds hold the CLI, not us)
    assert execs[0].exit_code != 0 and "def score_run" not in execs[0].stdout
    assert "AUTOMEDBENCH DECOY" in execs[1].stdout and "\x1f\x8b" not in execs[1].stdout


def test_the_key_is_nowhere_in_the_sandbox_and_the_network_stays_off(fake_openai, lesion_data, tmp_path,
                                                                      monkeypatch):
    """The sandbox's view, grepped from inside by a command of the CLI agent: every process's
    environment, the workspace, /tmp, the gateway's folder and the agent's config; and the upstream
    cannot be reached but through the gateway."""
    monkeypatch.setenv("AMB_CLI_KEY", SECRET)
    cfg = _agents_file(tmp_path / "agents.yaml", fake_openai.url)
    head, tail = SECRET[:9], SECRET[9:]   # the command never holds the key whole
    port = fake_openai.url.split(":")[-1].split("/")[0]
    grep = (f'# S1 look\nK="{head}"; K="$K{tail}"\n'
            'for f in /proc/[0-9]*/environ /proc/[0-9]*/cmdline; do tr "\\0" "\\n" < $f 2>/dev/null; done > /tmp/envs.txt\n'
            f'echo "environs: $(wc -l < /tmp/envs.txt)"; grep -c OPENAI_API_KEY={PLACEHOLDER_KEY} /tmp/envs.txt\n'
            'echo "key in environs: $(grep -c -- "$K" /tmp/envs.txt)"\n'
            'echo "key in files: $(grep -rlF -- "$K" /workspace /tmp /opt/amb-gateway /etc $HOME/.config 2>/dev/null'
            ' | grep -v envs.txt | wc -l)"\n'
            'echo "command PYTHONPATH=$PYTHONPATH key=[$OPENAI_API_KEY]"\n'
            'ls /opt/amb-gateway\n'
            f'python3 -c "import urllib.request as u; u.urlopen(\'http://127.0.0.1:{port}/v1/models\', timeout=3)"'
            ' 2>&1 | tail -1')
    fake_openai.push(*bash_tool_script([grep]))
    run_dir, r = _run("cli-fake", tmp_path / "runs", lesion_data, cfg)
    assert r.run.end_reason == "submitted"
    out = [e for e in read_trace(run_dir / "trace.jsonl") if e.type == "execution"][0].stdout
    lines = out.splitlines()
    assert int(lines[0].split(": ")[1]) > 5 and int(lines[1]) >= 1   # the agent's environment was read
    assert "key in environs: 0" in lines and "key in files: 0" in lines, out
    assert {"gateway.sock", "forwarder.py", "mini.yaml"} <= set(lines), out
    # the commands get the sandbox's own PYTHONPATH, not the CLI's packages, and no gateway key
    assert "command PYTHONPATH=/opt/agent-python/boot key=[]" in lines, out
    assert "Connection refused" in lines[-1] or "Errno" in lines[-1], out   # the host's loopback is not the sandbox's
    assert SECRET not in out
    # tokens and cost equal the scripted server's usage, priced by the entry
    usages = [scripted_usage(0), scripted_usage(1)]
    assert (r.run.tokens_in, r.run.tokens_out) == (sum(u["prompt_tokens"] for u in usages),
                                                   sum(u["completion_tokens"] for u in usages))
    assert r.run.cost_usd == pytest.approx(_priced(usages), abs=1e-6)


def test_the_entrys_limits_end_the_run_at_the_gateway(fake_openai, lesion_data, tmp_path, monkeypatch):
    monkeypatch.setenv("AMB_CLI_KEY", SECRET)
    cfg = _agents_file(tmp_path / "agents.yaml", fake_openai.url, limits="{max_total_tokens: 2500}")
    fake_openai.push(*[completion(tool_calls=[call("bash", {"command": f"# S1\necho {i}"})], usage_=usage(1000, 50))
                       for i in range(4)])
    run_dir, r = _run("cli-fake", tmp_path / "runs", lesion_data, cfg)
    # the third reply crossed 2500 tokens: the gateway refused the fourth request, as our loop ends;
    # the third reply's command had run, and is recorded from that request
    assert r.run.end_reason == "max_tokens" and r.run.turns == 3 and r.run.tokens_in == 3000
    assert len(fake_openai.chat_requests()) == 3
    trace = read_trace(run_dir / "trace.jsonl")
    assert [e.code for e in trace if e.type == "tool_call"] == [f"# S1\necho {i}" for i in range(3)]
    assert [e.stdout for e in trace if e.type == "execution"] == ["0\n", "1\n", "2\n"]


def test_an_entry_of_kind_cli_is_checked_before_it_runs(tmp_path, fake_openai):
    cfg = _agents_file(tmp_path / "agents.yaml", fake_openai.url)
    agent = get_agent("cli-fake", [cfg])
    assert type(agent).__name__ == "CliAgent" and agent.model == "fake-coder"
    kinds = {r["name"]: r["kind"] for r in list_agents([cfg])}   # `automedbench agents list`
    assert kinds["cli-fake"] == "cli" and kinds["loop-fake"] == "llm"
    with pytest.raises(Exception, match="AMB_CLI_KEY"):
        check_ready(agent)


def _unix_http(path: Path, method: str, url: str, body: bytes = b"") -> tuple[int, bytes]:
    """One HTTP request over the gateway's Unix socket, as the forwarder relays it."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(str(path))
    s.sendall(f"{method} {url} HTTP/1.0\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
              .encode() + body)
    data = b""
    while chunk := s.recv(65536):
        data += chunk
    s.close()
    head, _, rest = data.partition(b"\r\n\r\n")
    return int(head.split()[1]), rest


def test_the_gateway_answers_streams_and_refuses_once_ended(fake_openai, tmp_path, monkeypatch):
    """The gateway alone (no sandbox): a request priced and counted, the same reply as server-sent
    events, the model list, a bad body and an unknown path refused, and every request after the
    end answered 401 with the reason."""
    monkeypatch.setenv("AMB_CLI_KEY", SECRET)
    cfg = load_agent_configs([_agents_file(tmp_path / "agents.yaml", fake_openai.url)])["cli-fake"]
    counted: list = []
    limit: list = [None]
    meter = ChatMeter(cfg, ChatClient(cfg), at_limit=lambda: limit[0], before=lambda r: None,
                      begin_turn=lambda: None, record=counted.append, failed=lambda e: None, deadline=lambda: None)
    sock = tmp_path / "gw.sock"
    fake_openai.push(completion("hi", tool_calls=[call("bash", {"command": "ls"})], usage_=scripted_usage(0)),
                     completion("again", usage_=scripted_usage(1)))
    with Gateway(sock, "fake-coder", meter) as gw:
        req = {"model": "anything", "messages": [{"role": "user", "content": "go"}],
               "tools": [{"type": "function", "function": {"name": "bash", "parameters": {}}}]}
        status, body = _unix_http(sock, "POST", "/v1/chat/completions", json.dumps(req).encode())
        reply = json.loads(body)
        assert status == 200 and reply["choices"][0]["message"]["tool_calls"][0]["function"]["name"] == "bash"
        assert reply["usage"]["prompt_tokens"] == 1000 and reply["usage"]["cost"] == pytest.approx(_priced([scripted_usage(0)]))
        assert counted[0].cost_usd == pytest.approx(_priced([scripted_usage(0)])) and counted[0].reply.tokens_out == 50
        # upstream got the entry's model and the harness's key, not what the agent sent
        up = fake_openai.chat_requests()[0]
        assert up["body"]["model"] == "fake-coder" and up["headers"]["authorization"] == f"Bearer {SECRET}"
        status, body = _unix_http(sock, "POST", "/v1/chat/completions", json.dumps({**req, "stream": True}).encode())
        events = [line[6:] for line in body.decode().splitlines() if line.startswith("data: ")]
        assert status == 200 and events[-1] == "[DONE]"
        assert json.loads(events[0])["choices"][0]["delta"]["content"] == "again"
        assert json.loads(events[2])["usage"]["prompt_tokens"] == 1100
        assert _unix_http(sock, "GET", "/v1/models")[0] == 200
        assert json.loads(_unix_http(sock, "GET", "/v1/models")[1])["data"][0]["id"] == "fake-coder"
        assert _unix_http(sock, "POST", "/v1/chat/completions", b"{not json")[0] == 400
        assert _unix_http(sock, "POST", "/v1/embeddings", b"{}")[0] == 404
        assert _unix_http(sock, "POST", "/amb/upload/trajectory.json", b"xyz")[0] == 200
        assert gw.uploads["trajectory.json"] == b"xyz"
        assert _unix_http(sock, "POST", "/amb/upload/other.bin", b"xyz")[0] == 404 and list(gw.uploads) == \
            ["trajectory.json"]
        # connections beyond MAX_CONNECTIONS are closed at once; once they go, requests are served
        idle = [socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) for _ in range(MAX_CONNECTIONS + 1)]
        for c in idle:
            c.connect(str(sock))
        idle[-1].settimeout(5)
        assert idle[-1].recv(10) == b""
        for c in idle:
            c.close()
        time.sleep(0.5)
        assert _unix_http(sock, "GET", "/v1/models")[0] == 200
        limit[0] = "max_cost"
        status, body = _unix_http(sock, "POST", "/v1/chat/completions", json.dumps(req).encode())
        assert status == 401 and "max_cost" in json.loads(body)["error"]["message"]
        assert len(fake_openai.chat_requests()) == 2 and len(counted) == 2
    assert not sock.exists()


def test_a_cli_that_cannot_start_or_a_sandbox_without_bwrap_is_never_the_agents_fault(fake_openai, lesion_data,
                                                                                      tmp_path, monkeypatch):
    monkeypatch.setenv("AMB_CLI_KEY", SECRET)
    broken = tmp_path / "mini.yaml"
    broken.write_text("agent:\n  system_template: '{{ no_such_variable }}'\n")
    cfg = _agents_file(tmp_path / "agents.yaml", fake_openai.url, scaffold=broken)
    run_dir, r = _run("cli-fake", tmp_path / "runs", lesion_data, cfg)
    assert (r.run.end_reason, r.run.end_detail) == ("infra_error", "cli_failed")
    errors = [e for e in read_trace(run_dir / "trace.jsonl") if e.type == "error"]
    assert "no_such_variable" in errors[0].message and fake_openai.chat_requests() == []
    run_dir = api.run_one(TASK, TIER, "cli-fake", tmp_path / "local", api.RunOptions(
        sandbox="local", data_root=lesion_data, agent_configs=[_agents_file(tmp_path / "a2.yaml", fake_openai.url)])).run_dir
    meta = json.loads((run_dir / "run.json").read_text())["run"]
    assert (meta["end_reason"], meta["end_detail"]) == ("infra_error", "cli_needs_bwrap")


def test_a_command_past_the_time_limit_per_execution_is_killed_and_recorded_so(fake_openai, lesion_data, tmp_path,
                                                                                monkeypatch):
    monkeypatch.setenv("AMB_CLI_KEY", SECRET)
    cfg = _agents_file(tmp_path / "agents.yaml", fake_openai.url)
    fake_openai.push(*bash_tool_script(["# S1\nsleep 30; echo late", "# S1\necho on time"]))
    run_dir, r = _run("cli-fake", tmp_path / "runs", lesion_data, cfg, exec_timeout_s=3)
    assert r.run.end_reason == "submitted" and r.run.wall_time_s < 25
    execs = [e for e in read_trace(run_dir / "trace.jsonl") if e.type == "execution"]
    assert [(e.timed_out, e.exit_code) for e in execs] == [(True, -1), (False, 0)]
    assert "late" not in execs[0].stdout and execs[1].stdout == "on time\n"


def test_a_reply_with_two_commands_gives_the_boundarys_effects_to_its_last(fake_openai, lesion_data, tmp_path,
                                                                            monkeypatch):
    """docs/agents.md "What is recorded": both commands are calls, in order, each with its own
    result; what the host saw between the reply and the next request goes to the last."""
    monkeypatch.setenv("AMB_CLI_KEY", SECRET)
    cfg = _agents_file(tmp_path / "agents.yaml", fake_openai.url)
    fake_openai.push(completion("two", tool_calls=[call("bash", {"command": "# S1\necho a > /workspace/a.txt; echo A"}),
                                                   call("bash", {"command": "# S1\necho b > /workspace/b.txt; exit 2"})],
                                usage_=scripted_usage(0)),
                     completion("done", tool_calls=[call("bash", {"command": SUBMIT_COMMAND})], usage_=scripted_usage(1)))
    run_dir, r = _run("cli-fake", tmp_path / "runs", lesion_data, cfg)
    assert r.run.end_reason == "submitted" and r.run.turns == 2
    trace = read_trace(run_dir / "trace.jsonl")
    execs = [e for e in trace if e.type == "execution"]
    assert [(e.exit_code, e.stdout) for e in execs] == [(0, "A\n"), (2, "")]
    assert execs[0].effects is None
    assert sorted(w.path for w in execs[1].effects.written) == ["/workspace/a.txt", "/workspace/b.txt"]
    assert [e.call_index for e in trace if e.type == "tool_call"] == [1, 2]


def test_a_command_that_submits_after_its_work_is_a_call_and_the_submission(fake_openai, lesion_data, tmp_path,
                                                                            monkeypatch):
    """mini submits when a command's output starts with its word: the command's work is a call
    with its effects, then the run is submitted."""
    monkeypatch.setenv("AMB_CLI_KEY", SECRET)
    cfg = _agents_file(tmp_path / "agents.yaml", fake_openai.url)
    last = "# S1 write then submit\necho hi > /workspace/h.txt && echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && echo bye"
    fake_openai.push(completion("go", tool_calls=[call("bash", {"command": last})], usage_=scripted_usage(0)))
    run_dir, r = _run("cli-fake", tmp_path / "runs", lesion_data, cfg)
    assert r.run.end_reason == "submitted" and r.run.turns == 1
    trace = read_trace(run_dir / "trace.jsonl")
    assert [e.code for e in trace if e.type == "tool_call"] == [last]
    ex = [e for e in trace if e.type == "execution"][0]
    assert ex.exit_code == 0 and ex.stdout == "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\nbye\n"
    assert [w.path for w in ex.effects.written] == ["/workspace/h.txt"]
    assert [e.type for e in trace if e.type in ("submit", "run_end")] == ["submit", "run_end"]
    assert not [e for e in trace if e.type == "warning" and (e.kind or "").startswith("cli_trajectory")]


def test_a_cli_that_leaves_no_trajectory_is_recorded_from_the_gateways_view_and_the_record_says_so(
        fake_openai, lesion_data, tmp_path, monkeypatch):
    """mini saves its trajectory after every step: a command that puts a folder where the file goes
    makes the next save fail, and the CLI ends there. Its calls are then the gateway's view only:
    the first command's result came with the next request; the last command's result is unknown
    (exit code -1), and a cli_trajectory_missing warning says so (docs/agents.md "What is recorded")."""
    monkeypatch.setenv("AMB_CLI_KEY", SECRET)
    cfg = _agents_file(tmp_path / "agents.yaml", fake_openai.url)
    commands = ["# S1 look\nls /data/public", "# S1 again\nrm -f /tmp/mini/trajectory.json; mkdir /tmp/mini/trajectory.json"]
    fake_openai.push(*bash_tool_script(commands))
    run_dir, r = _run("cli-fake", tmp_path / "runs", lesion_data, cfg)
    trace = read_trace(run_dir / "trace.jsonl")
    assert [e.code for e in trace if e.type == "tool_call"] == commands
    execs = [e for e in trace if e.type == "execution"]
    assert execs[0].exit_code == 0 and "case_000" in execs[0].stdout          # reported in request 2
    assert execs[1].exit_code == -1 and execs[1].stdout == ""                 # no request, no trajectory after it
    (missing,) = [e for e in trace if e.type == "warning" and e.kind == "cli_trajectory_missing"]
    assert missing.data["exit_code"] != 0 and "IsADirectoryError" in missing.data["cli_log_tail"]
    assert not [e for e in trace if e.type == "warning" and e.kind == "cli_trajectory_mismatch"]
    # the model was asked twice; the run did not submit, and ended as the agent's own stop
    assert len(fake_openai.chat_requests()) == 2
    assert r.run.end_reason == "agent_finished" and not r.run.submitted and r.run.turns == 2


def test_a_command_that_asks_the_gateway_itself_is_a_turn_and_the_trajectory_check_names_the_difference(
        fake_openai, lesion_data, tmp_path, monkeypatch):
    """The forwarder's port is open to the agent's commands (docs/agents.md "Limits of this path"):
    a command that asks the gateway itself makes a turn, counted, whose reply the gateway reads as
    the CLI's. The agent's own trajectory then names other commands than the calls recorded, and a
    cli_trajectory_mismatch warning says which."""
    monkeypatch.setenv("AMB_CLI_KEY", SECRET)
    cfg = _agents_file(tmp_path / "agents.yaml", fake_openai.url)
    ask = ("# S1 ask the model myself\npython3 -c \"import json, urllib.request as u; "
           "r = u.Request('http://127.0.0.1:18080/v1/chat/completions', "
           "json.dumps({'model': 'x', 'messages': [{'role': 'user', 'content': 'hi'}]}).encode(), "
           "{'Content-Type': 'application/json'}); print(u.urlopen(r, timeout=30).status)\"")
    fake_openai.push(completion("ask", tool_calls=[call("bash", {"command": ask})], usage_=scripted_usage(0)),
                     completion("inner", tool_calls=[call("bash", {"command": "echo injected"})],
                                usage_=scripted_usage(1)),
                     completion("done", tool_calls=[call("bash", {"command": SUBMIT_COMMAND})],
                                usage_=scripted_usage(2)))
    run_dir, r = _run("cli-fake", tmp_path / "runs", lesion_data, cfg)
    trace = read_trace(run_dir / "trace.jsonl")
    # three requests, each a counted turn: the CLI's two and the command's own
    assert len(fake_openai.chat_requests()) == 3 and r.run.turns == 3
    assert r.run.tokens_in == sum(scripted_usage(i)["prompt_tokens"] for i in range(3))
    recorded = [e.code for e in trace if e.type == "tool_call"]
    assert recorded == [ask, "echo injected"]
    (mismatch,) = [e for e in trace if e.type == "warning" and e.kind == "cli_trajectory_mismatch"]
    assert mismatch.data["trajectory"][0] == ask and "echo injected" not in mismatch.data["trajectory"]
    assert "echo injected" in mismatch.data["recorded"]
    # mini still submitted: its trajectory ends Submitted, and the run with it
    assert r.run.end_reason == "submitted" and r.run.submitted
