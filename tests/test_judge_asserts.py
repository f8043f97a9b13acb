"""Silent checks and judged candidates, the two code/text readings the judge relies on
(docs/judge.md "Content facts", "S1 Plan"): an assert that could fail on the data counts, one
that holds for any file does not; a method with a verdict on its line is compared, a bare list
of names is not."""
import pytest

from automedbench.scoring.judge.asserts import check_offsets, silent_check
from automedbench.scoring.judge.plan_facts import methods_judged


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
