"""Another version of the method, or another method (scoring/judge/versions.py; docs/judge.md
"A pilot of another method"), on the tracks' own method files."""
from pathlib import Path

import automedbench.tracks as tracks_pkg
from automedbench.scoring.judge.versions import SAME_METHOD_RATIO, code_shape, same_method, versions_of

TRACKS = Path(tracks_pkg.__file__).parent
ENHANCE = (TRACKS / "enhancement/methods/enhance_classical.py").read_text()
ZSR = (TRACKS / "synthesis/methods/zsr_classical.py").read_text()
QUICK = """import sys, numpy as np
from scipy import ndimage
x = np.load(sys.argv[1])
np.save(sys.argv[2], ndimage.gaussian_filter(x, 1.2).astype(np.float32))
"""


def _one_number_changed(src: str) -> str:
    i = next(i for i, ch in enumerate(src) if ch.isdigit())
    return src[:i] + ("7" if src[i] != "7" else "3") + src[i + 1:]


def test_settings_comments_and_a_fixed_line_leave_the_method():
    assert same_method(ENHANCE, _one_number_changed(ENHANCE))
    assert same_method(ENHANCE, "# version 2: stronger smoothing\n" + ENHANCE.replace('"', "'"))
    lines = ENHANCE.splitlines(keepends=True)
    fixed = "".join(lines[:40] + ["    y = np.clip(y, 0, None)\n"] + lines[40:])
    assert same_method(ENHANCE, fixed)
    # the piloted code grown into a batch script nearly twice its length: a loop over the cases
    loop = "\nfor case in sorted(Path(sys.argv[1]).iterdir()):\n    main(case, Path(sys.argv[2]) / case.name)\n"
    assert same_method(QUICK, QUICK + loop)
    # literals are placeholders: the shape of the code, not its values
    assert code_shape("x = 1.5\ny = 'a'\n") == code_shape("x = 3\ny = 'bb'  # why\n")


def test_another_method_is_not_a_version():
    assert not same_method(QUICK, ENHANCE)
    assert not same_method(ENHANCE, ZSR)          # two tracks' methods from one house style
    assert not same_method("", ENHANCE) and not same_method(ENHANCE, "")
    # text that is not Python is compared by its words
    assert code_shape("if [ -f x ]; then echo 1; fi")[:3] == ("if", "[", "-")
    assert 0.5 < SAME_METHOD_RATIO < 1


def test_versions_of_by_path_by_copy_and_by_text():
    texts = {"/w/quick.py": [QUICK], "/w/method.py": [ENHANCE], "/w/method_v2.py": [_one_number_changed(ENHANCE)]}
    assert versions_of("/w/method.py", "/w/method.py", texts, set())
    assert versions_of("/w/method.py", "/w/method_v2.py", texts, set())
    assert not versions_of("/w/quick.py", "/w/method.py", texts, set())
    # made from it by a step that opened it (cp, sed): a version whatever its text
    assert versions_of("/w/quick.py", "/w/method.py", texts, {("/w/quick.py", "/w/method.py")})
    # a text the judge does not know: nothing to compare, the credit is kept
    assert versions_of("/w/quick.py", "/w/run.py", texts, set())
    # any of a file's texts counts (it was rewritten between the pilot and the batch)
    assert versions_of("/w/quick.py", "/w/method.py", {**texts, "/w/method.py": [QUICK + "\n", ENHANCE]}, set())
