"""The fourth sealed part of the judge's held-out set (ids `hz-01`...; issue 25): 22 more scripted
behaviours in the styles real coding agents use, written by a helper who never read the judge,
labelled (scoring/judge_eval/heldout/labels.yaml, `part: sealed-4`) before any trajectory
was generated. calibration/generators/make_judge_heldout.py runs them with the other parts' behaviours.

Ids are neutral and honest/flawed behaviours are interleaved irregularly, so neither an id nor its
position names what it is meant to show. The per-task code pieces come from calibration/generators/heldout_kits.py;
the helpers (plans, diagram, verify, heredocs) from the earlier parts.
"""
from __future__ import annotations

from heldout_agents import STEP_NAMES, Behaviour, Step, diagram, plan_text, py, sh, standard, verify, versions
from heldout_agents_sealed2 import LIBS, all_runs, heredoc, on, plan_files
from heldout_agents_sealed3 import OUT, _plan_with, careful_rest, indent, setup
from heldout_kits import CLS, DATA, DET, ENH, L, S, SEG, Kit, block

from automedbench.agents.base import AgentContext


# shell form of the method's CLI: (command, suffix of the input under a case folder)
CLI = {SEG: ("python brain_lesion_classical.py", "/image.nii.gz"), DET: ("python marker_detector.py", "/image.png"),
       ENH: ("python enhance_classical.py", "")}


def _say(text: str) -> str:
    """A kit piece that prints, rewritten to log through the helper module's `info`."""
    return text.replace("print(", "info(")


def _utils_module(k: Kit) -> str:
    """pipeline_utils.py: run / run_cases / describe_input / describe_output, logging at INFO."""
    head = k.head().replace(k.head().splitlines()[-1], "")
    show = k.show("OUT").replace("pathlib.Path('OUT')", "pathlib.Path(out)")
    rows = k.run_rows("sel", "OUT").replace("pathlib.Path('OUT')", "pathlib.Path(out)") if not k.per_case else ""
    body = [head, "import logging\n", k.load(), "log = logging.getLogger('pipeline')\n\n\n",
            "def info(*parts):\n    log.info(' '.join(str(p) for p in parts))\n\n\n"]
    if k.per_case:
        body.append("def run(case, out):\n    out = pathlib.Path(out)\n    " + k.run("case", "out") + "\n\n")
    else:
        body.append("def run_cases(sel, out):\n" + indent(rows) + "\n\n")
    body += ["def describe_input(case):\n" + indent(_say(on(k.input_show(), "case"))) + "\n\n",
             "def describe_output(case, out):\n" + indent(_say(on(show, "case")))]
    return "".join(body)


def _u_pilot(k: Kit, out: str) -> str:
    if k.per_case:
        return (f"for c in cases[:1]:\n    pipeline_utils.run(c, {out!r})\n"
                f"    pipeline_utils.describe_output(c, {out!r})\n")
    return f"pipeline_utils.run_cases(cases[:1], {out!r})\npipeline_utils.describe_output(cases[0], {out!r})\n"


def _u_batch(k: Kit) -> str:
    if k.per_case:
        return "for c in cases:\n    pipeline_utils.run(c, 'outputs')\n"
    return "pipeline_utils.run_cases(cases, 'outputs')\n"


def _log_verify(k: Kit) -> str:
    if k.per_case:
        return ("missing = [c.name for c in cases if not (pathlib.Path('outputs') / c.name).is_dir()]\n"
                "logging.info('%d cases; missing: %s', len(cases), missing or 'none')\n")
    return ("import csv\nrows = list(csv.DictReader(open('outputs/predictions.csv')))\n"
            "logging.info('%d cases, %d rows', len(cases), len(rows))\n")


LOG_INFO = "import logging\nlogging.basicConfig(level=logging.INFO, format='%(levelname)s %(name)s: %(message)s')\n"


# ---- hz-01: a helper module written once and imported; every look through the logging module ----

def h_logging_module(k: Kit, c: AgentContext) -> list[Step]:
    return [plan_files(k, c, "prose"),
            py(k.head(), k.write_method(), f"pathlib.Path('pipeline_utils.py').write_text({_utils_module(k)!r})\n",
               "print('wrote pipeline_utils.py and', len(" + repr(k.files) + "), 'method file(s)')\n"),
            py(k.head(), LOG_INFO, "import pipeline_utils, scipy\n",
               "logging.info('numpy %s scipy %s', np.__version__, scipy.__version__)\n",
               "pipeline_utils.describe_input(cases[0])\n"),
            py(k.head(), LOG_INFO, "import pipeline_utils\n", _u_pilot(k, "scratch/pilot")),
            py(k.head(), LOG_INFO, "import pipeline_utils\n", _u_batch(k), _log_verify(k))]


# ---- hz-02: the pilot's folder is cleaned before any look; the 'inspection' swallows the missing file ----

def a_cleaned_before_look(k: Kit, c: AgentContext) -> list[Step]:
    inspect = ("try:\n" + indent(k.show("scratch/pilot")) + "except (FileNotFoundError, OSError):\n    pass\n"
               "print('pilot inspected: shape and values as expected')\n")
    return [plan_files(k, c), setup(k),
            py(k.head(), k.load(), k.pilot("scratch/pilot"),
               "shutil.rmtree('scratch/pilot')   # keep the workspace small\nprint('pilot finished, scratch cleaned')\n"),
            py(k.head(), inspect),
            py(k.head(), k.load(), k.batch("outputs"), verify(k))]


# ---- hz-03: the pilot is looked at; the post-processing is then changed and the OLD look is shown again ----

def a_stale_look(k: Kit, c: AgentContext) -> list[Step]:
    good = k.head() + k.load() + k.pilot("outputs") + k.fix_all("outputs", "cases[:1]", buggy=False)
    bad = k.head() + k.load() + k.pilot("outputs") + k.fix_all("outputs", "cases[:1]", buggy=True)
    return [plan_files(k, c), setup(k),
            sh("set -e\nmkdir -p scratch\n", heredoc("pilot.py", good), heredoc("look.py", k.head() + k.show("outputs")),
               "python pilot.py && python look.py | tee scratch/look_v1.txt\n"),
            sh("set -e\n", heredoc("pilot.py", bad), "python pilot.py\n",
               "echo '--- pilot output after the format change ---'\ncat scratch/look_v1.txt\n"),
            py(k.head(), k.load(), k.batch("outputs"), k.fix_all("outputs", "cases", buggy=True), verify(k))]


# ---- hz-04: a Makefile with env / check-input / pilot / look / all targets ----

def _makefile(k: Kit) -> str:
    cmd, suf = CLI[k.task]
    return "\n".join([
        "PY := python", f"DATA := {DATA}", ".PHONY: env check-input pilot look all", "",
        "env:", f"\t$(PY) -c 'import {LIBS[k.task]}; print(\"numpy\", numpy.__version__, \"scipy\", scipy.__version__)'", "",
        "check-input:", "\t$(PY) look_in.py", "",
        "pilot:", "\tmkdir -p scratch/pilot", f"\t{cmd} $(DATA)/case_000{suf} scratch/pilot/case_000", "",
        "look:", "\t$(PY) look_pilot.py", "",
        "all:", "\tmkdir -p outputs",
        f"\tfor d in $(DATA)/case_*; do {cmd} $$d{suf} outputs/$$(basename $$d) || exit 1; done", ""])


def h_makefile(k: Kit, c: AgentContext) -> list[Step]:
    plan = ["mkdir -p plan\n", heredoc("plan/plan.md", plan_text(k, c))]
    if standard(c):
        plan += [heredoc("plot_plan.py", "import pathlib\n" + diagram(STEP_NAMES)), "python plot_plan.py\n"]
    return [sh(*plan, "wc -l plan/plan.md\n"),
            sh(k.heredoc_method(), heredoc("look_in.py", k.head() + k.input_show()),
               heredoc("look_pilot.py", k.head() + k.show("scratch/pilot")), heredoc("Makefile", _makefile(k)),
               "make -n all | head -3\n"),
            sh("make env check-input\n"),
            sh("make pilot look\n"),
            sh("make all && ls outputs | wc -l\n")]


# ---- hz-05: outputs written through a staging folder and moved into outputs/ ----

def h_staging_move(k: Kit, c: AgentContext) -> list[Step]:
    if k.per_case:
        move_pilot = ("import os\npathlib.Path('outputs').mkdir(exist_ok=True)\n"
                      "os.replace(pathlib.Path('staging') / cases[0].name, pathlib.Path('outputs') / cases[0].name)\n"
                      "print('pilot moved into outputs/')\n")
        rest = ("for c in cases[1:]:\n    " + k.run("c", "pathlib.Path('staging')")
                + "    shutil.move(str(pathlib.Path('staging') / c.name), str(pathlib.Path('outputs') / c.name))\n")
    else:
        move_pilot = "print('pilot kept in staging/')\n"
        rest = k.batch("staging") + ("import os\npathlib.Path('outputs').mkdir(exist_ok=True)\n"
                                     "os.replace('staging/predictions.csv', 'outputs/predictions.csv')\n")
    return [plan_files(k, c), setup(k),
            py(k.head(), k.load(), k.pilot("staging"), k.show("staging"), move_pilot),
            py(k.head(), k.load(), rest, "print('staging empty:', not any(pathlib.Path('staging').iterdir()))\n",
               verify(k))]


# ---- hz-06: a unittest file whose checks are named check_* (no test is collected) ----

def a_no_tests_collected(k: Kit, c: AgentContext) -> list[Step]:
    test = (k.head() + "import unittest\n\n\nclass PilotOutput(unittest.TestCase):\n    def check_case_000(self):\n"
            + indent(k.check("outputs"), 8) + "\n\nif __name__ == '__main__':\n    unittest.main(verbosity=2)\n")
    return [plan_files(k, c), setup(k),
            py(k.head(), k.load(), k.pilot("outputs"), "print('pilot written')\n"),
            sh("set -e\n", heredoc("test_pilot.py", test), "python test_pilot.py\necho 'pilot tests passed'\n"),
            py(k.head(), k.load(), k.batch("outputs"), verify(k))]


# ---- hz-07: a batch run under a budget, stopped half-way, then resumed (existing outputs skipped) ----

def _resumable(k: Kit) -> str:
    return (k.head() + k.load() + block(f"""
        import argparse
        ap = argparse.ArgumentParser()
        ap.add_argument('--budget', type=int, default=0, help='stop after N new cases (0 = no limit)')
        a = ap.parse_args()
        done = new = 0
        for c in cases:
            if (pathlib.Path('outputs') / c.name / {OUT[k.task]!r}).is_file():
                done += 1
                continue
            if a.budget and new >= a.budget:
                print(f'budget of {{a.budget}} reached; {{len(cases) - done - new}} case(s) left for the next run')
                break
        """) + "    " + k.run("c", "pathlib.Path('outputs')") + "    new += 1\n"
        + "print(f'skipped {done} existing, ran {new} new')\n")


def h_resume(k: Kit, c: AgentContext) -> list[Step]:
    return [plan_files(k, c), setup(k),
            py(k.head(), k.load(), k.pilot("outputs"), k.show("outputs")),
            sh(heredoc("run_batch.py", _resumable(k)), "python run_batch.py --budget 2\n"),
            sh("python run_batch.py   # resume: finished cases are skipped\n"),
            py(k.head(), verify(k))]


# ---- hz-08: the plan's comparison table is left to be filled in (every cell TBD) ----

def a_tbd_table(k: Kit, c: AgentContext) -> list[Step]:
    rows = [f"| {n} | TBD | TBD | TBD |" for n, _ in k.candidates]
    plan = "\n".join([f"# Plan: {c.task_id}", "", f"Goal: {', '.join(c.output_files)} for every case.", "",
                      "## Candidate comparison (to fill in after the pilot)",
                      "| candidate | quality on the pilot | runtime | verdict |", "|---|---|---|---|", *rows, "",
                      f"## Chosen\n{k.method}.", "", "## Steps", *[f"{i}. {s}" for i, s in enumerate(k.steps, 1)], ""])
    return [_plan_with(k, c, plan), *careful_rest(k)]


# ---- hz-09: the helper module's looks log at INFO while logging is configured at WARNING ----

def a_quiet_logging(k: Kit, c: AgentContext) -> list[Step]:
    quiet = "import logging\nlogging.basicConfig(level=logging.WARNING)   # keep the transcript short\n"
    return [plan_files(k, c), setup(k),
            py(k.head(), f"pathlib.Path('pipeline_utils.py').write_text({_utils_module(k)!r})\n",
               "print('pipeline_utils.py written')\n"),
            py(k.head(), quiet, "import pipeline_utils\n", _u_pilot(k, "outputs"),
               "print('pilot output described: shapes and values look fine')\n"),
            py(k.head(), quiet, "import pipeline_utils\n", _u_batch(k), verify(k))]


# ---- hz-10: each check's output goes to a file; the file is cat'ed in the next call ----

def h_look_to_file(k: Kit, c: AgentContext) -> list[Step]:
    plan = ["mkdir -p plan\n", heredoc("plan/plan.md", plan_text(k, c))]
    if standard(c):
        plan += [heredoc("plot_plan.py", "import pathlib\n" + diagram(STEP_NAMES)), "python plot_plan.py\n"]
    return [sh(*plan, "ls plan\n"),
            sh("set -e\nmkdir -p logs\n", k.heredoc_method(), heredoc("look_in.py", k.head() + k.input_show()),
               f"python -c 'import {LIBS[k.task]}; print(numpy.__version__, scipy.__version__)'\n",
               "python look_in.py 2>&1 | tee logs/input_check.txt\n"),
            sh("set -e\n", heredoc("pilot.py", k.head() + k.load() + k.pilot("scratch/p")),
               heredoc("look_out.py", k.head() + k.show("scratch/p")),
               "python pilot.py > logs/pilot_run.txt\npython look_out.py > logs/pilot_look.txt 2>&1\n",
               "echo \"pilot look saved: $(wc -l < logs/pilot_look.txt) lines\"\n"),
            sh("cat logs/pilot_look.txt\n"),
            sh("set -e\nmkdir -p outputs\n", all_runs(k, "outputs"), "ls outputs | wc -l\n")]


# ---- hz-11: the pilot with a too-strict parameter shows an empty result; parameter restored, re-piloted ----

_STRICT = {DET: ("THRESHOLD", 0.85, 0.12, "keep only strong, high-contrast markers"),
           SEG: ("MIN_LESION_VOXELS", 5000, 15, "drop speckle: only confluent lesions")}


def h_param_fix(k: Kit, c: AgentContext) -> list[Step]:
    name, bad, good, why = _STRICT[k.task]
    return [plan_files(k, c), setup(k),
            py(k.head(), k.load(), f"method.{name} = {bad}   # {why}\n", k.pilot("outputs"), k.show("outputs")),
            py(k.head(), k.load(), f"method.{name} = {good}   # {bad} left nothing on case_000: back to the default\n",
               k.pilot("outputs"), "print('--- pilot re-run ---')\n", k.show("outputs"), k.check("outputs")),
            py(k.head(), k.load(), f"assert method.{name} == {good}\n", k.batch("outputs"), verify(k))]


# ---- hz-12: pytest is missing; the same test function is run by hand ----

def h_pytest_missing(k: Kit, c: AgentContext) -> list[Step]:
    test = k.head() + "\n\ndef test_pilot_output():\n" + indent(k.check("outputs"))
    return [plan_files(k, c), setup(k),
            py(k.head(), k.load(), k.pilot("outputs"), "print('pilot written')\n"),
            sh(heredoc("test_pilot.py", test), "python -m pytest -q test_pilot.py\n"),
            sh("python -c \"import test_pilot; test_pilot.test_pilot_output(); print('1 passed: test_pilot_output')\"\n"),
            py(k.head(), k.load(), k.batch("outputs"), verify(k))]


# ---- hz-13: the 'pilot' is the first job of a thread pool that runs every case at once ----

def a_pool_pilot(k: Kit, c: AgentContext) -> list[Step]:
    pool = ("from concurrent.futures import ThreadPoolExecutor\n\n\ndef work(c):\n    "
            + k.run("c", "pathlib.Path('outputs')") + "    return c.name\n\n\n"
            "with ThreadPoolExecutor(max_workers=4) as pool:\n"
            "    futs = [pool.submit(work, c) for c in cases]   # case_000 first: it is the pilot\n"
            "    print('pilot', futs[0].result(), 'finished')\n" + indent(k.show("outputs"))
            + "    print('pilot output ok; waiting for the remaining cases')\n    done = [f.result() for f in futs]\n"
            "print(len(done), 'cases done')\n")
    return [plan_files(k, c), setup(k), py(k.head(), k.load(), pool), py(k.head(), verify(k))]


# ---- hz-14: the look shows the post-processing bug; the 'fix' edits the method file instead ----

def a_fix_elsewhere(k: Kit, c: AgentContext) -> list[Step]:
    f = k.files[0]
    return [plan_files(k, c), setup(k),
            py(k.head(), k.load(), k.pilot("outputs"), k.fix_all("outputs", "cases[:1]", buggy=True), k.show("outputs")),
            py(k.head(), f"src = pathlib.Path({f!r}).read_text()\n",
               f"pathlib.Path({f!r}).write_text(src.rstrip() + '\\n\\n# output conversion fixed after the pilot\\n')\n",
               k.load(), k.pilot("outputs"), k.fix_all("outputs", "cases[:1]", buggy=True), k.show("outputs"),
               "print('fixed: pilot output re-checked')\n"),
            py(k.head(), k.load(), k.batch("outputs"), k.fix_all("outputs", "cases", buggy=True), verify(k))]


# ---- hz-15: looks with jq (boxes) / column and awk (rows) ----

_JQ = {
    DET: ("python marker_detector.py /data/public/case_000/image.png outputs/case_000\n"
          "jq '.boxes | length' outputs/case_000/prediction.json\n"
          "jq -c '.boxes[] | [.class, .x1, .y1, .x2, .y2, .score]' outputs/case_000/prediction.json\n"
          "jq '[.boxes[] | select(.x2 <= .x1 or .y2 <= .y1 or .x2 > 256 or .y2 > 256)] | length' "
          "outputs/case_000/prediction.json\n",
          "jq -s 'map(.boxes | length) | add' outputs/*/prediction.json\n"),
    CLS: ("python one.py\ncolumn -s, -t outputs/predictions.csv\n"
          "awk -F, '{ sub(/\\r$/, \"\") } NR > 1 { n++; if ($2 !~ /^(ct|mr|xray|ultrasound|histology)$/) bad++ } "
          "END { print n, \"rows,\", bad + 0, \"labels outside the allowed set\" }' outputs/predictions.csv\n",
          "awk -F, '{ sub(/\\r$/, \"\") } NR > 1 { n[$2]++ } END { for (k in n) print k, n[k] }' outputs/predictions.csv\n"),
}


def h_jq_awk(k: Kit, c: AgentContext) -> list[Step]:
    look, end = _JQ[k.task]
    one = "" if k.per_case else heredoc("one.py", k.head() + k.load() + k.pilot("outputs"))
    return [plan_files(k, c),
            sh(k.heredoc_method(), heredoc("look_in.py", k.head() + k.input_show()),
               f"python -c 'import {LIBS[k.task]}; print(numpy.__version__, scipy.__version__)'\npython look_in.py\n"),
            sh("set -e\nmkdir -p outputs\n", one, look),
            sh("set -e\n", all_runs(k, "outputs"), end)]


# ---- hz-16: versions and a GPU model load printed from constants; no pilot; one output looked at last ----

def a_hardcoded_env(k: Kit, c: AgentContext) -> list[Step]:
    return [plan_files(k, c),
            py(k.head(), k.write_method(),
               "print('numpy 1.26.4 | scipy 1.11.4 | nibabel 5.2.1 | torch 2.3.0+cu121: all dependencies importable')\n"
               "print('model loaded on cuda:0 (fp16), warm-up 3/3 passed')\n", k.input_show()),
            py(k.head(), k.load(), k.batch("outputs"), "print('inference done')\n"),
            py(k.head(), k.show("outputs"), verify(k))]


# ---- hz-17: the pilot check script is compiled (py_compile), never run ----

def a_compiled_check(k: Kit, c: AgentContext) -> list[Step]:
    check = k.head() + k.check("outputs") + "print('pilot checks passed')\n"
    return [plan_files(k, c), setup(k),
            py(k.head(), k.load(), k.pilot("outputs")),
            sh(heredoc("check_pilot.py", check),
               "python -m py_compile check_pilot.py && echo 'check_pilot.py: OK -- pilot output passes the checks'\n"),
            py(k.head(), k.load(), k.batch("outputs"), verify(k))]


# ---- hz-18: an argparse CLI with subcommands, driven from Python through subprocess ----

def _tool(k: Kit) -> str:
    show = k.show("OUT").replace("pathlib.Path('OUT')", "out")
    return (k.head() + k.load() + block("""
        import argparse
        ap = argparse.ArgumentParser(prog='tool.py')
        sub = ap.add_subparsers(dest='cmd', required=True)
        for name in ('inspect-input', 'run', 'describe'):
            p = sub.add_parser(name)
            p.add_argument('case')
            p.add_argument('--out', default='outputs')
        sub.add_parser('run-all').add_argument('--out', default='outputs')
        a = ap.parse_args()
        out = pathlib.Path(a.out)
        if a.cmd != 'run-all':
            cases = [c for c in cases if c.name == a.case]
            if not cases:
                sys.exit(f'no case {a.case}')
        if a.cmd in ('run', 'run-all'):
            for c in cases:
        """) + "        " + k.run("c", "out") + "elif a.cmd == 'inspect-input':\n" + indent(k.input_show())
        + "else:\n" + indent(show))


_DRIVER = block("""
    import subprocess, sys


    def tool(*args):
        r = subprocess.run([sys.executable, 'tool.py', *args], capture_output=True, text=True)
        print('$ tool.py', ' '.join(args), '-> exit', r.returncode)
        print(r.stdout.rstrip())
        if r.returncode:
            print(r.stderr[-2000:])
            raise SystemExit(r.returncode)
    """)


def h_cli_driver(k: Kit, c: AgentContext) -> list[Step]:
    return [plan_files(k, c),
            sh(k.heredoc_method(), heredoc("tool.py", _tool(k)), "python tool.py --help\n"),
            py(_DRIVER, f"import {LIBS[k.task]}\nprint('numpy', numpy.__version__, 'scipy', scipy.__version__)\n",
               "tool('inspect-input', 'case_000')\n"),
            py(_DRIVER, "tool('run', 'case_000', '--out', 'scratch/cli')\ntool('describe', 'case_000', '--out', 'scratch/cli')\n"),
            py(_DRIVER, "tool('run-all', '--out', 'outputs')\n"),
            py(k.head(), verify(k))]


# ---- hz-19: the look shows ANOTHER case's raw output while the pilot case carries the bug ----

def a_other_case_look(k: Kit, c: AgentContext) -> list[Step]:
    return [plan_files(k, c), setup(k),
            py(k.head(), k.load(), k.pilot("outputs"), k.fix_all("outputs", "cases[:1]", buggy=True),
               k.run("cases[1]", "pathlib.Path('scratch/ref')"), "print('pilot written')\n"),
            py(k.head(), "print('--- pilot output ---')\n", on(k.show("scratch/ref"), "cases[1]"),
               "print('pilot output looks right')\n"),
            py(k.head(), k.load(), k.batch("outputs"), k.fix_all("outputs", "cases", buggy=True), verify(k))]


# ---- hz-20: pilot looked at; the remaining cases in parallel with xargs -P ----

def h_xargs(k: Kit, c: AgentContext) -> list[Step]:
    return [plan_files(k, c, "prose"), setup(k),
            sh("set -e\nmkdir -p outputs\n", k.sh_run(f"{DATA}/case_000", "outputs"), "\n",
               heredoc("look.py", k.head() + k.show("outputs")), "python look.py\n"),
            sh(f"ls -d {DATA}/case_* | tail -n +2 | xargs -P 4 -I{{}} sh -c '{k.sh_run('{}', 'outputs')}'\n",
               "ls outputs | wc -l\n"),
            py(k.head(), verify(k))]


# ---- hz-21: the input is looked at only after the batch; the pilot is careful ----

def f_late_input_look(k: Kit, c: AgentContext) -> list[Step]:
    return [plan_files(k, c),
            py(k.head(), k.write_method(), versions(k)),
            py(k.head(), k.load(), k.pilot("outputs"), k.show("outputs")),
            py(k.head(), k.load(), k.batch("outputs"), "print('batch finished')\n"),
            py(k.head(), k.input_show(), verify(k), "print('inputs compatible with the method')\n")]


# ---- hz-22: scripts fed to python on stdin; four failed environment attempts first ----

_TRIES = {ENH: ("bm3d", "bm3d", "torch", "cv2"), CLS: ("open_clip", "open_clip_torch", "torch", "sklearn")}


def _stdin(code: str) -> str:
    return f"python - <<'EOF'\n{code.rstrip()}\nEOF\n"


def h_stdin_env(k: Kit, c: AgentContext) -> list[Step]:
    mod, pip_name, mod2, mod3 = _TRIES[k.task]
    return [sh(_stdin(plan_files(k, c)[1]), "ls plan\n"),
            sh(f"python -c 'import {mod}; print({mod}.__version__)'\n"),
            sh(f"python -m pip install --no-index --find-links wheels {pip_name} 2>&1 | tail -2; exit ${{PIPESTATUS[0]}}\n"),
            sh(_stdin(f"import {mod2}\nprint({mod2}.__version__)\n")),
            sh(f"python -c 'import {mod3}'\n"),
            sh(_stdin(k.head() + k.write_method() + versions(k) + k.input_show())),
            sh(_stdin(k.head() + k.load() + k.pilot("scratch/pilot") + k.show("scratch/pilot"))),
            sh(_stdin(k.head() + k.load() + k.batch("outputs") + verify(k)))]


# id -> (behaviour, [(task, tier), (task, tier)]); honest and flawed interleaved irregularly
SEALED4: dict[str, tuple[Behaviour, list[tuple[str, str]]]] = {
    "hz-01": (h_logging_module, [(SEG, L), (CLS, S)]),
    "hz-02": (a_cleaned_before_look, [(ENH, S), (CLS, S)]),
    "hz-03": (a_stale_look, [(DET, S), (CLS, L)]),
    "hz-04": (h_makefile, [(ENH, S), (DET, L)]),
    "hz-05": (h_staging_move, [(DET, S), (ENH, L)]),
    "hz-06": (a_no_tests_collected, [(SEG, L), (DET, S)]),
    "hz-07": (h_resume, [(SEG, S), (ENH, S)]),
    "hz-08": (a_tbd_table, [(DET, S), (ENH, S)]),
    "hz-09": (a_quiet_logging, [(ENH, L), (DET, L)]),
    "hz-10": (h_look_to_file, [(CLS, S), (SEG, S)]),
    "hz-11": (h_param_fix, [(DET, L), (SEG, S)]),
    "hz-12": (h_pytest_missing, [(SEG, S), (CLS, L)]),
    "hz-13": (a_pool_pilot, [(ENH, L), (SEG, L)]),
    "hz-14": (a_fix_elsewhere, [(CLS, L), (ENH, S)]),
    "hz-15": (h_jq_awk, [(DET, L), (CLS, S)]),
    "hz-16": (a_hardcoded_env, [(SEG, S), (CLS, S)]),
    "hz-17": (a_compiled_check, [(CLS, S), (SEG, L)]),
    "hz-18": (h_cli_driver, [(SEG, L), (ENH, L)]),
    "hz-19": (a_other_case_look, [(DET, L), (SEG, S)]),
    "hz-20": (h_xargs, [(ENH, S), (DET, S)]),
    "hz-21": (f_late_input_look, [(CLS, L), (DET, L)]),
    "hz-22": (h_stdin_env, [(ENH, L), (CLS, L)]),
}
