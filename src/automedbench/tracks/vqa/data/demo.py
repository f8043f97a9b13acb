"""Embedded demo VQA datasets: real images from PyPI packages, templated questions whose answers
are known from provenance — real anatomy, simulated findings.

Images come from sources.py (nilearn MNI152 T1 slices, pydicom / pydicom-data DICOM files,
scikit-image fundus and IHC images). Per question, seeded transforms: a random crop (88-100 %
of each side), a resize (longest side 160-256 px), a contrast/gamma jitter and Gaussian noise.
On the MNI slices and the head CT, 0-3 SIMULATED focal lesions (bright round blobs, radius
2-3.5 % of the image, intensity above every tissue pixel) may be inserted inside the brain.

Question types and where the answer comes from:
  modality   DICOM Modality tag / the package's documentation of the file
  region     DICOM BodyPartExamined / StudyDescription / documented content
  plane      the axis the MNI volume was sliced along (or the axial CT/MR acquisitions)
  finding    yes/no: whether simulated lesions were inserted
  count      the number of inserted lesions (0-3)
Open task: free-text answers (the reference lists accepted alternatives). MCQ task: the same
questions with 2-4 options labelled A-D in a seeded order.
Same seed -> byte-identical files.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import numpy as np

from ....data import DatasetPaths, write_manifest
from .sources import Source, mni_slice, still_sources

Progress = Callable[[int, int, str], None]
GENERATOR_VERSION = 1
OPEN_DATASET = "vqa-demo-open"
MCQ_DATASET = "vqa-demo-mcq"

# question type -> share of the questions
TYPE_MIX = {"modality": 0.24, "region": 0.18, "plane": 0.2, "finding": 0.19, "count": 0.19}
TEMPLATES = {
    "modality": ["What imaging modality was used to acquire this image?",
                 "Which imaging modality is shown?", "What type of imaging is this?",
                 "What kind of medical image is this?"],
    "region": ["Which body region is shown in this image?", "What part of the body is imaged?",
               "Which anatomical region does this image show?"],
    "plane": ["In which plane is this image acquired?", "What is the imaging plane of this slice?",
              "Which anatomical plane does this slice lie in?"],
    "finding": ["Is there a focal bright lesion in this image?",
                "Does this image show any focal hyperintense lesion?",
                "Are there any abnormal bright spots in this image?"],
    "count": ["How many focal bright lesions are visible?", "How many bright lesions does this image show?",
              "Count the focal hyperintense lesions in this image."],
}
ANSWER_TEXT = {  # canonical answer -> (shown answer, alternatives accepted for open questions)
    "mri": ("MRI", ["magnetic resonance imaging"]), "ct": ("CT", ["computed tomography"]),
    "xray": ("X-ray", ["radiograph"]), "ultrasound": ("ultrasound", ["sonography"]),
    "nuclear medicine": ("nuclear medicine", ["bone scintigraphy", "scintigraphy"]),
    "fundus photography": ("fundus photography", ["fundus photograph"]),
    "microscopy": ("microscopy", ["histology", "immunohistochemistry"]),
    "head": ("head", ["brain"]), "chest": ("chest", ["thorax", "lungs"]),
    "abdomen": ("abdomen", ["upper abdomen"]), "shoulder": ("shoulder", []),
    "extremity": ("lower limb", ["extremity", "leg"]), "whole body": ("whole body", []),
    "eye": ("eye", ["retina", "fundus"]),
    "axial": ("axial", []), "coronal": ("coronal", []), "sagittal": ("sagittal", []),
}
MODALITIES = ["mri", "ct", "xray", "ultrasound", "nuclear medicine", "fundus photography", "microscopy"]
REGIONS = ["head", "chest", "abdomen", "shoulder", "extremity", "whole body", "eye"]
PLANES = ["axial", "coronal", "sagittal"]
LESION_VALUE = (0.93, 1.0)      # grey level of a simulated lesion; tissue is scaled to <= 0.78
TISSUE_MAX = 0.78


def _choose_source(rng: np.random.Generator, qtype: str) -> Source:
    stills = still_sources()
    if qtype in ("finding", "count") or (qtype == "plane" and rng.random() < 0.8):
        if qtype != "plane" and rng.random() < 0.25:
            return next(s for s in stills if s.name == "ct_head")
        plane = PLANES[int(rng.integers(3))]
        return mni_slice(plane, float(rng.uniform(0.3, 0.7)))
    pool = [s for s in stills if (qtype != "region" or s.region) and (qtype != "plane" or s.plane)]
    if qtype in ("modality", "region") and rng.random() < 0.2:
        return mni_slice(PLANES[int(rng.integers(3))], float(rng.uniform(0.3, 0.7)))
    return pool[int(rng.integers(len(pool)))]


def _resample(rng: np.random.Generator, img: np.ndarray, mask: np.ndarray | None
              ) -> tuple[np.ndarray, np.ndarray | None]:
    from PIL import Image
    h, w = img.shape[:2]
    ch, cw = int(h * rng.uniform(0.88, 1.0)), int(w * rng.uniform(0.88, 1.0))
    y0, x0 = int(rng.integers(0, h - ch + 1)), int(rng.integers(0, w - cw + 1))
    img = img[y0:y0 + ch, x0:x0 + cw]
    side = int(rng.integers(160, 257))
    scale = side / max(ch, cw)
    size = (max(8, round(cw * scale)), max(8, round(ch * scale)))
    if img.dtype == np.uint8:
        out = np.asarray(Image.fromarray(img).resize(size, Image.Resampling.BILINEAR))
    else:
        out = np.asarray(Image.fromarray(img.astype(np.float32), mode="F").resize(size, Image.Resampling.BILINEAR))
    if mask is not None:
        m = mask[y0:y0 + ch, x0:x0 + cw].astype(np.uint8) * 255
        mask = np.asarray(Image.fromarray(m).resize(size, Image.Resampling.NEAREST)) > 127
    return out, mask


def _insert_lesions(rng: np.random.Generator, img: np.ndarray, mask: np.ndarray, n: int
                    ) -> tuple[np.ndarray, list[dict[str, Any]]]:
    """n bright soft-edged discs inside `mask`, apart from each other. img: grey in [0, 1]."""
    h, w = img.shape
    out = img.copy()
    placed: list[dict[str, Any]] = []
    yy, xx = np.mgrid[0:h, 0:w]
    candidates = np.argwhere(mask)
    for _ in range(200):
        if len(placed) == n or len(candidates) == 0:
            break
        r = float(rng.uniform(0.02, 0.035) * max(h, w))
        cy, cx = candidates[int(rng.integers(len(candidates)))]
        if any((cy - p["y"]) ** 2 + (cx - p["x"]) ** 2 < (2.5 * max(r, p["r"])) ** 2 for p in placed):
            continue
        d = np.sqrt((yy - cy) ** 2 + (xx - cx) ** 2)
        member = np.clip((r - d) / 1.5 + 0.5, 0, 1)          # ~1.5 px soft edge
        level = float(rng.uniform(*LESION_VALUE))
        out = out * (1 - member) + level * member
        placed.append({"y": int(cy), "x": int(cx), "r": round(r, 2), "level": round(level, 3)})
    if len(placed) != n:
        raise RuntimeError(f"could place only {len(placed)} of {n} lesions")
    return out, placed


def _render(rng: np.random.Generator, source: Source, n_lesions: int) -> tuple[np.ndarray, list]:
    img, mask = _resample(rng, source.image, source.lesion_mask)
    lesions: list = []
    if img.dtype == np.uint8:                                 # colour: gamma + noise only
        f = (img / 255.0) ** rng.uniform(0.85, 1.15) + rng.normal(0, 0.01, img.shape)
        return np.clip(np.rint(f * 255), 0, 255).astype(np.uint8), lesions
    g = np.clip(img, 0, 1) ** rng.uniform(0.85, 1.15) * TISSUE_MAX
    if n_lesions:
        if mask is None:
            raise ValueError(f"{source.name}: no lesion mask to place {n_lesions} lesion(s) in")
        g, lesions = _insert_lesions(rng, g, mask, n_lesions)
    g = g + rng.normal(0, 0.008, g.shape)
    return np.clip(np.rint(g * 255), 0, 255).astype(np.uint8), lesions


def _question(rng: np.random.Generator, qtype: str, source: Source, n_lesions: int
              ) -> tuple[str, str, list[str], str, list[str]]:
    """(question, answer, alternatives, answer_type, option pool) for one templated question."""
    text = TEMPLATES[qtype][int(rng.integers(len(TEMPLATES[qtype])))]
    if qtype == "finding":
        ans = "yes" if n_lesions else "no"
        return text, ans, [], "closed", ["yes", "no"]
    if qtype == "count":
        return text, str(n_lesions), [], "open", ["0", "1", "2", "3"]
    key = {"modality": source.modality, "region": source.region, "plane": source.plane}[qtype]
    if key is None:
        raise ValueError(f"{source.name}: no {qtype} to ask about")
    shown, alts = ANSWER_TEXT[key]
    pool = {"modality": MODALITIES, "region": REGIONS, "plane": PLANES + ["oblique"]}[qtype]
    return text, shown, alts, "open", [key] + [p for p in pool if p != key]


def _options(rng: np.random.Generator, answer_key: str, pool: list[str]) -> tuple[dict[str, str], str]:
    others = [p for p in pool if p != answer_key]
    picked = [answer_key] + [others[i] for i in rng.permutation(len(others))[:3]]
    order = rng.permutation(len(picked))
    shown = [ANSWER_TEXT.get(picked[i], (picked[i], []))[0] for i in order]
    shown = [s.capitalize() if s.islower() else s for s in shown]
    labels = "ABCD"[:len(shown)]
    label = labels[list(order).index(0)]
    return dict(zip(labels, shown)), label


def build_vqa_demo(paths: DatasetPaths, progress: Progress | None = None, n_cases: int = 120,
                   seed: int = 0, mcq: bool = False) -> dict[str, Any]:
    from PIL import Image
    dataset = MCQ_DATASET if mcq else OPEN_DATASET
    types = list(TYPE_MIX)
    counts = np.floor(np.array(list(TYPE_MIX.values())) * n_cases).astype(int)
    counts[0] += n_cases - counts.sum()
    schedule = [t for t, c in zip(types, counts) for _ in range(c)]
    np.random.default_rng([seed, 7]).shuffle(schedule)
    cases = []
    for i, qtype in enumerate(schedule):
        rng = np.random.default_rng([seed, 1 + mcq, i])
        qid = f"q{i:04d}"
        source = _choose_source(rng, qtype)
        n_lesions = int(rng.integers(0, 4)) if source.lesion_mask is not None else 0
        if qtype == "finding" and rng.random() < 0.5:
            n_lesions = 0                                   # balance yes / no
        image, lesions = _render(rng, source, n_lesions)
        question, answer, alternatives, answer_type, pool = _question(rng, qtype, source, n_lesions)
        public, private = paths.public / qid, paths.private / qid
        public.mkdir(parents=True)
        private.mkdir(parents=True)
        Image.fromarray(image).save(public / "image.png", optimize=False)
        q: dict[str, Any] = {"question_id": qid, "question": question, "images": ["image.png"], "question_type": qtype}
        ref: dict[str, Any] = {"question_id": qid, "question": question, "answer": answer, "alternatives": alternatives,
               "question_type": qtype, "answer_type": answer_type}
        if mcq:
            key = pool[0] if qtype not in ("finding", "count") else answer
            options, label = _options(rng, key, pool)
            q["options"] = options
            ref.update(options=options, label=label, answer=options[label], alternatives=[],
                       answer_type="mcq")
        (public / "question.json").write_text(json.dumps(q, indent=1) + "\n")
        (private / "answer.json").write_text(json.dumps(ref, indent=1) + "\n")
        cases.append({"case_id": qid, "question_type": qtype, "answer_type": ref["answer_type"],
                      "source": source.name, "n_lesions": n_lesions, "lesions": lesions})
        if progress:
            progress(i + 1, n_cases, qid)
    return write_manifest(paths, dataset=dataset, cases=cases, description=(
        f"Medical VQA demo ({'multiple choice' if mcq else 'open-ended'}): real images shipped in "
        "PyPI packages (nilearn MNI152, pydicom/pydicom-data, scikit-image), simulated lesions, "
        "templated questions answered from provenance. Real anatomy, simulated findings."),
        provenance={"generator": "automedbench.tracks.vqa.data.demo", "version": GENERATOR_VERSION,
                    "seed": seed, "n_cases": n_cases, "mcq": mcq,
                    "sources": sorted({c["source"] for c in cases})})


def build_vqa_demo_open(paths: DatasetPaths, progress: Progress | None = None, n_cases: int = 120,
                        seed: int = 0) -> dict[str, Any]:
    return build_vqa_demo(paths, progress, n_cases=n_cases, seed=seed, mcq=False)


def build_vqa_demo_mcq(paths: DatasetPaths, progress: Progress | None = None, n_cases: int = 120,
                       seed: int = 0) -> dict[str, Any]:
    return build_vqa_demo(paths, progress, n_cases=n_cases, seed=seed, mcq=True)
