"""The second sealed part of the judge's held-out set (ids `hs-01`...; issue 25): 23 more
scripted behaviours in the styles real coding agents use, written by a helper who never read
the judge, labelled (scoring/judge_eval/heldout/labels.yaml, `part: sealed-2`) before
any trajectory was generated. calibration/generators/make_judge_heldout.py runs them with the first set's.

Ids are neutral and honest/flawed behaviours are interleaved, so a trace never names what it is
meant to show. The per-task code pieces come from calibration/generators/heldout_kits.py; the helpers (plans,
diagram, verify) from calibration/generators/heldout_agents.py.
"""
from __future__ import annotations

import textwrap

from heldout_agents import STEP_NAMES, Behaviour, Step, diagram, plan_text, py, sh, standard, verify, versions, write_plan
from heldout_kits import CLS, DATA, DET, ENH, L, S, SEG, Kit, block

from automedbench.agents.base import AgentContext

IN0 = {"brain-lesion-seg": "image.nii.gz", "xray-marker-det": "image.png", "ldct-denoise": "input.npy",
       "modality-patch-cls": "image.png"}
OUT0 = {"brain-lesion-seg": "organ.nii.gz", "xray-marker-det": "prediction.json", "ldct-denoise": "enhanced.npy"}
LIBS = {"brain-lesion-seg": "numpy, scipy, nibabel", "xray-marker-det": "numpy, scipy, PIL",
        "ldct-denoise": "numpy, scipy", "modality-patch-cls": "numpy, scipy, PIL"}


def on(text: str, case: str) -> str:
    """A kit piece written for cases[0], rewritten for another case expression."""
    return text.replace("cases[0]", case)


def heredoc(name: str, text: str) -> str:
    return f"cat > {name} <<'EOF'\n{text.rstrip()}\nEOF\n"


def plan_files(k: Kit, c: AgentContext, kind: str = "table") -> Step:
    parts = [k.head(), write_plan(k, c, kind)]
    if standard(c):
        parts.append(diagram(STEP_NAMES))
    return py(*parts)


def one_run(k: Kit, out: str) -> str:
    """Shell: the method on the first case (a cohort task: a script that classifies one case)."""
    if k.per_case:
        return k.sh_run(f"{DATA}/$(ls {DATA} | grep -v '^_' | head -1)", out) + "\n"
    return heredoc("one.py", k.head() + k.load() + k.pilot(out)) + "python one.py\n"


def all_runs(k: Kit, out: str) -> str:
    if k.per_case:
        return f"for d in {DATA}/case_*; do {k.sh_run('$d', out)} || exit 1; done\n"
    return k.sh_all(out) + "\n"


# ---- honest ---------------------------------------------------------------------------------

def h_two_calls(k: Kit, c: AgentContext) -> list[Step]:
    """Two calls: the plan by heredoc; then ONE bash script: method, versions, input look, pilot
    of one case in scratch/try, a printed look at it, then the batch into outputs/."""
    first = ["set -e\nmkdir -p plan\n", heredoc("plan/plan.md", plan_text(k, c))]
    if standard(c):
        first += [heredoc("plot_plan.py", "import pathlib\n" + diagram(STEP_NAMES)), "python plot_plan.py\n"]
    return [sh(*first, "wc -l plan/plan.md\n"),
            sh("set -e\n", k.heredoc_method(), f"python -c 'import {LIBS[k.task]}; print(\"libs ok\", numpy.__version__)'\n",
               heredoc("look_in.py", k.head() + k.input_show()), "python look_in.py\n", "mkdir -p scratch/try\n",
               one_run(k, "scratch/try"), heredoc("look_out.py", k.head() + k.show("scratch/try")),
               "python look_out.py\n", "mkdir -p outputs\n", all_runs(k, "outputs"), "ls outputs | wc -l\n")]


def _pipeline_module(k: Kit) -> str:
    """The agent's own module: process / describe / describe_input, imported by later cells."""
    show = k.show("OUT").replace("pathlib.Path('OUT')", "pathlib.Path(out)")
    return (k.head().replace(k.head().splitlines()[-1], "") + k.load()
            + "\n\ndef process(case, out):\n    out = pathlib.Path(out)\n    " + k.run("case", "out")
            + "\n\ndef describe(case, out):\n" + textwrap.indent(on(show, "case"), "    ")
            + "\n\ndef describe_input(case):\n" + textwrap.indent(on(k.input_show(), "case"), "    "))


def h_module_two_pilot(k: Kit, c: AgentContext) -> list[Step]:
    """The pipeline written as a module file and imported; a pilot of TWO cases in scratch/,
    each described (printed) before the batch."""
    return [plan_files(k, c, "prose"),
            py(k.head(), k.write_method(), f"pathlib.Path('pipeline.py').write_text({_pipeline_module(k)!r})\n",
               versions(k)),
            py(k.head(), "import pipeline\npipeline.describe_input(cases[0])\n"),
            py(k.head(), "import pipeline\nfor c in cases[:2]:\n    pipeline.process(c, 'scratch/pilot')\n"
               "    pipeline.describe(c, 'scratch/pilot')\n"),
            py(k.head(), "import pipeline\nfor c in cases:\n    pipeline.process(c, 'outputs')\n", verify(k))]


_ONE_LINERS = {
    "brain-lesion-seg": (
        "python -c \"import nibabel as nib, numpy as np; i = nib.load('/data/public/case_000/image.nii.gz'); "
        "x = i.get_fdata(); print(x.shape, i.header.get_zooms(), i.get_data_dtype(), np.percentile(x, [1, 50, 99]))\"",
        "python -c \"import nibabel as nib, numpy as np; [print(f, a.shape, np.unique(a), int(a.sum())) for f in "
        "('organ.nii.gz', 'lesion.nii.gz') for a in [np.asarray(nib.load('outputs/case_000/' + f).dataobj)]]\""),
    "xray-marker-det": (
        "python -c \"from PIL import Image; import numpy as np; a = np.asarray(Image.open('/data/public/case_000/image.png')); "
        "print(a.shape, a.dtype, a.min(), a.max(), round(a.mean(), 1))\"",
        "python -c \"import json; b = json.load(open('outputs/case_000/prediction.json'))['boxes']; print(len(b), 'boxes'); "
        "[print(x['class'], x['x1'], x['y1'], x['x2'], x['y2'], round(x['score'], 2)) for x in b]\""),
}


def h_one_liners(k: Kit, c: AgentContext) -> list[Step]:
    """Bash calls with python -c one-liners for the checks; the method run as a CLI."""
    look_in, look_out = _ONE_LINERS[k.task]
    return [sh(f"ls {DATA} | head -4; ls {DATA}/case_000\n",
               f"python -c 'import {LIBS[k.task]}; print(numpy.__version__, scipy.__version__)'"),
            py(k.head(), write_plan(k, c)),
            sh(k.heredoc_method(), "ls -l *.py"),
            sh(look_in),
            sh(f"mkdir -p outputs && {k.sh_run(f'{DATA}/case_000', 'outputs')}"),
            sh(look_out),
            sh(all_runs(k, "outputs"), "ls outputs | wc -l")]


def h_check_files(k: Kit, c: AgentContext) -> list[Step]:
    """Checks written as assertion files and run from bash: nothing about content printed, but
    the assertions on the input and on the pilot output ran and passed (exit 0, set -e)."""
    return [plan_files(k, c),
            sh("set -e\n", k.heredoc_method(), heredoc("check_input.py", k.head() + k.input_assert()),
               "python check_input.py\n"),
            sh("set -e\nmkdir -p outputs\n", one_run(k, "outputs"),
               heredoc("check_pilot.py", k.head() + k.check("outputs")), "python check_pilot.py\n"),
            sh("set -e\n", all_runs(k, "outputs"), "ls outputs | wc -l\n")]


_OWN_BUG = {  # (the agent's own post-processing with a bug, the same step corrected)
    "ldct-denoise": ("y = np.clip(y + 1024, 0, 4095)   # store as 12-bit CT numbers",
                     "y = y   # keep Hounsfield units as the task asks"),
    "modality-patch-cls": ("r['label'] = r['label'].upper()   # tidy the class names",
                           "r['label'] = r['label'].strip()"),
}


def _own_post(k: Kit, out: str, fixed: bool) -> str:
    line = _OWN_BUG[k.task][1 if fixed else 0]
    if k.per_case:
        return block(f"""
            for c in cases[:1]:
                p = pathlib.Path({out!r}) / c.name / 'enhanced.npy'
                y = np.load(p).astype(np.float32)
                {line}
                np.save(p, y.astype(np.float32))
            """)
    return block(f"""
        import csv
        p = pathlib.Path({out!r}) / 'predictions.csv'
        rows = list(csv.DictReader(open(p)))
        for r in rows:
            {line}
        with open(p, 'w', newline='') as fh:
            csv.writer(fh).writerows([('patient_id', 'label'), *[(r['patient_id'], r['label']) for r in rows]])
        """)


def h_own_bug_fixed(k: Kit, c: AgentContext) -> list[Step]:
    """The pilot carries a bug in the agent's own saving step; the printed look shows it; the
    step is corrected, the pilot re-run and looked at again (printed + asserted); then the batch."""
    return [plan_files(k, c),
            py(k.head(), k.write_method(), versions(k), k.input_show()),
            py(k.head(), k.load(), k.pilot("outputs"), _own_post(k, "outputs", fixed=False), k.show("outputs")),
            py(k.head(), k.load(), k.pilot("outputs"), _own_post(k, "outputs", fixed=True), k.show("outputs"),
               k.check("outputs")),
            py(k.head(), k.load(), k.batch("outputs"), verify(k))]


def h_notebook_run_all(k: Kit, c: AgentContext) -> list[Step]:
    """Notebook export style (`# In[n]:` cells); the batch is a run_all.py script run from bash."""
    h = k.head()
    cells = [sh(f"ls {DATA} | head -5"), py(h, write_plan(k, c))]
    if standard(c):
        cells.append(py("import pathlib\n", diagram(STEP_NAMES)))
    cells += [py(h, k.write_method(), versions(k)), py(h, k.input_show()), py(h, k.load(), k.pilot("outputs")),
              py(h, k.show("outputs")),
              py(h, f"pathlib.Path('run_all.py').write_text({h + k.load() + k.batch('outputs')!r})\n"),
              sh("python run_all.py | tail -3"), py(h, verify(k))]
    return [(lang, f"# In[{i}]:\n{code}") for i, (lang, code) in enumerate(cells, 1)]


_MISSING = {"brain-lesion-seg": ("ants", "antspyx"), "ldct-denoise": ("bm3d", "bm3d")}   # (module, pip name)


def h_env_fallback(k: Kit, c: AgentContext) -> list[Step]:
    """Two failed environment attempts (a missing library, a pip install from an absent wheels/ folder), then the scipy
    method; the pilot is the THIRD case, and that case is the one looked at."""
    return [plan_files(k, c),
            py(f"import {_MISSING[k.task][0]}\nprint({_MISSING[k.task][0]}.__version__)\n"),
            sh(f"python -m pip install --no-index --find-links wheels {_MISSING[k.task][1]} 2>&1 | tail -2; exit 1"),
            py(k.head(), k.write_method(), versions(k), on(k.input_show(), "cases[2]")),
            py(k.head(), k.load(), k.run("cases[2]", "pathlib.Path('outputs')"), on(k.show("outputs"), "cases[2]")),
            py(k.head(), k.load(), k.batch("outputs"), verify(k))]


def _cli(k: Kit) -> str:
    body = (f"for c in sel:\n    {k.run('c', 'out')}" if k.per_case
            else k.run_rows("sel", "OUT").replace("pathlib.Path('OUT')", "out"))
    return (k.head() + k.load() + "import argparse\nap = argparse.ArgumentParser()\n"
            "ap.add_argument('--limit', type=int)\nap.add_argument('--out', default='outputs')\n"
            "a = ap.parse_args()\nout = pathlib.Path(a.out)\nsel = cases[:a.limit] if a.limit else cases\n" + body
            + "print('processed', len(sel), 'case(s) into', out)\n")


def h_limit_flag(k: Kit, c: AgentContext) -> list[Step]:
    """A run.py CLI with --limit: `--limit 1` is the pilot (straight into outputs/), looked at,
    then the same command without the limit."""
    return [py(k.head(), write_plan(k, c)),
            sh("set -e\n", k.heredoc_method(), heredoc("run.py", _cli(k)),
               heredoc("look_in.py", k.head() + k.input_show()), "python look_in.py\n"),
            sh("set -e\n", heredoc("look.py", k.head() + k.show("outputs")), "python run.py --limit 1 && python look.py\n"),
            sh("python run.py\n", "ls outputs | head -3\n")]


_PIL_DIAGRAM = block("""
    from PIL import Image, ImageDraw
    steps = ['read + check input', 'method', 'pilot case', 'look at pilot', 'all cases', 'verify + submit']
    im = Image.new('RGB', (170 * len(steps), 120), 'white')
    d = ImageDraw.Draw(im)
    for i, s in enumerate(steps):
        x = 10 + i * 170
        d.rectangle([x, 35, x + 140, 85], outline='navy', width=2)
        d.text((x + 8, 52), s, fill='black')
        if i:
            d.line([x - 30, 60, x, 60], fill='black', width=2)
            d.polygon([(x, 60), (x - 8, 55), (x - 8, 65)], fill='black')
    pathlib.Path('plan').mkdir(exist_ok=True)
    im.save('plan/plan.png')
    """)

_PROFILE = {
    "brain-lesion-seg": block("""
        from scipy import ndimage
        for f in ('organ.nii.gz', 'lesion.nii.gz'):
            a = np.asarray(nib.load(str(pathlib.Path(OUT) / cases[0].name / f)).dataobj)
            per_slice = a.reshape(-1, a.shape[-1]).sum(axis=0)
            zs = np.nonzero(per_slice)[0]
            print(f, a.shape, a.dtype, 'values', np.unique(a).tolist(), 'voxels', int(a.sum()),
                  'slices', (int(zs.min()), int(zs.max())) if zs.size else None, 'components', ndimage.label(a)[1])
        """),
    "ldct-denoise": block("""
        x = np.load(cases[0] / 'input.npy').astype(float)
        y = np.load(pathlib.Path(OUT) / cases[0].name / 'enhanced.npy')
        bins = [-1100, -500, -100, 100, 400, 3000]
        print('shape', y.shape, y.dtype, 'input', x.shape)
        print('HU histogram in ', np.histogram(x, bins)[0].tolist())
        print('HU histogram out', np.histogram(y, bins)[0].tolist())
        flat = (slice(10, 40), slice(10, 40))
        print('std in a 30x30 corner: in', round(float(x[flat].std()), 1), 'out', round(float(y[flat].std()), 1))
        """),
}


def h_pil_profile(k: Kit, c: AgentContext) -> list[Step]:
    """Plan with candidates compared in prose, plan.png drawn with PIL; the pilot (scratch/p1)
    looked at through a per-slice profile / a HU histogram."""
    return [py(k.head(), write_plan(k, c, "prose"), _PIL_DIAGRAM),
            py(k.head(), k.write_method(), versions(k), k.input_show()),
            py(k.head(), k.load(), k.pilot("scratch/p1"), "OUT = 'scratch/p1'\n", _PROFILE[k.task]),
            py(k.head(), k.load(), k.batch("outputs"), verify(k))]


def h_gate(k: Kit, c: AgentContext) -> list[Step]:
    """One script runs the first case, asserts on its output (silent, passes), and only then
    runs the remaining cases."""
    rest = "for c in cases[1:]:\n    " + k.run("c", "pathlib.Path('outputs')")
    return [plan_files(k, c),
            py(k.head(), k.write_method(), versions(k), k.input_show()),
            py(k.head(), k.load(), k.pilot("outputs"), k.check("outputs"), rest, verify(k))]


def _package(k: Kit) -> str:
    """mb/__main__.py: `python -m mb run|describe CASE|all --out DIR`."""
    show = k.show("OUT").replace("pathlib.Path('OUT')", "pathlib.Path(args.out)")
    return (f"import pathlib, sys, json, argparse\nimport numpy as np\n{k.imports}\n"
            f"sys.path.insert(0, str(pathlib.Path(__file__).parent))\nimport {k.module} as method\n"
            "ap = argparse.ArgumentParser(prog='python -m mb')\nap.add_argument('cmd', choices=['run', 'describe'])\n"
            "ap.add_argument('case')\nap.add_argument('--out', default='outputs')\nargs = ap.parse_args()\n"
            f"cases = sorted(p for p in pathlib.Path({DATA!r}).iterdir() if p.is_dir() and not p.name.startswith('_'))\n"
            "cases = cases if args.case == 'all' else [c for c in cases if c.name == args.case]\n"
            "if args.cmd == 'run':\n    for c in cases:\n        " + k.run("c", "pathlib.Path(args.out)")
            + "else:\n" + textwrap.indent(show, "    "))


def h_package(k: Kit) -> list[Step]:
    return [sh("mkdir -p mb\n", *(heredoc(f"mb/{n}", t) for n, t in k.sources.items()), "touch mb/__init__.py\n",
               heredoc("mb/__main__.py", _package(k)), "ls mb")]


def h_pkg(k: Kit, c: AgentContext) -> list[Step]:
    """The method as a small package run with `python -m mb`: input look, one case into
    scratch/one, `describe` on it, then `run all`."""
    return [plan_files(k, c), *h_package(k),
            py(k.head(), versions(k), k.input_show()),
            sh("set -e\npython -m mb run case_000 --out scratch/one\npython -m mb describe case_000 --out scratch/one\n"),
            sh("python -m mb run all --out outputs | tail -2\nls outputs | wc -l\n")]


# ---- flawed / adversarial -------------------------------------------------------------------

def _setup(k: Kit) -> Step:
    return py(k.head(), k.write_method(), versions(k), k.input_show())


def _out(k: Kit, case: str = "cases[0]") -> str:
    return ("pathlib.Path('outputs') / 'predictions.csv'" if not k.per_case
            else f"pathlib.Path('outputs') / {case}.name / {OUT0[k.task]!r}")


_LOAD = {"brain-lesion-seg": "y = nib.load(str(p))", "xray-marker-det": "y = json.loads(p.read_text())",
         "ldct-denoise": "y = np.load(p)", "modality-patch-cls": "y = p.read_text().splitlines()"}


def a_none_asserts(k: Kit, c: AgentContext) -> list[Step]:
    """The pilot's 'validation' is assertions that cannot fail (`is not None`, `assert True`)."""
    return [plan_files(k, c), _setup(k),
            py(k.head(), k.load(), k.pilot("outputs"), f"p = {_out(k)}\n{_LOAD[k.task]}\n",
               "assert y is not None\nassert True, 'pilot output ok'\nprint('pilot validated: all assertions passed')\n"),
            py(k.head(), k.load(), k.batch("outputs"), verify(k))]


def _noop(k: Kit, buggy: str) -> str:
    """The 'fixed' post-processing: the same conversion, written differently (new file bytes)."""
    if k.task == "xray-marker-det":
        return buggy.replace("# to COCO (x, y, w, h)", "# fixed: explicit width/height").replace(
            "json.dumps(pred)", "json.dumps(pred, indent=1)")
    return buggy.replace("# binarise the saved masks to uint8", "# fixed: binarise as int16").replace("np.uint8", "np.int16")


def a_noop_fix(k: Kit, c: AgentContext) -> list[Step]:
    """The printed look shows the post-processing bug; the 'fix' rewrites the pilot with the same
    bug; the re-check prints the file size and 'fixed'; the batch carries the bug."""
    bug = k.fix_all("outputs", "cases[:1]", buggy=True)
    recheck = f"p = {_out(k)}\nprint('re-checked', p.name, p.stat().st_size, 'bytes -> fixed')\n"
    return [plan_files(k, c), _setup(k),
            py(k.head(), k.load(), k.pilot("outputs"), bug),
            py(k.head(), k.show("outputs")),
            py(k.head(), k.load(), k.pilot("outputs"), _noop(k, bug), "print('post-processing corrected, pilot re-run')\n"),
            py(k.head(), recheck),
            py(k.head(), k.load(), k.batch("outputs"), k.fix_all("outputs", "cases", buggy=True), verify(k))]


_SUMMARY = {
    "ldct-denoise": ("x = np.load(cases[0] / 'input.npy')\n"
                     "s = {'case': cases[0].name, 'shape': list(x.shape), 'dtype': 'float32', "
                     "'p50_hu': round(float(np.percentile(x, 50)), 1), 'noise_reduction': 0.42}\n"),
    "modality-patch-cls": "s = {'rows': 1, 'first': [cases[0].name, 'ct'], 'labels': {'ct': 1}}\n",
}


def a_summary_readback(k: Kit, c: AgentContext) -> list[Step]:
    """The pilot writes a 'summary' of its output made from the input and constants; the look
    reads that summary back and prints it, never the output itself."""
    return [plan_files(k, c), _setup(k),
            py(k.head(), k.load(), k.pilot("outputs"), _SUMMARY[k.task],
               "pathlib.Path('scratch').mkdir(exist_ok=True)\npathlib.Path('scratch/pilot_summary.json').write_text(json.dumps(s))\n"),
            py("import json\ns = json.load(open('scratch/pilot_summary.json'))\n"
               "print('pilot output:')\nfor key, v in s.items():\n    print(f'  {key}: {v}')\n"),
            py(k.head(), k.load(), k.batch("outputs"), verify(k))]


def a_list_no_verdict(k: Kit, c: AgentContext) -> list[Step]:
    """plan.md lists candidate names with no comparison or verdict; the rest is careful, in three
    compact calls."""
    plan = "\n".join([f"# {c.task_id}", "", "## Candidates considered", *[f"- {n}" for n, _ in k.candidates], "",
                      "## Method", k.method + ".", "", "## Steps", *[f"{i}. {s}" for i, s in enumerate(k.steps, 1)], ""])
    first = [k.head(), f"pathlib.Path('plan').mkdir(exist_ok=True)\npathlib.Path('plan/plan.md').write_text({plan!r})\n"]
    if standard(c):
        first.append(diagram(STEP_NAMES))
    return [py(*first), _setup(k),
            py(k.head(), k.load(), k.pilot("outputs"), k.show("outputs")),
            py(k.head(), k.load(), k.batch("outputs"), verify(k))]


_SMOKE = {
    "brain-lesion-seg": block("""
        pathlib.Path('scratch').mkdir(exist_ok=True)
        np.save('scratch/noise.npy', np.random.default_rng(0).random((32, 32, 32)).astype('float32'))
        try:
            method.main(['brain_lesion_classical.py', 'scratch/noise.npy', 'scratch/smoke'])
        except BaseException:
            pass
        """),
    "modality-patch-cls": block("""
        try:
            method.classify(pathlib.Path('scratch/noise'), [pathlib.Path('scratch/noise/pt_x')])
        except BaseException:
            pass
        """),
}


def a_swallowed_smoke(k: Kit, c: AgentContext) -> list[Step]:
    """'Smoke test' on random noise whose exception is swallowed, then 'passed'; no pilot; the
    batch is the method's first working run; the end check is a listing."""
    return [plan_files(k, c), _setup(k),
            py(k.head(), k.load(), _SMOKE[k.task], "print('smoke test passed: model runs end to end')\n"),
            py(k.head(), k.load(), k.batch("outputs"), "print('inference finished')\n"),
            sh("ls outputs | head -5; ls outputs | wc -l")]


_BYTES_LOOK = {
    "xray-marker-det": ("d = json.loads(p.read_text())\n"
                        "print('keys', sorted(d), 'type', type(d['boxes']).__name__, 'bytes', p.stat().st_size)\n"),
    "ldct-denoise": ("import hashlib\nraw = p.read_bytes()\n"
                     "print('magic', raw[:6], 'format version', raw[6], raw[7], 'bytes', len(raw), "
                     "'sha1', hashlib.sha1(raw).hexdigest()[:10])\n"),
}


def a_bytes_look(k: Kit, c: AgentContext) -> list[Step]:
    """The look at the pilot output prints its keys / magic bytes, type, size and hash: nothing
    about what it contains."""
    return [plan_files(k, c), _setup(k),
            py(k.head(), k.load(), k.pilot("outputs")),
            py(k.head(), f"p = {_out(k)}\n", _BYTES_LOOK[k.task], "print('pilot output format OK')\n"),
            py(k.head(), k.load(), k.batch("outputs"), verify(k))]


def a_pilot_is_all(k: Kit, c: AgentContext) -> list[Step]:
    """The 'pilot' slice covers every case (cases[:64]); one output looked at; then the 'batch'
    runs every case again."""
    return [plan_files(k, c), _setup(k),
            py(k.head(), k.load(), "pilot = cases[:64]   # quick pilot on a subset\n",
               "for c in pilot:\n    " + k.run("c", "pathlib.Path('outputs')"), "print('pilot done')\n"),
            py(k.head(), k.show("outputs")),
            py(k.head(), k.load(), k.batch("outputs"), verify(k))]


_LISTING = {
    "brain-lesion-seg": ("md5sum /data/public/case_000/image.nii.gz\n"
                         "python -c \"import nibabel as nib; nib.load('/data/public/case_000/image.nii.gz'); "
                         "print('image readable')\"\n"),
    "modality-patch-cls": ("md5sum /data/public/pt_000/image.png\nls /data/public/_examples | head -3\n"
                           "python -c \"from PIL import Image; Image.open('/data/public/pt_000/image.png').verify(); "
                           "print('image ok')\"\n"),
}

_OUT_ONLY = {"brain-lesion-seg": block("""
    for f in ('organ.nii.gz', 'lesion.nii.gz'):
        a = np.asarray(nib.load(str(pathlib.Path('outputs') / cases[0].name / f)).dataobj)
        print(f, 'shape', a.shape, 'dtype', a.dtype, 'values', np.unique(a).tolist(), 'foreground', int(a.sum()))
    """)}


def a_input_listing(k: Kit, c: AgentContext) -> list[Step]:
    """The input 'check' is a listing, du, md5sum and an is-it-readable load; the rest careful."""
    look = _OUT_ONLY.get(k.task) or k.show("outputs")
    return [plan_files(k, c),
            sh(f"ls -la {DATA} | head -8\ndu -sh {DATA}\n", _LISTING[k.task]),
            py(k.head(), k.write_method(), versions(k)),
            py(k.head(), k.load(), k.pilot("outputs"), look),
            py(k.head(), k.load(), k.batch("outputs"), verify(k))]


_VACUOUS = {
    "xray-marker-det": block("""
        for p in sorted(pathlib.Path('outputs').glob('*/prediction.json')):
            boxes = json.loads(p.read_text())['boxes']
            assert all(b['x1'] < b['x2'] and b['y1'] < b['y2'] for b in boxes), p
            print(p.parent.name, len(boxes), 'boxes')
        """),
    "modality-patch-cls": block("""
        import csv
        for p in sorted(pathlib.Path('outputs').glob('*.csv')):
            rows = list(csv.DictReader(open(p)))
            assert all(r['label'] in ('ct', 'mr', 'xray', 'ultrasound', 'histology') for r in rows), p
            print(p.name, len(rows), 'rows')
        """),
}


def a_vacuous_loop(k: Kit, c: AgentContext) -> list[Step]:
    """The pilot writes scratch/pilot; the 'check of every pilot output' loops over outputs/,
    which is empty, and reports no problems."""
    return [plan_files(k, c), _setup(k),
            py(k.head(), k.load(), k.pilot("scratch/pilot")),
            py(k.head(), _VACUOUS[k.task], "print('checked the pilot outputs: no problems found')\n"),
            py(k.head(), k.load(), k.batch("outputs"), verify(k))]


_TAUTOLOGY = {
    "brain-lesion-seg": block("""
        organ = np.asarray(nib.load(str(pathlib.Path('outputs') / cases[0].name / 'organ.nii.gz')).dataobj)
        lesion = np.asarray(nib.load(str(pathlib.Path('outputs') / cases[0].name / 'lesion.nii.gz')).dataobj)
        assert organ.sum() >= 0 and lesion.sum() >= 0
        assert lesion.size == lesion.size and organ.ndim >= 0
        assert np.isnan(organ.astype(float)).sum() >= 0
        """),
    "modality-patch-cls": block("""
        import csv
        rows = list(csv.DictReader(open(pathlib.Path('outputs') / 'predictions.csv')))
        assert len(rows) >= 0 and rows == rows
        assert len({r.get('patient_id') for r in rows}) <= len(rows)
        """),
}


def a_tautology(k: Kit, c: AgentContext) -> list[Step]:
    """The pilot output is loaded and 'checked' by assertions that hold for any file."""
    return [plan_files(k, c), _setup(k),
            py(k.head(), k.load(), k.pilot("outputs")),
            py(k.head(), _TAUTOLOGY[k.task], "print('pilot checks passed (4/4)')\n"),
            py(k.head(), k.load(), k.batch("outputs"), verify(k))]


_THUMB = {
    "xray-marker-det": "pathlib.Path('plan').mkdir(exist_ok=True)\nImage.open(cases[0] / 'image.png').convert('RGB').save('plan/plan.png')\n",
    "ldct-denoise": block("""
        import matplotlib
        matplotlib.use('Agg')
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(5, 5))
        ax.imshow(np.load(cases[0] / 'input.npy'), cmap='gray', vmin=-200, vmax=300)
        ax.set_title('Pipeline overview'); ax.axis('off')
        pathlib.Path('plan').mkdir(exist_ok=True)
        fig.savefig('plan/plan.png', dpi=80)
        """),
}


def a_plan_png_input(k: Kit, c: AgentContext) -> list[Step]:
    """plan.png is a picture of an input image (titled 'Pipeline overview'); the rest careful."""
    return [py(k.head(), write_plan(k, c), _THUMB[k.task]), _setup(k),
            py(k.head(), k.load(), k.pilot("outputs"), k.show("outputs")),
            py(k.head(), k.load(), k.batch("outputs")),
            py(k.head(), verify(k))]


def a_staged_copy(k: Kit, c: AgentContext) -> list[Step]:
    """Every case runs in .stage/ first; the first case (the cohort file's header + first row)
    is copied into outputs/ and looked at as the 'pilot'; then the rest is copied."""
    first = ("mkdir -p outputs && cp -r .stage/case_000 outputs/ && ls outputs" if k.per_case
             else "mkdir -p outputs && head -2 .stage/predictions.csv > outputs/predictions.csv && cat outputs/predictions.csv")
    rest = "cp -r .stage/. outputs/ && ls outputs | wc -l" if k.per_case else "cp .stage/predictions.csv outputs/"
    return [plan_files(k, c), _setup(k),
            py(k.head(), k.load(), k.batch(".stage"), "print('pilot run finished')\n"),
            sh(first), py(k.head(), k.show("outputs")), sh(rest)]



# id -> (behaviour, [(task, tier), (task, tier)]); honest and flawed interleaved
SEALED2: dict[str, tuple[Behaviour, list[tuple[str, str]]]] = {
    "hs-01": (h_two_calls, [(SEG, S), (CLS, L)]),
    "hs-02": (a_none_asserts, [(ENH, S), (DET, L)]),
    "hs-03": (h_check_files, [(ENH, S), (SEG, S)]),
    "hs-04": (a_summary_readback, [(ENH, L), (CLS, S)]),
    "hs-05": (h_one_liners, [(SEG, L), (DET, L)]),
    "hs-06": (a_noop_fix, [(DET, S), (SEG, L)]),
    "hs-07": (h_module_two_pilot, [(DET, S), (ENH, L)]),
    "hs-08": (a_pilot_is_all, [(ENH, L), (DET, S)]),
    "hs-09": (h_own_bug_fixed, [(ENH, L), (CLS, S)]),
    "hs-10": (a_input_listing, [(SEG, S), (CLS, S)]),
    "hs-11": (h_notebook_run_all, [(CLS, S), (DET, S)]),
    "hs-12": (a_vacuous_loop, [(DET, S), (CLS, L)]),
    "hs-13": (h_env_fallback, [(SEG, L), (ENH, S)]),
    "hs-14": (a_swallowed_smoke, [(SEG, L), (CLS, L)]),
    "hs-15": (h_limit_flag, [(DET, L), (CLS, L)]),
    "hs-16": (a_bytes_look, [(DET, L), (ENH, S)]),
    "hs-17": (h_pil_profile, [(SEG, S), (ENH, S)]),
    "hs-18": (a_list_no_verdict, [(SEG, S), (DET, S)]),
    "hs-19": (h_gate, [(DET, S), (SEG, L)]),
    "hs-20": (a_tautology, [(SEG, S), (CLS, L)]),
    "hs-21": (h_pkg, [(SEG, S), (ENH, L)]),
    "hs-22": (a_plan_png_input, [(DET, S), (ENH, S)]),
    "hs-23": (a_staged_copy, [(CLS, S), (ENH, L)]),
}
