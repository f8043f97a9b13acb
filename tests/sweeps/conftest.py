"""A tiny task + dataset and an LLM agent served by the loopback fake OpenAI server.

The fake server answers by the request's `model`, so any number of parallel runs work:
  sleep-<s>   execute_code `time.sleep(s)`, then submit_results
  flaky-<n>   503 for the first n requests (the provider is down), then like sleep-0.2
  down        503 forever (every run of this agent ends `provider_unavailable`)
"""
from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from tests.helpers import tiny_lesion_dataset
from tests.llm.fake_openai import FakeOpenAI, call, completion, error

from automedbench.runs.sweep import RunOptions, SweepSpec
from automedbench.tracks.segmentation import SegmentationTrack


class Responder:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.flaky_left: dict[str, int] = {}

    def __call__(self, request: dict) -> dict:
        body = request["body"] or {}
        model = body.get("model", "")
        if model == "down":
            return error(503, "provider down")
        if model.startswith("flaky-"):
            with self.lock:
                left = self.flaky_left.setdefault(model, int(model.split("-")[1]))
                if left > 0:
                    self.flaky_left[model] = left - 1
                    return error(503, "provider down for now")
            model = "sleep-0.2"
        seconds = float(model.split("-")[1]) if model.startswith("sleep-") else 0.0
        tool_turns = sum(1 for m in body.get("messages", []) if m.get("role") == "tool")
        if tool_turns == 0:
            code = f"import os, time\ntime.sleep({seconds})\nprint('slept', {seconds})"
            return completion(tool_calls=[call("execute_code", {"language": "python", "code": code})])
        return completion(tool_calls=[call("submit_results", {})])


@pytest.fixture
def fake_llm():
    srv = FakeOpenAI().start()
    srv.default = Responder()
    try:
        yield srv
    finally:
        srv.stop()


@pytest.fixture
def sweep_env(tmp_path, fake_llm):
    """(env vars, tmp dir, agent config path): task `tiny-seg` over a 2-case dataset, agents
    `slow` (sleep 2 s), `quick` (sleep 0.2 s), `flaky` (2 x 503 first), `down`."""
    data = tmp_path / "data"
    tiny_lesion_dataset(data / "tiny-lesion", n_cases=2)
    tasks = tmp_path / "tasks"
    (tasks / "tiny-seg").mkdir(parents=True)
    src = (SegmentationTrack.tasks_dir / "brain-lesion-seg" / "task.yaml").read_text()
    (tasks / "tiny-seg" / "task.yaml").write_text(
        src.replace("id: brain-lesion-seg", "id: tiny-seg").replace("dataset: mni-brain-lesion", "dataset: tiny-lesion"))
    retry = "{max_retries: 0, backoff_base_s: 0.01, backoff_max_s: 0.02}"
    agents = [("slow", "sleep-2"), ("quick", "sleep-0.2"), ("flaky", "flaky-2"), ("down", "down")]
    cfg = tmp_path / "agents.yaml"
    cfg.write_text("agents:\n" + "".join(
        f"  - name: {name}\n    model: {model}\n    base_url: {fake_llm.url}\n    timeout_s: 20\n    retry: {retry}\n"
        for name, model in agents))
    env = {"AUTOMEDBENCH_DATA": str(data), "AUTOMEDBENCH_TASKS": str(tasks)}
    return env, tmp_path, cfg


def reports_under(root: Path) -> list[Path]:
    """Every detail_report.json in the cells of a sweep root (not the archived attempts)."""
    return sorted(p for p in Path(root).rglob("detail_report.json") if ".attempts" not in p.parts)


def end_reason(run_dir: Path) -> str | None:
    return json.loads((Path(run_dir) / "detail_report.json").read_text())["run"]["end_reason"]


def tiny_spec(cfg, env, **kw) -> SweepSpec:
    """A sweep over the tiny-seg task of `sweep_env`, local backend, network off; `kw` adds
    agents, repeats, tiers, ..."""
    return SweepSpec(tasks=["tiny-seg"], options=RunOptions(sandbox="local", network=False, agent_configs=[str(cfg)],
                                                            data_root=env["AUTOMEDBENCH_DATA"],
                                                            tasks_dirs=[env["AUTOMEDBENCH_TASKS"]]), **kw)
