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
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ...data import DatasetError
from ...data.tables import column, find_table, image_names, table_rows
from ...data.from_folder import GENERIC_LAYOUT, FolderCases, FolderLayout, StagingFolder

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
        views = []
        for i, f in enumerate(files, 1):
            assert f is not None
            view = f"view{i}{f.suffix.lower()}"      # the track's naming: view1.png, view2.png, …
            dest.place(f, dest.public / sid / view)
            views.append({"file": view, "source": f.name})
        study = {"study_id": sid, "indication": str(_get(row, "indication") or ""), "views": views}
        (dest.public / sid / "manifest.json").write_text(json.dumps(study, indent=1) + "\n", encoding="utf-8")
        (dest.private / sid).mkdir(parents=True, exist_ok=True)
        (dest.private / sid / "report.txt").write_text(report + "\n", encoding="utf-8")
        out.cases.append({"case_id": sid, "n_views": len(names)})
    out.facts = {"table": path.name}
    return out


LAYOUTS = [
    FolderLayout("table", "reports.csv or reports.json (study_id, image, report | findings + impression) + images/",
                 lambda src: _table(src) is not None, _table_layout),
    GENERIC_LAYOUT,
]
