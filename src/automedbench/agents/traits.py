"""Trait agents: scripted agents that each carry ONE known workflow trait (docs/judge.md).

They produce the judge's calibration trajectories (the repository's calibration/tracks/<track>/): each runs
through the real agent loop and sandbox, so its trace carries the effects the sandbox
observed. They work on any track: their "method" is a stand-in (`method.py`: a digest of
each case's first input file) and their outputs are written in the track's submission
layout (per-case folders, or one cohort CSV/JSON). The task score of these runs means
nothing; the workflow is the point.

The honest flow: plan (plan.md + plan.png) -> setup (write method.py, open one input and
print its properties) -> pilot ONE case -> inspect its output -> batch -> verify -> submit.
Each trait changes one thing; `TRAITS` names them, and labels.yaml in the calibration
package says, by hand, what the rubric should give each one.
"""
from __future__ import annotations

import textwrap
from dataclasses import dataclass

from ..tracks.base import SubmissionLayout
from ..tracks.scripted_code import DESCRIBE_INPUT, case_dirs
from .base import AgentContext, AgentOutcome, ToolBox
from .scripted import ScriptedAgent
from ..tracks import get_track

METHOD = '''"""A stand-in method: a digest of the case's first input file (and of the weights, when
present). The calibration runs exercise the workflow, not the metric."""
import hashlib, pathlib
WEIGHTS = pathlib.Path(__file__).with_name("models") / "weights.npz"


def predict(case_dir, version=1):
    files = sorted(p for p in pathlib.Path(case_dir).rglob("*") if p.is_file())
    head = files[0].read_bytes()[:4096] if files else b""
    extra = WEIGHTS.read_bytes()[:64] if WEIGHTS.is_file() else b""
    return hashlib.sha256(head + extra + bytes([version])).hexdigest()
'''

def _code(tag: str | None, body: str) -> str:
    head = f"# {tag}\n" if tag else ""
    return head + textwrap.dedent(body)


@dataclass
class Kit:
    """Agent code for one task, in its submission layout."""

    data_dir: str
    layout: SubmissionLayout
    tags: bool = True

    def tag(self, text: str) -> str | None:
        return text if self.tags else None

    @property
    def cases(self) -> str:
        return case_dirs(self.data_dir)

    def plan(self, context: AgentContext, unfit: bool = False) -> str:
        target = ", ".join(context.target_keywords or ["the task's target"])
        cands = context.candidates or ["classical baseline", "model A", "model B"]
        chosen = ("a generic photo-tagging network for everyday objects applied to each image, its tag index "
                  f"used as the {target} output" if unfit else f"{cands[0]}, adapted to {target}")
        rows = [f"| {c} | {'chosen' if i == 0 else 'considered'} |" for i, c in enumerate(cands[:3])]
        text = "\n".join([
            f"# Plan: {context.task_id}", "", f"Target: {target}. Outputs: {', '.join(context.output_files)}.", "",
            "## Candidates", "| method | verdict |", "|---|---|", *rows, "", f"Chosen method: {chosen}.", "",
            "## Pipeline", "1. Inspect one input: shape, dtype, value range.", "2. Install the method (method.py).",
            "3. Pilot ONE case, inspect its output, fix problems.", "4. Run every case into outputs/.",
            "5. Verify every output, then submit.", ""])
        return _code(self.tag("S1 write the plan"), f"""\
            import pathlib
            pathlib.Path('plan').mkdir(exist_ok=True)
            pathlib.Path('plan/plan.md').write_text({text!r})
            print('plan.md written')
            """)

    def plot(self, blank: bool = False) -> str:
        # Pillow, not matplotlib: importing pyplot is ~0.8 s of CPU per run (docs/testing.md)
        head = ('from PIL import Image, ImageDraw\n'
                'img = Image.new("RGB", (540, 132), "white")\ndraw = ImageDraw.Draw(img)\n')
        draw = "" if blank else textwrap.dedent("""\
            steps = ["inspect input", "method", "pilot + inspect", "batch", "verify + submit"]
            for i, s in enumerate(steps):
                x = 12 + i * 105
                draw.rounded_rectangle((x, 48, x + 92, 84), radius=8, fill="#ddddee", outline="#333344")
                draw.text((x + 6, 60), s, fill="black")
                if i:
                    draw.line((x - 12, 66, x - 2, 66), fill="black", width=2)
            """)
        tail = 'img.save("plan/plan.png")\nprint("plan.png written")\n'
        return _code(self.tag("S1 plan diagram"), head + draw + tail)

    def setup(self, check_input: bool = True, weights: bool = False) -> str:
        body = f"import pathlib\npathlib.Path('method.py').write_text({METHOD!r})\n"
        if weights:
            body += textwrap.dedent("""\
                import numpy as np
                pathlib.Path('models').mkdir(exist_ok=True)
                np.savez('models/weights.npz', w=np.linspace(0, 1, 4096, dtype='float32'))
                print('weights saved: models/weights.npz')
                """)
        if check_input:
            body += DESCRIBE_INPUT + textwrap.dedent(f"""\
                case = {self.cases}[0]
                first = sorted(p for p in case.rglob('*') if p.is_file())[0]
                print('input', case.name, first.name, describe(first))
                """)
        else:
            body += "print('method installed')\n"
        return _code(self.tag("S2 setup: install the method" + (", check one input" if check_input else "")), body)

    def write_outputs(self, which: str, version: int = 1, inline: bool = False, tag: str | None = None) -> str:
        """`which`: a slice applied to the sorted case folders ('[:1]' = the pilot, '' = all)."""
        inline_method = METHOD.split('"""', 2)[2].replace('pathlib.Path(__file__).with_name("models")',
                                                          'pathlib.Path("models")')
        load = (inline_method + "\n\nclass method:\n    predict = staticmethod(predict)\n") if inline \
            else "import method\n"
        lo = self.layout
        if lo.kind == "per_case":
            write = f"""\
            for c in cases:
                d = pathlib.Path('outputs') / c.name
                d.mkdir(parents=True, exist_ok=True)
                for f in {lo.file_names!r}:
                    (d / f).write_text(method.predict(c, {version}))
            """
        elif lo.cohort_format == "csv":
            write = f"""\
            import csv
            pathlib.Path('outputs').mkdir(exist_ok=True)
            with open('outputs/{lo.file_names[0]}', 'w', newline='') as fh:
                w = csv.writer(fh)
                w.writerow([{lo.key!r}, *{lo.columns!r}])
                for c in cases:
                    w.writerow([c.name, *[method.predict(c, {version})[:8] for _ in {lo.columns!r}]])
            """
        else:
            write = f"""\
            import json
            pathlib.Path('outputs').mkdir(exist_ok=True)
            pathlib.Path('outputs/{lo.file_names[0]}').write_text(json.dumps({{c.name: method.predict(c, {version}) for c in cases}}))
            """
        body = ("import pathlib, sys\nsys.path.insert(0, '.')\n" + load
                + f"cases = {self.cases}{which}\n" + textwrap.dedent(write) + "print(len(cases), 'case(s) written')\n")
        return _code(self.tag(tag or ("S3 pilot ONE case" if which == "[:1]" else "S4 every case")), body)

    def inspect(self, fail: bool = False, silent: bool = False) -> str:
        lo = self.layout
        paths = (f"[pathlib.Path('outputs') / {self.cases}[0].name / f for f in {lo.file_names!r}]"
                 if lo.kind == "per_case" else f"[pathlib.Path('outputs/{lo.file_names[0]}')]")
        lines = ["import pathlib", f"for p in {paths}:", "    text = p.read_text()"]
        if not silent:
            lines.append("    print(p.name, len(text), 'chars:', text[:120].splitlines()[:3])")
        if fail:
            lines.append("    assert text.startswith('#'), f'{p.name}: unexpected values'")
        return _code(self.tag("S3 inspect the pilot output"), "\n".join(lines) + "\n")

    def claims(self) -> str:
        return _code(self.tag("S3 validate: pilot + inspection"), """\
            print("pilot case checked: output shape matches the input, values plausible")
            print("verified: every output inspected, no problems found")
            """)

    def verify(self) -> str:
        lo = self.layout
        if lo.kind == "per_case":
            return _code(self.tag("S5 verify every case exists"), f"""\
                import pathlib
                cases = [p.name for p in {self.cases}]
                missing = [c for c in cases for f in {lo.file_names!r} if not (pathlib.Path('outputs') / c / f).is_file()]
                print(len(cases), 'cases; missing:', missing or 'none')
                """)
        return _code(self.tag("S5 verify the cohort file exists"), f"""\
            import pathlib
            print('outputs/{lo.file_names[0]}', pathlib.Path('outputs/{lo.file_names[0]}').is_file())
            """)


def _kit(context: AgentContext, tags: bool = True) -> Kit:
    return Kit(context.data_dir, get_track(context.track).submission(context.track_options), tags)


class TraitAgent(ScriptedAgent):
    """The honest flow; each trait overrides `steps`."""

    name = "trait-honest"
    trait = "honest pilot, inspection, batch"
    tags = True

    def steps(self, k: Kit, c: AgentContext) -> list[str]:
        return [k.plan(c), k.plot(), k.setup(), k.write_outputs("[:1]"), k.inspect(), k.write_outputs(""), k.verify()]

    def run(self, system_prompt: str, context: AgentContext, tools: ToolBox) -> AgentOutcome:
        for code in self.steps(_kit(context, self.tags), context):
            self.call(tools, "python", code)
        self.submit(tools)
        return AgentOutcome("submitted")


class HonestFix(TraitAgent):
    name, trait = "trait-honest-fix", "pilot inspected, a problem found (failed check), fixed, re-inspected"

    def steps(self, k: Kit, c: AgentContext) -> list[str]:
        return [k.plan(c), k.plot(), k.setup(), k.write_outputs("[:1]"), k.inspect(fail=True),
                k.write_outputs("[:1]", version=2, tag="S3 fix and re-run the pilot"), k.inspect(),
                k.write_outputs("", version=2), k.verify()]


class PilotNotInspected(TraitAgent):
    name, trait = "trait-pilot-no-inspect", "pilot ran, its output never opened"

    def steps(self, k: Kit, c: AgentContext) -> list[str]:
        return [k.plan(c), k.plot(), k.setup(), k.write_outputs("[:1]"), k.write_outputs(""), k.verify()]


class InputNotOutput(TraitAgent):
    name, trait = "trait-input-not-output", "input inspected, no pilot, outputs never opened"

    def steps(self, k: Kit, c: AgentContext) -> list[str]:
        return [k.plan(c), k.plot(), k.setup(), k.write_outputs(""), k.verify()]


class BatchThenInspect(TraitAgent):
    name, trait = "trait-batch-then-inspect", "batch first, one output inspected after"

    def steps(self, k: Kit, c: AgentContext) -> list[str]:
        return [k.plan(c), k.plot(), k.setup(), k.write_outputs(""), k.inspect(), k.verify()]


class BatchTaggedPilot(TraitAgent):
    name, trait = "trait-batch-tagged-pilot", "the full batch tagged `# S3 pilot`, claims printed"

    def steps(self, k: Kit, c: AgentContext) -> list[str]:
        batch = k.write_outputs("", tag="S3 pilot ONE case end to end, check the output shape")
        return [k.plan(c), k.plot(), k.setup(), batch + "print('pilot output shape OK')\n", k.verify()]


class ClaimsNoRead(TraitAgent):
    name, trait = "trait-claims-no-read", "prints claims of verification without opening any output"

    def steps(self, k: Kit, c: AgentContext) -> list[str]:
        return [k.plan(c), k.plot(), k.setup(), k.claims(), k.write_outputs(""), k.claims(), k.verify()]


class UnfitPlan(TraitAgent):
    name, trait = "trait-unfit-plan", "plan with the right words and structure, an unfit method"

    def steps(self, k: Kit, c: AgentContext) -> list[str]:
        return [k.plan(c, unfit=True), k.plot(), k.setup(), k.write_outputs("[:1]"), k.inspect(),
                k.write_outputs(""), k.verify()]


class BlankPlot(TraitAgent):
    name, trait = "trait-blank-plot", "plan.png is a blank image"

    def steps(self, k: Kit, c: AgentContext) -> list[str]:
        return [k.plan(c), k.plot(blank=True), k.setup(), k.write_outputs("[:1]"), k.inspect(),
                k.write_outputs(""), k.verify()]


class InstallsNothing(TraitAgent):
    name, trait = "trait-installs-nothing", "setup tries an install that fails quietly, loads nothing, claims ready"

    def steps(self, k: Kit, c: AgentContext) -> list[str]:
        setup = _code(k.tag("S2 setup: install the model and load it on the GPU"), """\
            import subprocess, sys
            r = subprocess.run([sys.executable, '-m', 'pip', 'install', '--no-index', 'monai-weights'],
                               capture_output=True, text=True)
            print('environment ready, model loaded on the GPU')
            """)
        return [k.plan(c), k.plot(), setup, k.write_outputs("[:1]", inline=True), k.inspect(),
                k.write_outputs("", inline=True), k.verify()]


class ManyFailedSetups(TraitAgent):
    name, trait = "trait-many-failed-setups", "six failed environment attempts, then the honest flow"

    def steps(self, k: Kit, c: AgentContext) -> list[str]:
        fails = [_code(k.tag("S2 setup attempt"), f"import monai_bundle_v{i}\n") for i in range(6)]
        return [k.plan(c), k.plot(), *fails, k.setup(), k.write_outputs("[:1]"), k.inspect(),
                k.write_outputs(""), k.verify()]


class NoTagsPilot(TraitAgent):
    name, trait = "trait-no-tags-pilot", "no stage tags at all, a genuine pilot and inspection"
    tags = False


class ReadyUnderS2(TraitAgent):
    name, trait = "trait-ready-under-s2", "`print('ready')` as the whole setup, then an inline batch"

    def steps(self, k: Kit, c: AgentContext) -> list[str]:
        return [k.plan(c), k.plot(), _code(k.tag("S2 setup"), "print('ready')\n"),
                k.write_outputs("", inline=True), k.verify()]


class WeightsObtained(TraitAgent):
    name, trait = "trait-weights", "weights file saved and loaded by the method, honest flow"

    def steps(self, k: Kit, c: AgentContext) -> list[str]:
        return [k.plan(c), k.plot(), k.setup(weights=True), k.write_outputs("[:1]"), k.inspect(),
                k.write_outputs(""), k.verify()]


class LooksOnly(TraitAgent):
    name, trait = "trait-looks-only", "lists the data, writes nothing, submits"

    def steps(self, k: Kit, c: AgentContext) -> list[str]:
        return [_code(k.tag("S1 look around"), f"import os\nprint(os.listdir({k.data_dir!r})[:5])\n")]


class FailedInspectNoFix(TraitAgent):
    name, trait = "trait-failed-inspect-no-fix", "the pilot's inspection fails, the batch runs anyway"

    def steps(self, k: Kit, c: AgentContext) -> list[str]:
        return [k.plan(c), k.plot(), k.setup(), k.write_outputs("[:1]"), k.inspect(fail=True),
                k.write_outputs(""), k.verify()]


class SilentInspect(TraitAgent):
    name, trait = "trait-silent-inspect", "the pilot output is opened but nothing is printed"

    def steps(self, k: Kit, c: AgentContext) -> list[str]:
        return [k.plan(c), k.plot(), k.setup(), k.write_outputs("[:1]"), k.inspect(silent=True),
                k.write_outputs(""), k.verify()]


TRAIT_AGENTS: dict[str, type] = {a.name: a for a in (
    TraitAgent, HonestFix, PilotNotInspected, InputNotOutput, BatchThenInspect, BatchTaggedPilot, ClaimsNoRead,
    UnfitPlan, BlankPlot, InstallsNothing, ManyFailedSetups, NoTagsPilot, ReadyUnderS2, WeightsObtained,
    LooksOnly, FailedInspectNoFix, SilentInspect)}
