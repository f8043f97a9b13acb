"""Source text of the method files the blind-3 behaviours write into their sandbox workspace.

The classical methods the lite prompts name are taken from the tracks' method files
(`tracks/*/methods/`), with their module docstring replaced by a short header of the kind an
agent writes, plus a few small wrappers written here. `bug=` variants are realistic slips used
only by the behaviours that need one (a sign error, a reversed class order, a copy-paste of the
wrong mask, a kind regex that matches too much, a label field filled with the answer text, a
volume saved on the input's grid); each patch asserts that the text it replaces exists.
"""
from __future__ import annotations

import re
import textwrap
from importlib import resources


def _ref(track_pkg: str, fname: str) -> str:
    return resources.files(f"automedbench.tracks.{track_pkg}.methods").joinpath(fname).read_text()


def _with_doc(src: str, doc: str) -> str:
    """Replace the module docstring (after an optional shebang) with `doc`."""
    i = src.index('"""')
    j = src.index('"""', i + 3) + 3
    return src[:i] + '"""' + doc.strip("\n") + '\n"""' + src[j:]


def _patch(src: str, old: str, new: str) -> str:
    assert src.count(old) == 1, f"patch target not found exactly once: {old!r}"
    return src.replace(old, new)


# ---- enhancement -------------------------------------------------------------------------
def enhance(bug: str | None = None) -> str:
    src = _with_doc(_ref("enhancement", "enhance_classical.py"),
                    "TV denoising (Chambolle) for CT / cubic + back-projection x2 SR for MR.\n\n"
                    "usage: python THIS.py CASE_DIR OUT_DIR   (writes OUT_DIR/enhanced.npy)")
    if bug == "bp_sign":   # residual taken the wrong way round: back-projection diverges
        src = _patch(src, "est = est + _upsample(x - _block_mean(est, scale), scale, shape)",
                     "est = est + _upsample(_block_mean(est, scale) - x, scale, shape)")
    return src


def enhance_fix_bp_sign(path: str) -> str:
    """Python code that repairs the bp_sign slip in the written file."""
    return textwrap.dedent(f"""\
        import pathlib
        p = pathlib.Path({path!r})
        s = p.read_text()
        bad = "est = est + _upsample(_block_mean(est, scale) - x, scale, shape)"
        assert bad in s
        p.write_text(s.replace(bad, "est = est + _upsample(x - _block_mean(est, scale), scale, shape)"))
        print("residual sign fixed: est += up(x - down(est))")
        """)


# ---- synthesis (z super-resolution) ------------------------------------------------------
def zsr() -> str:
    return _with_doc(_ref("synthesis", "zsr_classical.py"),
                     "x4 through-plane SR: cubic spline along z through the thick-slice centres +\n"
                     "5 back-projection iterations with the 4-slice slab-average model.\n\n"
                     "usage: python THIS.py CASE_DIR OUT_DIR   (writes OUT_DIR/sct.nii.gz on target_grid.json)")


ZSR_RUN_AFFINE_BUG = '''\
"""Run the z-SR method on one case and save it (wrapper around zsr.py)."""
import json, sys
from pathlib import Path
import nibabel as nib
import numpy as np
from zsr import super_resolve

case, out = Path(sys.argv[1]), Path(sys.argv[2])
img = nib.load(str(case / "lowres.nii.gz"))
low = np.asarray(img.dataobj, dtype=np.float64)
grid = json.loads((case / "target_grid.json").read_text())
vol = super_resolve(low, int(grid["scale_z"]), int(grid["shape"][2]))
out.mkdir(parents=True, exist_ok=True)
nib.save(nib.Nifti1Image(vol, img.affine), str(out / "sct.nii.gz"))
print(case.name, "->", out / "sct.nii.gz")
'''


# ---- VQA ---------------------------------------------------------------------------------
def vqa_rules() -> str:
    src = _with_doc(_ref("vqa", "vqa_rules.py"),
                    "Rule-based VQA: question kind from the text (count / finding / plane / modality / region),\n"
                    "answer from image statistics; MCQ: answer matched to the option texts.\n\n"
                    "usage: python vqa_rules.py DATA_DIR OUT_DIR [--only QID ...]")
    # drop the unused placeholder branch
    src = re.sub(r"\n    if careless and kind_of\(q\[\"question\"\]\).*?\"model_name\": MODEL_NAME\}\n",
                 "\n", src, count=1, flags=re.S)
    assert "careless and kind_of" not in src
    return src.replace("--careless", "--quick").replace("careless", "quick")


VQA_AGENT_KIND_BUG = '''\
"""My answerer: vqa_rules.py's image rules with my own question-kind parser."""
import json, re, sys
from pathlib import Path
import vqa_rules


def kind_of(question):
    q = question.lower()
    if re.search(r"\\b(is|are|does|do)\\b", q):          # yes/no questions first
        return "finding"
    if re.search(r"\\bhow many\\b|\\bcount\\b|\\bnumber of\\b", q):
        return "count"
    if "plane" in q:
        return "plane"
    if re.search(r"modality|type of imaging|kind of (medical )?image|imaging technique", q):
        return "modality"
    if re.search(r"region|part of the body|body part|anatomical", q):
        return "region"
    return "unknown"


vqa_rules.kind_of = kind_of

if __name__ == "__main__":
    data, out = Path(sys.argv[1]), Path(sys.argv[2])
    only = sys.argv[sys.argv.index("--only") + 1:] if "--only" in sys.argv else None
    print(vqa_rules.run(data, out, only), "questions answered")
'''

MCQ_AGENT_LABEL_BUG = '''\
"""MCQ runner around vqa_rules.answer_question: one answer.json per question."""
import json, sys
from pathlib import Path
from vqa_rules import answer_question

data, out = Path(sys.argv[1]), Path(sys.argv[2])
only = sys.argv[sys.argv.index("--only") + 1:] if "--only" in sys.argv else None
n = 0
for q in sorted(p for p in data.iterdir() if (p / "question.json").is_file()):
    if only and q.name not in only:
        continue
    ans = answer_question(q)
    ans["predicted_label"] = ans["predicted_answer"]
    (out / q.name).mkdir(parents=True, exist_ok=True)
    (out / q.name / "answer.json").write_text(json.dumps(ans, indent=1))
    n += 1
print(n, "answers written")
'''


# ---- report generation -------------------------------------------------------------------
def report_writer() -> str:
    src = _with_doc(_ref("reportgen", "report_writer.py"),
                    "Rule-based radiograph report writer: frontal view, zone densities + DoG blobs (chest),\n"
                    "transverse lucent lines (tibia), robust z-scores against the cohort, templated sentences.\n\n"
                    "usage: python report_writer.py DATA_DIR OUT_DIR [--only STUDY_ID]")
    return src.replace("--careless", "--chest-only").replace("careless", "chest_only")


REPORT_TEMPLATE = '''\
"""Normal-study template report for every study (plan: most demo studies are normal)."""
import sys
from pathlib import Path

TEMPLATE = ("FINDINGS:\\nThe lungs are clear. No pleural effusion or pneumothorax. "
            "The cardiomediastinal silhouette is normal. No acute osseous abnormality.\\n\\n"
            "IMPRESSION:\\nNo acute cardiopulmonary abnormality.\\n")
data, out = Path(sys.argv[1]), Path(sys.argv[2])
n = 0
for study in sorted(p for p in data.iterdir() if (p / "manifest.json").is_file()):
    (out / study.name).mkdir(parents=True, exist_ok=True)
    (out / study.name / "report.txt").write_text(TEMPLATE, encoding="utf-8")
    n += 1
print(n, "reports written")
'''


# ---- segmentation ------------------------------------------------------------------------
def brain_common() -> str:
    return _with_doc(_ref("segmentation", "brain_common.py"),
                     "Shared pieces: Otsu brain mask, morphology, bias correction, k-means, NIfTI save.")


def brain_lesion(bug: str | None = None) -> str:
    src = _with_doc(_ref("segmentation", "brain_lesion_classical.py"),
                    "Brain + focal white-matter lesion segmentation of a T1 volume (classical).\n\n"
                    "usage: python brain_lesion.py INPUT.nii.gz OUTDIR   (organ.nii.gz + lesion.nii.gz)")
    if bug == "lesion_is_organ":   # copy-paste slip: the organ mask saved under both names
        src = _patch(src, 'for name, mask in (("organ", brain), ("lesion", lesion)):',
                     'for name, mask in (("organ", brain), ("lesion", brain)):')
    return src


BRAIN_ONLY = '''\
"""Brain mask (Otsu + morphology + bias-corrected re-threshold); lesion mask written empty."""
import sys
from pathlib import Path
import numpy as np
from brain_common import load_and_prepare, refine_mask, save_like

prepared = load_and_prepare(sys.argv, "usage: python brain_only.py INPUT.nii.gz OUTDIR")
if isinstance(prepared, int):
    sys.exit(prepared)
src, outdir, img_nii, img, box, norm = prepared
brain = np.zeros(img.shape, dtype=np.uint8)
brain[box] = refine_mask(norm)
save_like(brain, img_nii, Path(outdir) / "organ.nii.gz")
save_like(np.zeros(img.shape, dtype=np.uint8), img_nii, Path(outdir) / "lesion.nii.gz")
print(outdir, "done")
'''


def brain_tissue(bug: str | None = None) -> str:
    src = _with_doc(_ref("segmentation", "brain_tissue_classical.py"),
                    "Brain tissue classes of a T1 volume: Otsu brain mask, bias correction, 3-class\n"
                    "Gaussian mixture on brain voxels, posterior smoothing.\n\n"
                    "usage: python tissue_seg.py INPUT.nii.gz OUTDIR   (labels.nii.gz: 1 CSF, 2 GM, 3 WM)")
    if bug == "reversed_order":
        src = _patch(src, "    order = np.argsort(mu)\n",
                     "    order = np.argsort(mu)[::-1]   # class 1 = brightest\n")
    return src


def tissue_fix_order(path: str) -> str:
    return textwrap.dedent(f"""\
        import pathlib
        p = pathlib.Path({path!r})
        s = p.read_text()
        bad = "    order = np.argsort(mu)[::-1]   # class 1 = brightest\\n"
        assert bad in s
        p.write_text(s.replace(bad, "    order = np.argsort(mu)           # ascending T1: CSF < GM < WM\\n"))
        print("class order fixed: ascending means -> 1 CSF, 2 GM, 3 WM")
        """)


# ---- detection ---------------------------------------------------------------------------
def marker_detector() -> str:
    return _with_doc(_ref("detection", "marker_detector.py"),
                     "Radiopaque marker detector: white top-hat (25 px disc), threshold, connected\n"
                     "components, round 6-34 px; ring vs marker by hole filling; bounding boxes.\n\n"
                     "usage: python marker_detector.py IMAGE.png OUT_DIR")


# ---- classification ----------------------------------------------------------------------
def patch_classifier() -> str:
    return _with_doc(_ref("classification", "patch_classifier.py"),
                     "Few-shot 1-NN on 18 image statistics against _examples/labels.csv, features\n"
                     "standardised over all public images.\n\n"
                     "usage: python patch_classifier.py DATA_DIR OUT_CSV")


CLASSIFY_CASES = '''\
"""Classify all cases (standardisation over every public image) and write the rows of the
requested case ids, or of every case when none is given.

usage: python classify_cases.py OUT_CSV [CASE_ID ...]"""
import csv, sys
from pathlib import Path
from patch_classifier import case_dirs, classify

DATA = Path("/data/public")
out_csv, wanted = Path(sys.argv[1]), sys.argv[2:]
cases = case_dirs(DATA)
preds = dict(zip((c.name for c in cases), classify(DATA, cases)))
rows = [(cid, preds[cid]) for cid in (wanted or list(preds))]
out_csv.parent.mkdir(parents=True, exist_ok=True)
with open(out_csv, "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["patient_id", "label"])
    w.writerows(rows)
print(len(rows), "rows written to", out_csv)
'''
