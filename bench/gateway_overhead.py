"""Per-call overhead of the CLI path behind the model gateway over our own loop (issue 43: goal
<= 10 ms; docs/agents.md "CLI agents behind the gateway").

Both are driven by the loopback scripted server (tests/llm/fake_openai.py) through N turns, each
one bash call `true`, then a submission, in bwrap, with the ToolBox the lifecycle builds: our loop
(LLMAgent: one sandbox execution per call) and kind cli (mini-swe-agent's own CLI in the sandbox:
each request through the forwarder, the Unix socket and the gateway, the calls recorded at the turn
boundaries with the host's effects). The CLI path pays a fixed start (a second sandbox, the CLI's
imports) that is no per-call cost, so each path's cost per call is the slope between a run of
`--small` and one of `--large` calls (median over rounds, rounds alternate).

    PYTHONPATH=src .venv/bin/python bench/gateway_overhead.py [--small 4] [--large 24] [--rounds 3]

Prints each path's seconds per call, their difference in ms (the goal is on it) and ratio, and the
gateway's own time per request (besides the upstream request) as measured inside it.
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
from automedbench.agents.cli_agent import CliAgent  # noqa: E402
from automedbench.agents.llm import LLMAgent  # noqa: E402
from automedbench.agents.mini_swe_agent import SUBMIT_COMMAND  # noqa: E402
from automedbench.llm.registry import AgentConfig  # noqa: E402
from automedbench.runs.models import Conversation  # noqa: E402
from automedbench.runs.trace import TraceWriter  # noqa: E402
from automedbench.sandbox import SandboxSpec, open_sandbox  # noqa: E402
from tests.llm.fake_openai import FakeOpenAI, call, completion  # noqa: E402

GATEWAY_OWN: list[float] = []   # seconds in the gateway per request, besides the upstream request


def one_run(kind: str, n: int, srv: FakeOpenAI) -> float:
    """Wall seconds of one run of n bash calls and a submission."""
    if kind == "loop":
        srv.push(*[completion(tool_calls=[call("execute_code", {"language": "bash", "code": "true"})])] * n,
                 completion(tool_calls=[call("submit_results", {})]))
    else:
        srv.push(*[completion(tool_calls=[call("bash", {"command": "true"})])] * n,
                 completion(tool_calls=[call("bash", {"command": SUBMIT_COMMAND})]))
    cfg = AgentConfig(name=f"bench-{kind}", kind="llm" if kind == "loop" else "cli", model="m", base_url=srv.url)
    agent = LLMAgent(cfg) if kind == "loop" else CliAgent(cfg)
    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        (root / "public").mkdir()
        (root / "workspace").mkdir()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            sb = open_sandbox("bwrap", SandboxSpec(root / "public", root / "workspace", timeout_s=300))
        try:
            trace = TraceWriter(root / "trace.jsonl")
            tools = ToolBox(sb, trace, Conversation(system_prompt="bench"))
            ctx = AgentContext(task_id="bench", tier="lite", data_dir=sb.data_dir, workspace_dir=sb.workspace_dir,
                               kickoff="Run true.", output_files=[], input_files=[])
            t0 = time.perf_counter()
            out = agent.run("bench", ctx, tools)
            elapsed = time.perf_counter() - t0
            trace.close()
            if isinstance(agent, CliAgent) and agent.last_meter is not None:
                m = agent.last_meter
                GATEWAY_OWN.extend([m.overhead_s / m.requests] * m.requests)
        finally:
            sb.close()
    assert out.end_reason == "submitted" and tools.calls == n + 1, (kind, out, tools.calls)
    return elapsed


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--small", type=int, default=4)
    ap.add_argument("--large", type=int, default=24)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    srv = FakeOpenAI().start()
    slopes: dict[str, list[float]] = {"loop": [], "cli": []}
    try:
        one_run("cli", 1, srv)   # the CLI's install folder and first imports off the clock
        one_run("loop", 1, srv)
        GATEWAY_OWN.clear()
        for _ in range(args.rounds):
            for kind in ("loop", "cli"):
                small, large = one_run(kind, args.small, srv), one_run(kind, args.large, srv)
                slopes[kind].append((large - small) / (args.large - args.small))
    finally:
        srv.stop()
    med = {k: statistics.median(v) for k, v in slopes.items()}
    print(f"bwrap, {args.small} and {args.large} calls x {args.rounds} rounds (median seconds per call, slope)")
    print(f"  our loop          {med['loop'] * 1000:8.2f} ms per call")
    print(f"  cli via gateway   {med['cli'] * 1000:8.2f} ms per call")
    diff = (med["cli"] - med["loop"]) * 1000
    print(f"  overhead          {diff:8.2f} ms per call, ratio cli/loop {med['cli'] / med['loop']:.3f} "
          f"(goal <= 10 ms: {'met' if diff <= 10 else 'NOT met'})")
    own = statistics.median(GATEWAY_OWN) * 1000 if GATEWAY_OWN else float("nan")
    print(f"  gateway's own     {own:8.2f} ms per request (median of the runs' means, {len(GATEWAY_OWN)} requests: "
          "limits, boundary records, effects read; besides the upstream request)")


if __name__ == "__main__":
    main()
