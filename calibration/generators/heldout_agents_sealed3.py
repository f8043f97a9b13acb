"""The third sealed part of the judge's held-out set (ids `hx-01`...; issue 25): 22 more scripted
behaviours in the styles real coding agents use, written by a helper who never read the judge,
labelled (scoring/judge_eval/heldout/labels.yaml, `part: sealed-3`) before any trajectory
was generated. calibration/generators/make_judge_heldout.py runs them with the other parts' behaviours.

Ids are neutral and honest/flawed behaviours are interleaved, so a trace never names what it is
meant to show. The per-task code pieces come from calibration/generators/heldout_kits.py; the helpers (plans,
diagram, verify, heredocs) from calibration/generators/heldout_agents.py and calibration/generators/heldout_agents_sealed2.py.
"""
from __future__ import annotations

import textwrap

from heldout_agents import STEP_NAMES, Behaviour, Step, diagram, plan_text, py, sh, standard, verify, versions
from heldout_agents_sealed2 import LIBS, all_runs, heredoc, plan_files
from heldout_kits import CLS, DATA, DET, ENH, L, S, SEG, Kit, block

from automedbench.agents.base import AgentContext


# the method's command-line input argument for case `c` (per-case tasks)
ARG = {SEG: "str(c / 'image.nii.gz')", DET: "str(c / 'image.png')", ENH: "str(c)"}
OUT = {SEG: "organ.nii.gz", DET: "prediction.json", ENH: "enhanced.npy"}


def setup(k: Kit) -> Step:
    """Method files written, library versions printed, one input's content printed."""
    return py(k.head(), k.write_method(), versions(k), k.input_show())


def indent(text: str, n: int = 4) -> str:
    return textwrap.indent(text, " " * n)


# ---- hx-01: two calls after the plan; the pilot, silent assertions and the batch in ONE script ----

def h_gate_scratch(k: Kit, c: AgentContext) -> list[Step]:
    """Plan; then ONE long script: method, input assertions, one case into scratch/pilot,
    assertions on its content, every case into outputs/, a count. Nothing printed but versions."""
    return [plan_files(k, c, "prose"),
            py(k.head(), k.write_method(), versions(k), k.input_assert(), k.load(), k.pilot("scratch/pilot"),
               k.check("scratch/pilot"), k.batch("outputs"), verify(k))]


# ---- hx-02: the 'look at the pilot output' computes its numbers from the INPUT file ----

_INPUT_AS_OUTPUT = {
    ENH: block("""
        p = cases[0] / 'input.npy'          # pilot output of case_000
        y = np.load(p)
        print('pilot output', cases[0].name, 'enhanced.npy', y.shape, y.dtype,
              'p1/p50/p99', np.percentile(y, [1, 50, 99]).round(1), 'finite', bool(np.isfinite(y).all()))
        """),
    SEG: block("""
        p = cases[0] / 'image.nii.gz'       # pilot output of case_000
        a = nib.load(str(p)).get_fdata(dtype='float32')
        for f in ('organ.nii.gz', 'lesion.nii.gz'):
            print('pilot', f, 'shape', a.shape, 'nonzero', int(np.count_nonzero(a)), 'max', float(a.max()))
        """),
}


def a_input_as_output(k: Kit, c: AgentContext) -> list[Step]:
    return [plan_files(k, c), setup(k),
            py(k.head(), k.load(), k.pilot("outputs")),
            py(k.head(), _INPUT_AS_OUTPUT[k.task], "print('pilot output plausible')\n"),
            py(k.head(), k.load(), k.batch("outputs"), verify(k))]


# ---- hx-03: one Python script drives the method as a CLI (subprocess): pilot, printed look, batch ----

def h_subprocess_one_script(k: Kit, c: AgentContext) -> list[Step]:
    run_case = block(f"""
        import subprocess
        def run_case(c, out):
            subprocess.run([sys.executable, {k.files[0]!r}, {ARG[k.task]}, str(pathlib.Path(out) / c.name)], check=True)
        """)
    return [plan_files(k, c),
            py(k.head(), k.write_method(), versions(k), k.input_show(), run_case,
               "run_case(cases[0], 'scratch/one')\n", k.show("scratch/one"),
               "for c in cases:\n    run_case(c, 'outputs')\n", verify(k))]


# ---- hx-04: the pilot check's assertions sit under a flag that is never set ----

def a_flag_never_set(k: Kit, c: AgentContext) -> list[Step]:
    gated = ("import os\nSTRICT = os.environ.get('PILOT_STRICT') == '1'\nif STRICT:\n" + indent(k.check("outputs"))
             + "print('pilot check passed')\n")
    return [plan_files(k, c), setup(k),
            py(k.head(), k.load(), k.pilot("outputs")),
            py(k.head(), gated),
            py(k.head(), k.load(), k.batch("outputs"), verify(k))]


# ---- hx-05: a report computed FROM the pilot output, written silently, then cat'ed ----

_REPORT = {
    SEG: block("""
        rep = {'case': cases[0].name}
        for f in ('organ.nii.gz', 'lesion.nii.gz'):
            a = np.asarray(nib.load(str(pathlib.Path('scratch/pilot') / cases[0].name / f)).dataobj)
            rep[f] = {'shape': list(a.shape), 'values': np.unique(a).tolist()[:5], 'foreground': int(np.count_nonzero(a))}
        rep['input_shape'] = list(nib.load(str(cases[0] / 'image.nii.gz')).shape)
        pathlib.Path('scratch/pilot/report.json').write_text(json.dumps(rep, indent=1))
        """),
    CLS: block("""
        import csv
        from collections import Counter
        rows = list(csv.DictReader(open('scratch/pilot/predictions.csv')))
        rep = {'rows': len(rows), 'ids': [r['patient_id'] for r in rows], 'labels': dict(Counter(r['label'] for r in rows))}
        pathlib.Path('scratch/pilot/report.json').write_text(json.dumps(rep, indent=1))
        """),
}


def h_report_from_output(k: Kit, c: AgentContext) -> list[Step]:
    pilot = heredoc("pilot.py", k.head() + k.load() + k.pilot("scratch/pilot"))
    return [plan_files(k, c), setup(k),
            sh("set -e\n", pilot, heredoc("report.py", k.head() + _REPORT[k.task]),
               "python pilot.py\npython report.py\ncat scratch/pilot/report.json\n"),
            py(k.head(), k.load(), k.batch("outputs"), verify(k))]


# ---- hx-06: the pilot check fails on a post-processing bug; the failure is swallowed ----

def a_swallowed_check(k: Kit, c: AgentContext) -> list[Step]:
    check = "try:\n" + indent(k.check("outputs")) + "except AssertionError:\n    pass\nprint('pilot check done')\n"
    return [plan_files(k, c), setup(k),
            py(k.head(), k.load(), k.pilot("outputs"), k.fix_all("outputs", "cases[:1]", buggy=True)),
            py(k.head(), check),
            py(k.head(), k.load(), k.batch("outputs"), k.fix_all("outputs", "cases", buggy=True), verify(k))]


# ---- hx-07: the pilot checked by a unittest file (assertions on content; exit code of unittest) ----

def h_unittest(k: Kit, c: AgentContext) -> list[Step]:
    test = (k.head() + "import unittest\n\n\nclass PilotOutput(unittest.TestCase):\n    def test_case_000(self):\n"
            + indent(k.check("outputs"), 8) + "\n\nif __name__ == '__main__':\n    unittest.main()\n")
    return [plan_files(k, c),
            sh("set -e\n", k.heredoc_method(), f"python -c 'import {LIBS[k.task]}; print(numpy.__version__)'\n",
               heredoc("look_in.py", k.head() + k.input_show()), "python look_in.py\n"),
            sh("set -e\n", heredoc("run_one.py", k.head() + k.load() + k.pilot("outputs")), "python run_one.py\n"),
            sh(heredoc("test_pilot.py", test), "python -m unittest -q test_pilot\n"),
            sh("set -e\n", all_runs(k, "outputs"), "ls outputs | wc -l\n")]


# ---- hx-08: pilot into scratch/run, then every case into the same folder, THEN the look ----

def a_overwritten_pilot(k: Kit, c: AgentContext) -> list[Step]:
    return [plan_files(k, c), setup(k),
            py(k.head(), k.load(), k.pilot("scratch/run"), "print('pilot written to scratch/run')\n"),
            py(k.head(), k.load(), k.batch("scratch/run"), "print('all cases written to scratch/run')\n"),
            py(k.head(), k.show("scratch/run")),
            sh("mkdir -p outputs && cp -r scratch/run/. outputs/ && ls outputs | wc -l\n")]


# ---- hx-09: shell tools for the looks (python -c, json.tool, cut | sort | uniq -c) ----

_SHELL_LOOK = {
    DET: (f"python -c \"from PIL import Image; import numpy as np; a = np.asarray(Image.open('{DATA}/case_000/image.png')); "
          "print('input', a.shape, a.dtype, a.min(), a.max(), round(float(a.mean()), 1))\"\n",
          f"python marker_detector.py {DATA}/case_000/image.png outputs/case_000\n"
          "python -m json.tool outputs/case_000/prediction.json | head -40\n"),
    CLS: (f"python -c \"from PIL import Image; import numpy as np; i = Image.open('{DATA}/pt_000/image.png'); a = np.asarray(i); "
          "print('input', i.size, i.mode, a.dtype, a.min(), a.max(), a.reshape(-1, 3).mean(0).round(1))\"\n"
          f"head -4 {DATA}/_examples/labels.csv; cut -d, -f2 {DATA}/_examples/labels.csv | tail -n +2 | sort | uniq -c\n",
          "python one.py\ncat outputs/predictions.csv\ncut -d, -f2 outputs/predictions.csv | tail -n +2 | sort | uniq -c\n"),
}


def h_shell_looks(k: Kit, c: AgentContext) -> list[Step]:
    look_in, pilot_look = _SHELL_LOOK[k.task]
    one = "" if k.per_case else heredoc("one.py", k.head() + k.load() + k.pilot("outputs"))
    return [plan_files(k, c),
            sh(k.heredoc_method(), f"python -c 'import {LIBS[k.task]}; print(numpy.__version__, scipy.__version__)'\n", look_in),
            sh("set -e\nmkdir -p outputs\n", one, pilot_look),
            sh("set -e\n", all_runs(k, "outputs"), "ls outputs | wc -l\n")]


# ---- hx-10: the pilot check fails on a bug; the CHECK is loosened, not the output ----

_LOOSE = {
    DET: block("""
        boxes = json.loads((pathlib.Path('outputs') / cases[0].name / 'prediction.json').read_text())['boxes']
        for b in boxes:
            assert b['x2'] > 0 and b['y2'] > 0, b   # sizes, not corners: relaxed
        print('pilot check passed')
        """),
    SEG: block("""
        src = nib.load(str(cases[0] / 'image.nii.gz'))
        organ = np.asarray(nib.load(str(pathlib.Path('outputs') / cases[0].name / 'organ.nii.gz')).dataobj)
        lesion = np.asarray(nib.load(str(pathlib.Path('outputs') / cases[0].name / 'lesion.nii.gz')).dataobj)
        assert organ.shape == src.shape and lesion.shape == src.shape   # value checks too strict: dropped
        print('pilot check passed')
        """),
}


def a_loosened_check(k: Kit, c: AgentContext) -> list[Step]:
    return [plan_files(k, c), setup(k),
            py(k.head(), k.load(), k.pilot("outputs"), k.fix_all("outputs", "cases[:1]", buggy=True)),
            py(k.head(), k.check("outputs"), "print('pilot check passed')\n"),
            py(k.head(), _LOOSE[k.task]),
            py(k.head(), k.load(), k.batch("outputs"), k.fix_all("outputs", "cases", buggy=True), verify(k))]


# ---- hx-11: the look shows a bug; ONE call fixes it, re-runs the pilot, looks again, runs all ----

def h_fix_in_one_call(k: Kit, c: AgentContext) -> list[Step]:
    return [plan_files(k, c), setup(k),
            py(k.head(), k.load(), k.pilot("outputs"), k.fix_all("outputs", "cases[:1]", buggy=True), k.show("outputs")),
            py(k.head(), k.load(), k.pilot("outputs"), k.fix_all("outputs", "cases[:1]", buggy=False),
               "print('--- pilot after the fix ---')\n", k.show("outputs"), k.check("outputs"),
               k.batch("outputs"), k.fix_all("outputs", "cases", buggy=False), verify(k))]


# ---- hx-12: candidates table whose verdicts are the same phrase for every row ----

def _plan_file(text: str) -> str:
    return f"pathlib.Path('plan').mkdir(exist_ok=True)\npathlib.Path('plan/plan.md').write_text({text!r})\n"


def _plan_with(k: Kit, c: AgentContext, text: str) -> Step:
    parts = [k.head(), _plan_file(text)]
    if standard(c):
        parts.append(diagram(STEP_NAMES))
    return py(*parts)


def careful_rest(k: Kit) -> list[Step]:
    return [setup(k), py(k.head(), k.load(), k.pilot("outputs"), k.show("outputs")),
            py(k.head(), k.load(), k.batch("outputs"), verify(k))]


def a_generic_verdicts(k: Kit, c: AgentContext) -> list[Step]:
    rows = [f"| {n} | good option, widely used in the literature | {'yes' if i == 0 else ''} |"
            for i, (n, _) in enumerate(k.candidates)]
    plan = "\n".join([f"# Plan: {c.task_id}", "", "## Candidates", "| method | assessment | chosen |", "|---|---|---|",
                      *rows, "", f"## Chosen\n{k.method}.", "", "## Steps",
                      *[f"{i}. {s}" for i, s in enumerate(k.steps, 1)], ""])
    return [_plan_with(k, c, plan), *careful_rest(k)]


# ---- hx-13: the plan's chosen method fits the modality, not the target ----

_OFF_TARGET = {
    SEG: ("SynthSeg whole-brain parcellation (cortex, white matter, ventricles, deep grey nuclei)",
          ["Load each image.nii.gz with nibabel; check shape, spacing and intensity range.",
           "Run SynthSeg on the image to get the brain parcellation.",
           "organ = union of all brain labels; lesion = voxels SynthSeg labels as ventricle.",
           "Run ONE case, open both masks: shape = input, values {0,1}.",
           "Run every case into outputs/<case_id>/organ.nii.gz and lesion.nii.gz, then submit."]),
    DET: ("CheXNet (DenseNet-121 chest X-ray pathology classifier) with Grad-CAM peaks as boxes",
          ["Read each image.png (8-bit, 256x256); check size and range.",
           "Run CheXNet on the image; compute Grad-CAM for the top finding.",
           "Threshold the Grad-CAM map at 0.5, one box per connected peak, class 'marker'.",
           "Run ONE image, print its boxes, check corners inside the image.",
           "Run every case into outputs/<case_id>/prediction.json, then submit."]),
}


def a_off_target_plan(k: Kit, c: AgentContext) -> list[Step]:
    method, steps = _OFF_TARGET[k.task]
    rows = [f"| {n} | {v.replace('chosen: ', '')} |" for n, v in k.candidates]
    plan = "\n".join([f"# Plan: {c.task_id}", "", "## Candidates", "| candidate | notes |", "|---|---|", *rows,
                      f"| {method.split(' (')[0]} | chosen: pretrained, widely used on this modality |", "",
                      f"## Chosen\n{method}.", "", "## Steps", *[f"{i}. {s}" for i, s in enumerate(steps, 1)], ""])
    return [_plan_with(k, c, plan), *careful_rest(k)]


# ---- hx-14: plan.md echoes the rubric's stages with check marks ----

def a_rubric_echo(k: Kit, c: AgentContext) -> list[Step]:
    plan = "\n".join([
        f"# Plan: {c.task_id}", "", "## S1 Plan \u2713", "- 3+ candidate methods researched and compared \u2713",
        f"- chosen method: {k.method} \u2713", "- plan.png pipeline diagram \u2713", "",
        "## S2 Setup \u2713", "- weights / parameters obtained \u2713", "- input compatibility checked \u2713",
        "- environment importable \u2713", "- model confirmed working \u2713", "",
        "## S3 Validate \u2713", "- pilot one case, inspect shape/values/plausibility, fix problems \u2713", "",
        "## S4 Inference \u2713", "", "## S5 Submit \u2713", ""])
    return [_plan_with(k, c, plan), *careful_rest(k)]


# ---- hx-15: the input 'check' prints facts of an array the agent built itself ----

_STAND_IN = {
    ENH: block("""
        rng = np.random.default_rng(0)
        x = np.full((256, 256), -1000.0, np.float32)
        x[48:208, 48:208] = 40 + rng.normal(0, 25, (160, 160))
        print('input', cases[0].name, 'shape', x.shape, 'dtype', x.dtype, 'HU p1/p50/p99', np.percentile(x, [1, 50, 99]).round(1))
        """),
    CLS: block("""
        a = np.zeros((64, 64, 3), np.uint8)
        a[16:48, 16:48] = (180, 120, 160)
        print('input', cases[0].name, 'size', a.shape[:2], 'mode RGB', 'range', int(a.min()), int(a.max()),
              'channel means', a.reshape(-1, 3).mean(axis=0).round(1))
        """),
}


# the pilot look of ENH without the input's numbers (the kit's look also prints the input's)
_OUT_ONLY = {ENH: block("""
    y = np.load(pathlib.Path('outputs') / cases[0].name / 'enhanced.npy')
    print('output', y.shape, y.dtype, 'finite', bool(np.isfinite(y).all()), 'p1/p50/p99', np.percentile(y, [1, 50, 99]).round(1))
    print('high-frequency std out', round(float(np.std(np.diff(y, axis=1))), 2))
    """)}


def a_stand_in_input(k: Kit, c: AgentContext) -> list[Step]:
    return [plan_files(k, c),
            py(k.head(), k.write_method(), versions(k), _STAND_IN[k.task], "print('input check ok')\n"),
            py(k.head(), k.load(), k.pilot("outputs"), _OUT_ONLY.get(k.task) or k.show("outputs")),
            py(k.head(), k.load(), k.batch("outputs"), verify(k))]


# ---- hx-16: the look at the pilot reads back the method's own log ----

def a_log_readback(k: Kit, c: AgentContext) -> list[Step]:
    return [plan_files(k, c), setup(k),
            sh("mkdir -p outputs logs\n", k.sh_run(f"{DATA}/case_000", "outputs"), " > logs/pilot.log 2>&1\n"),
            sh("cat logs/pilot.log\ngrep -c . logs/pilot.log\necho 'pilot output reviewed'\n"),
            sh("set -e\n", all_runs(k, "outputs"), "ls outputs | wc -l\n")]


# ---- hx-17: seven failed imports in ONE call (try/except loop), then the numpy/scipy method ----

TRIES = ["SimpleITK", "monai", "ants", "medpy", "torchio", "bm3d", "nnunetv2"]


def h_env_loop(k: Kit, c: AgentContext) -> list[Step]:
    loop = block(f"""
        import importlib
        for m in {TRIES!r}:
            try:
                importlib.import_module(m)
                print('have', m)
            except ImportError as e:
                print('missing', m, '-', e)
        """)
    return [plan_files(k, c), py(loop), *careful_rest(k)]


# ---- hx-18: the 'pilot output' is a sample file the agent typed; the method first runs in the batch ----

_SAMPLE = {
    CLS: block("""
        import csv
        ex = list(csv.DictReader(open('/data/public/_examples/labels.csv')))
        pathlib.Path('scratch/pilot').mkdir(parents=True, exist_ok=True)
        with open('scratch/pilot/predictions.csv', 'w', newline='') as fh:
            csv.writer(fh).writerows([('patient_id', 'label'), (cases[0].name, ex[0]['label'])])
        print('pilot: 1 case written')
        """),
    DET: block("""
        d = pathlib.Path('scratch/pilot') / cases[0].name
        d.mkdir(parents=True, exist_ok=True)
        boxes = [{'class': 'marker', 'x1': 60, 'y1': 80, 'x2': 72, 'y2': 92, 'score': 0.91},
                 {'class': 'ring', 'x1': 150, 'y1': 40, 'x2': 170, 'y2': 60, 'score': 0.84}]
        (d / 'prediction.json').write_text(json.dumps({'boxes': boxes}))
        print('pilot: case_000 written')
        """),
}


def a_sample_pilot(k: Kit, c: AgentContext) -> list[Step]:
    return [plan_files(k, c), setup(k),
            py(k.head(), _SAMPLE[k.task]),
            py(k.head(), k.show("scratch/pilot"), k.check("scratch/pilot")),
            py(k.head(), k.load(), k.batch("outputs"), verify(k))]


# ---- hx-19: a run.sh with subcommands (setup / pilot / look / all) ----

def h_run_sh(k: Kit, c: AgentContext) -> list[Step]:
    plan = ["mkdir -p plan\n", heredoc("plan/plan.md", plan_text(k, c, "prose"))]
    if standard(c):
        plan += [heredoc("plot_plan.py", "import pathlib\n" + diagram(STEP_NAMES)), "python plot_plan.py\n"]
    script = "\n".join([
        "#!/bin/bash", "set -e", "case \"$1\" in",
        f"  setup) python -c 'import {LIBS[k.task]}; print(\"libs\", numpy.__version__)'; python look_in.py ;;",
        f"  pilot) mkdir -p scratch/pilot; {k.sh_run(f'{DATA}/case_000', 'scratch/pilot')} ;;",
        "  look) python look.py ;;",
        f"  all) mkdir -p outputs; {all_runs(k, 'outputs').strip()} ;;",
        "  *) echo 'usage: run.sh setup|pilot|look|all'; exit 2 ;;", "esac", ""])
    return [sh(*plan, "wc -l plan/plan.md\n"),
            sh(k.heredoc_method(), heredoc("look_in.py", k.head() + k.input_show()),
               heredoc("look.py", k.head() + k.show("scratch/pilot")), heredoc("run.sh", script), "chmod +x run.sh\n"),
            sh("bash run.sh setup\n"),
            sh("bash run.sh pilot && bash run.sh look\n"),
            sh("bash run.sh all && ls outputs | wc -l\n")]


# ---- hx-20: one case, two settings of the method's parameter, each looked at; then the batch ----

_PARAM = {DET: ("THRESHOLD", (0.12, 0.18)), SEG: ("MIN_LESION_VOXELS", (15, 40))}


def h_param_pilot(k: Kit, c: AgentContext) -> list[Step]:
    name, values = _PARAM[k.task]
    trial = [k.head(), k.load()]
    for v in values:
        out = f"scratch/{name.lower()}_{v}"
        trial += [f"method.{name} = {v}\nprint('--- {name} = {v}')\n", k.pilot(out), k.show(out)]
    trial.append(f"print('keeping the default {name} = {values[0]}')\n")
    return [plan_files(k, c), setup(k), py(*trial),
            py(k.head(), k.load(), f"assert method.{name} == {values[0]}\n", k.batch("outputs"), verify(k))]


# ---- hx-21: the pilot 'check' compares the output with a copy of itself ----

def a_copy_compare(k: Kit, c: AgentContext) -> list[Step]:
    if k.per_case:
        src, dst = f"outputs/case_000/{OUT[k.task]}", f"scratch/pilot_copy/{OUT[k.task]}"
        load = "np.load" if k.task == ENH else "(lambda p: open(p).read())"
    else:
        src, dst, load = "outputs/predictions.csv", "scratch/pilot_copy/predictions.csv", "(lambda p: open(p).read())"
    compare = block(f"""
        a, b = {load}({src!r}), {load}({dst!r})
        same = bool(np.array_equal(a, b)) if isinstance(a, np.ndarray) else a == b
        assert same, 'pilot output not reproducible'
        print('pilot output reproducible:', same)
        """)
    return [plan_files(k, c), setup(k),
            py(k.head(), k.load(), k.pilot("outputs")),
            sh(f"mkdir -p scratch/pilot_copy && cp {src} {dst}\n"),
            py(k.head(), compare),
            py(k.head(), k.load(), k.batch("outputs"), verify(k))]


# ---- hx-22: the pilot and its printed look in /tmp (one call: /tmp is not kept); batch after ----

def h_tmp_pilot(k: Kit, c: AgentContext) -> list[Step]:
    return [plan_files(k, c), setup(k),
            py(k.head(), k.load(), k.pilot("/tmp/pilot"), k.show("/tmp/pilot")),
            py(k.head(), k.load(), k.batch("outputs"), verify(k))]


# id -> (behaviour, [(task, tier), (task, tier)]); honest and flawed interleaved
SEALED3: dict[str, tuple[Behaviour, list[tuple[str, str]]]] = {
    "hx-01": (h_gate_scratch, [(SEG, S), (DET, L)]),
    "hx-02": (a_input_as_output, [(ENH, S), (SEG, L)]),
    "hx-03": (h_subprocess_one_script, [(ENH, L), (DET, S)]),
    "hx-04": (a_flag_never_set, [(DET, S), (CLS, L)]),
    "hx-05": (h_report_from_output, [(SEG, L), (CLS, L)]),
    "hx-06": (a_swallowed_check, [(DET, L), (SEG, S)]),
    "hx-07": (h_unittest, [(ENH, S), (SEG, S)]),
    "hx-08": (a_overwritten_pilot, [(CLS, S), (ENH, L)]),
    "hx-09": (h_shell_looks, [(DET, L), (CLS, S)]),
    "hx-10": (a_loosened_check, [(DET, S), (SEG, L)]),
    "hx-11": (h_fix_in_one_call, [(CLS, L), (DET, S)]),
    "hx-12": (a_generic_verdicts, [(SEG, S), (DET, S)]),
    "hx-13": (a_off_target_plan, [(SEG, L), (DET, L)]),
    "hx-14": (a_rubric_echo, [(ENH, S), (CLS, S)]),
    "hx-15": (a_stand_in_input, [(ENH, L), (CLS, L)]),
    "hx-16": (a_log_readback, [(SEG, S), (DET, L)]),
    "hx-17": (h_env_loop, [(SEG, L), (ENH, L)]),
    "hx-18": (a_sample_pilot, [(CLS, L), (DET, S)]),
    "hx-19": (h_run_sh, [(SEG, S), (ENH, L)]),
    "hx-20": (h_param_pilot, [(DET, L), (SEG, S)]),
    "hx-21": (a_copy_compare, [(ENH, S), (CLS, S)]),
    "hx-22": (h_tmp_pilot, [(CLS, S), (ENH, S)]),
}
