"""Report-generation pictures (docs/site.md "Pictures of outputs"): the generated findings beside
the reference's, sentence by sentence. A reference sentence is *matched* when at least half of
its words (longer than two letters) occur in the generated findings, else *missing*; a
generated sentence is *extra* when under half of its words occur in the reference. A reading aid, not the
score (the score is the track's metrics, shown with it)."""
from __future__ import annotations

import html
import re

from ..pictures import CasePicture, PictureCase, metric_note, not_scored_note, text_as_written
from .text import Report

_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_WORD = re.compile(r"[a-z0-9]+")
MATCH_SHARE = 0.5


def _words(s: str) -> set[str]:
    return {w for w in _WORD.findall(s.lower()) if len(w) > 2}


def mark(sentences: list[str], other: set[str]) -> list[tuple[str, bool]]:
    out = []
    for s in sentences:
        w = _words(s)
        out.append((s, bool(w) and len(w & other) / len(w) >= MATCH_SHARE))
    return out


def split(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text) if s.strip()]


def report_pictures(case: PictureCase, output_file: str) -> list[CasePicture]:
    """The card; for a report that failed its check, the text as written (unmarked) with the reason."""
    ref: Report = case.reference
    written = text_as_written(case.output_dir, output_file) if case.prediction is None else None
    generated = case.prediction.section if case.prediction is not None else ""
    ref_marked = mark(split(ref.section), _words(generated))
    pred_marked = mark(split(generated), _words(ref.section))

    def col(title: str, rows: list[tuple[str, bool]], yes: str, no: str) -> str:
        items = "".join(
            f'<li class="{"m" if ok else "x"}"><b>{yes if ok else no}</b> {html.escape(s)}</li>' for s, ok in rows)
        return f"<div><h3>{html.escape(title)}</h3><ul>{items or '<li>(empty)</li>'}</ul></div>"
    n_missing = sum(not ok for _, ok in ref_marked)
    body = (col("Generated findings", pred_marked, "✓", "extra")
            + col("Reference findings", ref_marked, "✓ matched", "✗ missing"))
    doc = ('<!doctype html><meta charset="utf-8"><style>body{font:13px system-ui,sans-serif;margin:6px}'
           ".g{display:grid;grid-template-columns:1fr 1fr;gap:10px}h3{font-size:13px;margin:2px 0}"
           "ul{padding-left:16px;margin:0}li.m b{color:#166534}li.x b{color:#991b1b}.x b{color:#991b1b}"
           "@media (max-width:480px){.g{grid-template-columns:1fr}}</style>"
           + (f'<p class="x"><b>{html.escape(not_scored_note(case))}</b></p><h3>As written</h3>'
              f"<pre style='white-space:pre-wrap'>{html.escape(written or '(nothing readable)')}</pre>"
              if case.prediction is None else
              f"<p>{html.escape(metric_note(case.metrics))} · {n_missing} reference sentence(s) missing</p>")
           + f'<div class="g">{body}</div>')
    caption = ("the report as written beside the reference's findings · " + not_scored_note(case)
               if case.prediction is None else
               "the generated findings beside the reference: matched, missing and extra sentences")
    return [CasePicture("report.html", doc.encode(), caption, "text/html")]
