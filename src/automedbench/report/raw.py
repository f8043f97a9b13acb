"""A run's raw record inside the site folder, so its links work when the site is served over
HTTP from that folder alone (docs/site.md "Raw record").

    raw_record(run_dir, out, slug) -> [{"href", "label"}]   (hrefs relative to runs/)

The record files (trace, conversation, report, run.json) and every workspace file are
hard-linked under runs/<slug>/raw/ (no copy, no extra disk), or copied when linking fails
(another file system) and the file is small enough. The workspace gets an index page listing
its files, since a static server lists no folder. Files a browser would run as a page or a
script (HTML, SVG, JavaScript, agent-written) get `.txt` appended, so the site's origin serves
them as text.
"""
from __future__ import annotations

import html
import os
import shutil
from pathlib import Path
from urllib.parse import quote

from ..run_files import RunFiles

# the run's record files, named once in run_files.py (docs/architecture.md "One owner per fact"),
# as (name in the run folder, name of the copy in the site, link label). The report's copy has
# another name: a site built inside a sweep root must not look like more runs to anything that
# finds runs by their detail_report.json (collect, export, a user's `find`). The trace's copy ends
# in .txt: no browser knows .jsonl, so over HTTP (application/octet-stream) and from file:// it
# would download; as text it shows in the browser (docs/site.md "Raw record")
SITE_REPORT_COPY = "report.json"
SITE_TRACE_COPY = RunFiles.TRACE + ".txt"
RECORD = ((RunFiles.TRACE, SITE_TRACE_COPY, RunFiles.TRACE),
          (RunFiles.CONVERSATION, RunFiles.CONVERSATION, RunFiles.CONVERSATION),
          (RunFiles.REPORT, SITE_REPORT_COPY, RunFiles.REPORT),
          (RunFiles.META, RunFiles.META, RunFiles.META))
COPY_LIMIT = 20_000_000          # bytes: a file larger than this is linked, never copied
WORKSPACE_FILES = 5_000          # files listed per workspace (the rest counted)
ACTIVE = {".html", ".htm", ".xhtml", ".svg", ".js", ".mjs", ".xml"}


def _place(src: Path, dst: Path) -> bool:
    """Hard-link src at dst, else copy it when small; False when neither worked."""
    try:
        if src.is_symlink() or not src.is_file():
            return False
        dst.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(src, dst)
            return True
        except OSError:
            if src.stat().st_size > COPY_LIMIT:
                return False
            shutil.copyfile(src, dst)
            return True
    except OSError:
        return False


def _served_name(name: str) -> str:
    return name + ".txt" if Path(name).suffix.lower() in ACTIVE else name


def _workspace(src: Path, dst: Path, title: str) -> bool:
    """Place the workspace's files under dst and write dst/index.html listing them."""
    rows: list[str] = []
    n = skipped = 0
    for dirpath, dirnames, filenames in os.walk(src):   # os.walk follows no symlinked folder
        dirnames.sort()
        for name in sorted(filenames):
            path = Path(dirpath) / name
            rel = path.relative_to(src)
            if n >= WORKSPACE_FILES:
                skipped += 1
                continue
            served = rel.parent / _served_name(rel.name)
            n += 1
            try:
                size = f"{path.lstat().st_size:,} B"
            except OSError:
                size = "?"
            text = html.escape(str(rel))
            if _place(path, dst / served):
                href = html.escape("/".join(quote(p) for p in served.parts), quote=True)
                rows.append(f'<li><a href="{href}">{text}</a> <small>{size}</small></li>')
            else:
                rows.append(f"<li>{text} <small>{size} (not copied: a link, or too large)</small></li>")
    more = f"<p>{skipped} more files not listed.</p>" if skipped else ""
    dst.mkdir(parents=True, exist_ok=True)
    (dst / "index.html").write_text(
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
        f'<meta name="viewport" content="width=device-width, initial-scale=1"></head><body>'
        f"<h1>{html.escape(title)}</h1><p>{n} files, as the run left them (HTML, SVG and scripts are "
        f"served as text: <code>.txt</code> appended).</p><ul>{''.join(rows)}</ul>{more}</body></html>",
        encoding="utf-8")
    return True


def raw_record(run_dir: Path | None, out: Path, slug: str) -> list[dict]:
    """Place the run's raw record under runs/<slug>/raw/ and return its links (relative to runs/)."""
    links: list[dict] = []
    if run_dir is None:
        return links
    run_dir, raw = Path(run_dir), out / "runs" / slug / "raw"
    for name, copy, label in RECORD[:3]:
        if _place(run_dir / name, raw / copy):
            links.append({"href": f"{slug}/raw/{copy}", "label": label})
    ws = run_dir / RunFiles.WORKSPACE
    if ws.is_dir() and not ws.is_symlink() and _workspace(ws, raw / "workspace", f"workspace of {slug}"):
        links.append({"href": f"{slug}/raw/workspace/index.html", "label": "workspace files"})
    for name, copy, label in RECORD[3:]:
        if _place(run_dir / name, raw / copy):
            links.append({"href": f"{slug}/raw/{copy}", "label": label})
    return links
