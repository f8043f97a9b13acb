"""Report generation's logic check (docs/tracks/report-generation.md "Logic check"): a report
written for another body part than its study's — the generated findings name only one body
part's anatomy (rules.yaml `body_parts`), the reference's only another's. Free-text scores
vary too much from study to study for a low one to mean a bug on a handful of studies; a chest
report for a leg film is one on any number."""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from ...metrics.text_tokens import tokenize
from ..relations import Subject
from .text import Report, rules


@lru_cache(maxsize=1)
def _parts() -> dict[str, frozenset[str]]:
    return {part: frozenset(words) for part, words in rules()["body_parts"].items()}


def named(tokens: list[str]) -> set[str]:
    words = set(tokens)
    return {part for part, vocab in _parts().items() if words & vocab}


def wrong_body_part(generated: list[str], reference: list[str]) -> str:
    """Why the generated findings (tokens) are about another body part than the reference's,
    or ""."""
    said, meant = named(generated), named(reference)
    if len(said) != 1 or len(meant) != 1 or said == meant:
        return ""
    return f"a {next(iter(said))} report for a {next(iter(meant))} study (body parts named in the findings)"


def study_body_parts(input_case_dir: Path) -> set[str]:
    """The body parts the study's public manifest.json names (its `body_part`, e.g. CHEST or
    LEG, and its views' descriptions), in the same vocabulary as a report's; empty when it
    names none."""
    try:
        study = json.loads((Path(input_case_dir) / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return set()
    if not isinstance(study, dict):
        return set()
    words = [str(study.get("body_part") or "")]
    words += [str(v.get("description") or "") for v in study.get("views") or [] if isinstance(v, dict)]
    return named(tokenize(" ".join(words)))


def subject_relation(report: Report, input_case_dir: Path) -> Subject:
    """The body parts a report names (all of its text) against those its study's public
    manifest names (tracks/relations.py `Subject`; docs/judge.md "Plausibility")."""
    return Subject("body part", frozenset(named(tokenize(report.text))), frozenset(study_body_parts(input_case_dir)),
                   output_name="the report", source="the study's manifest.json")
