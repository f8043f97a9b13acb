"""The judge reads one script as the steps it took (docs/judge.md "Order inside a call"),
through the real loop, the real sandbox (bwrap) and the recorder's `order`:

- one script that looks at an input, pilots one case, checks the pilot's output with asserts
  that could stop it, then runs every case earns what the same work in separate calls earns;
- the same script whose look only prints does not validate: nobody read the print before the
  batch ran;
- a script that runs every case first and checks one afterwards validates nothing either;
- a look at the pilot that opens the input beside the output checks the output, not the input (s2b).
"""
import os
import shutil
import sys
from pathlib import Path

import pytest

from automedbench.agents import AGENT_CLASSES
from automedbench.agents.base import AgentContext, AgentOutcome, ToolBox
from automedbench.agents.scripted import ScriptedAgent
from automedbench.api import run_one
from automedbench.runs.options import RunOptions
from automedbench.runs.trace import read_trace

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "calibration" / "generators"))
from heldout_agents import verify, versions, write_plan  # noqa: E402
from heldout_kits import KITS  # noqa: E402

pytestmark = [pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed (make sysdeps installs it)"),
              pytest.mark.slow]   # whole bwrap runs of the held-out kits (docs/testing.md)
TASK = "xray-marker-det"


def one_script(kind: str):
    def parts(c: AgentContext) -> list[str]:
        k = KITS[c.task_id]
        head = [k.head(), write_plan(k, c), k.write_method(), versions(k), k.input_show(), k.load()]
        if kind == "checked":
            return head + [k.pilot("outputs"), k.show("outputs"), k.check("outputs"), k.batch("outputs"), verify(k)]
        if kind == "printed":
            return head + [k.pilot("outputs"), k.show("outputs"), k.batch("outputs"), verify(k)]
        return head + [k.batch("outputs"), k.show("outputs"), k.check("outputs"), verify(k)]   # batch first

    class OneScript(ScriptedAgent):
        name = f"one-script-{kind}"

        def run(self, system_prompt: str, context: AgentContext, tools: ToolBox) -> AgentOutcome:
            self.call(tools, "python", "".join(parts(context)))
            self.submit(tools)
            return AgentOutcome("submitted")
    return OneScript


class ReferenceLook(ScriptedAgent):
    """Separate calls: setup that opens no input, the pilot, a look that opens the input image
    beside the pilot's boxes and prints its size with them, the batch (docs/judge.md "Input check")."""
    name = "reference-look"

    def run(self, system_prompt: str, context: AgentContext, tools: ToolBox) -> AgentOutcome:
        k = KITS[context.task_id]
        for code in ([k.head(), write_plan(k, context), k.write_method(), versions(k)], [k.head(), k.load(), k.pilot("outputs")],
                     [k.head(), k.show("outputs"), k.check("outputs")], [k.head(), k.load(), k.batch("outputs"), verify(k)]):
            self.call(tools, "python", "".join(code))
        self.submit(tools)
        return AgentOutcome("submitted")


PILOT_OUTPUT = "/workspace/outputs/case_000/prediction.json"
# a root harness holds each open in the workspace until its folder is watched (fanotify,
# docs/sandbox.md "Opens held until their folder is watched"): one trial must show the read-back.
# A non-root harness has no such hold, and its recorder's thread may be behind: a trial that
# lacks it is run again
TRIALS = 1 if os.geteuid() == 0 else 3


def _pilot_read_back_recorded(out_dir: Path) -> bool:
    """Whether the record holds the script's read-back of the pilot's output. Every kind reads
    it back; without held opens (a non-root harness) the recorder misses that read when its
    thread, behind on a loaded machine, watched the folder the pilot made (outputs/case_000)
    only after the script had read the file and the batch had written it again (docs/sandbox.md
    "A thread behind"). Such a record cannot show a pilot inspection at all."""
    trace = next(out_dir.rglob("trace.jsonl"))
    steps = [step for event in read_trace(trace) if event.effects for step in event.effects.order or []]
    return any(step.op == "b" and step.path == PILOT_OUTPUT for step in steps)


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory):
    out = {}
    for kind in ("checked", "printed", "batch-first"):
        AGENT_CLASSES.add(f"one-script-{kind}", one_script(kind), replace=True, description="test")
        for _ in range(TRIALS):   # judged on a whole record: a trial the recorder fell behind on is run again
            out_dir = tmp_path_factory.mktemp(kind)
            report = run_one(TASK, "lite", f"one-script-{kind}", out_dir, RunOptions(sandbox="bwrap"))
            assert report.run.end_reason == "submitted", report.run
            if _pilot_read_back_recorded(out_dir):
                break
        else:
            pytest.fail(f"{kind}: in {TRIALS} trials the recorder never saw the read-back of {PILOT_OUTPUT}")
        out[kind] = {i: v for s in ("s2", "s3") for i, v in report.stages[s].items.items()}
        out[kind]["_why"] = report.stages["s3"].rationale
    AGENT_CLASSES.add("reference-look", ReferenceLook, replace=True, description="test")
    report = run_one(TASK, "lite", "reference-look", tmp_path_factory.mktemp("reference"), RunOptions(sandbox="bwrap"))
    assert report.run.end_reason == "submitted", report.run
    out["reference"] = {**report.stages["s2"].items, "_why": report.stages["s2"].rationale}
    return out


def test_one_checked_script_earns_what_separate_calls_earn(verdicts):
    got = verdicts["checked"]
    assert got["s2a"] == 1.0 and got["s2b"] == 1.0 and got["s2e"] == 1.0, got
    assert got["s3"] == 1.0, got["_why"]


def test_a_look_that_only_prints_inside_the_script_does_not_validate(verdicts):
    got = verdicts["printed"]
    assert got["s2b"] == 1.0, got          # the input was looked at before any output
    assert got["s3"] < 1.0, got["_why"]


def test_a_check_after_the_batch_validates_nothing(verdicts):
    got = verdicts["batch-first"]
    assert got["s3"] < 1.0, got["_why"]


def test_an_input_opened_only_as_the_outputs_reference_is_no_input_check(verdicts):
    """The look printed the image's size with the pilot's boxes, after it had opened them: it
    compared the output with its input, it did not check the input (docs/judge.md "Input check")."""
    got = verdicts["reference"]
    assert got["s2b"] == 0.0, got["_why"]
    assert "input opened and its content looked at before the batch: no" in got["_why"]
    assert got["s2e"] == 1.0, got["_why"]       # the pilot itself was looked at
