"""Answer matching for medical VQA. Pure functions, no I/O apart from reading the table once.

The rules are a TABLE, `answer_normalisation.yaml` (every synonym entry names its source); this
module only applies it. What each rule is for: docs/tracks/vqa.md "Answer matching".

  basic(text)     NFKC, lower case, thousands separators removed ("1,000" -> "1000"), punctuation
                  -> space (a '.' between digits is kept, "2.5"), whitespace collapsed.
  canonical(text) per clause (clauses end at , ; : and "but"/"however"...): basic tokens; a
                  number written together with a unit split ("5mm" -> 5 mm); the table's phrases
                  and units mapped to one spelling (longest first); zero-count phrases -> "0";
                  number words composed ("twenty one" -> 21) and numerals written one way
                  ("2.50" -> 2.5); a unit converted only where the table states it ("1 cm" ->
                  10 mm); tokens in the scope of a negation cue marked ("no pneumothorax" ->
                  "not-pneumothorax"); filler dropped; a token repeated in a row kept once.

Open questions:
  - yes/no reference (its basic form is a yes/no synonym): STRICT polarity (see `polarity`):
    score 1 if the prediction's polarity equals the reference's, else 0. A hedge ("probably",
    "yes and no") has no polarity and scores 0.
  - otherwise: max(EM, token-F1) over the canonical forms, and over the reference's listed
    alternatives; a reference CONTRADICTED by the prediction scores 0 instead (see
    `contradiction`: both state values of one of the table's contrastive sets — laterality,
    pleural/pericardial, benign/malignant, named findings, numbers ... — and share none of them). EM and token-F1 follow SQuAD (Rajpurkar et al. 2016, the official
    evaluate-v1.1.py): F1 over the multiset of tokens, 0 when nothing overlaps. A prediction
    (or reference) that normalises to nothing never matches (score 0, even against nothing).

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
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from .. import yamlfile

TABLE_PATH = Path(__file__).with_name("answer_normalisation.yaml")
NEGATED = "not-"          # prefix of a token in the scope of a negation cue (never a basic token:
                          # basic() turns '-' into a space)

# punctuation -> space, except a '.' or ',' between digits ("2.5", "1,2" stay one token)
_PUNCT = re.compile(r"(?<!\d)[.,]|[.,](?!\d)|[^\w\s.,]|_")
_SPACE = re.compile(r"\s+")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
# clause boundaries: the scope of a negation cue ends here
_CLAUSE = re.compile(r"[;:!?]|,(?!\d)|(?<!\d),|(?<!\d)\.|\.(?!\d)|"
                     r"\b(?:but|however|although|though|whereas|except|while)\b")
# boundaries between replies in a yes/no answer ("yes and no", "yes/no", "yes, or no")
_REPLY_SPLIT = re.compile(r"[;:!?/]|,(?!\d)|(?<!\d),|(?<!\d)\.|\.(?!\d)|"
                          r"\b(?:and|or|but|however|although|though|whereas|yet|while)\b")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_NUMBER_UNIT = re.compile(r"^(\d+(?:\.\d+)?)([a-z]+)$")


def basic(text: str) -> str:
    """NFKC, lower case, thousands separators removed, punctuation to spaces, whitespace collapsed."""
    if not text.isascii():              # NFKC is a no-op on ASCII: skip it on the common path
        text = unicodedata.normalize("NFKC", text)
    text = _THOUSANDS.sub("", text.lower()).replace("%", " percent ")
    return _SPACE.sub(" ", _PUNCT.sub(" ", text)).strip()


def _refuse_booleans(items: Iterable[Any]) -> list[Any]:
    items = list(items)
    bad = [s for s in items if isinstance(s, bool)]
    if bad:   # YAML 1.1 reads a bare no / yes as a boolean: the table must quote them
        raise ValueError(f"answer table: quote yes/no words, got {bad}")
    return items


def _phrase_set(items: Iterable[Any]) -> frozenset[tuple[str, ...]]:
    return frozenset(t for t in (tuple(basic(str(s)).split()) for s in _refuse_booleans(items)) if t)


@dataclass(frozen=True)
class ContrastiveSet:
    """Values that name mutually exclusive findings, sites or kinds (docs/tracks/vqa.md
    "Different findings never match"); `numbers`: every numeral is a value too."""

    name: str
    terms: frozenset[tuple[str, ...]]
    numbers: bool = False


@dataclass(frozen=True, eq=False)   # hashed by identity (cache key); compiled once per process
class AnswerTable:
    """The normalisation table, compiled for O(1) lookups per token position."""

    phrases: Mapping[tuple[str, ...], tuple[str, ...]]   # spelling tokens -> canonical tokens
    max_phrase: int
    drop: frozenset[str]
    yes: frozenset[str]
    no: frozenset[str]
    yes_no_words: Mapping[str, str]                     # reply words -> yes/no
    placeholders: frozenset[str]
    collapse_repeats: bool = True
    version: int = 0
    units: frozenset[str] = frozenset()
    conversions: Mapping[str, tuple[str, float]] = field(default_factory=dict)
    number_words: Mapping[str, int] = field(default_factory=dict)
    number_scales: Mapping[str, int] = field(default_factory=dict)
    negation_before: frozenset[tuple[str, ...]] = frozenset()
    negation_after: frozenset[tuple[str, ...]] = frozenset()
    affirmation: frozenset[tuple[str, ...]] = frozenset()
    hedges: frozenset[tuple[str, ...]] = frozenset()
    sources: Mapping[str, str] = field(default_factory=dict)
    contrastive: tuple[ContrastiveSet, ...] = ()

    @classmethod
    def from_mapping(cls, raw: Mapping[str, Any]) -> AnswerTable:
        phrases: dict[tuple[str, ...], tuple[str, ...]] = {}
        sources: dict[str, str] = {}
        for canonical, entry in (raw.get("phrases") or {}).items():
            # an entry is {spellings: [...], source: "..."}; a bare list of spellings is accepted
            spellings = entry.get("spellings", []) if isinstance(entry, Mapping) else entry
            if isinstance(entry, Mapping):
                sources[str(canonical)] = str(entry.get("source", ""))
            target = tuple(basic(str(canonical)).split())
            for s in [canonical, *spellings]:
                phrases[tuple(basic(str(s)).split())] = target
        units = set()
        for unit, spellings in (raw.get("units") or {}).items():
            target = tuple(basic(str(unit)).split())
            units.add(" ".join(target))
            for s in [unit, *spellings]:
                phrases[tuple(basic(str(s)).split())] = target
        for phrase in raw.get("zero_count_phrases") or []:
            phrases[tuple(basic(str(phrase)).split())] = ("0",)
        phrases.pop((), None)
        max_len = max((len(k) for k in phrases), default=1)
        yn = raw.get("yes_no") or {}
        yes = frozenset(basic(str(s)) for s in yn.get("yes", []))
        no = frozenset(basic(str(s)) for s in yn.get("no", []))
        replies = raw.get("reply_words")
        if replies:
            words = {basic(str(s)): "yes" for s in replies.get("yes", [])}
            words |= {basic(str(s)): "no" for s in replies.get("no", [])}
        else:   # a table without reply words: the single-token yes/no synonyms
            words = {s: "yes" for s in yes if " " not in s} | {s: "no" for s in no if " " not in s}
        number_words = {basic(str(k)): int(v) for k, v in (raw.get("number_words") or {}).items()}
        conversions = {basic(str(k)): (basic(str(v["to"])), float(v["factor"]))
                       for k, v in (raw.get("unit_conversions") or {}).items()}
        neg = raw.get("negation") or {}
        contrastive = []
        for name, entry in (raw.get("contrastive_sets") or {}).items():
            if not isinstance(entry, Mapping) or not (entry.get("terms") or entry.get("numbers")):
                raise ValueError(f"answer table: contrastive set {name!r} needs `terms` or `numbers: true`")
            # terms are written in canonical form; map them through the phrases anyway, so a
            # term spelled as a synonym ("renal") still means its canonical token ("kidney")
            terms = frozenset(t for t in (tuple(_map_phrases(basic(str(term)).split(), phrases, max_len))
                                          for term in _refuse_booleans(entry.get("terms") or [])) if t)
            contrastive.append(ContrastiveSet(str(name), terms, bool(entry.get("numbers", False))))
        return cls(phrases=phrases, max_phrase=max_len,
                   drop=frozenset(basic(str(w)) for w in raw.get("drop") or []),
                   yes=yes, no=no, yes_no_words=words,
                   placeholders=frozenset(basic(str(p)) for p in raw.get("placeholders") or []),
                   collapse_repeats=bool(raw.get("collapse_repeats", True)),
                   version=int(raw.get("version", 0)),
                   units=frozenset(units), conversions=conversions, number_words=number_words,
                   number_scales={basic(str(k)): int(v) for k, v in (raw.get("number_scales") or {}).items()},
                   negation_before=_phrase_set(neg.get("before") or []),
                   negation_after=_phrase_set(neg.get("after") or []),
                   affirmation=_phrase_set(raw.get("affirmation") or []),
                   hedges=_phrase_set(raw.get("hedges") or []),
                   sources=sources, contrastive=tuple(contrastive))


@lru_cache(maxsize=4)
def load_table(path: str | None = None) -> AnswerTable:
    return AnswerTable.from_mapping(yamlfile.safe_load(Path(path or TABLE_PATH).read_text()))


def _number_text(value: float) -> str:
    """One spelling per number: 10.0 -> "10", 2.50 -> "2.5"."""
    return str(int(value)) if float(value).is_integer() else f"{value:.10g}"


def _split_units(tokens: list[str], table: AnswerTable) -> list[str]:
    out: list[str] = []
    for t in tokens:
        m = _NUMBER_UNIT.match(t)
        if m and table.phrases.get((m.group(2),), ("",))[0] in table.units:
            out.extend(m.groups())
        else:
            out.append(t)
    return out


def _map_phrases(tokens: list[str], phrases: Mapping[tuple[str, ...], tuple[str, ...]],
                 max_phrase: int) -> list[str]:
    out: list[str] = []
    i, n = 0, len(tokens)
    while i < n:
        for length in range(min(max_phrase, n - i), 0, -1):
            hit = phrases.get(tuple(tokens[i:i + length]))
            if hit is not None:
                out.extend(hit)
                i += length
                break
        else:
            out.append(tokens[i])
            i += 1
    return out


def _compose_numbers(tokens: list[str], table: AnswerTable) -> list[str]:
    """Number words -> one numeral ("twenty one" -> 21, "one hundred and five" -> 105)."""
    out: list[str] = []
    total = current = 0
    in_number = False

    def flush() -> None:
        nonlocal total, current, in_number
        if in_number:
            out.append(str(total + current))
        total = current = 0
        in_number = False

    for i, t in enumerate(tokens):
        if t in table.number_words:
            current += table.number_words[t]
            in_number = True
        elif t in table.number_scales and in_number:
            scale = table.number_scales[t]
            if scale >= 1000:
                total += max(current, 1) * scale
                current = 0
            else:
                current = max(current, 1) * scale
        elif t == "and" and in_number and i + 1 < len(tokens) and tokens[i + 1] in table.number_words:
            continue
        else:
            flush()
            out.append(_number_text(float(t)) if _NUMBER.fullmatch(t) else t)
    flush()
    return out


def _convert_units(tokens: list[str], table: AnswerTable) -> list[str]:
    out = list(tokens)
    for i in range(len(out) - 1):
        if _NUMBER.fullmatch(out[i]) and out[i + 1] in table.conversions:
            base, factor = table.conversions[out[i + 1]]
            out[i], out[i + 1] = _number_text(float(out[i]) * factor), base
    return out


def _find(tokens: list[str], phrases: frozenset[tuple[str, ...]], start: int = 0) -> tuple[int, int] | None:
    """(position, length) of the first, then longest, phrase occurring in tokens[start:]."""
    longest = max((len(p) for p in phrases), default=0)
    for i in range(start, len(tokens)):
        for length in range(min(longest, len(tokens) - i), 0, -1):
            if tuple(tokens[i:i + length]) in phrases:
                return i, length
    return None


def _mark_negation(tokens: list[str], table: AnswerTable) -> list[str]:
    """Tokens in the scope of a negation cue get the NEGATED prefix; the cue itself goes.
    A cue whose scope holds no content (only filler, or nothing: "no") is kept as words."""
    def content(ts: list[str]) -> list[str]:
        return [t for t in ts if t not in table.drop]

    # a trailing cue negates what precedes it in the clause ("pneumothorax is absent")
    for length in range(min(5, len(tokens)), 0, -1):
        if tuple(tokens[-length:]) in table.negation_after and content(tokens[:-length]):
            return [NEGATED + t for t in content(tokens[:-length])]
    hit = _find(tokens, table.negation_before)
    if hit is None:
        return tokens
    i, length = hit
    scope = content(tokens[i + length:])
    if not scope:
        return tokens
    return tokens[:i] + [NEGATED + t for t in scope]


def _clause_tokens(clause: str, table: AnswerTable) -> list[str]:
    tokens = _split_units(basic(clause).split(), table)
    tokens = _convert_units(_compose_numbers(_map_phrases(tokens, table.phrases, table.max_phrase), table), table)
    tokens = _mark_negation(tokens, table)
    return [t for t in tokens if t not in table.drop]


def canonical_tokens(text: str, table: AnswerTable) -> tuple[str, ...]:
    """Canonical tokens of an answer (see the module docstring for the steps)."""
    text = _THOUSANDS.sub("", text.lower())
    kept: list[str] = []
    for clause in _CLAUSE.split(text):
        kept.extend(_clause_tokens(clause, table))
    if table.collapse_repeats:
        kept = [t for i, t in enumerate(kept) if i == 0 or t != kept[i - 1]]
    return tuple(kept)


def _clause_polarity(tokens: list[str], table: AnswerTable) -> tuple[str | None, bool]:
    """(polarity, is_reply) of one clause: a leading reply word answers; else a negation cue
    means no, an affirmation cue yes."""
    if not tokens:
        return None, False
    if tokens[0] in table.yes_no_words:
        return table.yes_no_words[tokens[0]], True
    if _find(tokens, table.negation_before) or _find(tokens, table.negation_after):
        return "no", False
    if _find(tokens, table.affirmation):
        return "yes", False
    return None, False


def polarity(text: str, table: AnswerTable) -> str | None:
    """'yes' / 'no' / None (a hedge, or no polarity at all).

    1. the whole answer is a yes/no synonym ("absent", "not present") -> that;
    2. a hedge word anywhere ("probably", "cannot exclude") -> None;
    3. the replies: clauses (split at , / and or but ...) that start with a reply word ("yes",
       "no", "nope"); one polarity among them -> it, both ("yes and no") -> None;
    4. no reply: the clauses' negation ("there is no ...", "not seen") and affirmation
       ("... is present") cues; one polarity -> it, both or none -> None."""
    b = basic(text)
    if b in table.yes:
        return "yes"
    if b in table.no:
        return "no"
    if _find(b.split(), table.hedges):
        return None
    replies: set[str] = set()
    described: set[str] = set()
    for clause in _REPLY_SPLIT.split(_THOUSANDS.sub("", text.lower())):
        pol, is_reply = _clause_polarity(basic(clause).split(), table)
        if pol is not None:
            (replies if is_reply else described).add(pol)
    found = replies or described
    return found.pop() if len(found) == 1 else None


def is_yes_no(reference: str, table: AnswerTable) -> bool:
    b = basic(reference)
    return b in table.yes or b in table.no


def is_placeholder(text: str | None, table: AnswerTable) -> bool:
    if text is None:
        return True
    b = basic(text)
    return not b or b in table.placeholders


def token_f1(pred: tuple[str, ...], ref: tuple[str, ...]) -> float:
    """SQuAD token F1 over multisets of tokens. Both empty -> 1.0; one empty -> 0.0
    (score_open never lets an empty answer match: see there)."""
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


def _stated_values(tokens: tuple[str, ...], contrast: ContrastiveSet) -> tuple[frozenset[tuple[str, ...]], frozenset[tuple[str, ...]]]:
    """(asserted, negated) values of one contrastive set stated in canonical tokens."""
    plain = [t.removeprefix(NEGATED) for t in tokens]
    negated = [t.startswith(NEGATED) for t in tokens]
    longest = max((len(term) for term in contrast.terms), default=1)
    found: tuple[set[tuple[str, ...]], set[tuple[str, ...]]] = (set(), set())
    for i in range(len(plain)):
        for length in range(min(longest, len(plain) - i), 0, -1):
            gram = tuple(plain[i:i + length])
            if gram in contrast.terms or (contrast.numbers and length == 1 and _NUMBER.fullmatch(gram[0])):
                found[all(negated[i:i + length])].add(gram)
    return frozenset(found[0]), frozenset(found[1])


def contradiction(pred: tuple[str, ...], ref: tuple[str, ...], table: AnswerTable) -> str | None:
    """The name of the first contrastive set on which prediction and reference contradict each
    other, else None. They contradict when both state values of the set with the same polarity
    (both asserted, or both negated) and share none ("pericardial effusion" vs "pleural
    effusion", "no left effusion" vs "no right effusion"). A side that states no value of the
    set (a less specific answer, "effusion") does not contradict: docs/tracks/vqa.md."""
    for contrast in table.contrastive:
        for said, wanted in zip(_stated_values(pred, contrast), _stated_values(ref, contrast)):
            if said and wanted and not (said & wanted):
                return contrast.name
    return None


def score_open(prediction: str, references: Iterable[str], table: AnswerTable | None = None) -> dict[str, Any]:
    """Score one open answer against a reference and its alternatives.

    Returns {"score", "em", "f1", "rule"}; rule is "yes_no" (strict), "em_f1",
    "empty_after_normalisation" (the prediction, or every reference, normalises to nothing:
    score 0 — two empty answers are not equal answers), or "contradiction:<set>" (every
    reference is contradicted on a contrastive set: score 0, see `contradiction`)."""
    table = table or load_table()
    refs = [r for r in references if r is not None and str(r).strip()]
    if not refs:
        raise ValueError("no reference answer")
    if is_yes_no(refs[0], table):
        want = polarity(refs[0], table)
        ok = float(polarity(prediction, table) == want)
        return {"score": ok, "em": ok, "f1": ok, "rule": "yes_no"}
    pred = canonical_tokens(prediction, table)
    ref_forms = [t for t in (_canonical_cached(ref, table) for ref in refs) if t]
    if not pred or not ref_forms:
        return {"score": 0.0, "em": 0.0, "f1": 0.0, "rule": "empty_after_normalisation"}
    best_em = best_f1 = 0.0
    contradicted: list[str] = []
    for ref_tokens in ref_forms:
        clash = contradiction(pred, ref_tokens, table) if pred != ref_tokens else None
        if clash is not None:     # a different finding earns nothing from shared tokens
            contradicted.append(clash)
            continue
        best_em = max(best_em, float(pred == ref_tokens))
        best_f1 = max(best_f1, token_f1(pred, ref_tokens))
    if len(contradicted) == len(ref_forms):
        return {"score": 0.0, "em": 0.0, "f1": 0.0, "rule": f"contradiction:{contradicted[0]}"}
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
