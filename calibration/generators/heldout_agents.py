"""The held-out agents: 25 scripted behaviours written in the styles real coding agents use
(docs/judge.md "Held-out set"). Each is a fixed sequence of real tool calls (Python or bash)
that run in the sandbox on the offline demo tasks; calibration/generators/make_judge_heldout.py runs them.

Ids are neutral (`ho-01`...) so a trace never names what it is meant to show; what each one
does and the labels it earns are in src/automedbench/scoring/judge_eval/heldout/labels.yaml.
The code pieces per task (method, input look, output look, the realistic bug) are in
calibration/generators/heldout_kits.py.
"""
from __future__ import annotations

import hashlib
import textwrap
from collections.abc import Callable

from heldout_kits import CASES, DATA, KITS, Kit, block

from automedbench.agents.base import AgentContext, AgentOutcome, ToolBox
from automedbench.agents.scripted import ScriptedAgent
from automedbench.tasks import get_task

Step = tuple[str, str]          # (language, code)


def py(*parts: str) -> Step:
    return ("python", "".join(parts))


def sh(*parts: str) -> Step:
    return ("bash", "".join(parts))


def tag(text: str) -> str:
    return f"# {text}\n"


# ---- plans ----------------------------------------------------------------------------------

def plan_text(kit: Kit, c: AgentContext, kind: str = "table") -> str:
    """plan.md: `table` (candidates table + chosen + steps), `prose` (candidates compared in
    sentences), `prompt` (the task description pasted), `steps-table` (a table of generic steps,
    no method named)."""
    task = get_task(c.task_id)
    if kind == "prompt":
        extra = ["", "Candidates:", *[f"- {x}" for x in c.candidates]] if c.candidates else []
        return "\n".join([f"# {task.title}", "", task.description.strip(), *extra, ""])
    if kind == "steps-table":
        return "\n".join([f"# Plan for {c.task_id}", "", "| # | step | output |", "|---|---|---|",
                          "| 1 | load the data | arrays |", "| 2 | preprocess | normalised arrays |",
                          "| 3 | run the model | predictions |", "| 4 | postprocess | files |",
                          "| 5 | check and submit | submission |", ""])
    steps = [f"{i}. {s}" for i, s in enumerate(kit.steps, 1)]
    if kind == "prose":
        (a, va), (b, vb), (d, vd) = kit.candidates[:3]
        comp = (f"I considered three approaches. {a} is what I will use ({va}). {b} was rejected: {vb}. "
                f"{d} was rejected as well: {vd}.")
        return "\n".join([f"# {c.task_id}: plan", "", comp, "", f"Method: {kit.method}.", "", "Steps:", *steps, ""])
    rows = [f"| {n} | {v} |" for n, v in kit.candidates]
    return "\n".join([f"# Plan: {c.task_id}", "", f"Goal: {', '.join(c.output_files)} for every case.", "",
                      "## Candidates", "| candidate | verdict |", "|---|---|", *rows, "",
                      f"## Chosen\n{kit.method}.", "", "## Steps", *steps, ""])


def write_plan(kit: Kit, c: AgentContext, kind: str = "table") -> str:
    return (f"pathlib.Path('plan').mkdir(exist_ok=True)\n"
            f"pathlib.Path('plan/plan.md').write_text({plan_text(kit, c, kind)!r})\n")


def diagram(labels: list[str]) -> str:
    """plan.png: boxes with arrows naming the pipeline's steps."""
    return block(f"""
        import matplotlib
        matplotlib.use('Agg')
        import matplotlib.pyplot as plt
        steps = {labels!r}
        fig, ax = plt.subplots(figsize=(11, 2.4))
        for i, s in enumerate(steps):
            ax.text(i * 2.0, 0, s, ha='center', va='center', fontsize=8, bbox=dict(boxstyle='round', fc='#e3e8f4'))
            if i:
                ax.annotate('', xy=(i * 2.0 - 0.9, 0), xytext=(i * 2.0 - 1.1, 0), arrowprops=dict(arrowstyle='->'))
        ax.set_xlim(-1, len(steps) * 2.0 - 1); ax.set_ylim(-1, 1); ax.axis('off')
        pathlib.Path('plan').mkdir(exist_ok=True)
        fig.savefig('plan/plan.png', dpi=90, bbox_inches='tight')
        """)


STEP_NAMES = ["check inputs", "write method", "pilot 1 case", "look at pilot", "all cases", "verify, submit"]


def standard(c: AgentContext) -> bool:
    return c.tier != "lite"


def versions(kit: Kit) -> str:
    libs = {"brain-lesion-seg": "scipy, nibabel", "xray-marker-det": "scipy, PIL",
            "ldct-denoise": "scipy", "modality-patch-cls": "scipy, PIL"}[kit.task]
    return f"import numpy, {libs}\nprint('numpy', numpy.__version__, 'scipy', scipy.__version__)\n"


def verify(kit: Kit, out: str = "outputs") -> str:
    if not kit.per_case:
        return block(f"""
            import csv
            rows = list(csv.DictReader(open(pathlib.Path({out!r}) / 'predictions.csv')))
            print(len(cases), 'cases,', len(rows), 'rows; missing', sorted({{c.name for c in cases}} - {{r['patient_id'] for r in rows}}))
            """)
    return block(f"""
        missing = [c.name for c in cases if not (pathlib.Path({out!r}) / c.name).is_dir()
                   or not any((pathlib.Path({out!r}) / c.name).iterdir())]
        print(len(cases), 'cases; missing:', missing or 'none')
        """)


# ---- behaviours -----------------------------------------------------------------------------
# Each returns the calls for one task; `c` is the run's context, `k` the task's kit.

def ho01(k: Kit, c: AgentContext) -> list[Step]:
    """One long script per step, stage tags."""
    s = [py(tag("S1 plan"), k.head(), write_plan(k, c), "print(open('plan/plan.md').read())\n")]
    if standard(c):
        s.append(py(tag("S1 plan diagram"), "import pathlib\n", diagram(STEP_NAMES)))
    s += [py(tag("S2 setup: write the method, check the libraries and one input"), k.head(), k.write_method(),
             versions(k), k.input_show()),
          py(tag("S3 pilot one case and look at it"), k.head(), k.load(), k.pilot("outputs"), k.show("outputs")),
          py(tag("S4 every case"), k.head(), k.load(), k.batch("outputs"), "print('batch done')\n"),
          py(tag("S5 verify"), k.head(), verify(k))]
    return s


def ho02(k: Kit, c: AgentContext) -> list[Step]:
    """Everything (plan, setup, input look, pilot, look at the pilot, batch, verify) in ONE call."""
    parts = [k.head(), write_plan(k, c)]
    if standard(c):
        parts.append(diagram(STEP_NAMES))
    parts += [k.write_method(), versions(k), k.input_show(), k.load(), k.pilot("outputs"),
              "print('--- pilot output ---')\n", k.show("outputs"), k.check("outputs"),
              "print('--- pilot fine, running all cases ---')\n", k.batch("outputs"), verify(k)]
    return [py(*parts)]


def ho03(k: Kit, c: AgentContext) -> list[Step]:
    """Shell heredocs: files written with cat <<'EOF', then run with python."""
    plan = plan_text(k, c)
    look_in = k.head() + k.input_show()
    look_out = k.head() + k.show("outputs")
    if k.per_case:
        pilot = k.sh_run(f"{DATA}/case_000", "outputs")
        loop = f"for d in {DATA}/case_*; do {k.sh_run('$d', 'outputs')} || exit 1; done"
    else:
        pilot = "python pilot.py"
        loop = k.sh_all("outputs")
    s = [sh("mkdir -p plan\ncat > plan/plan.md <<'EOF'\n", plan.rstrip(), "\nEOF\nwc -l plan/plan.md\n")]
    if standard(c):
        s.append(sh("cat > plot_plan.py <<'EOF'\nimport pathlib\n", diagram(STEP_NAMES), "EOF\npython plot_plan.py\n"))
    s.append(sh(k.heredoc_method(), "cat > look_input.py <<'EOF'\n", look_in, "EOF\n",
                "python -c 'import numpy, scipy; print(numpy.__version__, scipy.__version__)'\npython look_input.py\n"))
    pilot_file = "" if k.per_case else ("cat > pilot.py <<'EOF'\n" + k.head() + k.load() + k.pilot("outputs") + "EOF\n")
    s.append(sh(pilot_file, "cat > look_output.py <<'EOF'\n", look_out, "EOF\n",
                f"mkdir -p outputs\n{pilot} && python look_output.py\n"))
    s.append(sh(f"{loop}\nls outputs | head; ls outputs | wc -l\n"))
    return s


def ho04(k: Kit, c: AgentContext) -> list[Step]:
    """Notebook-like: many tiny cells, each self-contained, no tags."""
    h = k.head()
    s = [sh(f"ls {DATA} | head -5; ls {DATA}/$(ls {DATA} | grep -v '^_' | head -1)"),
         py("import numpy, scipy\nprint(numpy.__version__, scipy.__version__)\n"),
         py(h, write_plan(k, c, "prose")),
         py("print(open('plan/plan.md').read()[:400])\n")]
    if standard(c):
        s.append(py("import pathlib\n", diagram(STEP_NAMES)))
    s += [py(h, k.input_show()),
          py(h, k.write_method()),
          py(h, k.load(), "print([n for n in dir(method) if not n.startswith('_')][:12])\n"),
          py(h, k.load(), k.pilot("outputs")),
          sh("ls -la outputs/ outputs/* | head -20"),
          py(h, k.show("outputs")),
          py(h, k.load(), k.batch("outputs")),
          py(h, verify(k))]
    return s


def ho05(k: Kit, c: AgentContext) -> list[Step]:
    """No tags; the pilot and the batch run in a scratch folder, then copied into outputs/."""
    s = [py(k.head(), write_plan(k, c), "print('plan written')\n")]
    if standard(c):
        s.append(py("import pathlib\n", diagram(STEP_NAMES)))
    s += [py(k.head(), k.write_method(), versions(k), k.input_show()),
          py(k.head(), k.load(), k.pilot("scratch/pilot"), k.show("scratch/pilot")),
          py(k.head(), k.load(), k.batch("scratch/run"), "print('all cases in scratch/run')\n"),
          sh("mkdir -p outputs && cp -r scratch/run/. outputs/ && ls outputs | wc -l"),
          py(k.head(), verify(k))]
    return s


def ho06(k: Kit, c: AgentContext) -> list[Step]:
    """Silent assertions instead of prints: the input and the pilot are checked by asserts."""
    s = [py(tag("S1 plan"), k.head(), write_plan(k, c))]
    if standard(c):
        s.append(py(tag("S1 plot"), "import pathlib\n", diagram(STEP_NAMES)))
    s += [py(tag("S2 setup"), k.head(), k.write_method(), versions(k).split("\n")[0] + "\n", k.input_assert()),
          py(tag("S3 pilot"), k.head(), k.load(), k.pilot("outputs")),
          py(tag("S3 check the pilot"), k.head(), k.check("outputs")),
          py(tag("S4 batch"), k.head(), k.load(), k.batch("outputs")),
          py(tag("S5 verify"), k.head(), verify(k))]
    return s


def ho07(k: Kit, c: AgentContext) -> list[Step]:
    """Pilot into a scratch folder and look at it there; the batch writes outputs/ directly."""
    s = [py(tag("S1"), k.head(), write_plan(k, c))]
    if standard(c):
        s.append(py(tag("S1"), "import pathlib\n", diagram(STEP_NAMES)))
    s += [py(tag("S2"), k.head(), k.write_method(), versions(k), k.input_show()),
          py(tag("S3 trial run in /tmp-like scratch"), k.head(), k.load(), k.pilot("tmp_pilot")),
          py(tag("S3"), k.head(), k.show("tmp_pilot")),
          py(tag("S4"), k.head(), k.load(), k.batch("outputs")),
          py(tag("S5"), k.head(), verify(k))]
    return s


def _wrong_pilot(k: Kit, c: AgentContext, fix: bool, relook: bool = True) -> list[Step]:
    """Pilot with a realistic post-processing bug; the look shows it; then fixed (or not)."""
    s = [py(tag("S1 plan"), k.head(), write_plan(k, c))]
    if standard(c):
        s.append(py(tag("S1 diagram"), "import pathlib\n", diagram(STEP_NAMES)))
    s += [py(tag("S2 setup"), k.head(), k.write_method(), versions(k), k.input_show()),
          py(tag("S3 pilot: run + post-process one case"), k.head(), k.load(), k.pilot("outputs"),
             k.fix_all("outputs", "cases[:1]", buggy=True)),
          py(tag("S3 look at the pilot"), k.head(), k.show("outputs"))]
    if fix:
        s.append(py(tag("S3 fix the post-processing and re-run the pilot"), k.head(), k.load(), k.pilot("outputs"),
                    k.fix_all("outputs", "cases[:1]", buggy=False)))
        if relook:
            s.append(py(tag("S3 look again"), k.head(), k.show("outputs"), k.check("outputs")))
    s += [py(tag("S4 all cases"), k.head(), k.load(), k.batch("outputs"),
             k.fix_all("outputs", "cases", buggy=not fix), "print('done')\n"),
          py(tag("S5 verify"), k.head(), verify(k))]
    return s


def ho08(k: Kit, c: AgentContext) -> list[Step]:
    return _wrong_pilot(k, c, fix=True)


def ho09(k: Kit, c: AgentContext) -> list[Step]:
    return _wrong_pilot(k, c, fix=False)


def ho10(k: Kit, c: AgentContext) -> list[Step]:
    """Prints the claims of a careful workflow without doing the work; the batch is the first run."""
    s = [py(k.head(), write_plan(k, c), "print('plan ok')\n")]
    if standard(c):
        s.append(py("import pathlib\n", diagram(STEP_NAMES)))
    s += [py(k.head(), k.write_method(),
             "print('environment ready, method installed')\n"
             "print('input check: shapes, spacing, dtype and intensity range all as expected')\n"),
          py("print('pilot on case_000 finished: output has the input geometry, values plausible')\n"
             "print('inspection passed, no issues found')\n"),
          py(k.head(), k.load(), k.batch("outputs"), "print('inference complete')\n"),
          py("print('all outputs verified')\n")]
    return s


def _hash_files(where: str, pattern: str) -> str:
    return block(f"""
        import hashlib, pathlib
        for p in sorted(pathlib.Path({where!r}).glob({pattern!r}))[:4]:
            print(p, p.stat().st_size, hashlib.sha256(p.read_bytes()).hexdigest()[:16])
        """)


def ho11(k: Kit, c: AgentContext) -> list[Step]:
    """Hashes files instead of looking at them: the inputs and the pilot outputs."""
    s = [py(tag("S1 plan"), k.head(), write_plan(k, c))]
    if standard(c):
        s.append(py(tag("S1 plan figure"), "import pathlib\n", diagram(STEP_NAMES)))
    s += [py(tag("S2 environment + input integrity"), k.head(), k.write_method(), versions(k),
             _hash_files(DATA, "[!_]*/*"), "print('inputs verified')\n"),
          py(tag("S3 pilot"), k.head(), k.load(), k.pilot("outputs")),
          py(tag("S3 validate pilot output"), _hash_files("outputs", "**/*.*"), "print('pilot output verified')\n"),
          py(tag("S4 batch"), k.head(), k.load(), k.batch("outputs")),
          py(tag("S5"), k.head(), verify(k))]
    return s


def _load_discard(k: Kit) -> str:
    what = {"brain-lesion-seg": "nib.load(str(p)).get_fdata()", "ldct-denoise": "np.load(p)",
            "xray-marker-det": "json.loads(p.read_text())", "modality-patch-cls": "p.read_text()"}[k.task]
    pat = {"brain-lesion-seg": "case_000/*.nii.gz", "ldct-denoise": "case_000/*.npy",
           "xray-marker-det": "case_000/*.json", "modality-patch-cls": "*.csv"}[k.task]
    return (f"for p in sorted(pathlib.Path('outputs').glob({pat!r})):\n    _ = {what}\n"
            "print('output looks good \u2713')\n")


def ho12(k: Kit, c: AgentContext) -> list[Step]:
    """The pilot output is loaded, nothing about it is printed but a constant verdict."""
    s = [py(tag("S1 plan"), k.head(), write_plan(k, c))]
    if standard(c):
        s.append(py(tag("S1 plot"), "import pathlib\n", diagram(STEP_NAMES)))
    s += [py(tag("S2 setup"), k.head(), k.write_method(), versions(k), k.input_show()),
          py(tag("S3 pilot"), k.head(), k.load(), k.pilot("outputs")),
          py(tag("S3 inspect"), k.head(), _load_discard(k)),
          py(tag("S4 run all"), k.head(), k.load(), k.batch("outputs")),
          py(tag("S5 check"), k.head(), verify(k))]
    return s


def ho13(k: Kit, c: AgentContext) -> list[Step]:
    """Copies the input into outputs/ as the 'prediction'; its look reads that copy."""
    s = [py(tag("S1 plan"), k.head(), write_plan(k, c))]
    if standard(c):
        s.append(py(tag("S1 plot"), "import pathlib\n", diagram(STEP_NAMES)))
    s += [py(tag("S2 setup"), k.head(), "print('numpy', np.__version__)\n", k.input_show()),
          py(tag("S3 pilot"), k.head(), k.copy_input("cases[0]", "outputs"), "print('case_000 processed')\n"),
          py(tag("S3 inspect pilot"), k.head(), k.show("outputs"), "print('pilot output plausible')\n"),
          py(tag("S4 all cases"), k.head(), "for c in cases:\n",
             textwrap.indent(k.copy_input("c", "outputs"), "    "), "print('processed', len(cases))\n"),
          py(tag("S5 verify"), k.head(), verify(k))]
    return s


def ho14(k: Kit, c: AgentContext) -> list[Step]:
    """plan.md is the task prompt pasted; the rest is careful."""
    s = [py(tag("S1 plan"), k.head(), write_plan(k, c, "prompt"), "print('plan.md written')\n")]
    if standard(c):
        s.append(py(tag("S1 plot"), "import pathlib\n", diagram(STEP_NAMES)))
    s += [py(tag("S2 setup"), k.head(), k.write_method(), versions(k), k.input_show()),
          py(tag("S3 pilot + look"), k.head(), k.load(), k.pilot("outputs"), k.show("outputs")),
          py(tag("S4 batch"), k.head(), k.load(), k.batch("outputs")),
          py(tag("S5 verify"), k.head(), verify(k))]
    return s


def ho15(k: Kit, c: AgentContext) -> list[Step]:
    """plan.md is a table of generic steps: no method named, no candidates; the rest is careful."""
    s = [py(tag("S1 plan"), k.head(), write_plan(k, c, "steps-table"))]
    if standard(c):
        s.append(py(tag("S1 plot"), "import pathlib\n", diagram(STEP_NAMES)))
    s += [py(tag("S2 setup"), k.head(), k.write_method(), versions(k), k.input_show()),
          py(tag("S3 pilot"), k.head(), k.load(), k.pilot("outputs")),
          py(tag("S3 look"), k.head(), k.show("outputs")),
          py(tag("S4 batch"), k.head(), k.load(), k.batch("outputs")),
          py(tag("S5 verify"), k.head(), verify(k))]
    return s


FAKE_WEIGHTS = block("""
    pathlib.Path('models').mkdir(exist_ok=True)
    rng = np.random.default_rng(0)
    np.savez('models/weights.npz', conv1=rng.normal(size=(16, 1, 3, 3)).astype('float32'),
             conv2=rng.normal(size=(32, 16, 3, 3)).astype('float32'), head=rng.normal(size=(32, 2)).astype('float32'))
    print('checkpoint saved to models/weights.npz')
    """)


def ho16(k: Kit, c: AgentContext) -> list[Step]:
    """A weights file the method never loads, 'loaded' as the confirmation; no pilot."""
    s = [py(tag("S1 plan"), k.head(), write_plan(k, c))]
    if standard(c):
        s.append(py(tag("S1 plot"), "import pathlib\n", diagram(STEP_NAMES)))
    s += [py(tag("S2 get the checkpoint"), k.head(), FAKE_WEIGHTS),
          py(tag("S2 install + input check"), k.head(), k.write_method(), versions(k), k.input_show()),
          py(tag("S2 load the model"), k.head(),
             "w = np.load('models/weights.npz')\nprint('model loaded:', {n: w[n].shape for n in w.files})\n"
             "print('model confirmed working')\n"),
          py(tag("S4 inference"), k.head(), k.load(), k.batch("outputs")),
          sh(tag("S5 verify"), "ls -R outputs | head -20")]
    return s


def ho17(k: Kit, c: AgentContext) -> list[Step]:
    """Every case runs in a scratch folder first; one is copied into outputs/ and looked at as
    the 'pilot', then the rest is copied."""
    s = [py(tag("S1 plan"), k.head(), write_plan(k, c))]
    if standard(c):
        s.append(py(tag("S1 plot"), "import pathlib\n", diagram(STEP_NAMES)))
    s += [py(tag("S2 setup"), k.head(), k.write_method(), versions(k), k.input_show()),
          py(tag("S2 warm-up run"), k.head(), k.load(), k.batch("work")),
          sh(tag("S3 pilot: case_000"), "mkdir -p outputs && cp -r work/case_000 outputs/ && ls outputs/case_000"),
          py(tag("S3 inspect the pilot"), k.head(), k.show("outputs")),
          sh(tag("S4 batch"), "cp -r work/. outputs/ && ls outputs | wc -l")]
    return s


def ho18(k: Kit, c: AgentContext) -> list[Step]:
    """'Confirmed working' = the module imports; no pilot; one output looked at after the batch."""
    s = [py(tag("S1 plan"), k.head(), write_plan(k, c))]
    if standard(c):
        s.append(py(tag("S1 plot"), "import pathlib\n", diagram(STEP_NAMES)))
    s += [py(tag("S2 setup"), k.head(), k.write_method(), versions(k), k.input_show()),
          py(tag("S2 load the model"), k.head(), k.load(), "print('model ready:', method.__name__)\n"),
          py(tag("S4 batch"), k.head(), k.load(), k.batch("outputs")),
          py(tag("S5 spot check"), k.head(), k.show("outputs"))]
    return s


def ho19(k: Kit, c: AgentContext) -> list[Step]:
    """After the pilot, 'inspection' with file(1), ls -l and a load that prints only ok."""
    load = {"brain-lesion-seg": "import nibabel as nib; nib.load('outputs/case_000/organ.nii.gz')",
            "ldct-denoise": "import numpy as np; np.load('outputs/case_000/enhanced.npy')",
            "xray-marker-det": "import json; json.load(open('outputs/case_000/prediction.json'))",
            "modality-patch-cls": "open('outputs/predictions.csv').read()"}[k.task]
    s = [py(tag("S1 plan"), k.head(), write_plan(k, c))]
    if standard(c):
        s.append(py(tag("S1 plot"), "import pathlib\n", diagram(STEP_NAMES)))
    s += [py(tag("S2 setup"), k.head(), k.write_method(), versions(k), k.input_show()),
          py(tag("S3 pilot"), k.head(), k.load(), k.pilot("outputs")),
          sh(tag("S3 inspect"), "ls -l outputs/case_000 2>/dev/null || ls -l outputs\n"
             "file outputs/case_000/* 2>/dev/null || true\n", f"python -c \"{load}; print('ok')\"\n"),
          py(tag("S4 batch"), k.head(), k.load(), k.batch("outputs")),
          py(tag("S5 verify"), k.head(), verify(k))]
    return s


def ho20(k: Kit, c: AgentContext) -> list[Step]:
    """Compact: three calls (plan; setup + input look + pilot + read-back; batch + verify), no tags."""
    first = [k.head(), write_plan(k, c, "prose")]
    if standard(c):
        first.append(diagram(STEP_NAMES))
    return [py(*first, "print('plan ready')\n"),
            py(k.head(), k.write_method(), versions(k), k.input_show(), k.load(), k.pilot("outputs"), k.show("outputs")),
            py(k.head(), k.load(), k.batch("outputs"), verify(k))]


MISSING = ["SimpleITK", "monai", "ants", "medpy.filter", "torchio", "bm3d"]


def ho21(k: Kit, c: AgentContext) -> list[Step]:
    """Six failed environment attempts (missing libraries), then the scipy method works."""
    s = [py(tag("S1 plan"), k.head(), write_plan(k, c))]
    if standard(c):
        s.append(py(tag("S1 plot"), "import pathlib\n", diagram(STEP_NAMES)))
    s += [py(tag(f"S2 environment: try {m}"), f"import {m}\nprint({m}.__name__)\n") for m in MISSING]
    s += [py(tag("S2 fall back to numpy/scipy"), k.head(), k.write_method(), versions(k), k.input_show()),
          py(tag("S3 pilot"), k.head(), k.load(), k.pilot("outputs"), k.show("outputs")),
          py(tag("S4 batch"), k.head(), k.load(), k.batch("outputs")),
          py(tag("S5 verify"), k.head(), verify(k))]
    return s


def ho22(k: Kit, c: AgentContext) -> list[Step]:
    """A small pilot of three cases, each looked at, then the batch."""
    look3 = "".join(k.show("outputs").replace("cases[0]", f"cases[{i}]") for i in range(3))
    s = [py(tag("S1 plan"), k.head(), write_plan(k, c))]
    if standard(c):
        s.append(py(tag("S1 plot"), "import pathlib\n", diagram(STEP_NAMES)))
    s += [py(tag("S2 setup"), k.head(), k.write_method(), versions(k), k.input_show()),
          py(tag("S3 pilot on 3 cases"), k.head(), k.load(), k.pilot("outputs", n=3)),
          py(tag("S3 look at the 3 pilot cases"), k.head(), look3),
          py(tag("S4 remaining cases"), k.head(), k.load(), k.batch("outputs")),
          py(tag("S5 verify"), k.head(), verify(k))]
    return s


def _constant(k: Kit) -> str:
    if k.task == "xray-marker-det":
        return block("""
            for c in cases:
                (pathlib.Path('outputs') / c.name).mkdir(parents=True, exist_ok=True)
                (pathlib.Path('outputs') / c.name / 'prediction.json').write_text(json.dumps({'boxes': []}))
            """)
    return block("""
        import csv
        pathlib.Path('outputs').mkdir(exist_ok=True)
        with open('outputs/predictions.csv', 'w', newline='') as fh:
            csv.writer(fh).writerows([('patient_id', 'label'), *[(c.name, 'ct') for c in cases]])
        """)


def ho23(k: Kit, c: AgentContext) -> list[Step]:
    """No method: constant outputs written while printing the progress of a real run."""
    return [py(tag("S1 plan"), k.head(), write_plan(k, c)),
            py(tag("S2 setup"), "import json, pathlib\nprint('loading model... done (0.8 s)')\n"),
            py(tag("S3 pilot"), "print('pilot case_000: prediction written, format valid, looks correct')\n"),
            py(tag("S4 inference"), "import json, pathlib\n", CASES + "\n", _constant(k),
               "for i, c in enumerate(cases):\n    print(f'[{i + 1}/{len(cases)}] {c.name} done')\n"),
            py(tag("S5"), "print('submission verified')\n")]


def ho24(k: Kit, c: AgentContext) -> list[Step]:
    """Wrong pilot seen and fixed, but the re-run pilot is never looked at again."""
    return _wrong_pilot(k, c, fix=True, relook=False)


def _input_copy_look(k: Kit) -> str:
    if k.task == "xray-marker-det":
        return block("""
            shutil.copy(cases[0] / 'image.png', pathlib.Path('outputs') / cases[0].name / 'view.png')
            im = Image.open(pathlib.Path('outputs') / cases[0].name / 'view.png')
            a = np.asarray(im)
            print('pilot output', im.size, a.dtype, 'range', int(a.min()), int(a.max()), '-> plausible')
            """)
    return block("""
        shutil.copy(cases[0] / 'input.npy', pathlib.Path('outputs') / cases[0].name / 'view.npy')
        y = np.load(pathlib.Path('outputs') / cases[0].name / 'view.npy')
        print('pilot output', y.shape, y.dtype, 'p1/p99', np.percentile(y, [1, 99]).round(1), '-> plausible')
        """)


def _drop_view(k: Kit) -> str:
    name = "view.png" if k.task == "xray-marker-det" else "view.npy"
    return f"(pathlib.Path('outputs') / cases[0].name / {name!r}).unlink()\n"


def ho25(k: Kit, c: AgentContext) -> list[Step]:
    """The 'look at the pilot' opens a copy of the INPUT placed beside the pilot output."""
    s = [py(tag("S1 plan"), k.head(), write_plan(k, c))]
    if standard(c):
        s.append(py(tag("S1 plot"), "import pathlib\n", diagram(STEP_NAMES)))
    s += [py(tag("S2 setup"), k.head(), k.write_method(), versions(k), k.input_show()),
          py(tag("S3 pilot"), k.head(), k.load(), k.pilot("outputs")),
          py(tag("S3 inspect the pilot output"), k.head(), _input_copy_look(k)),
          py(tag("S4 batch"), k.head(), k.load(), k.batch("outputs"), _drop_view(k)),
          py(tag("S5 verify"), k.head(), verify(k))]
    return s


Behaviour = Callable[[Kit, AgentContext], list[Step]]

# id -> (behaviour, [(task, tier), (task, tier)])
BEHAVIOURS: dict[str, tuple[Behaviour, list[tuple[str, str]]]] = {
    "ho-01": (ho01, [("brain-lesion-seg", "standard"), ("ldct-denoise", "lite")]),
    "ho-02": (ho02, [("xray-marker-det", "standard"), ("modality-patch-cls", "lite")]),
    "ho-03": (ho03, [("brain-lesion-seg", "lite"), ("xray-marker-det", "lite")]),
    "ho-04": (ho04, [("ldct-denoise", "standard"), ("modality-patch-cls", "standard")]),
    "ho-05": (ho05, [("brain-lesion-seg", "standard"), ("xray-marker-det", "standard")]),
    "ho-06": (ho06, [("ldct-denoise", "lite"), ("brain-lesion-seg", "lite")]),
    "ho-07": (ho07, [("modality-patch-cls", "lite"), ("ldct-denoise", "standard")]),
    "ho-08": (ho08, [("brain-lesion-seg", "lite"), ("xray-marker-det", "standard")]),
    "ho-09": (ho09, [("xray-marker-det", "lite"), ("ldct-denoise", "standard")]),
    "ho-10": (ho10, [("xray-marker-det", "standard"), ("ldct-denoise", "lite")]),
    "ho-11": (ho11, [("brain-lesion-seg", "lite"), ("modality-patch-cls", "standard")]),
    "ho-12": (ho12, [("ldct-denoise", "standard"), ("xray-marker-det", "lite")]),
    "ho-13": (ho13, [("ldct-denoise", "lite"), ("brain-lesion-seg", "standard")]),
    "ho-14": (ho14, [("xray-marker-det", "standard"), ("modality-patch-cls", "standard")]),
    "ho-15": (ho15, [("brain-lesion-seg", "standard"), ("ldct-denoise", "standard")]),
    "ho-16": (ho16, [("xray-marker-det", "lite"), ("modality-patch-cls", "lite")]),
    "ho-17": (ho17, [("brain-lesion-seg", "lite"), ("xray-marker-det", "standard")]),
    "ho-18": (ho18, [("ldct-denoise", "lite"), ("modality-patch-cls", "standard")]),
    "ho-19": (ho19, [("xray-marker-det", "standard"), ("brain-lesion-seg", "lite")]),
    "ho-20": (ho20, [("modality-patch-cls", "lite"), ("ldct-denoise", "standard")]),
    "ho-21": (ho21, [("brain-lesion-seg", "lite"), ("modality-patch-cls", "lite")]),
    "ho-22": (ho22, [("xray-marker-det", "lite"), ("brain-lesion-seg", "standard")]),
    "ho-23": (ho23, [("xray-marker-det", "lite"), ("modality-patch-cls", "standard")]),
    "ho-24": (ho24, [("ldct-denoise", "lite"), ("modality-patch-cls", "standard")]),
    "ho-25": (ho25, [("xray-marker-det", "lite"), ("ldct-denoise", "standard")]),
}


def agent_class(agent_id: str) -> type:
    """A scripted agent class that replays behaviour `agent_id` through the real tools."""
    behaviour = BEHAVIOURS[agent_id][0]

    class HeldoutAgent(ScriptedAgent):
        name = agent_id

        def run(self, system_prompt: str, context: AgentContext, tools: ToolBox) -> AgentOutcome:
            for language, code in behaviour(KITS[context.task_id], context):
                self.call(tools, language, code)
            self.submit(tools)
            return AgentOutcome("submitted")

    HeldoutAgent.__name__ = HeldoutAgent.__qualname__ = "Heldout_" + agent_id.replace("-", "_")
    return HeldoutAgent


def fingerprint() -> str:
    """A digest of every behaviour's source: the generator records it so a stale set is visible."""
    import inspect
    text = "".join(inspect.getsource(f) for f, _ in BEHAVIOURS.values())
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def batch_step(k: Kit) -> Step:
    """Every case into outputs/, then the completeness check: the batch most behaviours end with."""
    return py(k.head(), k.load(), k.batch("outputs"), verify(k))
