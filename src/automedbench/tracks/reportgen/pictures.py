"""Report-generation pictures (docs/site.md "Pictures of outputs"): the generated findings beside
the reference's, sentence by sentence. A reference sentence is *matched* when at least half of
its words (longer than two letters) occur in the generated findings, else *missing*; a
generated sentence is *extra* when under half of its words occur in the reference. A reading aid, not the
score (the score is the track's metrics, shown with it)."""
from __future__ import annotations

import html
import re

from ..pictures import CasePicture, PictureCase, metric_note
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


def report_pictures(case: PictureCase) -> list[CasePicture]:
    pred: Report = case.prediction
    ref: Report = case.reference
    ref_marked = mark(split(ref.section), _words(pred.section))
    pred_marked = mark(split(pred.section), _words(ref.section))

    def col(title: str, rows: list[tuple[str, bool]], yes: str, no: str) -> str:
        items = "".join(
            f'<li class="{"m" if ok else "x"}"><b>{yes if ok else no}</b> {html.escape(s)}</li>' for s, ok in rows)
        return f"<div><h3>{html.escape(title)}</h3><ul>{items or '<li>(empty)</li>'}</ul></div>"
    n_missing = sum(not ok for _, ok in ref_marked)
    body = (col("Generated findings", pred_marked, "✓", "extra")
            + col("Reference findings", ref_marked, "✓ matched", "✗ missing"))
    doc = ('<!doctype html><meta charset="utf-8"><style>body{font:13px system-ui,sans-serif;margin:6px}'
           ".g{display:grid;grid-template-columns:1fr 1fr;gap:10px}h3{font-size:13px;margin:2px 0}"
           "ul{padding-left:16px;margin:0}li.m b{color:#166534}li.x b{color:#991b1b}</style>"
           f"<p>{html.escape(metric_note(case.metrics))} · {n_missing} reference sentence(s) missing</p>"
           f'<div class="g">{body}</div>')
    return [CasePicture("report.html", doc.encode(), "the generated findings beside the reference: matched, "
                        "missing and extra sentences", "text/html")]
