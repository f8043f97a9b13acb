"""What the RL environment costs (docs/rl.md "Cost"), in one run:

1. `MedEnv.step` over a bare sandbox execution of the same code: in one open episode (real
   bwrap), the same `execute_code` call handed to `step` and run directly with the episode's
   sandbox `execute`, interleaved; the medians, their difference (the goal: <= 5 ms) and ratio.
2. Episodes per minute on the demo task (brain-lesion-seg, lite, its embedded demo dataset)
   with 1 and 2 workers: `run_group` replays the reference agent's recorded trajectory (one
   `run` first), n episodes per setting; the two rates and their ratio.

    PYTHONPATH=src python bench/env_step.py [--reps 40] [--episodes 4] [--no-groups]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from automedbench import api
from automedbench.rl import MedEnv, run_group
from automedbench.run_files import RunFiles

TASK, TIER = "brain-lesion-seg", "lite"
CODE = "# S2\nimport os\nprint(len(os.listdir('/data/public')))\n"


class Replay:
    """Replays recorded assistant messages, the next one after as many as the conversation holds."""

    def __init__(self, messages: list[dict[str, Any]]):
        self.messages = messages

    def __call__(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
        n = sum(1 for m in messages if m["role"] == "assistant")
        return self.messages[n] if n < len(self.messages) else {"role": "assistant", "content": "done"}


def _msg(i: int) -> dict[str, Any]:
    return {"role": "assistant", "content": "", "tool_calls": [{
        "id": f"call_{i}", "type": "function",
        "function": {"name": "execute_code", "arguments": json.dumps({"language": "python", "code": CODE})}}]}


class Timed:
    """The episode's sandbox with the wall time of each `execute` kept: a step's own execution
    is then subtracted from that step's time (the harness's part, free of the noise between
    two separate calls on a shared machine)."""

    def __init__(self, sandbox: Any):
        self.sandbox = sandbox
        self.last = 0.0

    def execute(self, language: str, code: str, timeout_s: float | None = None) -> Any:
        t0 = time.perf_counter()
        try:
            return self.sandbox.execute(language, code, timeout_s)
        finally:
            self.last = time.perf_counter() - t0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.sandbox, name)


def step_overhead(options: api.RunOptions, out: Path, reps: int) -> None:
    env = MedEnv(TASK, TIER, out_dir=out, options=options, max_turns=reps + 5)
    env.reset(seed=0)
    run = env.run
    assert run is not None and run.sandbox is not None and run.box is not None
    timed = Timed(run.sandbox)
    run.box.sandbox = timed
    env.step(_msg(0))      # warm: the first call pays the interpreter's imports
    run.sandbox.execute("python", CODE)
    stepped, bare, inner = [], [], []

    def one_step(i: int) -> None:
        t0 = time.perf_counter()
        step = env.step(_msg(i + 1))
        stepped.append(time.perf_counter() - t0)
        inner.append(stepped[-1] - timed.last)
        assert "exit_code: 0" in step.tool_messages[0]["content"], step.tool_messages

    def one_bare() -> None:
        t0 = time.perf_counter()
        res = run.sandbox.execute("python", CODE)   # type: ignore[union-attr]  # checked above
        bare.append(time.perf_counter() - t0)
        assert res.exit_code == 0

    for i in range(reps):      # interleaved, the order alternating (ABBA)
        if i % 2:
            one_bare()
            one_step(i)
        else:
            one_step(i)
            one_bare()
    env.close()
    ms, mb, mi = (statistics.median(x) * 1e3 for x in (stepped, bare, inner))
    print(f"step overhead ({reps} calls each, interleaved, one bwrap episode):")
    print(f"  MedEnv.step                  median {ms:8.2f} ms")
    print(f"  bare sandbox execute         median {mb:8.2f} ms   ratio step/bare {ms / mb:5.3f}x")
    print(f"  step minus its own execute   median {mi:8.2f} ms   (the harness's part; goal <= 5 ms)")


def episodes_per_minute(options: api.RunOptions, out: Path, episodes: int) -> None:
    ref = api.run_one(TASK, TIER, "reference", options=options, run_dir=out / "reference")
    conv = json.loads(RunFiles(out / "reference").conversation.read_text())
    messages = [{k: v for k, v in m.items() if k in ("role", "content", "tool_calls")}
                for m in conv["messages"] if m["role"] == "assistant"]
    rates = {}
    for workers in (1, 2):
        t0 = time.perf_counter()
        group = run_group(TASK, TIER, episodes, Replay(messages), workers=workers, out_dir=out,
                          options=options, group_id=f"w{workers}")
        wall = time.perf_counter() - t0
        assert all(e.reward == ref.overall for e in group.episodes), [e.reward for e in group.episodes]
        rates[workers] = episodes / wall * 60
        per = statistics.median(e.wall_s for e in group.episodes)
        print(f"  {workers} worker(s): {episodes} episodes in {wall:6.1f} s = {rates[workers]:5.2f} episodes/min"
              f"   (median episode {per:5.1f} s; reward {group.mean:.4f}, std {group.std:.4f};"
              f" load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)")
    print(f"  ratio 2 workers / 1 worker: {rates[2] / rates[1]:4.2f}x")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=40)
    ap.add_argument("--episodes", type=int, default=4, help="episodes per worker setting")
    ap.add_argument("--no-groups", action="store_true")
    args = ap.parse_args(argv)
    out = Path(tempfile.mkdtemp(prefix="env-step-bench-"))
    options = api.RunOptions(sandbox="bwrap", network=False)
    step_overhead(options, out / "step", args.reps)
    if not args.no_groups:
        print(f"episodes per minute ({TASK}, {TIER}, the demo dataset, the reference trajectory replayed):")
        episodes_per_minute(options, out / "groups", args.episodes)
    print(f"run folders: {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
