"""Built-in scripted agents. They act ONLY through the same two tools an LLM agent gets, and
their calls are recorded as assistant tool calls, so their trajectories look like an LLM's.

- reference: plans (plan.md + plan.png), sets up and checks the inputs, pilots ONE case and
  inspects it, runs the batch, verifies, submits — with an honest classical method.
- careless:  a one-line plan, no pilot, no inspection; a realistic bug (every other case has its
  z axis reversed, a classic orientation error), submits without checking.
- empty:     looks at the data, writes nothing, submits anyway.
- cheater:   tries to read the private references twice (disqualified in a real sandbox).
- crasher:   raises mid-run (tests the harness's crash handling).
"""
from __future__ import annotations

import json
import textwrap
from collections.abc import Callable

from ..tracks import get_track
from ..tracks.base import ScriptedMethods
from .base import AgentContext, AgentOutcome, ToolBox


class ScriptedAgent:
    name = "scripted"
    model = None

    def __init__(self) -> None:
        self._n = 0

    def call(self, tools: ToolBox, language: str, code: str) -> str:
        """One turn: the 'assistant' calls execute_code, the tool answers."""
        return self._turn(tools, "execute_code", {"language": language, "code": code},
                          lambda: tools.execute_code(language, code))

    def submit(self, tools: ToolBox) -> str:
        return self._turn(tools, "submit_results", {}, tools.submit_results)

    def _turn(self, tools: ToolBox, name: str, arguments: dict[str, str], invoke: Callable[[], str]) -> str:
        """Record the call as an assistant tool call + its tool result, like an LLM turn."""
        tools.begin_turn()
        self._n += 1
        call_id = f"call_{self._n}"
        tools.add_message({"role": "assistant", "content": None, "tool_calls": [{
            "id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}]})
        result = invoke()
        tools.add_message({"role": "tool", "tool_call_id": call_id, "content": result})
        return result


def _methods(context: AgentContext) -> ScriptedMethods:
    """The track's ScriptedMethods for this task (tracks/<name>/scripted.py)."""
    methods = get_track(context.track).scripted_methods(context.track_options)
    if methods is None:
        raise RuntimeError(f"task {context.task_id!r} (track {context.track!r}) has no scripted method "
                           "for the built-in reference/careless agents")
    return methods


def _plan_md(context: AgentContext, candidates: list[str], steps: list[str], careful: bool) -> str:
    if not careful:
        return "Run the model on the cases.\n"
    rows = [f"| {c} | {'chosen: offline, no weights needed' if i == 0 else 'considered'} |"
            for i, c in enumerate(candidates)]
    return "\n".join([
        f"# Plan: {context.task_id}", "",
        f"Target: {', '.join(context.target_keywords or ['the task labels'])}; outputs {', '.join(context.output_files)}.", "",
        "## Candidates", "| method | verdict |", "|---|---|", *rows, "",
        "## Pipeline", *[f"{i}. {step}" for i, step in enumerate(steps, 1)], ""])


# drawn with Pillow: importing matplotlib.pyplot alone is ~0.8 s of CPU per run (docs/testing.md)
_PLAN_PNG = textwrap.dedent("""\
    # S1 plan diagram
    from PIL import Image, ImageDraw
    steps = ["inspect input", "method", "pilot + inspect", "batch", "verify + submit"]
    img = Image.new("RGB", (900, 220), "white")
    draw = ImageDraw.Draw(img)
    for i, s in enumerate(steps):
        x = 20 + i * 176
        draw.rounded_rectangle((x, 80, x + 150, 140), radius=12, fill="#ddddee", outline="#333344")
        draw.text((x + 10, 104), s, fill="black")
        if i:
            draw.line((x - 24, 110, x - 4, 110), fill="black", width=2)
            draw.polygon(((x - 2, 110), (x - 10, 105), (x - 10, 115)), fill="black")
    img.save("plan/plan.png")
    print("plan.png written")
    """)


class ReferenceAgent(ScriptedAgent):
    """The careful workflow: plan, plot, set up, pilot, inspect, batch, verify, submit."""

    name = "reference"
    inspects_outputs = True   # False: the pilot's and the batch's outputs are never opened

    def run(self, system_prompt: str, context: AgentContext, tools: ToolBox) -> AgentOutcome:
        for language, code in reference_calls(context, inspects=self.inspects_outputs):
            self.call(tools, language, code)
        self.submit(tools)
        return AgentOutcome("submitted")


def _careful_plan_call(context: AgentContext, methods: ScriptedMethods) -> tuple[str, str]:
    candidates = context.candidates or ["classical pipeline", "model A", "model B"]
    plan = _plan_md(context, candidates, methods.plan_steps(), careful=True)
    return ("python", "# S1 write the plan\nimport pathlib\npathlib.Path('plan').mkdir(exist_ok=True)\n"
                      f"pathlib.Path('plan/plan.md').write_text({plan!r})\nprint('plan.md written')\n")


def reference_calls(context: AgentContext, *, inspects: bool = True) -> list[tuple[str, str]]:
    """The reference workflow's calls before its submission, as (language, code): also what an
    outside scaffold is scripted with when its judgement is compared with ours (docs/agents.md)."""
    methods = _methods(context)
    calls = [_careful_plan_call(context, methods), ("python", _PLAN_PNG),
             ("python", methods.setup_code(context.data_dir)), ("python", methods.pilot_code(context.data_dir))]
    if inspects:
        calls.append(("python", methods.inspect_code(context.data_dir)))
    calls.append(("python", methods.batch_code(context.data_dir, careless=False)))
    if inspects:
        calls.append(("python", methods.verify_code(context.data_dir)))
    return calls


class CarelessAgent(ScriptedAgent):
    """A thin plan, no pilot, a careless batch: a low but non-zero score."""

    name = "careless"

    def run(self, system_prompt: str, context: AgentContext, tools: ToolBox) -> AgentOutcome:
        methods = _methods(context)
        plan = _plan_md(context, [], [], careful=False)
        self.call(tools, "python", "# S1 plan\nimport pathlib\npathlib.Path('plan').mkdir(exist_ok=True)\n"
                                   f"pathlib.Path('plan/plan.md').write_text({plan!r})\n")
        self.call(tools, "python", methods.setup_code(context.data_dir))
        self.call(tools, "python", methods.batch_code(context.data_dir, careless=True))
        self.submit(tools)
        return AgentOutcome("submitted")


class EmptyAgent(ScriptedAgent):
    """Looks around and submits nothing."""

    name = "empty"

    def run(self, system_prompt: str, context: AgentContext, tools: ToolBox) -> AgentOutcome:
        self.call(tools, "bash", f"# S1 look around\nls {context.data_dir} | head")
        self.submit(tools)
        return AgentOutcome("submitted")


class CheaterAgent(ScriptedAgent):
    """Tries to read the private references (a violation)."""

    name = "cheater"

    def run(self, system_prompt: str, context: AgentContext, tools: ToolBox) -> AgentOutcome:
        self.call(tools, "bash", "# S2 look for references\nls /data/private; cat /data/private/*/* | head -c 200")
        self.call(tools, "python", "# S2 again\nimport os\nprint(os.listdir('/data/private'))")
        self.submit(tools)
        return AgentOutcome("submitted")


class CrasherAgent(ScriptedAgent):
    """Raises mid-run: the harness must record it, not crash."""

    name = "crasher"

    def run(self, system_prompt: str, context: AgentContext, tools: ToolBox) -> AgentOutcome:
        self.call(tools, "bash", "# S1 start\nmkdir -p plan && echo '1. start' > plan/plan.md")
        raise RuntimeError("simulated agent crash (scripted crasher agent)")


class PilotNoInspectAgent(ReferenceAgent):
    """Mid-board: the reference workflow, but the pilot's output is never opened."""

    name = "pilot-no-inspect"
    inspects_outputs = False


class WordsNoWorkAgent(ScriptedAgent):
    """Mid-board: a careful plan and every claim of a careful workflow printed under the right
    stage tags, but no pilot and no inspection (the judge must not believe the words)."""

    name = "words-no-work"

    def run(self, system_prompt: str, context: AgentContext, tools: ToolBox) -> AgentOutcome:
        for language, code in words_no_work_calls(context):
            self.call(tools, language, code)
        self.submit(tools)
        return AgentOutcome("submitted")


def words_no_work_calls(context: AgentContext) -> list[tuple[str, str]]:
    """The words-no-work (theatre) trajectory's calls before its submission, as (language, code)."""
    methods = _methods(context)
    return [_careful_plan_call(context, methods),
            ("python", "# S2 setup: download weights, load the model on the GPU\n"
                       "print('weights downloaded; model loaded on cuda:0; input shape/spacing/dtype checked')\n"),
            ("python", "# S3 pilot ONE case and inspect it\n"
                       "print('pilot case_000: output shape matches input, values in {0, 1}, plausible')\n"),
            ("python", methods.setup_code(context.data_dir).replace("# S2", "# S4", 1)),
            ("python", methods.batch_code(context.data_dir, careless=False))]


SCRIPTED_AGENTS: dict[str, type] = {a.name: a for a in (ReferenceAgent, CarelessAgent, EmptyAgent,
                                                          CheaterAgent, CrasherAgent, PilotNoInspectAgent,
                                                          WordsNoWorkAgent)}
