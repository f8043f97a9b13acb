"""Per-call overhead of mini-swe-agent's path over our own loop (issue 43: goal <= 10 ms;
docs/agents.md "mini-swe-agent").

Both agents are driven by the loopback scripted server (tests/llm/fake_openai.py) through N turns,
each one bash call `true`, then a submission, against the same kind of sandbox and ToolBox the
lifecycle builds: our loop (LLMAgent, execute_code) and mini-swe-agent (MiniSweAgent, its bash
tool). The sandbox's own cost is the same on both sides; the difference per turn is what the
scaffold adds (its loop, templates, our environment and model wrappers). Rounds alternate.

    PYTHONPATH=src .venv/bin/python bench/mini_swe_agent_overhead.py [-n 40] [--rounds 5] [--sandbox local|bwrap]

Prints the median seconds per turn of each path and their difference in ms.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from automedbench.agents import AgentContext, ToolBox  # noqa: E402
from automedbench.agents.llm import LLMAgent  # noqa: E402
from automedbench.agents.mini_swe_agent import SUBMIT_COMMAND, MiniSweAgent  # noqa: E402
from automedbench.llm.registry import AgentConfig  # noqa: E402
from automedbench.runs.models import Conversation  # noqa: E402
from automedbench.runs.trace import TraceWriter  # noqa: E402
from automedbench.sandbox import SandboxSpec, open_sandbox  # noqa: E402
from tests.llm.fake_openai import FakeOpenAI, call, completion  # noqa: E402


def one_run(kind: str, n: int, url: str, srv: FakeOpenAI, backend: str) -> tuple[float, float]:
    """(wall, CPU of this process) seconds per turn of one run of n bash calls and a submission.
    The CPU time is less sensitive to a busy machine; it includes the loopback server's threads,
    the same on both sides."""
    if kind == "loop":
        srv.push(*[completion(tool_calls=[call("execute_code", {"language": "bash", "code": "true"})])] * n,
                 completion(tool_calls=[call("submit_results", {})]))
    else:
        srv.push(*[completion(tool_calls=[call("bash", {"command": "true"})])] * n,
                 completion(tool_calls=[call("bash", {"command": SUBMIT_COMMAND})]))
    cfg = AgentConfig(name=f"bench-{kind}", kind="llm" if kind == "loop" else "mini-swe-agent", model="m", base_url=url)
    agent = LLMAgent(cfg) if kind == "loop" else MiniSweAgent(cfg)
    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        (root / "public").mkdir()
        (root / "workspace").mkdir()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            sb = open_sandbox(backend, SandboxSpec(root / "public", root / "workspace", timeout_s=60))
        try:
            trace = TraceWriter(root / "trace.jsonl")
            tools = ToolBox(sb, trace, Conversation(system_prompt="bench"))
            ctx = AgentContext(task_id="bench", tier="lite", data_dir=sb.data_dir, workspace_dir=sb.workspace_dir,
                               kickoff="Run true.", output_files=[], input_files=[])
            t0, c0 = time.perf_counter(), time.process_time()
            out = agent.run("bench", ctx, tools)
            elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
            trace.close()
        finally:
            sb.close()
    assert out.end_reason == "submitted" and tools.calls == n + 1, (out, tools.calls)
    return elapsed / (n + 1), cpu / (n + 1)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=40)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--sandbox", default="local")
    args = ap.parse_args()
    srv = FakeOpenAI().start()
    try:
        one_run("mini", 2, srv.url, srv, args.sandbox)   # imports and first connections off the clock
        one_run("loop", 2, srv.url, srv, args.sandbox)
        times: dict[str, list[tuple[float, float]]] = {"loop": [], "mini": []}
        for _ in range(args.rounds):
            for kind in ("loop", "mini"):
                times[kind].append(one_run(kind, args.n, srv.url, srv, args.sandbox))
    finally:
        srv.stop()
    print(f"sandbox {args.sandbox}, {args.n} calls x {args.rounds} rounds (median per turn; wall, CPU)")
    med = {k: [statistics.median(t[i] for t in v) for i in (0, 1)] for k, v in times.items()}
    for kind, label in (("loop", "our loop"), ("mini", "mini-swe-agent")):
        print(f"  {label:15s} {med[kind][0] * 1000:8.2f} ms  {med[kind][1] * 1000:8.2f} ms")
    wall, cpu = ((med["mini"][i] - med["loop"][i]) * 1000 for i in (0, 1))
    print(f"  overhead        {wall:8.2f} ms  {cpu:8.2f} ms per call (goal <= 10 ms: "
          f"{'met' if max(wall, cpu) <= 10 else 'NOT met'})")


if __name__ == "__main__":
    main()
