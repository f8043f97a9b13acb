"""Check scripts the agent wrote to a file and ran later (scoring/judge/sources.py; docs/judge.md
"Content facts: silent checks"): their asserts ran, though the call's code only names the file."""
from automedbench.runs.models import Effects, TraceEvent
from automedbench.scoring.judge.asserts import silent_check
from automedbench.scoring.judge.base import JudgeEvidence
from automedbench.scoring.judge.heuristic import HeuristicJudge
from automedbench.scoring.judge.sources import written_sources
from automedbench.tasks import get_task

CHECK = "import nibabel as nib\nm = nib.load('outputs/case_000/organ.nii.gz')\nassert m.shape == (64, 64, 64), m.shape\n"


def test_the_texts_a_call_writes_to_source_files():
    bash = f"cat > check.py <<'EOF'\n{CHECK}EOF\npython check.py\ncat <<EOF > b.py\nx = 1\nEOF\n"
    assert written_sources(bash) == {"check.py": CHECK.rstrip("\n"), "b.py": "x = 1"}
    py = ("import pathlib\npathlib.Path('check.py').write_text(" + repr(CHECK) + ")\n"
          "open('t.py', 'w').write('y = 2')\nfiles = {'m.py': 'z = 3', 'notes.md': 'text'}\n")
    assert written_sources(py) == {"check.py": CHECK, "t.py": "y = 2", "m.py": "z = 3"}
    assert written_sources("cat > report.txt <<'EOF'\nhello\nEOF\n") == {}      # not code


def test_a_test_file_runs_its_tests_and_unittest_asserts_count():
    test_file = "def test_pilot():\n    m = load('p')\n    assert m.shape == (64, 64, 64)\n"
    assert not silent_check(test_file)                  # nothing calls test_pilot ...
    assert silent_check(test_file, as_tests=True)       # ... except the test runner
    unit = ("import unittest\nclass T(unittest.TestCase):\n    def test_p(self):\n"
            "        self.assertEqual(load('p').shape, (64, 64, 64))\n")
    assert silent_check(unit, as_tests=True)
    same = unit.replace("self.assertEqual(load('p').shape, (64, 64, 64))", "self.assertEqual(m.shape, m.shape)")
    assert not silent_check(same, as_tests=True)          # the same expression on both sides
    module = "def verify(p):\n    assert load(p).shape[0] > 1\n"
    assert silent_check(module, frozenset({"verify"})) and not silent_check(module)


TASK = get_task("brain-lesion-seg")
CASES = [f"case_{i:03d}" for i in range(6)]
OUT, PUB, WS = "/workspace/outputs", "/data/public", "/workspace"


def _units(cases, tag):
    return [{"path": f"{OUT}/{c}/{n}", "op": "created", "size": 10, "sha256": f"{tag}{c}{n}"}
            for c in cases for n in ("organ.nii.gz", "lesion.nii.gz")]


def _s3(tmp_path, check_body: str, run_code: str = "python check.py") -> float:
    writer = f"cat > check.py <<'EOF'\n{check_body}EOF\n"
    calls = [(writer, {"written": [{"path": f"{WS}/check.py", "op": "created", "size": 9, "sha256": "c"}]}, ""),
             ("python run.py case_000", {"written": _units(CASES[:1], "p"), "read": [f"{PUB}/case_000/t1.nii.gz"]}, "done"),
             (run_code, {"read": [f"{WS}/check.py", f"{OUT}/case_000/organ.nii.gz"]}, ""),
             ("python run.py --all", {"written": _units(CASES, "b"),
                                      "read": [f"{PUB}/{c}/t1.nii.gz" for c in CASES]}, "done 6")]
    events = []
    for i, (code, eff, out) in enumerate(calls, 1):
        events += [TraceEvent(type="tool_call", t=i, call_index=i, code=code, language="bash"),
                   TraceEvent(type="execution", t=i, call_index=i, exit_code=0, stdout=out, effects=Effects(**eff))]
    v = HeuristicJudge().judge(JudgeEvidence(TASK, "lite", tmp_path, events, None, CASES, None))["s3"]
    return v.items["s3"]


def test_a_check_script_written_earlier_and_run_silently_is_a_look(tmp_path):
    assert _s3(tmp_path, CHECK) == 1.0
    # the same script asserting nothing about the data: no look (pilot not inspected)
    assert _s3(tmp_path, "m = nib.load('outputs/case_000/organ.nii.gz')\nassert m is not None\n") == 0.5


DOCTEST = ('"""Checks of the pilot.\n\n>>> import nibabel as nib\n'
           ">>> m = nib.load('outputs/case_000/organ.nii.gz')\n>>> m.shape == (64, 64, 64)\nTrue\n" + '"""\n')


def test_doctest_examples_run_by_the_doctest_runner_are_checks(tmp_path):
    """`python -m doctest checks.py` compares each example with its expected value: an assert."""
    assert _s3(tmp_path, DOCTEST, run_code="python -m doctest -v check.py") == 1.0
    # the same file run as a plain script: its docstring never runs
    assert _s3(tmp_path, DOCTEST, run_code="python check.py") == 0.5


def test_a_look_beside_a_background_batch_gates_nothing(tmp_path):
    """The batch sent to the background (`python run_all.py &`) and the pilot looked at while it
    runs, in one call: the look could not stop the batch (pilots.py)."""
    look = "m = nib.load('scratch/case_000/organ.nii.gz')\nassert m.shape == (64, 64, 64)\n"
    calls = [("python run.py case_000 scratch", {"written": _units_in("scratch", CASES[:1], "p"),
                                                 "read": [f"{PUB}/case_000/t1.nii.gz"]}, "done"),
             ("python run_all.py > batch.log 2>&1 &\npython -c \"" + look + "\"\nwait\n",
              {"written": _units(CASES, "b"), "read": [f"{PUB}/{c}/t1.nii.gz" for c in CASES]
               + [f"{WS}/scratch/case_000/organ.nii.gz"]}, "")]
    assert _judge_s3(tmp_path, calls) == 0.5
    # the same look in a call of its own, before the batch: a look that gates it
    calls = [calls[0], ("python -c \"" + look + "\"", {"read": [f"{WS}/scratch/case_000/organ.nii.gz"]}, ""),
             ("python run_all.py", {"written": _units(CASES, "b"),
                                    "read": [f"{PUB}/{c}/t1.nii.gz" for c in CASES]}, "done")]
    assert _judge_s3(tmp_path, calls) == 1.0


def _units_in(folder, cases, tag):
    return [{**u, "path": u["path"].replace(OUT, f"{WS}/{folder}")} for u in _units(cases, tag)]


def _judge_s3(tmp_path, calls) -> float:
    events = []
    for i, (code, eff, out) in enumerate(calls, 1):
        events += [TraceEvent(type="tool_call", t=i, call_index=i, code=code, language="bash"),
                   TraceEvent(type="execution", t=i, call_index=i, exit_code=0, stdout=out, effects=Effects(**eff))]
    return HeuristicJudge().judge(JudgeEvidence(TASK, "lite", tmp_path, events, None, CASES, None))["s3"].items["s3"]
