"""Stagers for the official report-generation datasets, from a LOCAL copy of each release
(never redistributed, never downloaded here: the user obtains them under their licences).

Every stager writes, per study, public/<study_id>/view<k>.<ext> (+ manifest.json naming the
views, their positions and the indication when the source has one) and
private/<study_id>/report.txt = "FINDINGS:\n...\n\nIMPRESSION:\n..." (impression when present).
Studies without a findings section are skipped (the usual convention, e.g. R2Gen) and
counted in the manifest's provenance, never guessed at scoring.

  mimic-cxr      MIMIC-CXR-JPG images + MIMIC-CXR reports (PhysioNet, credentialed)
                 <source>/files/pXX/p<subject>/s<study>/<dicom_id>.jpg
                 <reports or source>/files/pXX/p<subject>/s<study>.txt
                 <source>/mimic-cxr-2.0.0-split.csv[.gz], mimic-cxr-2.0.0-metadata.csv[.gz]
  iu-xray        Indiana University chest X-rays (Open-i): ecgen-radiology/*.xml (one per
                 report: AbstractText Label=FINDINGS/IMPRESSION, parentImage ids) + PNGs
                 named <parentImage id>.png anywhere under <source>
  chexpert-plus  CheXpert Plus: df_chexpert_plus_*.csv (path_to_image, split,
                 section_findings, section_impression) + the images under <source>
                 (path_to_image relative to it; .jpg in the csv, .png on disk also accepted)
  pathcap        PathCap pathology image–caption pairs: a JSON list or JSONL file of
                 {"image": <relative path>, "caption": <text>} (keys `image_path`/`file_name`,
                 `text` also accepted); the caption is the reference's findings.
"""
from __future__ import annotations

import csv
import gzip
import io
import json
import re
import xml.etree.ElementTree as ET
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from ....data import DatasetError, DatasetPaths, link_or_copy, source_root, write_manifest
from ..text import extract_findings

Progress = Callable[[int, int, str], None] | None
_SAFE_ID = re.compile(r"[^A-Za-z0-9._-]+")


def _reference(findings: str, impression: str = "") -> str:
    text = "FINDINGS:\n" + " ".join(findings.split()) + "\n"
    if impression.strip():
        text += "\nIMPRESSION:\n" + " ".join(impression.split()) + "\n"
    return text


def _write_studies(paths: DatasetPaths, studies: Iterable[dict[str, Any]], *, dataset: str,
                   description: str, provenance: dict[str, Any], limit: int | None, link: bool,
                   progress: Progress) -> dict[str, Any]:
    """studies: {"study_id", "images": [(path, view_position)], "findings", "impression",
    "indication"?, "meta"?}. Writes public/private/manifest."""
    todo = list(studies)
    if limit is not None:
        todo = todo[: int(limit)]
    if not todo:
        raise DatasetError(f"{dataset}: no usable study found (images + a findings section)")
    cases = []
    for i, s in enumerate(todo):
        cid = _SAFE_ID.sub("_", str(s["study_id"]))
        pub, priv = paths.public / cid, paths.private / cid
        pub.mkdir(parents=True)
        priv.mkdir(parents=True)
        views = []
        for k, (img, position) in enumerate(s["images"], start=1):
            name = f"view{k}{Path(img).suffix.lower()}"
            link_or_copy(Path(img), pub / name, link)
            views.append({"file": name, "view_position": position or "unknown"})
        study = {"study_id": cid, "views": views}
        if s.get("indication"):
            study["indication"] = s["indication"]
        (pub / "manifest.json").write_text(json.dumps(study, indent=2) + "\n")
        (priv / "report.txt").write_text(_reference(s["findings"], s.get("impression", "")), encoding="utf-8")
        cases.append({"case_id": cid, "n_views": len(views), **s.get("meta", {})})
        if progress:
            progress(i + 1, len(todo), cid)
    return write_manifest(paths, dataset=dataset, description=description, cases=cases, provenance=provenance)


def _read_csv(path: Path) -> list[dict[str, str]]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def _find_one(root: Path, names: list[str], what: str) -> Path:
    for n in names:
        hits = sorted(root.glob(n)) or sorted(root.rglob(n))
        if hits:
            return hits[0]
    raise DatasetError(f"{what} not found under {root} (looked for {', '.join(names)})")


# ---- MIMIC-CXR ----------------------------------------------------------------------------------
def _split_report(text: str) -> tuple[str, str]:
    findings, found = extract_findings(text)
    if not found:
        return "", ""
    m = re.search(r"^[ \t]*impression[ \t]*:?(.*)", text, re.IGNORECASE | re.MULTILINE | re.DOTALL)
    impression = ""
    if m:
        impression, _ = extract_findings("FINDINGS:" + m.group(1))   # up to the next header
    return findings, impression


def stage_mimic_cxr(paths: DatasetPaths, progress: Progress = None, source: str | None = None,
                    reports: str | None = None, split: str = "test", limit: int | None = None,
                    link: bool = True) -> dict[str, Any]:
    root = source_root(source, "mimic-cxr")
    report_root = Path(reports).expanduser() if reports else root
    split_rows = _read_csv(_find_one(root, ["mimic-cxr-2.0.0-split.csv.gz", "mimic-cxr-2.0.0-split.csv"], "MIMIC-CXR split file"))
    meta_rows = _read_csv(_find_one(root, ["mimic-cxr-2.0.0-metadata.csv.gz", "mimic-cxr-2.0.0-metadata.csv"], "MIMIC-CXR metadata file"))
    view = {r["dicom_id"]: r.get("ViewPosition", "") for r in meta_rows}
    by_study: dict[tuple[str, str], list[str]] = defaultdict(list)
    for r in split_rows:
        if r["split"] == split:
            by_study[(r["subject_id"], r["study_id"])].append(r["dicom_id"])
    skipped: defaultdict[str, int] = defaultdict(int)

    def studies() -> Iterator[dict[str, Any]]:
        for (subject, study), dicoms in sorted(by_study.items()):
            folder = root / "files" / f"p{subject[:2]}" / f"p{subject}" / f"s{study}"
            images = [(folder / f"{d}.jpg", view.get(d, "")) for d in sorted(dicoms) if (folder / f"{d}.jpg").is_file()]
            rep = report_root / "files" / f"p{subject[:2]}" / f"p{subject}" / f"s{study}.txt"
            if not images:
                skipped["no image"] += 1
                continue
            if not rep.is_file():
                skipped["no report"] += 1
                continue
            findings, impression = _split_report(rep.read_text(encoding="utf-8", errors="replace"))
            if not findings:
                skipped["no findings section"] += 1
                continue
            yield {"study_id": f"s{study}", "images": images, "findings": findings, "impression": impression,
                   "meta": {"subject_id": subject}}

    todo = list(studies())
    return _write_studies(paths, todo, dataset="mimic-cxr", limit=limit, link=link, progress=progress,
                          description=f"MIMIC-CXR (JPG + reports), {split} split, staged from a local copy.",
                          provenance={"source": str(root), "split": split, "skipped": dict(skipped)})


# ---- IU X-ray / Open-i ----------------------------------------------------------------------------
def stage_iu_xray(paths: DatasetPaths, progress: Progress = None, source: str | None = None,
                  limit: int | None = None, link: bool = True) -> dict[str, Any]:
    root = source_root(source, "iu-xray")
    xmls = sorted(root.rglob("*.xml"))
    if not xmls:
        raise DatasetError(f"iu-xray: no report XML (ecgen-radiology/*.xml) under {root}")
    pngs = {p.stem: p for p in root.rglob("*.png")}
    skipped: defaultdict[str, int] = defaultdict(int)
    todo = []
    for x in xmls:
        try:
            tree = ET.parse(x)
        except ET.ParseError:
            skipped["unreadable xml"] += 1
            continue
        sections = {(a.get("Label") or "").upper(): (a.text or "").strip() for a in tree.iter("AbstractText")}
        images = [(pngs[pid], "") for p in tree.iter("parentImage") if (pid := p.get("id") or "") in pngs]
        if not sections.get("FINDINGS"):
            skipped["no findings section"] += 1
            continue
        if not images:
            skipped["no image"] += 1
            continue
        todo.append({"study_id": f"iu_{x.stem}", "images": images, "findings": sections["FINDINGS"],
                     "impression": sections.get("IMPRESSION", ""), "indication": sections.get("INDICATION", "")})
    return _write_studies(paths, todo, dataset="iu-xray", limit=limit, link=link, progress=progress,
                          description="Indiana University chest X-rays (Open-i), staged from a local copy.",
                          provenance={"source": str(root), "skipped": dict(skipped)})


# ---- CheXpert Plus -------------------------------------------------------------------------------
def stage_chexpert_plus(paths: DatasetPaths, progress: Progress = None, source: str | None = None,
                        split: str = "valid", limit: int | None = None, link: bool = True) -> dict[str, Any]:
    root = source_root(source, "chexpert-plus")
    rows = _read_csv(_find_one(root, ["df_chexpert_plus_*.csv", "df_chexpert_plus*.csv.gz"], "CheXpert Plus table"))
    studies: dict[str, dict[str, Any]] = {}
    skipped: defaultdict[str, int] = defaultdict(int)
    for r in rows:
        if r.get("split", split) != split:
            continue
        rel = Path(r["path_to_image"])
        img = next((c for c in (root / rel, (root / rel).with_suffix(".png"), root / "PNG" / rel.with_suffix(".png"))
                    if c.is_file()), None)
        sid = "_".join(rel.parts[-3:-1])          # patientXXXX_studyY
        if img is None:
            skipped["image missing"] += 1
            continue
        position = "frontal" if "frontal" in rel.name.lower() else "lateral" if "lateral" in rel.name.lower() else ""
        s = studies.setdefault(sid, {"study_id": sid, "images": [], "findings": r.get("section_findings", ""),
                                     "impression": r.get("section_impression", "")})
        s["images"].append((img, r.get("frontal_lateral", "") or r.get("ap_pa", "") or position))
    todo = []
    for sid in sorted(studies):
        if studies[sid]["findings"].strip():
            todo.append(studies[sid])
        else:
            skipped["no findings section"] += 1
    return _write_studies(paths, todo, dataset="chexpert-plus", limit=limit, link=link, progress=progress,
                          description=f"CheXpert Plus ({split} split), staged from a local copy.",
                          provenance={"source": str(root), "split": split, "skipped": dict(skipped)})


# ---- PathCap -------------------------------------------------------------------------------------
def _load_pairs(path: Path) -> list[dict[str, Any]]:
    text = path.read_text(encoding="utf-8")
    try:
        data = json.loads(text)
        return data if isinstance(data, list) else list(data.values())
    except json.JSONDecodeError:
        return [json.loads(line) for line in io.StringIO(text) if line.strip()]


def stage_pathcap(paths: DatasetPaths, progress: Progress = None, source: str | None = None,
                  captions: str | None = None, limit: int | None = None, link: bool = True) -> dict[str, Any]:
    root = source_root(source, "pathcap")
    cap_file = Path(captions).expanduser() if captions else _find_one(
        root, ["*.jsonl", "pathcap*.json", "PathCap*.json", "*.json"], "PathCap caption file")
    try:
        pairs = _load_pairs(cap_file)
    except (json.JSONDecodeError, OSError) as exc:
        raise DatasetError(f"pathcap: {cap_file} is not JSON/JSONL: {exc}") from None
    skipped: defaultdict[str, int] = defaultdict(int)
    todo = []
    for k, p in enumerate(pairs):
        rel = p.get("image") or p.get("image_path") or p.get("file_name")
        caption = p.get("caption") or p.get("text") or ""
        img = root / rel if rel else None
        if img is None or not img.is_file():
            skipped["image missing"] += 1
            continue
        if not caption.strip():
            skipped["empty caption"] += 1
            continue
        todo.append({"study_id": f"pathcap_{k:06d}_{img.stem}", "images": [(img, "microscopy")],
                     "findings": caption})
    return _write_studies(paths, todo, dataset="pathcap", limit=limit, link=link, progress=progress,
                          description="PathCap pathology image-caption pairs, staged from a local copy.",
                          provenance={"source": str(root), "captions": str(cap_file), "skipped": dict(skipped)})
