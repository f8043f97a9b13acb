"""Plausibility as one mechanism: an output's facts against its input's facts, without the
reference (docs/judge.md "Plausibility").

A track says how the facts of one output relate to the facts of its input (`Track.relations`:
a list of the four relations below, built from the output as `check_case` read it and from the
case's public folder), and `mismatch` compares them, here, the same way for every track. What it
finds is `Track.plausibility`'s answer, so the harness's per-output check, the judge's "evident
problem" (a pilot output that fails that check) and the site's Why of a case say the same thing.

- `Values`: the output's values are in its input's units — the input's own range and scale,
  whatever they are (HU, or the arbitrary units of an MR image): compared through the task's own
  public degradation model where the output can be brought onto the input's grid (the same grid
  for denoising, block or slab means for super-resolution), else by percentiles; and it is not
  its input copied or each value repeated (the trivial baseline);
- `Geometry`: boxes are in the input image's pixel grid (not fractions of it, not sub-pixel);
- `Subject`: what a generated text is about (its body part, modality) is what the input's own
  public metadata says the study is;
- `Answer`: an answer is of the kind its question asks for (yes or no, one of the options, a
  count, a plane, a modality, a body region);
- `Classes`: a label map's classes are ordered by their input's intensity as the task says its
  contrast orders them (CSF darkest, then grey matter, then white matter in a T1 MRI).

Each comparison abstains (says nothing) where a fact is missing or the relation cannot be
decided; no reference value is ever read here."""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from .units import not_in_input_units

# ---- values: the input's own units ---------------------------------------------------------
# the input regressed on the output brought to the input's grid (the task's degradation): 1 in the
# same units. Smoothing raises it a little (an honest denoiser or interpolator: 1.00-1.05 on the
# demo data), so only a slope below SCALE[0] (the output's values stretched: a [0, 1] rescale of an
# MR slice spanning 0..0.94 gives 0.95) or above SCALE[1] (shrunk by a fifth) is another scale
SCALE = (0.97, 1.25)
# the output's mean on the input's grid moved from the input's by more than this fraction of the
# input's 1st-99th percentile spread: an offset (denoising and the degradation's mean keep the
# mean: honest outputs on the demo data move it by under 0.012; a [0, 1] rescale of an MR slice
# whose interpolation undershot 0 moves it by 0.08)
OFFSET = 0.04
# below this correlation with its input on the input's grid the output does not follow its input
# (mirrored, shifted, another case's: 0.42-0.82 on the demo data); honest outputs correlate
# 0.95-1.0 there (a denoiser's correlation falls with the input's noise: 0.9 is noise of about
# half the signal's spread). Decided before the scale, which a poor correlation also lowers
FOLLOWS = 0.9
MAX_FIT_VALUES = 1 << 20      # values of a fit (a volume is subsampled evenly beyond this)
# an output within this fraction of the input's spread of its input, every block of it flat, is
# the input copied or each value repeated (the trivial baseline: identity, nearest neighbour); an
# honest denoiser or interpolator moves values by percents of the spread, float32 rounding by 1e-7
COPIED = 1e-4


@dataclass(frozen=True)
class Values:
    """The output's values are in the input's units. `to_input_grid` is the task's own public
    degradation (the identity for a denoiser, the mean of each block or slab for
    super-resolution): the output as the input would show it; None where no such map is known
    (then the percentiles alone are compared)."""
    output: np.ndarray
    input: np.ndarray
    to_input_grid: Callable[[np.ndarray], np.ndarray] | None = None


@dataclass(frozen=True)
class Geometry:
    """Boxes `(n, 4)` as x1, y1, x2, y2 are in the pixel grid of the input image of
    `width` x `height` pixels."""
    boxes: np.ndarray
    width: int
    height: int


@dataclass(frozen=True)
class Subject:
    """What the output is about (`said`: the body parts, modalities, ... it names) is what the
    input's public metadata says (`meant`), in one vocabulary; `what` names the fact."""
    what: str
    said: frozenset[str]
    meant: frozenset[str]
    output_name: str = "the output"
    source: str = "the input's metadata"


@dataclass(frozen=True)
class Answer:
    """An answer is of the kind its question asks for (`asked`: a key of ANSWER_KINDS, "yes/no"
    or "option"); `options` are a multiple-choice question's keys and texts."""
    asked: str
    answer: str
    options: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Classes:
    """A label map's classes follow its input's contrast: `order` lists label values from the
    darkest to the brightest in the input, as the task states its modality orders them; `names`
    the classes' names for the finding."""
    labels: np.ndarray
    input: np.ndarray
    order: tuple[int, ...]
    names: dict[int, str]


Relation = Values | Geometry | Subject | Answer | Classes


def mismatch(relations: Sequence[Relation]) -> str:
    """The first relation the output breaks, in words, or "" (never raises: a fact that cannot
    be read is no finding)."""
    for rel in relations:
        try:
            why = _COMPARE[type(rel)](rel)
        except (ValueError, TypeError, IndexError, FloatingPointError, MemoryError):
            why = ""
        if why:
            return why
    return ""


# ---- values ----------------------------------------------------------------------------------
def _values(rel: Values) -> str:
    out = np.asarray(rel.output, dtype=np.float64)
    src = np.asarray(rel.input, dtype=np.float64)
    if not out.size or not src.size or not np.isfinite(out).all() or not np.isfinite(src).all():
        return ""
    coarse = not_in_input_units(out, src)
    if coarse or rel.to_input_grid is None:
        return coarse
    seen = np.asarray(rel.to_input_grid(out), dtype=np.float64)
    if seen.shape != src.shape:
        return ""
    x, y = _sample(seen.ravel()), _sample(src.ravel())
    lo, hi = np.percentile(y, [1, 99])
    spread, vx = hi - lo, float(x.var())
    if spread <= 0 or vx <= 0 or float(y.var()) <= 0:
        return ""
    # the input's values on its grid, and each block flat (its variance, a second pass, only then)
    if float(np.abs(seen - src).max()) <= COPIED * spread and float(
            (np.asarray(rel.to_input_grid(out * out), dtype=np.float64) - seen * seen).max()) <= (COPIED * spread) ** 2:
        return ("the output is its input, each value copied or repeated over its block (the trivial "
                "baseline: identity, nearest neighbour): nothing was enhanced")
    r = float(np.corrcoef(x, y)[0, 1])
    if r < FOLLOWS:
        return (f"on the input's grid the output does not follow its input (correlation {r:.2f}): "
                f"mirrored, shifted or not this case's")
    slope = float(((x - x.mean()) * (y - y.mean())).mean() / vx)
    offset = float(x.mean() - y.mean())
    if not SCALE[0] <= slope <= SCALE[1]:
        return (f"on the input's grid the output's values are {1 / slope:.3g} times the input's "
                f"(input spans {lo:.3g}..{hi:.3g}): not in the input's units, its own scale not kept")
    if abs(offset) > OFFSET * spread:
        return (f"on the input's grid the output's mean is offset by {offset:.3g} from the input's "
                f"(its 1st-99th percentile spread {spread:.3g}): not in the input's units")
    return ""


def _sample(a: np.ndarray) -> np.ndarray:
    step = max(1, a.size // MAX_FIT_VALUES)
    return a[::step]


def block_mean(scale: Sequence[int]) -> Callable[[np.ndarray], np.ndarray]:
    """The mean of each block of `scale` (one factor per axis; trailing samples that fill no
    whole block are dropped): a super-resolution task's degradation, as its input shows an output."""
    def degrade(a: np.ndarray) -> np.ndarray:
        f = tuple(int(s) for s in scale)
        if len(f) != a.ndim or min(f) < 1:
            raise ValueError("block shape does not fit the output")
        a = a[tuple(slice(0, (n // s) * s) for n, s in zip(a.shape, f))]
        shape = [v for n, s in zip(a.shape, f) for v in (n // s, s)]
        return a.reshape(shape).mean(axis=tuple(range(1, 2 * a.ndim, 2)))
    return degrade


# ---- geometry --------------------------------------------------------------------------------
# an image at least this wide or high whose every box coordinate is at most 1 holds fractions
FRACTION_MIN_SIDE = 8


def _geometry(rel: Geometry) -> str:
    b = np.asarray(rel.boxes, dtype=np.float64).reshape(-1, 4)
    if not len(b) or max(rel.width, rel.height) < FRACTION_MIN_SIDE:
        return ""
    grid = f"the {rel.width}x{rel.height} image's pixel grid"
    if float(np.abs(b).max()) <= 1.0:
        return (f"every box coordinate is between 0 and 1 ({len(b)} box{'es' if len(b) != 1 else ''}): "
                f"fractions of the image, not pixels of {grid}")
    w, h = b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]
    if float(np.maximum(w, h).max()) < 1.0:
        return f"every box is smaller than one pixel (largest side {float(np.maximum(w, h).max()):.2g} px): not in {grid}"
    return ""


# ---- classes -------------------------------------------------------------------------------
# a class with fewer voxels than this says nothing about its intensity (a speck, or absent)
MIN_CLASS_VOXELS = 50


def _classes(rel: Classes) -> str:
    labels, image = np.asarray(rel.labels), np.asarray(rel.input, dtype=np.float64)
    if labels.shape != image.shape or not np.isfinite(image).all():
        return ""
    medians = [(v, float(np.median(image[labels == v]))) for v in rel.order
               if int((labels == v).sum()) >= MIN_CLASS_VOXELS]
    for (a, ma), (b, mb) in zip(medians, medians[1:]):
        if ma >= mb:
            name = rel.names.get
            return (f"class {a} ({name(a, a)}) is brighter in the input than class {b} ({name(b, b)}): "
                    f"median {ma:.3g} vs {mb:.3g}, where the task's contrast orders them "
                    + " < ".join(str(name(v, v)) for v in rel.order) + ": labels swapped")
    return ""


# ---- subject ---------------------------------------------------------------------------------
def _subject(rel: Subject) -> str:
    if not rel.said or not rel.meant or rel.said & rel.meant:
        return ""
    return (f"{rel.output_name} is about the {' and '.join(sorted(rel.said))} ({rel.what}); "
            f"{rel.source} says {' or '.join(sorted(rel.meant))}")


# ---- answers ---------------------------------------------------------------------------------
# the words that make an answer of each kind (lower case; a kind matches when one of its words or
# phrases is in the answer). An answer of none of these kinds is not judged: it may be a synonym
ANSWER_KINDS: dict[str, tuple[str, ...]] = {
    "count": ("zero", "none", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
              "ten", "single", "multiple", "several", "many", "no lesion", "no lesions"),
    "plane": ("axial", "coronal", "sagittal", "transverse", "transaxial", "oblique", "frontal",
              "lateral", "horizontal", "longitudinal", "cross-sectional", "cross sectional"),
    "modality": ("ct", "cta", "computed tomography", "mri", "mr", "magnetic resonance", "t1", "t2",
                 "flair", "dwi", "adc", "x-ray", "xray", "x ray", "radiograph", "radiography", "cr",
                 "dx", "ultrasound", "us", "sonography", "sonogram", "echocardiography", "doppler",
                 "microscopy", "histology", "histopathology", "pathology", "cytology", "h&e",
                 "fundus", "photograph", "photography", "dermoscopy", "dermatoscopy", "endoscopy",
                 "colonoscopy", "nuclear", "pet", "spect", "scintigraphy", "mammography",
                 "mammogram", "oct", "angiography", "angiogram", "fluoroscopy", "tomography"),
    "region": ("head", "brain", "skull", "neck", "chest", "thorax", "lung", "lungs", "heart",
               "abdomen", "abdominal", "pelvis", "pelvic", "spine", "spinal", "limb", "leg", "arm",
               "knee", "ankle", "foot", "hand", "wrist", "elbow", "shoulder", "hip", "body",
               "breast", "eye", "retina", "skin", "liver", "kidney", "colon", "bone", "extremity",
               "extremities", "mouth", "teeth", "jaw", "face", "sinus", "cardiac", "thoracic"),
    "yes/no": ("yes", "no"),
}
_NUMBER = re.compile(r"^\s*\d+(\.\d+)?\b")
_TOKEN = re.compile(r"[a-z0-9&+\-]+")


def answer_kinds(answer: str) -> set[str]:
    """The kinds `answer`'s words belong to (its first word alone for yes/no, a leading number
    for a count)."""
    text = answer.strip().lower()
    words = _TOKEN.findall(text)
    joined = f" {' '.join(words)} "
    kinds = {k for k, vocab in ANSWER_KINDS.items() if k != "yes/no" and any(f" {w} " in joined for w in vocab)}
    if words and words[0] in ("yes", "no"):
        kinds.add("yes/no")
    if _NUMBER.match(text):
        kinds.add("count")
    return kinds


def _answer(rel: Answer) -> str:
    text = rel.answer.strip()
    if not text:
        return ""       # an empty answer is a trivial output (the per-output check), not a misfit
    if rel.asked == "option":
        if text.lower() in {o.lower() for o in rel.options}:
            return ""
        return f"answer {text[:30]!r} is none of the options {sorted(rel.options)[:8]}"
    kinds = answer_kinds(text)
    if rel.asked == "yes/no":
        # the first word says yes or no, whatever follows ("no acute fracture")
        first = _TOKEN.findall(text.lower())[:1]
        return "" if not first or first[0] in ("yes", "no") else f"a yes/no question answered {text[:30]!r}"
    if rel.asked not in ANSWER_KINDS or not kinds or rel.asked in kinds:
        return ""
    other = sorted(kinds)[0]
    return (f"a {rel.asked} question answered {text[:30]!r} "
            f"({'yes or no' if other == 'yes/no' else 'a ' + other})")


_COMPARE: dict[type, Callable[..., str]] = {Values: _values, Geometry: _geometry, Subject: _subject,
                                            Answer: _answer, Classes: _classes}
