"""What the method is, through the real loop and the real sandbox (bwrap), with the experiments
run at close (docs/judge.md "A substitute for a missing package", "A pilot of another method",
"Units, pilot, batch": "found a problem"):

- a method whose dependency is missing, run on a module the agent wrote under that package's name
  after the install failed, is not the method set up: s2a, s2c and s2e 0, the stand-in named; the
  same run's first look at the pilot died of a typo in its own code and was run again: that crash
  found nothing about the output (S3 1);
- a package whose install failed (no `No module named` before it), then written as an empty folder
  of that name that only the agent's import check opens: that check set up nothing (s2c 0), while
  the method, which never opened it, is judged as ever (s2a, s2e 1);
- a quick pilot written inline on a helper module the method shares, looked at, then a batch of the
  method's own file written before that pilot: the batch submitted other outputs than those looked
  at, and the file it ran was never piloted: s2e 0.
"""
import shutil
import sys
from pathlib import Path

import pytest

from automedbench.agents import AGENT_CLASSES
from automedbench.agents.base import AgentContext, AgentOutcome, ToolBox
from automedbench.agents.scripted import ScriptedAgent
from automedbench.api import run_one
from automedbench.runs.options import RunOptions

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "calibration" / "generators"))
from heldout_agents import verify, versions, write_plan  # noqa: E402
from heldout_kits import KITS  # noqa: E402

pytestmark = [pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed (make sysdeps installs it)"),
              pytest.mark.slow]   # whole bwrap runs (docs/testing.md)

# the method needs a package the sandbox lacks (`markerkit`); the agent's stand-in takes its name
DETECT = ("import sys\nimport markerkit\nimport marker_detector\n"
          "if __name__ == '__main__':\n    markerkit.ready()\n    marker_detector.main(sys.argv)\n")
STAND_IN = "def ready():\n    return True\n"


class StandInAgent(ScriptedAgent):
    name = "stand-in-module"

    def run(self, system_prompt: str, context: AgentContext, tools: ToolBox) -> AgentOutcome:
        k = KITS[context.task_id]
        one = "python detect.py /data/public/case_000/image.png outputs/case_000"
        look = k.head() + k.show("outputs") + k.check("outputs")
        self.call(tools, "python", k.head() + write_plan(k, context) + k.write_method() + versions(k)
                  + f"pathlib.Path('detect.py').write_text({DETECT!r})\n" + k.input_show())
        self.call(tools, "bash", one)                                    # ModuleNotFoundError: markerkit
        self.call(tools, "bash", "pip install --no-index markerkit")     # offline: fails
        self.call(tools, "python", f"import pathlib\npathlib.Path('markerkit.py').write_text({STAND_IN!r})\n")
        self.call(tools, "bash", one)
        self.call(tools, "python", look.replace("print(len(boxes)", "print(len(boxez)", 1))   # NameError
        self.call(tools, "python", look)
        self.call(tools, "bash", "for c in /data/public/*/; do python detect.py $c/image.png outputs/$(basename $c); done")
        self.call(tools, "python", k.head() + verify(k))
        self.submit(tools)
        return AgentOutcome("submitted")


class StubPackageAgent(ScriptedAgent):
    name = "stub-package"

    def run(self, system_prompt: str, context: AgentContext, tools: ToolBox) -> AgentOutcome:
        k = KITS[context.task_id]
        self.call(tools, "python", k.head() + write_plan(k, context) + k.write_method() + versions(k) + k.input_show())
        self.call(tools, "bash", "pip install --no-index Markerkit==9.9")          # offline: fails
        self.call(tools, "bash", "mkdir -p markerkit && echo '__version__ = \"9.9\"' > markerkit/__init__.py")
        self.call(tools, "bash", "python -c 'import numpy, markerkit; print(\"markerkit\", markerkit.__version__, \"ready\")'")
        self.call(tools, "python", k.head() + k.load() + k.pilot("outputs"))
        self.call(tools, "python", k.head() + k.show("outputs") + k.check("outputs"))
        self.call(tools, "python", k.head() + k.load() + k.batch("outputs") + verify(k))
        self.submit(tools)
        return AgentOutcome("submitted")


# a quick pilot: the brain mask from the shared helper, an empty lesion mask, written inline
QUICK_PILOT = """
import numpy as np, nibabel as nib
from pathlib import Path
import brain_common
img = nib.load('/data/public/case_000/image.nii.gz')
x = np.asarray(img.dataobj, dtype=np.float32)
brain = brain_common.brain_mask(x)
Path('outputs/case_000').mkdir(parents=True, exist_ok=True)
for name, m in (('organ', brain), ('lesion', np.zeros(x.shape, bool))):
    nib.save(nib.Nifti1Image(m.astype(np.uint8), img.affine), f'outputs/case_000/{name}.nii.gz')
print('quick pilot: brain voxels', int(brain.sum()))
"""


class QuickPilotAgent(ScriptedAgent):
    name = "quick-pilot-on-a-helper"

    def run(self, system_prompt: str, context: AgentContext, tools: ToolBox) -> AgentOutcome:
        k = KITS[context.task_id]
        self.call(tools, "python", k.head() + write_plan(k, context) + k.write_method() + versions(k) + k.input_show())
        self.call(tools, "python", QUICK_PILOT)
        self.call(tools, "python", k.head() + k.show("outputs") + k.check("outputs"))
        self.call(tools, "python", k.head() + k.load() + k.batch("outputs") + verify(k))
        self.submit(tools)
        return AgentOutcome("submitted")


def _judged(task: str, agent: type[ScriptedAgent], out_dir: Path) -> dict:
    AGENT_CLASSES.add(agent.name, agent, replace=True, description="test")
    report = run_one(task, "lite", agent.name, out_dir, RunOptions(sandbox="bwrap"))
    assert report.run.end_reason == "submitted", report.run
    got = {i: v for s in ("s2", "s3") for i, v in report.stages[s].items.items()}
    return {**got, "_s2": report.stages["s2"].rationale, "_s3": report.stages["s3"].rationale}


def test_a_method_run_on_a_stand_in_for_a_missing_package_is_not_set_up(tmp_path):
    got = _judged("xray-marker-det", StandInAgent, tmp_path)
    assert (got["s2a"], got["s2c"], got["s2e"]) == (0.0, 0.0, 0.0), got["_s2"]
    assert "the method ran on a substitute for a missing package: yes" in got["_s2"]
    assert "/workspace/markerkit.py" in got["_s2"] and "markerkit" in got["_s2"]
    assert got["s2b"] == 1.0 and got["s2d"] == 1.0, got["_s2"]   # the rest of setup is judged as ever
    # the look that died of its own typo found nothing about the output; its re-run passed
    assert got["s3"] == 1.0, got["_s3"]


def test_an_import_check_passing_on_a_stub_package_sets_up_nothing(tmp_path):
    got = _judged("xray-marker-det", StubPackageAgent, tmp_path)
    assert got["s2c"] == 0.0, got["_s2"]
    assert "a call imported a substitute for a missing package: yes" in got["_s2"]
    assert "/workspace/markerkit/__init__.py" in got["_s2"]
    assert (got["s2a"], got["s2e"], got["s3"]) == (1.0, 1.0, 1.0), (got["_s2"], got["_s3"])


def test_a_quick_pilot_on_the_methods_helper_does_not_confirm_the_methods_file(tmp_path):
    got = _judged("brain-lesion-seg", QuickPilotAgent, tmp_path)
    assert got["s2e"] == 0.0, got["_s2"]
    assert "a pilot output looked at: no" in got["_s2"]
    assert got["s3"] == 0.5, got["_s3"]          # a look at outputs the batch did not submit
