"""Report-generation pictures (docs/site.md "Pictures of outputs"): the generated findings beside
the reference's, sentence by sentence, as the track's one comparison marks them (matching.py:
matched, missing or contradicted reference sentences; matched, extra or contradicting generated
ones, knowing negation, side, zone and size), so the card and the case's Why say the same. A
reading aid, not the score (the score is the track's metrics, shown with it)."""
from __future__ import annotations

import html

from ..pictures import CasePicture, PictureCase, metric_note, not_scored_note, text_as_written
from .matching import Sentence, compare
from .text import Report

# mark -> (class, label) per column; a contradiction is never drawn as a match
REFERENCE_MARKS = {"matched": ("m", "✓ matched"), "missing": ("x", "✗ missing"),
                   "contradicted": ("c", "≠ contradicted")}
GENERATED_MARKS = {"matched": ("m", "✓"), "extra": ("x", "extra"), "contradicts": ("c", "≠ contradicts")}


def report_pictures(case: PictureCase, output_file: str) -> list[CasePicture]:
    """The card; for a report that failed its check, the text as written (unmarked) with the reason."""
    ref: Report = case.reference
    written = text_as_written(case.output_dir, output_file) if case.prediction is None else None
    generated = case.prediction.section if case.prediction is not None else ""
    agreement = compare(generated, ref.section)

    def col(title: str, rows: list[Sentence], marks: dict[str, tuple[str, str]]) -> str:
        items = "".join(
            f'<li class="{marks[s.mark][0]}"><b>{marks[s.mark][1]}</b> {html.escape(s.text)}'
            + "".join(f'<br><span class="d">{html.escape(c)}</span>' for c in s.conflicts) + "</li>"
            for s in rows)
        return f"<div><h3>{html.escape(title)}</h3><ul>{items or '<li>(empty)</li>'}</ul></div>"
    body = (col("Generated findings", agreement.generated, GENERATED_MARKS)
            + col("Ground-truth findings", agreement.reference, REFERENCE_MARKS))
    doc = ('<!doctype html><meta charset="utf-8"><style>body{font:13px system-ui,sans-serif;margin:6px}'
           ".g{display:grid;grid-template-columns:1fr 1fr;gap:10px}h3{font-size:13px;margin:2px 0}"
           "ul{padding-left:16px;margin:0}li.m b{color:#166534}li.x b{color:#991b1b}.x b{color:#991b1b}"
           "li.c b,li.c .d{color:#9a3412}"
           "@media (max-width:480px){.g{grid-template-columns:1fr}}</style>"
           + (f'<p class="x"><b>{html.escape(not_scored_note(case))}</b></p><h3>As written</h3>'
              f"<pre style='white-space:pre-wrap'>{html.escape(written or '(nothing readable)')}</pre>"
              if case.prediction is None else
              f"<p>{html.escape(metric_note(case.metrics))} · {html.escape(agreement.summary())}</p>")
           + f'<div class="g">{body}</div>')
    caption = ("the report as written beside the ground truth's findings · " + not_scored_note(case)
               if case.prediction is None else
               "the generated findings beside the ground truth: matched, missing, contradicted and extra sentences")
    return [CasePicture("report.html", doc.encode(), caption, "text/html")]
