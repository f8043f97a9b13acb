"""The ToolBox on a real (local) sandbox: stage labels, output bounding, training policy."""
import time

import pytest

from automedbench.agents.base import RunStopped, ToolBox
from automedbench.agents.stage_labels import label
from automedbench.runs.models import Conversation
from automedbench.runs.trace import TraceWriter, read_trace
from automedbench.sandbox import SandboxSpec, open_sandbox

pytestmark = pytest.mark.filterwarnings("ignore:sandbox backend 'local'")


def _box(tmp_path, **kw):
    (tmp_path / "pub").mkdir(exist_ok=True)
    sb = open_sandbox("local", SandboxSpec(public_dir=tmp_path / "pub", workspace=tmp_path / "ws", timeout_s=20))
    (tmp_path / "ws").mkdir(exist_ok=True)
    return ToolBox(sb, TraceWriter(tmp_path / "trace.jsonl"), Conversation(system_prompt="x"), **kw)


TRAINING = "# S4\nimport pathlib\npathlib.Path('ran').write_text('1')\nloss = 0\n# loss.backward()\nloss.backward()\n"


def test_training_is_flagged_but_runs_by_default(tmp_path):
    box = _box(tmp_path)
    box.execute_code("python", TRAINING)
    assert (tmp_path / "ws" / "ran").is_file()
    kinds = [e.kind for e in read_trace(tmp_path / "trace.jsonl") if e.type == "warning"]
    assert "training_detected" in kinds


def test_training_is_blocked_when_the_task_says_so(tmp_path):
    box = _box(tmp_path, block_training=True)
    text = box.execute_code("python", TRAINING)
    assert text.startswith("BLOCKED") and not (tmp_path / "ws" / "ran").exists()
    warn = [e for e in read_trace(tmp_path / "trace.jsonl") if e.type == "warning"][0]
    assert warn.kind == "training_detected" and warn.data["blocked"] is True
    box.execute_code("python", "# S4\nprint('inference only')")  # harmless code still runs
    assert any(e.type == "execution" for e in read_trace(tmp_path / "trace.jsonl"))


def test_long_output_is_clipped_for_the_agent_but_kept_in_the_trace(tmp_path):
    box = _box(tmp_path)
    text = box.execute_code("python", "print('A' * 30000 + 'END')")
    assert "characters elided" in text and text.rstrip().endswith("END")
    ex = [e for e in read_trace(tmp_path / "trace.jsonl") if e.type == "execution"][0]
    assert len(ex.stdout) > 30000


def test_wall_time_is_enforced_during_an_execution(tmp_path):
    box = _box(tmp_path, deadline=time.monotonic() + 1.5)
    start = time.monotonic()
    with pytest.raises(RunStopped, match="wall_time"):
        box.execute_code("bash", "sleep 30")
    assert time.monotonic() - start < 10
    with pytest.raises(RunStopped, match="wall_time"):
        box.begin_turn()


def test_max_turns(tmp_path):
    box = _box(tmp_path, max_turns=1)
    box.begin_turn()
    with pytest.raises(RunStopped, match="max_turns"):
        box.begin_turn()


@pytest.mark.parametrize("code, previous, expected", [
    ("# S3 pilot\nprint(1)", None, ("s3", True)),
    ("  \n# stage: s2 setup\n", "s1", ("s2", True)),
    ("import pathlib\npathlib.Path('plan/plan.md').write_text('x')", None, ("s1", False)),
    ("pip install nibabel", "s1", ("s2", False)),
    ("run('outputs/case_000')", "s2", ("s3", False)),
    ("for c in cases:\n    run(f'outputs/{c}')", "s3", ("s4", False)),
    ("print('hello')", "s4", ("s4", False)),
])
def test_stage_labels(code, previous, expected):
    assert label(code, previous) == expected
