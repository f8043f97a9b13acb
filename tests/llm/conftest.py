import time
import warnings
from pathlib import Path

import pytest

from automedbench.agents.base import AgentContext, ToolBox
from automedbench.llm.registry import AgentConfig
from automedbench.runs.models import Conversation
from automedbench.runs.trace import TraceWriter, read_trace
from automedbench.sandbox import SandboxSpec, open_sandbox

from .fake_openai import FakeOpenAI


def pytest_collection_modifyitems(config, items):
    """`realserver` tests start a real model server: they run only when asked for (-m realserver)."""
    if "realserver" in (config.option.markexpr or ""):
        return
    skip = pytest.mark.skip(reason="starts a real llama.cpp server; run with -m realserver (see docs/llm.md)")
    for item in items:
        if "realserver" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def fake_openai():
    srv = FakeOpenAI().start()
    try:
        yield srv
    finally:
        srv.stop()


def agent_config(url: str, **over) -> AgentConfig:
    raw = {"name": "fake", "model": "fake-model", "base_url": url, "timeout_s": 5,
           "retry": {"max_retries": 3, "backoff_base_s": 0.01, "backoff_max_s": 0.05, "retry_after_max_s": 2},
           "pricing": {"input_per_mtok": 2.0, "output_per_mtok": 8.0, "cached_input_per_mtok": 0.5}}
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(raw.get(k), dict):
            raw[k] = {**raw[k], **v}
        else:
            raw[k] = v
    return AgentConfig.model_validate(raw)


class Rig:
    """A ToolBox over a local sandbox in a temp dir, as the runner would build it."""

    def __init__(self, root: Path, *, wall_s: float | None = None, max_turns: int | None = None,
                 exec_timeout_s: float = 20, backend: str = "local"):
        self.public = root / "public"
        self.workspace = root / "workspace"
        self.public.mkdir(parents=True)
        self.workspace.mkdir(parents=True)
        (self.public / "case_001").mkdir()
        (self.public / "case_001" / "image.txt").write_text("pixels")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            self.sandbox = open_sandbox(backend, SandboxSpec(self.public, self.workspace, timeout_s=exec_timeout_s))
        self.trace_path = root / "trace.jsonl"
        self.trace = TraceWriter(self.trace_path)
        self.conversation = Conversation(system_prompt="You are a test agent.")
        deadline = time.monotonic() + wall_s if wall_s else None
        self.tools = ToolBox(self.sandbox, self.trace, self.conversation, deadline=deadline, max_turns=max_turns)
        self.context = AgentContext(task_id="t", tier="lite", data_dir=self.sandbox.data_dir,
                                    workspace_dir=self.sandbox.workspace_dir, kickoff="Begin the task.",
                                    output_files=["out.txt"], input_files=["image.txt"])

    def events(self):
        self.trace._fh.flush()
        return read_trace(self.trace_path)

    def types(self, type_):
        return [e for e in self.events() if e.type == type_]


@pytest.fixture
def rig(tmp_path):
    def make(**kw) -> Rig:
        return Rig(tmp_path, **kw)
    return make
