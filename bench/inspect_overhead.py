"""Per-call overhead of the Inspect AI path over our own loop (issue 43: goal <= 10 ms;
docs/agents.md "Inspect AI").

Both drive a whole run of `brain-lesion-seg` lite on a tiny lesion dataset through N calls, each
one bash call `true`, then a submission:

- our loop: `api.run_one` with an LLM agent asking the loopback scripted server
  (tests/llm/fake_openai.py);
- Inspect: `inspect_ai.eval` of the `automedbench` task with Inspect's scripted model
  (`mockllm/model`), its react() agent and bash() tool, through the `automedbench` sandbox.

A run has fixed costs that are not per call (Inspect's eval start and log, opening the sandbox,
scoring and the judge), so each path's cost per call is the slope between a short and a long run
(N_short and N_long calls), the median over rounds; rounds alternate the two paths. Wall time
and this process's CPU time (Inspect, the server and the harness all run in it).

    PYTHONPATH=src .venv/bin/python bench/inspect_overhead.py [--short 4] [--long 24] [--rounds 3] [--sandbox local|bwrap]
        [--no-log-realtime]

Prints each path's ms per call and the ratio and difference of Inspect's over our loop's.
"""
from __future__ import annotations

import argparse
import logging
import os
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import inspect_ai  # noqa: E402
from inspect_ai.model import ModelOutput, ModelUsage, get_model  # noqa: E402

from automedbench import api  # noqa: E402
from automedbench.integrations.inspect_ai import automedbench  # noqa: E402
from tests.helpers import tiny_lesion_dataset  # noqa: E402
from tests.llm.fake_openai import FakeOpenAI, call, completion, usage  # noqa: E402

TASK, TIER = "brain-lesion-seg", "lite"


def _agents(path: Path, url: str) -> Path:
    path.write_text(f"agents:\n  - name: bench-loop\n    model: m\n    base_url: {url}\n")
    return path


def loop_run(n: int, srv: FakeOpenAI, root: Path, data: Path, backend: str) -> tuple[float, float]:
    """(wall, CPU) seconds of one run of our loop through n calls and a submission."""
    srv.push(*[completion(tool_calls=[call("execute_code", {"language": "bash", "code": "true"})],
                          usage_=usage(100, 10))] * n,
             completion(tool_calls=[call("submit_results", {})], usage_=usage(100, 10)))
    opts = api.RunOptions(sandbox=backend, data_root=data, network=False,
                          agent_configs=[_agents(root / "agents.yaml", srv.url)], exec_timeout_s=60)
    t0, c0 = time.perf_counter(), time.process_time()
    report = api.run_one(TASK, TIER, "bench-loop", root / "loop", opts)
    elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
    assert report.run.end_reason == "submitted" and report.run.turns == n + 1, report.run
    return elapsed, cpu


def inspect_run(n: int, root: Path, data: Path, backend: str, realtime: bool = True) -> tuple[float, float]:
    """(wall, CPU) seconds of one inspect_ai.eval through n bash calls and react()'s submit."""
    outs = [ModelOutput.for_tool_call("mockllm/model", "bash", {"command": "true"}) for _ in range(n)]
    outs.append(ModelOutput.for_tool_call("mockllm/model", "submit", {"answer": "done"}))
    for out in outs:   # given, else mockllm counts tokens with a tokenizer it downloads
        out.usage = ModelUsage(input_tokens=100, output_tokens=10, total_tokens=110)
    t0, c0 = time.perf_counter(), time.process_time()
    task = automedbench(task=TASK, tier=TIER, sandbox=backend, network=False, data_root=str(data), exec_timeout_s=60)
    (log,) = inspect_ai.eval(task, model=get_model("mockllm/model", custom_outputs=outs),
                             log_dir=str(root / "logs"), display="none", log_level="error", log_realtime=realtime)
    elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
    assert log.status == "success" and log.samples, log.error
    meta = log.samples[0].scores["automedbench_scorer"].metadata
    assert meta["end_reason"] == "submitted", meta
    return elapsed, cpu


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--short", type=int, default=4)
    ap.add_argument("--long", type=int, default=24)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--sandbox", default="local")
    ap.add_argument("--no-log-realtime", action="store_true",
                    help="Inspect without its realtime sample log (inspect eval --no-log-realtime)")
    args = ap.parse_args()
    realtime = not args.no_log_realtime
    logging.disable(logging.WARNING)
    warnings.simplefilter("ignore")
    with tempfile.TemporaryDirectory() as d:
        base = Path(d)
        os.environ["HOME"] = str(base / "home")   # Inspect's settings and caches stay in here
        data = base / "data"
        tiny_lesion_dataset(data / "mni-brain-lesion", n_cases=2)
        srv = FakeOpenAI().start()
        runs = iter(range(10**6))
        try:
            def fresh() -> Path:
                p = base / f"r{next(runs)}"
                p.mkdir()
                return p
            loop_run(1, srv, fresh(), data, args.sandbox)      # imports and first runs off the clock
            inspect_run(1, fresh(), data, args.sandbox, realtime)
            slopes: dict[str, list[tuple[float, float]]] = {"loop": [], "inspect": []}
            for _ in range(args.rounds):
                for kind in ("loop", "inspect"):
                    one = (lambda n: loop_run(n, srv, fresh(), data, args.sandbox)) if kind == "loop" else \
                        (lambda n: inspect_run(n, fresh(), data, args.sandbox, realtime))
                    short, long = one(args.short), one(args.long)
                    span = args.long - args.short
                    slopes[kind].append(((long[0] - short[0]) / span, (long[1] - short[1]) / span))
        finally:
            srv.stop()
    med = {k: [statistics.median(s[i] for s in v) for i in (0, 1)] for k, v in slopes.items()}
    print(f"sandbox {args.sandbox}{'' if realtime else ', Inspect without its realtime log'}; per call = slope between {args.short} and {args.long} calls; "
          f"median of {args.rounds} rounds (wall, CPU)")
    for kind, label in (("loop", "our loop"), ("inspect", "Inspect AI")):
        print(f"  {label:12s} {med[kind][0] * 1000:8.2f} ms  {med[kind][1] * 1000:8.2f} ms per call")
    ratio = [med["inspect"][i] / med["loop"][i] if med["loop"][i] > 0 else float("nan") for i in (0, 1)]
    wall, cpu = ((med["inspect"][i] - med["loop"][i]) * 1000 for i in (0, 1))
    print(f"  ratio        {ratio[0]:8.2f} x   {ratio[1]:8.2f} x  (Inspect / our loop)")
    print(f"  overhead     {wall:8.2f} ms  {cpu:8.2f} ms per call (goal <= 10 ms: "
          f"{'met' if max(wall, cpu) <= 10 else 'NOT met'})")


if __name__ == "__main__":
    main()
