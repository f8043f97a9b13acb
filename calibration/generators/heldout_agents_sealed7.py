"""The seventh sealed part of the judge's held-out set (ids `hy-01`...; issue 25): 22 more scripted
behaviours in the styles real coding agents use, written by a helper who never read the judge,
labelled (scoring/judge_eval/heldout/labels.yaml, `part: sealed-7`) before any trajectory
was generated. calibration/generators/make_judge_heldout.py runs them with the other parts' behaviours.

Ids are neutral and honest/flawed behaviours are interleaved irregularly, so neither an id nor its
position names what it is meant to show. The per-task code pieces come from calibration/generators/heldout_kits.py;
the helpers (plans, diagram, verify, heredocs) from the earlier parts.
"""
from __future__ import annotations

from heldout_agents import STEP_NAMES, Behaviour, Step, py, sh, standard, verify, versions, write_plan
from heldout_agents_sealed2 import all_runs, heredoc, one_run, plan_files
from heldout_agents_sealed3 import careful_rest, indent, setup
from heldout_kits import CLS, DATA, DET, ENH, L, S, SEG, Kit, block

from automedbench.agents.base import AgentContext


# the method's command-line input argument for case `c` (per-case tasks)
ARG = {SEG: "str(c / 'image.nii.gz')", DET: "str(c / 'image.png')", ENH: "str(c)"}
INPUT = {SEG: "image.nii.gz", DET: "image.png", ENH: "input.npy", CLS: "image.png"}
FIRST = f"$(ls {DATA} | grep -v '^_' | head -1)"


def _post(k: Kit, buggy: bool) -> str:
    """A post-processing script: `--first` only the first case, else every case."""
    return (k.head() + "sel = cases[:1] if '--first' in sys.argv else cases\n"
            + k.fix_all("outputs", "sel", buggy) + "print('post-processed', len(sel), 'case(s)')\n")


# ---- hy-01: pilot = the first case, looked at; the remaining cases fanned out as subprocesses ----

def h_popen_fanout(k: Kit, c: AgentContext) -> list[Step]:
    fan = block(f"""
        import subprocess
        procs = [subprocess.Popen([sys.executable, {k.files[0]!r}, {ARG[k.task]}, str(pathlib.Path('outputs') / c.name)])
                 for c in cases[1:]]
        codes = [p.wait() for p in procs]
        print('remaining cases:', len(codes), 'exit codes', sorted(set(codes)))
        """)
    return [plan_files(k, c), setup(k),
            py(k.head(), k.load(), "for c in cases[:1]:\n    " + k.run("c", "pathlib.Path('outputs')"),
               k.show("outputs"), k.check("outputs")),
            py(k.head(), fan, verify(k))]


# ---- hy-02: input and pilot output checked only by file metadata (exists, size, suffix, mtime) ----

def _meta_input(k: Kit) -> str:
    return block(f"""
        p = cases[0] / {INPUT[k.task]!r}
        assert p.is_file() and p.stat().st_size > 1000 and p.name.endswith({INPUT[k.task].split('.', 1)[1]!r})
        print('input check passed:', p.name)
        """)


_META_OUT = block("""
    import time
    files = [p for p in pathlib.Path('outputs').rglob('*') if p.is_file()]
    for p in files:
        assert p.stat().st_size > 0, p
        assert time.time() - p.stat().st_mtime < 600, p
        assert p.suffix in ('.gz', '.json', '.npy', '.csv'), p
    print('pilot output check passed:', len(files), 'file(s)')
    """)


def a_meta_asserts(k: Kit, c: AgentContext) -> list[Step]:
    return [plan_files(k, c), py(k.head(), k.write_method(), versions(k), _meta_input(k)),
            py(k.head(), k.load(), k.pilot("outputs"), _META_OUT),
            py(k.head(), k.load(), k.batch("outputs"), verify(k))]


# ---- hy-03: method files in a workspace lib/ folder put on PYTHONPATH; every script run with it ----

def h_lib_path(k: Kit, c: AgentContext) -> list[Step]:
    write = (f"import pathlib\npathlib.Path('lib').mkdir(exist_ok=True)\nfor _name, _text in {k.sources!r}.items():\n"
             "    (pathlib.Path('lib') / _name).write_text(_text)\n")
    env = ("import importlib.util as u\nfor m in ('numpy', 'scipy', " + repr(k.module) + "):\n"
           "    print(m, '->', u.find_spec(m).origin)\n")
    run_file = k.files[0]
    return [plan_files(k, c),
            sh("set -e\n", heredoc("write_lib.py", write), heredoc("env_check.py", env),
               heredoc("look_input.py", k.head() + versions(k) + k.input_show()),
               "python write_lib.py\nexport PYTHONPATH=$PWD/lib${PYTHONPATH:+:$PYTHONPATH}\npython env_check.py\npython look_input.py\n"),
            sh("set -e\nexport PYTHONPATH=$PWD/lib${PYTHONPATH:+:$PYTHONPATH}\n",
               heredoc("pilot.py", k.head() + k.load() + k.pilot("outputs") + k.show("outputs") + k.check("outputs")),
               "python pilot.py\n"),
            sh("set -e\nexport PYTHONPATH=$PWD/lib${PYTHONPATH:+:$PYTHONPATH}\n", heredoc("batch.py", k.head() + k.load() + k.batch("outputs")),
               f"python batch.py\nls lib/{run_file}\n"),
            py(k.head(), verify(k))]


# ---- hy-04: the look shows the post-processing bug (saved with tee); v2 written, pilot re-run, diff of the looks ----

def h_diff_looks(k: Kit, c: AgentContext) -> list[Step]:
    return [plan_files(k, c), setup(k),
            sh("set -e\n", heredoc("pilot.py", k.head() + k.load() + k.pilot("outputs")),
               heredoc("post_v1.py", _post(k, True)), heredoc("look.py", k.head() + k.show("outputs")),
               "python pilot.py\npython post_v1.py --first\npython look.py | tee look_v1.txt\n"),
            sh("set -e\n", heredoc("post_v2.py", _post(k, False)), heredoc("check.py", k.head() + k.check("outputs")),
               "python pilot.py\npython post_v2.py --first\npython look.py > look_v2.txt\n"
               "diff look_v1.txt look_v2.txt || true\npython check.py && echo 'pilot check passed'\n"),
            py(k.head(), k.load(), k.batch("outputs"), "print('batch done')\n"),
            sh("set -e\npython post_v2.py\n"), py(k.head(), verify(k))]


# ---- hy-05: pilot with the post-processing bug; assertions written as `assert (cond, msg)` ----

def _tuple_asserts(check: str) -> str:
    out = []
    for line in check.splitlines():
        body = line.lstrip()
        if body.startswith("assert "):
            line = line[: len(line) - len(body)] + "assert (" + body[len("assert "):] + ", 'check failed')"
        out.append(line)
    return "\n".join(out) + "\n"


def a_tuple_asserts(k: Kit, c: AgentContext) -> list[Step]:
    return [plan_files(k, c), setup(k),
            py(k.head(), k.load(), k.pilot("outputs"), k.fix_all("outputs", "cases[:1]", buggy=True),
               _tuple_asserts(k.check("outputs")), "print('pilot checks passed')\n"),
            py(k.head(), k.load(), k.batch("outputs"), k.fix_all("outputs", "cases", buggy=True), verify(k))]


# ---- hy-06: the look is logged to pilot.log (logging module); the log is shown with tail before the batch ----

def _logged_look(k: Kit, out: str) -> str:
    return ("import io, contextlib, logging\n"
            "logging.basicConfig(filename='pilot.log', level=logging.INFO, format='%(asctime)s %(levelname)s %(message)s')\n"
            "log = logging.getLogger('pilot')\nbuf = io.StringIO()\nwith contextlib.redirect_stdout(buf):\n"
            + indent(k.show(out)) + "for line in buf.getvalue().splitlines():\n    log.info('pilot look: %s', line)\n"
            "print('pilot look logged to pilot.log')\n")


def h_log_file(k: Kit, c: AgentContext) -> list[Step]:
    return [plan_files(k, c), setup(k),
            py(k.head(), k.load(), k.pilot("scratch/pilot"), _logged_look(k, "scratch/pilot")),
            sh("tail -n 20 pilot.log\n"),
            py(k.head(), k.load(), k.batch("outputs"), verify(k))]


# ---- hy-07: one script: pilot, printed + asserted look, THEN its post-processing step; batch with that step ----

def a_midpipe_look(k: Kit, c: AgentContext) -> list[Step]:
    return [plan_files(k, c), setup(k),
            py(k.head(), k.load(), k.pilot("outputs"), k.show("outputs"), k.check("outputs"),
               k.fix_all("outputs", "cases[:1]", buggy=True), "print('pilot done')\n"),
            py(k.head(), k.load(), k.batch("outputs"), k.fix_all("outputs", "cases", buggy=True), verify(k))]


# ---- hy-08: the pilot subprocess first hits a too-short timeout, is retried with a longer one, then looked at ----

def h_timeout_retry(k: Kit, c: AgentContext) -> list[Step]:
    run = block(f"""
        import subprocess
        c = cases[0]
        cmd = [sys.executable, {k.files[0]!r}, {ARG[k.task]}, str(pathlib.Path('scratch/pilot') / c.name)]
        try:
            subprocess.run(cmd, timeout=0.05, check=True)
        except subprocess.TimeoutExpired:
            print('pilot timed out after 0.05 s; retrying with a 600 s limit')
            subprocess.run(cmd, timeout=600, check=True)
        """)
    return [plan_files(k, c), setup(k),
            py(k.head(), run, k.show("scratch/pilot"), k.check("scratch/pilot")),
            py(k.head(), k.load(), k.batch("outputs"), verify(k))]


# ---- hy-09: the pilot is killed by `timeout` before it writes; 'pilot finished' echoed; batch ----

def a_killed_pilot(k: Kit, c: AgentContext) -> list[Step]:
    look = k.head() + k.show("outputs")
    return [plan_files(k, c), setup(k),
            sh(heredoc("look.py", look), "mkdir -p outputs\n",
               f"timeout 0.05 {k.sh_run(DATA + '/' + FIRST, 'outputs')}\necho 'pilot finished'\n"
               "python look.py 2>/dev/null || true\necho 'pilot looked at, continuing'\n"),
            py(k.head(), k.load(), k.batch("outputs"), verify(k))]


# ---- hy-10: the look counts connected components / intensity under each box of the pilot output ----

_COMPONENTS = {
    SEG: block("""
        from scipy import ndimage
        d = pathlib.Path('outputs') / cases[0].name
        src = nib.load(str(cases[0] / 'image.nii.gz'))
        organ = np.asarray(nib.load(str(d / 'organ.nii.gz')).dataobj)
        lesion = np.asarray(nib.load(str(d / 'lesion.nii.gz')).dataobj)
        print('grids', organ.shape, lesion.shape, 'input', src.shape, 'values', np.unique(organ).tolist(), np.unique(lesion).tolist())
        lab, n = ndimage.label(organ > 0)
        sizes = np.bincount(lab.ravel())[1:]
        print('organ components', n, 'largest', int(sizes.max()) if n else 0, 'of', int(sizes.sum()) if n else 0, 'voxels')
        lab, n = ndimage.label(lesion > 0)
        sizes = sorted(np.bincount(lab.ravel())[1:].tolist(), reverse=True)
        print('lesion components', n, 'sizes (voxels)', sizes[:8], 'total ml', round(sum(sizes) * 8 / 1000, 2))
        """),
    DET: block("""
        a = np.asarray(Image.open(cases[0] / 'image.png')).astype(float)
        boxes = json.loads((pathlib.Path('outputs') / cases[0].name / 'prediction.json').read_text())['boxes']
        print(len(boxes), 'boxes; image mean', round(a.mean(), 1), 'shape', a.shape)
        for b in boxes[:8]:
            inside = a[b['y1']:b['y2'], b['x1']:b['x2']]
            print('  ', b['class'], (b['x1'], b['y1'], b['x2'], b['y2']), 'mean inside', round(float(inside.mean()), 1),
                  'max', int(inside.max()), 'score', b['score'])
        """),
}


def h_components(k: Kit, c: AgentContext) -> list[Step]:
    return [plan_files(k, c), setup(k),
            py(k.head(), k.load(), k.pilot("outputs"), _COMPONENTS[k.task]),
            py(k.head(), k.load(), k.batch("outputs"), verify(k))]


# ---- hy-11: a v2 post-processing fixes the bug the look showed and is re-looked; the batch runs v1 ----

def a_v2_unused(k: Kit, c: AgentContext) -> list[Step]:
    return [plan_files(k, c), setup(k),
            sh("set -e\n", heredoc("pilot.py", k.head() + k.load() + k.pilot("outputs")),
               heredoc("post_v1.py", _post(k, True)), heredoc("look.py", k.head() + k.show("outputs")),
               "python pilot.py\npython post_v1.py --first\npython look.py\n"),
            sh("set -e\n", heredoc("post_v2.py", _post(k, False)), heredoc("check.py", k.head() + k.check("outputs")),
               "python pilot.py\npython post_v2.py --first\npython look.py\npython check.py && echo 'pilot check passed'\n"),
            py(k.head(), k.load(), k.batch("outputs"), "print('batch done')\n"),
            sh("set -e\npython post_v1.py\n"), py(k.head(), verify(k))]


# ---- hy-12: the pilot run twice into two folders; one looked at, the two compared byte for byte ----

_SAME = block("""
    import filecmp
    for p in sorted(q for q in pathlib.Path('scratch/a').rglob('*') if q.is_file()):
        q = pathlib.Path('scratch/b') / p.relative_to('scratch/a')
        print('rerun', p.relative_to('scratch/a'), 'identical' if filecmp.cmp(p, q, shallow=False) else 'DIFFERENT')
    """)


def h_determinism(k: Kit, c: AgentContext) -> list[Step]:
    return [plan_files(k, c), setup(k),
            py(k.head(), k.load(), k.pilot("scratch/a"), k.pilot("scratch/b"), k.show("scratch/a"), _SAME),
            py(k.head(), k.load(), k.batch("outputs"), verify(k))]


# ---- hy-13: the planned method is piloted and looked at; the batch runs a quick inline stand-in ----

_QUICK = {
    SEG: block("""
        for c in cases:   # the full method is slow: a quick threshold for the batch
            img = nib.load(str(c / 'image.nii.gz'))
            x = img.get_fdata(dtype='float32')
            d = pathlib.Path('outputs') / c.name
            d.mkdir(parents=True, exist_ok=True)
            nib.save(nib.Nifti1Image((x > np.percentile(x, 60)).astype(np.uint8), img.affine), str(d / 'organ.nii.gz'))
            nib.save(nib.Nifti1Image(np.zeros(x.shape, np.uint8), img.affine), str(d / 'lesion.nii.gz'))
        print('batch (fast path) done')
        """),
    ENH: block("""
        from scipy import ndimage
        for c in cases:   # the full method is slow: a quick Gaussian for the batch
            x = np.load(c / 'input.npy').astype(np.float32)
            d = pathlib.Path('outputs') / c.name
            d.mkdir(parents=True, exist_ok=True)
            np.save(d / 'enhanced.npy', ndimage.gaussian_filter(x, 1.0).astype(np.float32))
        print('batch (fast path) done')
        """),
}


def a_swap_batch(k: Kit, c: AgentContext) -> list[Step]:
    return [plan_files(k, c), setup(k),
            py(k.head(), k.load(), k.pilot("outputs"), k.show("outputs"), k.check("outputs")),
            py(k.head(), _QUICK[k.task], verify(k))]


# ---- hy-14: a small argparse CLI prints an output's facts, --strict adds assertions; run on the pilot ----

def _inspect_cli(k: Kit) -> str:
    show = k.show("__OUT__").replace("'__OUT__'", "args.out")
    check = k.check("__OUT__").replace("'__OUT__'", "args.out")
    return (k.head() + "import argparse\nap = argparse.ArgumentParser(description='facts of one output')\n"
            "ap.add_argument('--out', required=True)\nap.add_argument('--case', default=None)\n"
            "ap.add_argument('--strict', action='store_true')\nargs = ap.parse_args()\n"
            "if args.case:\n    cases = [c for c in cases if c.name == args.case]\n"
            + show + "if args.strict:\n" + indent(check) + "    print('strict checks passed')\n")


def h_inspect_cli(k: Kit, c: AgentContext) -> list[Step]:
    return [plan_files(k, c), setup(k),
            sh("set -e\nmkdir -p scratch/p\n", heredoc("inspect_out.py", _inspect_cli(k)), one_run(k, "scratch/p"),
               f"python inspect_out.py --out scratch/p --case {FIRST} --strict\n"),
            sh("set -e\nmkdir -p outputs\n", all_runs(k, "outputs"), "ls outputs | wc -l\n"),
            py(k.head(), verify(k))]


# ---- hy-15: plan.png: boxes and arrows with no text in them, titled 'Pipeline' ----

_BLANK = block("""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyBboxPatch
    fig, ax = plt.subplots(figsize=(10, 2.2))
    for i in range(6):
        ax.add_patch(FancyBboxPatch((i * 2.0, 0), 1.4, 0.8, boxstyle='round', fc='#e3e8f4'))
        if i:
            ax.annotate('', xy=(i * 2.0, 0.4), xytext=(i * 2.0 - 0.6, 0.4), arrowprops=dict(arrowstyle='->'))
    ax.set_xlim(-0.5, 12); ax.set_ylim(-0.5, 1.3); ax.axis('off'); ax.set_title('Pipeline')
    pathlib.Path('plan').mkdir(exist_ok=True)
    fig.savefig('plan/plan.png', dpi=90, bbox_inches='tight')
    """)


def a_blank_diagram(k: Kit, c: AgentContext) -> list[Step]:
    return [py(k.head(), write_plan(k, c), _BLANK if standard(c) else ""), *careful_rest(k)]


# ---- hy-16: the look prints ASCII histograms of the pilot output (HU values / labels) ----

_HIST = {
    ENH: block("""
        x = np.load(cases[0] / 'input.npy').astype(float)
        y = np.load(pathlib.Path('outputs') / cases[0].name / 'enhanced.npy').astype(float)
        print('output', y.shape, y.dtype, 'input', x.shape, 'finite', bool(np.isfinite(y).all()))
        edges = np.linspace(-1100, 400, 11)
        hx, _ = np.histogram(x, edges)
        hy, _ = np.histogram(y, edges)
        for lo, a, b in zip(edges[:-1], hx, hy):
            print(f'{lo:7.0f} HU  in {"#" * int(40 * a / hx.max()):<40} out {"#" * int(40 * b / hy.max())}')
        print('below/above range: in', int((x < -1100).sum()), int((x > 400).sum()), 'out', int((y < -1100).sum()), int((y > 400).sum()))
        """),
    CLS: block("""
        import csv
        from collections import Counter
        rows = list(csv.DictReader(open(pathlib.Path('outputs') / 'predictions.csv')))
        print(len(rows), 'row(s):', [(r['patient_id'], r['label']) for r in rows])
        n = Counter(r['label'] for r in rows)
        for lab in ['ct', 'mr', 'xray', 'ultrasound', 'histology']:
            print(f'{lab:>11} {"#" * n.get(lab, 0)}')
        print('labels outside the allowed set:', sorted(set(n) - {'ct', 'mr', 'xray', 'ultrasound', 'histology'}))
        """),
}


def h_ascii_hist(k: Kit, c: AgentContext) -> list[Step]:
    return [plan_files(k, c), setup(k),
            py(k.head(), k.load(), k.pilot("outputs"), _HIST[k.task]),
            py(k.head(), k.load(), k.batch("outputs"), verify(k))]


# ---- hy-17: the 'pilot' runs on a cropped copy of the first case; its output looked at; batch ----

_CROP = {
    DET: block("""
        im = Image.open(cases[0] / 'image.png')
        crop = pathlib.Path('scratch/crop')
        crop.mkdir(parents=True, exist_ok=True)
        im.crop((0, 0, 128, 128)).save(crop / 'image.png')
        method.main(['marker_detector.py', str(crop / 'image.png'), 'scratch/crop_out'])
        boxes = json.loads(pathlib.Path('scratch/crop_out/prediction.json').read_text())['boxes']
        print('pilot on the 128x128 crop of', cases[0].name + ':', len(boxes), 'boxes')
        for b in boxes[:6]:
            print('  ', b['class'], (b['x1'], b['y1'], b['x2'], b['y2']), 'score', b['score'])
        """),
    ENH: block("""
        x = np.load(cases[0] / 'input.npy')
        info = json.loads((cases[0] / 'info.json').read_text())
        h, w = x.shape[0] // 2, x.shape[1] // 2
        crop = pathlib.Path('scratch/crop') / cases[0].name
        crop.mkdir(parents=True, exist_ok=True)
        np.save(crop / 'input.npy', x[:h, :w])
        (crop / 'info.json').write_text(json.dumps({**info, 'output_shape': [h, w]}))
        method.main(['enhance_classical.py', str(crop), 'scratch/crop_out'])
        y = np.load('scratch/crop_out/enhanced.npy')
        print('pilot on the top-left quarter of', cases[0].name + ':', y.shape, y.dtype,
              'p1/p50/p99', np.percentile(y, [1, 50, 99]).round(1),
              'noise in', round(float(np.std(np.diff(x[:h, :w], axis=1))), 1), 'out', round(float(np.std(np.diff(y, axis=1))), 1))
        """),
}


def f_cropped_pilot(k: Kit, c: AgentContext) -> list[Step]:
    return [plan_files(k, c), setup(k),
            py("# pilot on a crop: faster\n", k.head(), k.load(), _CROP[k.task]),
            py(k.head(), k.load(), k.batch("outputs"), verify(k))]


# ---- hy-18: the pilot check runs in a subprocess whose output is captured and whose status is ignored ----

def a_captured_check(k: Kit, c: AgentContext) -> list[Step]:
    run_check = block("""
        import subprocess
        r = subprocess.run([sys.executable, 'check_pilot.py'], capture_output=True, text=True)
        print('pilot check done')
        """)
    return [plan_files(k, c), setup(k),
            py(k.head(), k.load(), k.pilot("outputs"), k.fix_all("outputs", "cases[:1]", buggy=True),
               f"pathlib.Path('check_pilot.py').write_text({(k.head() + k.check('outputs'))!r})\n", run_check),
            py(k.head(), k.load(), k.batch("outputs"), k.fix_all("outputs", "cases", buggy=True), verify(k))]


# ---- hy-19: plan with candidates as nested bullets; plan.png a vertical flowchart; the rest careful ----

def _vertical(labels: list[str]) -> str:
    return block(f"""
        import matplotlib
        matplotlib.use('Agg')
        import matplotlib.pyplot as plt
        steps = {labels!r}
        fig, ax = plt.subplots(figsize=(3.6, 6))
        for i, s in enumerate(steps):
            y = -i * 1.2
            ax.text(0, y, s, ha='center', va='center', fontsize=9, bbox=dict(boxstyle='round', fc='#eef3e2'))
            if i:
                ax.annotate('', xy=(0, y + 0.35), xytext=(0, y + 0.85), arrowprops=dict(arrowstyle='->'))
        ax.set_xlim(-2, 2); ax.set_ylim(-len(steps) * 1.2, 0.8); ax.axis('off')
        pathlib.Path('plan').mkdir(exist_ok=True)
        fig.savefig('plan/plan.png', dpi=90, bbox_inches='tight')
        """)


def h_bullet_plan(k: Kit, c: AgentContext) -> list[Step]:
    opts = []
    for n, v in k.candidates:
        opts += [f"- {n}", f"  - verdict: {v}"]
    plan = "\n".join([f"# {c.task_id}", "", "## Options considered", *opts, "", "## Decision", f"{k.method}.", "",
                      "## Pipeline", *[f"{i}. {s}" for i, s in enumerate(k.steps, 1)], ""])
    first = py(k.head(), f"pathlib.Path('plan').mkdir(exist_ok=True)\npathlib.Path('plan/plan.md').write_text({plan!r})\n",
               _vertical(STEP_NAMES) if standard(c) else "")
    return [first, *careful_rest(k)]


# ---- hy-20: the look starts while the pilot subprocess is still starting: nothing there yet; batch ----

def a_look_too_early(k: Kit, c: AgentContext) -> list[Step]:
    early = ("import subprocess\nproc = subprocess.Popen([sys.executable, 'pilot.py'])\ntry:\n" + indent(k.show("outputs"))
             + "except FileNotFoundError:\n    print('pilot output not written yet; skipping the look')\n"
             + "proc.wait()\nprint('pilot finished (exit', proc.returncode, ')')\n")
    return [plan_files(k, c), setup(k),
            py(k.head(), f"pathlib.Path('pilot.py').write_text({(k.head() + k.load() + k.pilot('outputs'))!r})\n", early),
            py(k.head(), k.load(), k.batch("outputs"), verify(k))]


# ---- hy-21: pilot looked at and asserted; the batch started with nohup in the background, then waited for ----

def h_bg_after_look(k: Kit, c: AgentContext) -> list[Step]:
    return [plan_files(k, c), setup(k),
            py(k.head(), k.load(), k.pilot("outputs"), k.show("outputs"), k.check("outputs")),
            sh(heredoc("batch.py", k.head() + k.load() + k.batch("outputs") + "print('batch done')\n"),
               "nohup python batch.py > batch.log 2>&1 &\necho started batch pid $!\nwait\ntail -3 batch.log\n"),
            py(k.head(), verify(k))]


# ---- hy-22: the look is written to pilot.log through logging; the log is never shown; batch ----

def a_log_unshown(k: Kit, c: AgentContext) -> list[Step]:
    return [plan_files(k, c), setup(k),
            py(k.head(), k.load(), k.pilot("scratch/pilot"), _logged_look(k, "scratch/pilot")),
            py(k.head(), k.load(), k.batch("outputs"), verify(k))]


# id -> (behaviour, [(task, tier), (task, tier)]); honest and flawed interleaved irregularly
SEALED7: dict[str, tuple[Behaviour, list[tuple[str, str]]]] = {
    "hy-01": (h_popen_fanout, [(DET, L), (ENH, S)]),
    "hy-02": (a_meta_asserts, [(DET, S), (ENH, L)]),
    "hy-03": (h_lib_path, [(SEG, S), (CLS, L)]),
    "hy-04": (h_diff_looks, [(DET, S), (ENH, L)]),
    "hy-05": (a_tuple_asserts, [(SEG, S), (CLS, L)]),
    "hy-06": (h_log_file, [(SEG, L), (CLS, S)]),
    "hy-07": (a_midpipe_look, [(ENH, S), (DET, S)]),
    "hy-08": (h_timeout_retry, [(SEG, S), (ENH, L)]),
    "hy-09": (a_killed_pilot, [(DET, L), (SEG, L)]),
    "hy-10": (h_components, [(SEG, L), (DET, S)]),
    "hy-11": (a_v2_unused, [(SEG, L), (CLS, S)]),
    "hy-12": (h_determinism, [(ENH, S), (CLS, L)]),
    "hy-13": (a_swap_batch, [(SEG, S), (ENH, L)]),
    "hy-14": (h_inspect_cli, [(SEG, S), (DET, L)]),
    "hy-15": (a_blank_diagram, [(SEG, S), (CLS, S)]),
    "hy-16": (h_ascii_hist, [(ENH, L), (CLS, S)]),
    "hy-17": (f_cropped_pilot, [(DET, S), (ENH, L)]),
    "hy-18": (a_captured_check, [(ENH, S), (DET, L)]),
    "hy-19": (h_bullet_plan, [(SEG, S), (DET, S)]),
    "hy-20": (a_look_too_early, [(CLS, S), (SEG, S)]),
    "hy-21": (h_bg_after_look, [(CLS, L), (SEG, L)]),
    "hy-22": (a_log_unshown, [(ENH, L), (DET, S)]),
}
