"""Answer matching for medical VQA. Pure functions, no I/O apart from reading the table once.

Normalisation (the rules are a TABLE, `answer_normalisation.yaml`; this module only applies it):
  basic(text)     NFKC, lower case, punctuation -> space (a '.' between digits is kept, "2.5"),
                  whitespace collapsed.
  canonical(text) basic, then the table's phrases and number words mapped to one canonical
                  spelling (longest token sequence first: "magnetic resonance imaging" -> "mri",
                  "two" -> "2"), then the table's filler words dropped, then a token repeated
                  in a row kept once ("computed tomography (CT)" -> "ct").

Open questions:
  - yes/no reference (its basic form is a yes/no synonym): STRICT. The prediction's polarity is
    its whole basic form looked up in the yes/no table, else its first token when that token is
    itself a yes/no word ("yes, there is one lesion" -> yes). Score 1 if equal, else 0 — no
    partial credit (a token-F1 on "no" vs "yes there is no lesion" would reward hedging).
  - otherwise: max(EM, token-F1) over the canonical forms, and over the reference's listed
    alternatives. EM and token-F1 follow SQuAD (Rajpurkar et al. 2016, the official
    evaluate-v1.1.py): F1 over the multiset of tokens, 0 when nothing overlaps.

Multiple choice: exact label. `parse_choice` reads a label embedded in text, in this order
(rules 2-4 must agree: two different labels found anywhere by them = ambiguous, no label):
  1. the whole text is a label, optionally wrapped: "B", "(B)", "B.", "b)"
  2. an explicit statement: "answer is C", "Answer: (C)", "option D", "choice: b."
     (a lower-case letter only when followed by punctuation or the end: "the answer is a
     lesion" is not label A)
  3. a leading label with a delimiter: "C. Axial", "(D) pneumonia", "A) ..."  ("A lesion..." is not)
  4. a parenthesised label anywhere: "... so (B)"
  5. the text equals exactly one option's text after canonical normalisation
Anything else: no label (the case scores 0 with the reason "no unambiguous option label").

Placeholders: an answer whose basic form is in the table's `placeholders` list ("unknown",
"n/a", "i don't know", ...) or is empty.
"""
from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

TABLE_PATH = Path(__file__).with_name("answer_normalisation.yaml")

# punctuation -> space, except a '.' or ',' between digits ("2.5", "1,000" stay one token)
_PUNCT = re.compile(r"(?<!\d)[.,]|[.,](?!\d)|[^\w\s.,]|_")
_SPACE = re.compile(r"\s+")


def basic(text: str) -> str:
    """NFKC, lower case, punctuation to spaces, whitespace collapsed."""
    if not text.isascii():              # NFKC is a no-op on ASCII: skip it on the common path
        text = unicodedata.normalize("NFKC", text)
    return _SPACE.sub(" ", _PUNCT.sub(" ", text.lower())).strip()


@dataclass(frozen=True, eq=False)   # hashed by identity (cache key); compiled once per process
class AnswerTable:
    """The normalisation table, compiled for O(1) lookups per token position."""

    phrases: Mapping[tuple[str, ...], tuple[str, ...]]   # spelling tokens -> canonical tokens
    max_phrase: int
    drop: frozenset[str]
    yes: frozenset[str]
    no: frozenset[str]
    yes_no_words: Mapping[str, str]                     # single-token synonyms -> yes/no
    placeholders: frozenset[str]
    collapse_repeats: bool = True
    version: int = 0

    @classmethod
    def from_mapping(cls, raw: Mapping[str, Any]) -> AnswerTable:
        phrases: dict[tuple[str, ...], tuple[str, ...]] = {}
        for canonical, spellings in (raw.get("phrases") or {}).items():
            target = tuple(basic(str(canonical)).split())
            for s in [canonical, *spellings]:
                phrases[tuple(basic(str(s)).split())] = target
        for word, number in (raw.get("number_words") or {}).items():
            phrases[tuple(basic(str(word)).split())] = (str(number),)
        phrases.pop((), None)
        yn = raw.get("yes_no") or {}
        yes = frozenset(basic(str(s)) for s in yn.get("yes", []))
        no = frozenset(basic(str(s)) for s in yn.get("no", []))
        single = {s: "yes" for s in yes if " " not in s} | {s: "no" for s in no if " " not in s}
        return cls(phrases=phrases, max_phrase=max((len(k) for k in phrases), default=1),
                   drop=frozenset(basic(str(w)) for w in raw.get("drop") or []),
                   yes=yes, no=no, yes_no_words=single,
                   placeholders=frozenset(basic(str(p)) for p in raw.get("placeholders") or []),
                   collapse_repeats=bool(raw.get("collapse_repeats", True)),
                   version=int(raw.get("version", 0)))


@lru_cache(maxsize=4)
def load_table(path: str | None = None) -> AnswerTable:
    return AnswerTable.from_mapping(yaml.safe_load(Path(path or TABLE_PATH).read_text()))


def canonical_tokens(text: str, table: AnswerTable) -> tuple[str, ...]:
    """basic(text) tokens with phrases mapped (longest first) and filler dropped."""
    tokens = basic(text).split()
    out: list[str] = []
    i, n = 0, len(tokens)
    while i < n:
        for length in range(min(table.max_phrase, n - i), 0, -1):
            hit = table.phrases.get(tuple(tokens[i:i + length]))
            if hit is not None:
                out.extend(hit)
                i += length
                break
        else:
            out.append(tokens[i])
            i += 1
    kept = [t for t in out if t not in table.drop]
    if table.collapse_repeats:
        kept = [t for i, t in enumerate(kept) if i == 0 or t != kept[i - 1]]
    return tuple(kept)


def polarity(text: str, table: AnswerTable) -> str | None:
    """'yes' / 'no' / None (see the module docstring: whole answer, else the first token)."""
    b = basic(text)
    if b in table.yes:
        return "yes"
    if b in table.no:
        return "no"
    first = b.split(" ", 1)[0]
    return table.yes_no_words.get(first) if first in ("yes", "no", "yeah", "yep", "nope") else None


def is_yes_no(reference: str, table: AnswerTable) -> bool:
    b = basic(reference)
    return b in table.yes or b in table.no


def is_placeholder(text: str | None, table: AnswerTable) -> bool:
    if text is None:
        return True
    b = basic(text)
    return not b or b in table.placeholders


def token_f1(pred: tuple[str, ...], ref: tuple[str, ...]) -> float:
    """SQuAD token F1 over multisets of tokens. Both empty -> 1.0; one empty -> 0.0."""
    if not pred or not ref or pred == ref:
        return float(pred == ref)
    # multiset overlap without building two Counters (answers are a handful of tokens)
    left = Counter(pred)
    common = 0
    for t in ref:
        if left.get(t, 0) > 0:
            left[t] -= 1
            common += 1
    if common == 0:
        return 0.0
    p, r = common / len(pred), common / len(ref)
    return 2 * p * r / (p + r)


def score_open(prediction: str, references: Iterable[str], table: AnswerTable | None = None) -> dict[str, Any]:
    """Score one open answer against a reference and its alternatives.

    Returns {"score", "em", "f1", "rule"}; rule is "yes_no" (strict) or "em_f1"."""
    table = table or load_table()
    refs = [r for r in references if r is not None and str(r).strip()]
    if not refs:
        raise ValueError("no reference answer")
    if is_yes_no(refs[0], table):
        want = polarity(refs[0], table)
        ok = float(polarity(prediction, table) == want)
        return {"score": ok, "em": ok, "f1": ok, "rule": "yes_no"}
    pred = canonical_tokens(prediction, table)
    best_em = best_f1 = 0.0
    for ref in refs:
        ref_tokens = _canonical_cached(ref, table)
        best_em = max(best_em, float(pred == ref_tokens))
        best_f1 = max(best_f1, token_f1(pred, ref_tokens))
    return {"score": max(best_em, best_f1), "em": best_em, "f1": best_f1, "rule": "em_f1"}


@lru_cache(maxsize=65536)
def _canonical_cached(text: str, table: AnswerTable) -> tuple[str, ...]:
    # references repeat across runs and answers ("yes", "axial"): cache them
    return canonical_tokens(text, table)


# ---- multiple choice -------------------------------------------------------------------------
_WRAPPED = re.compile(r"^[\s(\[]*([A-Za-z])[\s)\].:]*$")
_STATEMENT = re.compile(
    r"(?i:\b(?:answer|option|choice))\s*(?:is\s*)?(?:[:\-]\s*)?[(\[]?"
    r"(?:([A-Z])(?=$|[\s.,);:\]])|([a-z])(?=$|[.,);:\]]))")
_LEADING = re.compile(r"^\s*[(\[]?([A-Z])\s*[).:\]]")
_PAREN = re.compile(r"\(([A-Za-z])\)")


def parse_choice(text: str | None, labels: Iterable[str],
                 options: Mapping[str, str] | None = None,
                 table: AnswerTable | None = None) -> tuple[str | None, str]:
    """(label, rule) for a label embedded in text, or (None, why). See the module docstring."""
    if text is None or not str(text).strip():
        return None, "empty"
    text = str(text)
    valid = {str(label).upper() for label in labels}

    m = _WRAPPED.match(text)
    if m and m.group(1).upper() in valid:
        return m.group(1).upper(), "label"
    # rules 2-4 together: the first that fires names the rule, and every label any of them
    # finds must be the same one ("(A) or (B)" is ambiguous, not A)
    hits = [(rule, {f.upper() for f in found if f and f.upper() in valid}) for rule, found in (
        ("statement", [a or b for a, b in _STATEMENT.findall(text)]),
        ("leading", _LEADING.findall(text)),
        ("parenthesised", _PAREN.findall(text)))]
    labels_found = set().union(*(h for _, h in hits))
    if len(labels_found) > 1:
        return None, f"ambiguous: several labels ({', '.join(sorted(labels_found))})"
    if labels_found:
        return labels_found.pop(), next(rule for rule, h in hits if h)
    if options:
        table = table or load_table()
        pred = canonical_tokens(text, table)
        matches = [k for k, v in options.items() if _canonical_cached(str(v), table) == pred]
        if len(matches) == 1 and str(matches[0]).upper() in valid:
            return str(matches[0]).upper(), "option_text"
    return None, "no unambiguous option label"
