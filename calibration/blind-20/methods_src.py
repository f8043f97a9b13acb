"""Method source text the blind-20 behaviours write into the sandbox (copied unchanged from blind-12's).

The classical methods the lite prompts name are the tracks' own method files
(src/automedbench/tracks/*/methods/), read on the host at generation time and given an
agent-style header; `bug=` / parameter variants are small textual edits used only by the
behaviours that need a slip, a different batch setting or an irrelevant "fix". Classification
also gets a small runner (`classify_cases.py`) that runs the track's classifier over the whole
cohort (its feature standardisation uses every public image) and writes the rows of the cases
asked for, so a few-case pilot and the batch are the same script.
"""
from __future__ import annotations

from pathlib import Path

TRACKS = Path(__file__).resolve().parents[2] / "src" / "automedbench" / "tracks"


def _read(rel: str) -> str:
    return (TRACKS / rel).read_text()


def _header(what: str) -> str:
    return f"# {what}\n# written for this run from the method the task prescribes\n"


def _sub(src: str, old: str, new: str) -> str:
    assert old in src, f"method text changed: {old!r} not found"
    return src.replace(old, new, 1)


# ---------------------------------------------------------------- enhancement
def enhance(bug: str | None = None, weight: float | None = None, note: str | None = None) -> str:
    src = _read("enhancement/methods/enhance_classical.py")
    if bug == "normalised":
        # slip: output left on the normalised [0, 1]-ish scale instead of the input's units
        src = _sub(src, '    y = enhance(x, info).astype(np.float32)\n',
                   '    y = enhance(x, info)\n    y = ((y - y.min()) / (y.max() - y.min() + 1e-9)).astype(np.float32)\n')
    if bug == "x255":
        # slip: output multiplied up to an 8-bit display scale, though the input is not on that scale
        src = _sub(src, '    y = enhance(x, info).astype(np.float32)\n',
                   '    y = (enhance(x, info) * 255.0).astype(np.float32)  # to display scale\n')
    if weight is not None:
        src = _sub(src, "weight=0.05)", f"weight={weight})")
    if note == "cast":
        # an irrelevant edit: cast through float64 first, then float32 as before
        src = _sub(src, '    np.save(out / "enhanced.npy", y)\n',
                   '    y = np.asarray(y, dtype=np.float64).astype(np.float32)  # make the dtype explicit\n'
                   '    np.save(out / "enhanced.npy", y)\n')
    return _header("enhance.py: TV denoising / cubic + back-projection SR") + src


# ---------------------------------------------------------------- synthesis
def zsr(bug: str | None = None, n_iter: int | None = None) -> str:
    src = _read("synthesis/methods/zsr_classical.py")
    if bug == "affine":
        # slip: the output keeps the thick-slice input's affine instead of the target grid's
        src = _sub(src, 'nib.Nifti1Image(vol, np.array(grid["affine"], dtype=np.float64))',
                   'nib.Nifti1Image(vol, img.affine)')
    if n_iter is not None:
        src = _sub(src, "vol = super_resolve(low, scale, shape[2])",
                   f"vol = super_resolve(low, scale, shape[2], n_iter={n_iter})")
    return _header("zsr.py: spline along z + slab-average back-projection") + src


# ---------------------------------------------------------------- vqa / report / detection
def vqa_rules(bug: str | None = None) -> str:
    src = _read("vqa/methods/vqa_rules.py")
    if bug == "unfinished":
        # slip: the unfinished branch left switched on (placeholder answers for most kinds)
        src = _sub(src, '    if careless and kind_of(q["question"]) not in ("count", "finding"):',
                   '    if kind_of(q["question"]) not in ("count", "finding"):')
        src = _sub(src, '        # (bug) "fill in the rest later": a placeholder answer and no record of the output\n',
                   "        # TODO other question kinds\n")
    return _header("vqa_rules.py: rule-based answerer") + src


def report_writer(bug: str | None = None, note: str | None = None) -> str:
    src = _read("reportgen/methods/report_writer.py")
    if bug == "body_part_key":
        # slip: a mistyped manifest key, so every study falls back to the chest branch
        src = _sub(src, 'str(st.get("body_part", "CHEST"))', 'str(st.get("bodypart", "CHEST"))')
    if note == "newlines":
        # an irrelevant edit: normalise line endings of the text before writing it
        src = _sub(src, '(out / sid / "report.txt").write_text(text, encoding="utf-8")',
                   '(out / sid / "report.txt").write_text(text.replace("\\r\\n", "\\n"), encoding="utf-8")'
                   '  # normalise newlines')
    return _header("report_writer.py: rule-based report writer") + src


def marker_detector(bug: str | None = None) -> str:
    src = _read("detection/methods/marker_detector.py")
    if bug == "normalised":
        # slip: box corners written as fractions of the image size instead of pixels
        src = _sub(src, '    out_dir.mkdir(parents=True, exist_ok=True)\n',
                   '    h, w = img.shape\n'
                   '    boxes = [{**b, "x1": b["x1"] / w, "x2": b["x2"] / w, "y1": b["y1"] / h, "y2": b["y2"] / h}\n'
                   '             for b in boxes]\n'
                   '    out_dir.mkdir(parents=True, exist_ok=True)\n')
    return _header("marker_detector.py: top-hat marker detector") + src


# ---------------------------------------------------------------- segmentation
def brain_common() -> str:
    return _read("segmentation/methods/brain_common.py")


def brain_lesion(bug: str | None = None, note: str | None = None) -> str:
    src = _read("segmentation/methods/brain_lesion_classical.py")
    if bug == "lesion_is_brain":
        # slip: the lesion mask returned is the whole brain (a leftover debugging line)
        src = _sub(src, "    return (hyper | hypo) & brain\n", "    return brain.copy()  # (hyper | hypo) & brain\n")
    if note == "cast":
        src = _sub(src, "        save_like(mask.astype(np.uint8), img_nii, outdir / f\"{name}.nii.gz\")\n",
                   "        save_like(np.asarray(mask, dtype=bool).astype(np.uint8), img_nii, outdir / f\"{name}.nii.gz\")"
                   "  # explicit cast\n")
    return _header("brain_lesion.py: classical brain + lesion masks") + src


def brain_tissue(bug: str | None = None) -> str:
    src = _read("segmentation/methods/brain_tissue_classical.py")
    if bug == "reversed":
        # slip: classes numbered from the brightest down, so 1 = white matter and 3 = CSF
        src = _sub(src, "    labels = (np.argmax(post, axis=0) + 1).astype(np.uint8)\n",
                   "    labels = (3 - np.argmax(post, axis=0)).astype(np.uint8)\n")
    return _header("brain_tissue.py: classical CSF / GM / WM label map") + src


# ---------------------------------------------------------------- classification
def patch_classifier(bug: str | None = None) -> str:
    src = _read("classification/methods/patch_classifier.py")
    if bug == "first_label":
        # slip: a leftover debugging line returns the first example's label for every case
        src = _sub(src, "    return [ex_labels[i] for i in dist.argmin(axis=1)]\n",
                   "    return [ex_labels[0] for i in dist.argmin(axis=1)]  # ex_labels[i]\n")
    return _header("patch_classifier.py: few-shot 1-NN on 18 image statistics") + src


CLASSIFY_CASES = """# classify_cases.py: run patch_classifier over the cohort, write the rows asked for
# usage: python classify_cases.py DATA_DIR OUT_CSV [CASE_ID ...]   (no ids: every case)
import csv, sys
from pathlib import Path

import patch_classifier as pc

data, out = Path(sys.argv[1]), Path(sys.argv[2])
wanted = set(sys.argv[3:])
cases = pc.case_dirs(data)                       # standardisation over every public image
preds = pc.classify(data, cases)
rows = [(c.name, p) for c, p in zip(cases, preds) if not wanted or c.name in wanted]
out.parent.mkdir(parents=True, exist_ok=True)
with open(out, "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["patient_id", "label"])
    w.writerows(rows)
print(len(rows), "rows written to", out)
"""


def classify_cases() -> str:
    return CLASSIFY_CASES
