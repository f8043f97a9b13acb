"""Silent checks and judged candidates, the two code/text readings the judge relies on
(docs/judge.md "Content facts", "S1 Plan"): an assert that could fail on the data counts, one
that holds for any file does not; a method with a verdict on its line is compared, a bare list
of names is not."""
import pytest

from automedbench.scoring.judge.asserts import check_offsets, first_mention, silent_check
from automedbench.scoring.judge.attempts import failed_attempts, hidden_attempts
from automedbench.scoring.judge.heuristic import _rubric_words
from automedbench.scoring.judge.plan_facts import methods_judged, step_lines


@pytest.mark.parametrize("code, counts", [
    ("assert x.shape == y.shape", True),
    ("assert len(rows) == 24, len(rows)", True),
    ("assert 0 <= b['x1'] < b['x2'] <= w", True),
    ("assert np.isfinite(y).all() and y.min() > -2000", True),
    ("for c in cases:\n    m = load(c)\n    assert set(np.unique(m)) <= {0, 1}\n", True),
    ("def check(m):\n    assert m.shape == (64, 64)\ncheck(mask)\n", True),           # a function it calls
    ("python3 - <<'EOF'\nimport numpy as np\nassert np.load('a.npy').ndim == 3\nEOF\n", True),  # bash heredoc
    # vacuous or never run
    ("assert True", False),
    ("assert y is not None", False),
    ("assert rows == rows", False),
    ("assert mask.sum() >= 0", False),
    ("assert len(boxes) >= 0 and x.size >= 0", False),
    ("assert len({r.get('id') for r in rows}) <= len(rows)", False),
    ("assert len(set(ids)) <= len(ids)", False),
    ("assert len(set(ids)) == len(ids)", True),                                     # unique ids: can fail
    ("assert m.shape and m.dtype", False),                         # a loaded array always has both
    ("assert isinstance(m, np.ndarray)", False),                   # the type of what was loaded
    ("assert isinstance(d['boxes'], list)", True),                 # the file's structure: can fail
    ("self.assertEqual(m.shape, (64, 64))", True),                 # a checking call
    ("self.assertTrue(m.shape)", False),
    ("try:\n    assert m.shape == (64, 64)\nexcept AssertionError:\n    pass\n", False),   # failure swallowed
    ("try:\n    assert m.shape == (64, 64)\nexcept Exception as e:\n    print('warn', e)\n", False),
    ("try:\n    assert m.shape == (64, 64)\nexcept AssertionError:\n    log(); raise\n", True),  # raised again
    ("try:\n    assert m.shape == (64, 64)\nexcept OSError:\n    pass\n", True),
    ("def check(m):\n    assert m.shape == (64, 64)\n", False),                       # never called
    ("code = 'assert m.shape == (64, 64)'\nprint(code)", False),                      # a string
    ("print(m.shape)", False),
])
def test_silent_checks(code, counts):
    assert silent_check(code) is counts


def test_check_offsets_place_a_check_in_the_script():
    code = "x = load('in.npy')\nassert x.ndim == 3\nsave('outputs/a.npy', x)\nassert len(rows) > 1\n"
    assert check_offsets(code) == [code.index("assert x"), code.index("assert len")]


def test_methods_judged_needs_a_verdict_not_a_list():
    listed = "## Candidates\n- Otsu threshold\n- U-Net\n- SynthSeg\n"
    assert methods_judged(listed, ["otsu", "u-net", "synthseg"]) == []
    judged = ("- Otsu threshold: chosen, no weights needed\n- U-Net: needs training data we lack\n"
              "- SynthSeg\n")
    assert methods_judged(judged, ["otsu", "u-net", "synthseg"]) == ["otsu", "u-net"]
    table = "| method | verdict |\n|---|---|\n| Otsu | chosen |\n| U-Net | considered |\n| SynthSeg | |\n"
    assert methods_judged(table, ["otsu", "u-net", "synthseg"]) == ["otsu", "u-net"]


def test_the_same_verdict_for_every_method_compares_nothing():
    """A column of one phrase, told apart only by a pick mark, judges no method; prose too."""
    same = ("| method | assessment | chosen |\n|---|---|---|\n| Otsu | good option, widely used | yes |\n"
            "| U-Net | good option, widely used | |\n| SynthSeg | good option, widely used | |\n")
    assert methods_judged(same, ["otsu", "u-net", "synthseg"]) == []
    prose = "- Otsu: works well, chosen ✓\n- U-Net: works well\n- SynthSeg: works well\n"
    assert methods_judged(prose, ["otsu", "u-net", "synthseg"]) == []
    differ = same.replace("| U-Net | good option, widely used |", "| U-Net | needs training data we lack |")
    assert methods_judged(differ, ["otsu", "u-net", "synthseg"]) == ["otsu", "u-net", "synthseg"]


def test_first_mention_skips_comments_and_carried_source():
    """The method's source written from a string, and a comment, name outputs the script does not
    touch there; the loop that writes them does."""
    code = ("import pathlib\n"
            "pathlib.Path('m.py').write_text('def run(a, out):\\n    save(out / \"organ.nii.gz\")\\n')\n"
            "# later: write outputs/<case>/organ.nii.gz\n"
            "x = load()\nassert x.shape == (64, 64, 64)\n"
            "for c in cases:\n    run(c, pathlib.Path('outputs') / c)\n")
    at = first_mention(code, ["outputs", "organ.nii.gz"])
    assert at == code.index("pathlib.Path('outputs')") + len("pathlib.Path('")
    assert check_offsets(code)[0] < at
    heredoc = ("cat > m.py <<'EOF'\nsave('outputs/x')\nEOF\n"
               "python3 - <<'EOF'\nassert x.shape == (3,)\nprint('outputs')\nEOF\n")
    assert first_mention(heredoc, ["outputs"]) == heredoc.index("print('outputs')") + len("print('")
    assert first_mention("ls outputs/", ["outputs"]) == 3     # no Python to read: every mention counts
    assert first_mention("print(1)", ["outputs"]) is None


def test_failed_attempts_are_told_apart_by_what_failed():
    loop = "".join(f"missing {m} - No module named '{m}'\n" for m in ("monai", "ants", "medpy", "torchio"))
    tb = "Traceback (most recent call last):\nModuleNotFoundError: No module named 'monai'\n"
    pip = ("ERROR: Could not find a version that satisfies the requirement bm3d==9\n"
           "ERROR: No matching distribution found for bm3d==9\nbash: nnUNetv2_predict: command not found\n")
    imports = {f"import {m}" for m in ("monai", "ants", "medpy", "torchio")}
    assert failed_attempts(loop) == imports
    assert failed_attempts(loop + tb) == imports     # the same module twice: one
    assert failed_attempts(pip) == {"install bm3d==9", "run nnUNetv2_predict"}
    assert failed_attempts("numpy 1.26.4 scipy 1.13\n") == set()
    # installing a package and importing it are two attempts, however the work was cut into calls
    both = "ERROR: No matching distribution found for llava\nModuleNotFoundError: No module named 'llava'\n"
    assert failed_attempts(both, installs=True) == {"install llava", "import llava"}
    # in a call that installs, every other error pip reports is an attempt that failed; one that
    # names a package is that package's; the resolver's note after a good install is none
    req = "ERROR: Could not open requirements file: [Errno 2] No such file or directory: 'requirements.txt'\n"
    note = "ERROR: pip's dependency resolver does not currently take into account all the packages\n"
    assert failed_attempts(pip + req + note, installs=True) == {"install bm3d==9", "run nnUNetv2_predict",
                                                                "install " + req[7:-1]}
    assert failed_attempts(pip + req + note) == {"install bm3d==9", "run nnUNetv2_predict"}    # no install in the call


def test_a_step_that_echoes_the_rubric_is_no_step():
    """Rubric boxes ticked name nothing to run; a step that names a file, a path or a method does."""
    echo = ("- 3+ candidate methods researched and compared ✓\n- weights / parameters obtained ✓\n"
            "- input compatibility checked ✓\n- environment importable ✓\n- model confirmed working ✓\n"
            "- pilot one case, inspect shape/values/plausibility, fix problems ✓\n")
    assert step_lines(echo, _rubric_words(), ["otsu"]) == []
    steps = ("1. Load each image.nii.gz with nibabel; check shape and spacing.\n"
             "2. Threshold with Otsu, keep the largest component.\n"
             "3. Pilot case_000 into scratch/pilot/, inspect shape and values.\n"
             "4. Run every case into outputs/.\n")
    assert len(step_lines(steps, _rubric_words(), ["otsu"])) == 4


def test_steps_must_name_something_to_run():
    """'understand the data / implement it / make sure it works' runs nothing; a candidates
    table's rows name methods but are not the steps when numbered steps exist."""
    from automedbench.scoring.judge.plan_facts import executable
    vague = ["1. understand the data", "2. implement it", "3. make sure it works",
             "| Otsu | chosen: simple |", "| U-Net | needs weights |"]
    assert not executable(vague, ["otsu", "u-net"])
    runnable = ["1. load each image.nii.gz", "2. threshold with Otsu", "3. write outputs/<case>/"]
    assert executable(runnable, ["otsu"])
    assert executable(["1. understand it", "2. smooth with sigma 1.5", "3. done"], [])    # a parameter
    assert executable(["1. load the data", "2. run the method", "3. save"], [])     # operations
    # the name of the work itself is no operation: "inference over the cohort" says what every plan could
    assert not executable(["1. Data understanding", "2. Model selection: best-in-class model",
                           "3. Scalable inference over the cohort"], [])
    assert executable(["1. Data understanding", "2. Model selection", "3. Run inference over the cohort"], [])
    table_only = ["| 1 | load | t1.nii.gz |", "| 2 | run | otsu |", "| 3 | save | outputs/ |"]
    assert executable(table_only, ["otsu"])


def test_installs_with_their_outcome_hidden_are_attempts_unless_used_later():
    """An install whose output is discarded and whose status is ignored shows nothing: the
    packages it names (or the loop's list) are attempts of unknown outcome (attempts.py)."""
    loop = ('for p in SimpleITK monai opencv-python-headless; do\n'
            '    python -m pip install --no-index --quiet "$p" >/dev/null 2>&1 || true\ndone\necho ready\n')
    assert hidden_attempts(loop) == {"simpleitk", "monai", "opencv_python_headless"}
    assert hidden_attempts("pip install -q nibabel scipy >/dev/null 2>&1 || true") == {"nibabel", "scipy"}
    # an outcome shown (output kept, or status not ignored) is read from the output instead
    assert hidden_attempts("pip install nibabel") == set()
    assert hidden_attempts("pip install nibabel >/dev/null 2>&1") == set()
    assert hidden_attempts("pip install nibabel || true") == set()


@pytest.mark.parametrize("code", [
    "assert a.ndim == len(a.shape)",                       # the same number twice
    "assert np.count_nonzero(a) <= a.size",                # a count of a's elements is never more than a's
    "assert a.size >= np.count_nonzero(a)",
    "assert all(isinstance(r['label'], str) for r in rows)",   # each CSV field is a str, always
    "assert len(rows) >= 0",
])
def test_checks_that_hold_for_any_file_are_no_checks(code):
    """Held-out sealed-10: asserts that ran on the pilot's content but cannot fail."""
    assert silent_check("a = load()\nrows = read()\n" + code) is False


def test_a_look_registered_to_run_at_exit_runs():
    """`atexit.register(look)` (or a thread's target) calls the function: its asserts run."""
    code = "def look():\n    m = load()\n    assert m.shape == (64, 64)\nimport atexit\natexit.register(look)\n"
    assert silent_check(code) is True
    assert silent_check(code.replace("atexit.register(look)", "pass")) is False
