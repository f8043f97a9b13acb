"""Report generation's broken outputs (docs/judge.md "Experiments"): an empty report, a findings
section with nothing in it, one canned report for every study (whatever the image shows)."""
from __future__ import annotations

import re
from collections.abc import Callable

from ..mutants import Apply, Mutant, UnitFiles, edit_text
from .options import ReportGenOptions

CANNED = ("FINDINGS: The lungs are clear. No pleural effusion or pneumothorax. The cardiomediastinal "
          "silhouette is normal.\nIMPRESSION: No acute cardiopulmonary process.\n")


def _text(options: ReportGenOptions, fn: Callable[[str], "str | None"]) -> Apply:
    def apply(files: UnitFiles) -> bool:
        p = files.get(options.output_file)
        return p is not None and edit_text(p, fn)
    return apply


def _no_findings(text: str) -> str | None:
    m = re.search(r"(?is)(findings\s*:)(.*?)(?=\n\s*[A-Z][A-Z ]+:|\Z)", text)
    if m is None or not m.group(2).strip():
        return None
    return text[:m.start(2)] + "\n" + text[m.end(2):]


def reportgen_mutants(options: ReportGenOptions) -> list[Mutant]:
    return [
        Mutant("no_findings", "the findings section left empty", _text(options, _no_findings)),
        Mutant("canned_report", "one canned normal chest report, whatever the study", _text(options, lambda t: CANNED)),
        # form: whether there is any text at all (docs/judge.md "Verdicts": emptiness is form)
        Mutant("empty_report", "an empty report", _text(options, lambda t: "" if t.strip() else None), aspect="form"),
    ]
