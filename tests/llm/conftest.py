import time
import warnings
from pathlib import Path

import pytest

from automedbench.agents.base import AgentContext, ToolBox
from automedbench.runs.models import Conversation
from automedbench.runs.trace import TraceWriter, read_trace
from automedbench.sandbox import SandboxSpec, open_sandbox

from automedbench.scoring.judge.base import JudgeEvidence
from automedbench.scoring.judge_eval.synthetic import synthetic_trace

from .fake_openai import FakeOpenAI
from .judging import TASK


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
    made: list[Rig] = []

    def make(**kw) -> Rig:
        made.append(Rig(tmp_path, **kw))
        return made[-1]
    yield make
    for r in made:   # a sandbox holds a container / staging folder until closed
        r.sandbox.close()


@pytest.fixture
def evidence(tmp_path):
    """What a judge is shown: a workspace with a plan and its plot, and a synthetic trace."""
    ws = tmp_path / "ws"
    (ws / "plan").mkdir(parents=True)
    (ws / "plan" / "plan.md").write_text("# Plan\n1. load CT\n2. run nnU-Net\nUNIQUE_PLAN_TEXT")
    (ws / "plan" / "plan.png").write_bytes(b"\x89PNG\r\n\x1a\nfakepng")
    return JudgeEvidence(task=TASK, tier="standard", workspace=ws,
                         trace=synthetic_trace(setup_calls=5, cohort_calls=5, log_chars=500), conversation=None)
