"""Report generation's logic check (docs/tracks/report-generation.md "Logic check"): a report
written for another body part than its study's — the generated findings name only one body
part's anatomy (rules.yaml `body_parts`), the reference's only another's. Free-text scores
vary too much from study to study for a low one to mean a bug on a handful of studies; a chest
report for a leg film is one on any number."""
from __future__ import annotations

from functools import lru_cache

from .text import rules


@lru_cache(maxsize=1)
def _parts() -> dict[str, frozenset[str]]:
    return {part: frozenset(words) for part, words in rules()["body_parts"].items()}


def _named(tokens: list[str]) -> set[str]:
    words = set(tokens)
    return {part for part, vocab in _parts().items() if words & vocab}


def wrong_body_part(generated: list[str], reference: list[str]) -> str:
    """Why the generated findings (tokens) are about another body part than the reference's,
    or ""."""
    said, meant = _named(generated), _named(reference)
    if len(said) != 1 or len(meant) != 1 or said == meant:
        return ""
    return f"a {next(iter(said))} report for a {next(iter(meant))} study (body parts named in the findings)"
