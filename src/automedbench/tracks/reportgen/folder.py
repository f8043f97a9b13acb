"""Report generation's folder layouts (docs/your-task.md section 2, "Report generation"), in
detection order:

table  DIR/reports.csv or DIR/reports.json (a JSON list of objects, the form IU X-ray and
       MIMIC-CXR derivatives ship) + the images at DIR/images/<image> or DIR/<image>

One row = one study = one case. Columns (the first name found wins, see COLUMNS): study_id,
image (several: `;`-separated or a JSON list), report (the whole text) or findings and
impression (joined under FINDINGS: / IMPRESSION: headers), and optionally indication. Each case
gets public/<study>/manifest.json {study_id, indication, views: [{file, source}]} + its images
(as view1.png, view2.png, … in the row's order: the track's own naming), and
private/<study>/report.txt, as the track reads them. A row without a report is skipped
("no report"), one whose image is missing too ("no image").

mimic-cxr  DIR/.../<study>.txt + DIR/.../<study>/<image>.jpg at any depth, as MIMIC-CXR(-JPG)
           ships them (files/p10/p10000032/s50414267.txt + s50414267/<dicom_id>.jpg): the
           report as it is (the track scores its FINDINGS section), its INDICATION section as
           the public indication; with mimic-cxr-2.0.0-metadata.csv(.gz) at DIR, each view's
           ViewPosition, frontal views first. A study folder without its .txt is skipped
           ("no report"), a report whose folder holds no image too ("no image").
"""
from __future__ import annotations

import csv
import gzip
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ...data import DatasetError
from ...data.tables import column, find_table, image_names, table_rows
from ...data.from_folder import GENERIC_LAYOUT, FolderCases, FolderLayout, StagingFolder
from ..option_checks import IMAGE_SUFFIXES

TABLES = ("reports.csv", "reports.json")
COLUMNS = {   # field -> the names public report sets use for it
    "study_id": ("study_id", "uid", "id", "case_id"),
    "image": ("image", "images", "filename", "image_path", "dicom_id"),
    "report": ("report", "text"),
    "findings": ("findings",),
    "impression": ("impression",),
    "indication": ("indication", "history"),
}


def _table(src: Path) -> Path | None:
    return find_table(src, TABLES)


def _get(row: dict[str, Any], field: str) -> Any:
    return column(row, COLUMNS[field])


def _report(row: dict[str, Any]) -> str | None:
    whole = _get(row, "report")
    if whole is not None:
        return str(whole).strip() or None
    parts = [f"{head}:\n{str(text).strip()}" for head, text in
             (("FINDINGS", _get(row, "findings")), ("IMPRESSION", _get(row, "impression"))) if text]
    return "\n\n".join(parts) or None


def _table_layout(src: Path, dest: StagingFolder, options: Any) -> FolderCases:
    path = _table(src)
    if path is None:
        raise DatasetError(f"layout 'table': {src} has neither {' nor '.join(TABLES)}; fix: put the studies "
                           "there (columns study_id, image, report or findings/impression)")
    rows = table_rows(path)
    if rows and _get(rows[0], "image") is None:
        raise DatasetError(f"layout 'table': {path.name} has no image column; fix: name it "
                           f"{', '.join(COLUMNS['image'][:3])} (any of them)")
    out = FolderCases()
    seen: set[str] = set()
    for n, row in enumerate(rows, 1):
        sid = str(_get(row, "study_id") or f"study_{n:05d}")
        report = _report(row)
        names = image_names(_get(row, "image"))
        files = [next((p for p in (src / "images" / nm, src / nm) if p.is_file()), None) for nm in names]
        if report is None:
            out.skipped[sid] = "no report"
            continue
        if not names or None in files:
            out.skipped[sid] = "no image"
            continue
        if sid in seen:
            raise DatasetError(f"layout 'table': study id {sid!r} appears twice in {path.name}; fix: make the "
                               "study_id column unique")
        seen.add(sid)
        out.cases.append(_write_study(dest, sid, [f for f in files if f is not None], report,
                                      str(_get(row, "indication") or "")))
    out.facts = {"table": path.name}
    return out


def _write_study(dest: StagingFolder, sid: str, files: list[Path], report: str, indication: str,
                 positions: dict[str, str] | None = None) -> dict[str, Any]:
    """public/<study>/manifest.json + view1.<ext>, ... in the given order (the track's naming;
    `source` keeps the file's name), private/<study>/report.txt; the manifest entry."""
    views = []
    for i, f in enumerate(files, 1):
        view = f"view{i}{f.suffix.lower()}"      # the track's naming: view1.png, view2.png, …
        dest.place(f, dest.public / sid / view)
        position = (positions or {}).get(f.stem)
        views.append({"file": view, "source": f.name, **({"view_position": position} if position else {})})
    study = {"study_id": sid, "indication": indication, "views": views}
    (dest.public / sid / "manifest.json").write_text(json.dumps(study, indent=1) + "\n", encoding="utf-8")
    (dest.private / sid).mkdir(parents=True, exist_ok=True)
    (dest.private / sid / "report.txt").write_text(report + "\n", encoding="utf-8")
    return {"case_id": sid, "n_views": len(files)}


# ---- MIMIC-CXR as it ships: files/p10/p10000032/s50414267.txt + s50414267/<dicom_id>.jpg ----

METADATA = ("mimic-cxr-2.0.0-metadata.csv", "mimic-cxr-2.0.0-metadata.csv.gz")
INDICATION = re.compile(r"^[ \t]*(?:INDICATION|HISTORY|CLINICAL HISTORY)[ \t]*:(.*?)(?=^[ \t]*[A-Z][A-Z /]+:|\Z)",
                        re.MULTILINE | re.DOTALL)


def _study_reports(src: Path) -> Iterator[Path]:
    """Every <study>.txt below `src` beside its image folder <study>/."""
    return (t for t in sorted(src.rglob("*.txt")) if t.with_suffix("").is_dir())


def _view_positions(src: Path) -> dict[str, str]:
    """dicom_id -> ViewPosition (PA, AP, LATERAL) from MIMIC-CXR-JPG's metadata table, if present."""
    path = next((src / n for n in METADATA if (src / n).is_file()), None)
    if path is None:
        return {}
    with (gzip.open(path, "rt", encoding="utf-8") if path.suffix == ".gz" else open(path, encoding="utf-8")) as fh:
        return {r["dicom_id"]: r["ViewPosition"] for r in csv.DictReader(fh)
                if r.get("dicom_id") and r.get("ViewPosition")}


def _mimic_layout(src: Path, dest: StagingFolder, options: Any) -> FolderCases:
    reports = list(_study_reports(src))
    if not reports:
        raise DatasetError(f"layout 'mimic-cxr': no <study>.txt below {src} has its image folder <study>/ beside it "
                           "(files/p10/p10000032/s50414267.txt + s50414267/*.jpg); fix: put each study's images "
                           "in a folder named as its report")
    positions = _view_positions(src)
    out = FolderCases()
    for txt in reports:
        sid = txt.stem
        images = sorted(f for f in txt.with_suffix("").iterdir() if f.suffix.lower() in IMAGE_SUFFIXES)
        report = txt.read_text(encoding="utf-8", errors="replace").strip()
        if not images:
            out.skipped[sid] = "no image"
        elif not report:
            out.skipped[sid] = "no report"
        elif any(c["case_id"] == sid for c in out.cases):
            raise DatasetError(f"layout 'mimic-cxr': study {sid!r} appears twice below {src}; fix: keep one")
        else:
            # frontal views first where the metadata says which (the track reads the first as the frontal one)
            images.sort(key=lambda f: positions.get(f.stem, "") not in ("PA", "AP"))
            found = INDICATION.search(report)
            out.cases.append(_write_study(dest, sid, images, report, " ".join(found.group(1).split()) if found else "",
                                          positions))
    for folder in sorted(d for d in src.rglob("*") if d.is_dir() and not d.with_suffix(".txt").is_file()
                         and any(f.suffix.lower() in IMAGE_SUFFIXES for f in d.iterdir())):
        out.skipped[folder.name] = "no report"
    out.facts = {"reports": len(reports), **({"metadata": "view positions"} if positions else {})}
    return out


LAYOUTS = [
    FolderLayout("table", "reports.csv or reports.json (study_id, image, report | findings + impression) + images/",
                 lambda src: _table(src) is not None, _table_layout),
    FolderLayout("mimic-cxr", "<study>.txt + <study>/*.jpg, at any depth (files/p10/p10000032/s50414267.txt)",
                 lambda src: next(_study_reports(src), None) is not None, _mimic_layout),
    GENERIC_LAYOUT,
]
