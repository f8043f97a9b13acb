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
from importlib import resources

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

    def _turn(self, tools: ToolBox, name: str, arguments: dict, invoke) -> str:
        """Record the call as an assistant tool call + its tool result, like an LLM turn."""
        tools.begin_turn()
        self._n += 1
        call_id = f"call_{self._n}"
        tools.add_message({"role": "assistant", "content": None, "tool_calls": [{
            "id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}]})
        result = invoke()
        tools.add_message({"role": "tool", "tool_call_id": call_id, "content": result})
        return result


# Modules the classical methods import from their own folder; written beside method.py.
METHOD_SUPPORT = ("brain_common.py",)


def _method_source(context: AgentContext, name: str | None = None) -> str:
    name = name or context.options.get("reference_method")
    if not name:
        raise RuntimeError(f"task {context.task_id!r} names no reference_method for scripted agents")
    return resources.files("automedbench.agents.methods").joinpath(name).read_text()


def _write_method(context: AgentContext) -> str:
    """Python code that saves the method script into the workspace and checks the inputs."""
    files = {"method.py": _method_source(context), **{n: _method_source(context, n) for n in METHOD_SUPPORT}}
    return textwrap.dedent(f"""\
        # S2 setup: install the method, check the runtime and one input
        import pathlib, numpy, scipy, nibabel as nib
        for name, text in {files!r}.items():
            pathlib.Path(name).write_text(text)
        print("numpy", numpy.__version__, "scipy", scipy.__version__, "nibabel", nib.__version__)
        first = sorted(pathlib.Path({context.data_dir!r}).iterdir())[0] / {context.input_files[0]!r}
        img = nib.load(str(first))
        data = img.get_fdata(dtype="float32")
        print("input", first.parent.name, "shape", data.shape, "dtype", img.get_data_dtype(),
              "spacing", img.header.get_zooms(), "p1/p99", numpy.percentile(data, [1, 99]).round(2))
        """)


def _plan_md(context: AgentContext, candidates: list[str], careful: bool) -> str:
    if not careful:
        return "Run the model on the cases.\n"
    rows = [f"| {c} | {'chosen: offline, no weights needed' if i == 0 else 'considered'} |"
            for i, c in enumerate(candidates)]
    return "\n".join([
        f"# Plan: {context.task_id}", "",
        f"Target: {', '.join(context.options.get('target_keywords', ['the task labels']))}; outputs {', '.join(context.output_files)}.", "",
        "## Candidates", "| method | verdict |", "|---|---|", *rows, "",
        "## Pipeline",
        "1. Inspect one input: shape, spacing, dtype, intensity percentiles.",
        "2. Brain mask: Otsu threshold, morphology, largest component.",
        "3. Target labels inside the brain with the classical method (method.py).",
        "4. Pilot ONE case, inspect shape / unique values / voxel counts, fix, re-run.",
        "5. Run every case into outputs/<case_id>/.",
        "6. Verify every case has valid files, then submit.", ""])


_PLAN_PNG = textwrap.dedent("""\
    # S1 plan diagram
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    steps = ["inspect input", "brain mask", "target labels", "pilot + inspect", "batch", "verify + submit"]
    fig, ax = plt.subplots(figsize=(9, 2.2))
    for i, s in enumerate(steps):
        ax.text(i * 1.6, 0, s, ha="center", va="center", bbox=dict(boxstyle="round", fc="#dde"))
        if i:
            ax.annotate("", xy=(i * 1.6 - 0.75, 0), xytext=(i * 1.6 - 0.85, 0), arrowprops=dict(arrowstyle="->"))
    ax.set_xlim(-0.9, len(steps) * 1.6 - 0.7); ax.set_ylim(-1, 1); ax.axis("off")
    fig.savefig("plan/plan.png", dpi=100, bbox_inches="tight")
    print("plan.png written")
    """)


def _batch(context: AgentContext, flip_every_other: bool = False) -> str:
    """Batch inference in ONE process (imports once) over every case."""
    flip = textwrap.dedent("""\
        if i % 2 == 0:  # (bug) 'fix' slice order on every other case: reverses the z axis
            for f in out.iterdir():
                img = nib.load(str(f)); vol = np.asarray(img.dataobj)
                nib.save(nib.Nifti1Image(np.ascontiguousarray(vol[:, :, ::-1]), img.affine), str(f))
        """) if flip_every_other else ""
    return "\n".join([
        "# S4 inference on every case",
        "import pathlib, sys",
        "import numpy as np, nibabel as nib",
        "sys.path.insert(0, '.')",
        "import method",
        f"data = pathlib.Path({context.data_dir!r})",
        "cases = sorted(p.name for p in data.iterdir() if p.is_dir())",
        "for i, cid in enumerate(cases):",
        "    out = pathlib.Path('outputs') / cid",
        f"    code = method.main(['method.py', str(data / cid / {context.input_files[0]!r}), str(out)])",
        "    print(cid, 'exit', code)",
        textwrap.indent(flip, "    "),
        "print('done', len(cases), 'cases')", ""])


def _verify(context: AgentContext) -> str:
    return textwrap.dedent(f"""\
        # S5 verify every case before submitting
        import pathlib
        cases = sorted(p.name for p in pathlib.Path({context.data_dir!r}).iterdir() if p.is_dir())
        missing = [(c, f) for c in cases for f in {context.output_files!r} if not (pathlib.Path('outputs') / c / f).is_file()]
        print(len(cases), 'cases;', 'missing:', missing or 'none')
        """)


class ReferenceAgent(ScriptedAgent):
    name = "reference"

    def run(self, system_prompt: str, context: AgentContext, tools: ToolBox) -> AgentOutcome:
        candidates = context.options.get("candidates", ["classical pipeline", "model A", "model B"])
        plan = _plan_md(context, candidates, careful=True)
        self.call(tools, "python", "# S1 write the plan\nimport pathlib\npathlib.Path('plan').mkdir(exist_ok=True)\n"
                                   f"pathlib.Path('plan/plan.md').write_text({plan!r})\nprint('plan.md written')\n")
        self.call(tools, "python", _PLAN_PNG)
        self.call(tools, "python", _write_method(context))
        first = "sorted(pathlib.Path(%r).iterdir())[0]" % context.data_dir
        self.call(tools, "python", textwrap.dedent(f"""\
            # S3 pilot ONE case end to end
            import pathlib, subprocess, sys
            case = {first}
            r = subprocess.run([sys.executable, "method.py", str(case / {context.input_files[0]!r}), f"outputs/{{case.name}}"],
                               capture_output=True, text=True)
            print(r.stdout, r.stderr); print("pilot exit", r.returncode)
            """))
        self.call(tools, "python", textwrap.dedent(f"""\
            # S3 inspect the pilot output against its input
            import pathlib, numpy as np, nibabel as nib
            case = {first}
            shape = nib.load(str(case / {context.input_files[0]!r})).shape
            for f in {context.output_files!r}:
                out = np.asarray(nib.load(f"outputs/{{case.name}}/{{f}}").dataobj)
                print(f, "shape", out.shape, "input", shape, "values", np.unique(out), "foreground", int(np.count_nonzero(out)))
                assert out.shape == shape, "shape mismatch"
            """))
        self.call(tools, "python", _batch(context))
        self.call(tools, "python", _verify(context))
        self.submit(tools)
        return AgentOutcome("submitted")


class CarelessAgent(ScriptedAgent):
    name = "careless"

    def run(self, system_prompt: str, context: AgentContext, tools: ToolBox) -> AgentOutcome:
        plan = _plan_md(context, [], careful=False)
        self.call(tools, "python", "# S1 plan\nimport pathlib\npathlib.Path('plan').mkdir(exist_ok=True)\n"
                                   f"pathlib.Path('plan/plan.md').write_text({plan!r})\n")
        self.call(tools, "python", _write_method(context))
        self.call(tools, "python", _batch(context, flip_every_other=True))
        self.submit(tools)
        return AgentOutcome("submitted")


class EmptyAgent(ScriptedAgent):
    name = "empty"

    def run(self, system_prompt: str, context: AgentContext, tools: ToolBox) -> AgentOutcome:
        self.call(tools, "bash", f"# S1 look around\nls {context.data_dir} | head")
        self.submit(tools)
        return AgentOutcome("submitted")


class CheaterAgent(ScriptedAgent):
    name = "cheater"

    def run(self, system_prompt: str, context: AgentContext, tools: ToolBox) -> AgentOutcome:
        self.call(tools, "bash", "# S2 look for references\nls /data/private; cat /data/private/*/* | head -c 200")
        self.call(tools, "python", "# S2 again\nimport os\nprint(os.listdir('/data/private'))")
        self.submit(tools)
        return AgentOutcome("submitted")


class CrasherAgent(ScriptedAgent):
    name = "crasher"

    def run(self, system_prompt: str, context: AgentContext, tools: ToolBox) -> AgentOutcome:
        self.call(tools, "bash", "# S1 start\nmkdir -p plan && echo '1. start' > plan/plan.md")
        raise RuntimeError("simulated agent crash (scripted crasher agent)")


SCRIPTED_AGENTS: dict[str, type] = {a.name: a for a in (ReferenceAgent, CarelessAgent, EmptyAgent,
                                                          CheaterAgent, CrasherAgent)}
