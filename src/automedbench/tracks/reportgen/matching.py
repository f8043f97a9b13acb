"""Findings that agree (docs/tracks/report-generation.md "Findings that agree"): the generated
findings section beside the reference's, sentence by sentence, knowing negation, side, zone
and size. The vocabulary is data (rules.yaml: findings, sides, zones, size_units, negation).

    compare(generated, reference) -> Agreement: each sentence marked, the contradictions named

A reference sentence is *contradicted* when a finding it states is said by the generated
findings only with another side, zone or size, or with the other polarity (present vs absent);
*matched* when every finding it affirms is in the generated findings with nothing differing and
either its denied findings are denied there too or half of its other words are in one generated
sentence (a sentence without a finding: half of its words); else *missing*. A generated sentence
is *contradicts*, *matched* or *extra* by the same rules read the other way. The per-case Why
and the report picture are both read from this one comparison. A reading aid beside the score:
the score is the track's metrics.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from .text import rules

_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_TOKEN = re.compile(r"\d+(?:\.\d+)?|[^\W\d_]+|;")
_NUMBER = re.compile(r"\d+(?:\.\d+)?$")
MATCH_SHARE = 0.5       # share of a sentence's words another sentence must hold to say the same
CONFLICTS_IN_WHY = 3    # contradictions spelled out in the one-line Why (the rest counted)
CONTRADICTS = "contradicts the ground truth"   # the case's flag when a finding is contradicted


@dataclass(frozen=True)
class Mention:
    """One finding as a sentence states it."""

    finding: str
    negated: bool
    sides: frozenset[str] = frozenset()
    zones: frozenset[str] = frozenset()
    sizes: tuple[float, ...] = ()          # millimetres


@dataclass
class Sentence:
    text: str
    words: frozenset[str]
    mentions: tuple[Mention, ...]
    mark: str = ""                          # reference: matched / missing / contradicted;
                                            # generated: matched / extra / contradicts
    conflicts: list[str] = field(default_factory=list)   # what differs, one phrase each


@dataclass
class Agreement:
    generated: list[Sentence]
    reference: list[Sentence]

    def count(self, side: str, mark: str) -> int:
        return sum(s.mark == mark for s in (self.reference if side == "reference" else self.generated))

    @property
    def conflicts(self) -> list[str]:
        return list(dict.fromkeys(c for s in self.reference for c in s.conflicts))

    def summary(self) -> str:
        """"k of n ground-truth sentences matched, m missing, c contradicted" (every count said)."""
        n = len(self.reference)
        return (f"{self.count('reference', 'matched')} of {n} ground-truth sentence{'' if n == 1 else 's'} "
                f"matched, {self.count('reference', 'missing')} missing, "
                f"{self.count('reference', 'contradicted')} contradicted")

    def why(self) -> str:
        """The case's one-line reason: its contradictions first, then the counts."""
        parts = []
        said = self.conflicts
        if said:
            more = len(said) - CONFLICTS_IN_WHY
            parts.append(f"{CONTRADICTS}: " + "; ".join(said[:CONFLICTS_IN_WHY])
                         + (f"; and {more} more" if more > 0 else ""))
        parts.append(self.summary())
        extra = self.count("generated", "extra")
        if extra:
            parts.append(f"{extra} generated sentence{'' if extra == 1 else 's'} not in the ground truth")
        return " · ".join(parts)


# ---- vocabulary ---------------------------------------------------------------------------
@dataclass(frozen=True)
class _Vocabulary:
    findings: tuple[tuple[tuple[str, ...], str], ...]     # (phrase tokens, finding), longest first
    sides: dict[str, frozenset[str]]
    zones: dict[str, str]
    units: dict[str, float]
    tolerance_mm: float
    tolerance_share: float
    before: tuple[tuple[str, ...], ...]
    after: tuple[tuple[str, ...], ...]
    scope_ends: frozenset[str]
    stop_words: frozenset[str]


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


def _phrases(items: Sequence[str]) -> tuple[tuple[str, ...], ...]:
    return tuple(sorted({tuple(_tokens(p)) for p in items}, key=len, reverse=True))


@lru_cache(maxsize=1)
def vocabulary() -> _Vocabulary:
    r: dict[str, Any] = rules()
    findings = sorted(((tuple(_tokens(p)), name) for name, phrases in r["findings"].items() for p in phrases),
                      key=lambda t: len(t[0]), reverse=True)
    neg = r["negation"]
    return _Vocabulary(
        findings=tuple(findings),
        sides={w: frozenset(v) for w, v in r["sides"].items()},
        zones={str(w): str(z) for w, z in r["zones"].items()},
        units={str(u): float(f) for u, f in r["size_units"].items()},
        tolerance_mm=float(r["size_tolerance"]["mm"]), tolerance_share=float(r["size_tolerance"]["share"]),
        before=_phrases(neg["before"]), after=_phrases(neg["after"]),
        scope_ends=frozenset([*neg["scope_ends"], ";"]), stop_words=frozenset(r["stop_words"]))


# ---- reading one sentence -------------------------------------------------------------------
def _find(tokens: list[str], phrases: Sequence[tuple[str, ...]], i: int) -> tuple[str, ...] | None:
    return next((p for p in phrases if tuple(tokens[i:i + len(p)]) == p), None)


def _sizes(tokens: list[str], units: dict[str, float]) -> list[tuple[int, float]]:
    """(token index, millimetres) of each size: a number, or `a x b (x c)`, before a unit."""
    out = []
    for i, t in enumerate(tokens):
        if t in units and i and _NUMBER.match(tokens[i - 1]):
            j = i - 1
            while True:
                out.append((j, float(tokens[j]) * units[t]))
                if j >= 2 and tokens[j - 1] in ("x", "by") and _NUMBER.match(tokens[j - 2]):
                    j -= 2
                else:
                    break
    return out


def _negated(tokens: list[str], start: int, end: int, v: _Vocabulary) -> bool:
    """Whether a cue of `before` precedes [start, end) or one of `after` follows it, with no
    scope end between them."""
    for i in range(start - 1, -1, -1):
        if tokens[i] in v.scope_ends:
            break
        if any(tuple(tokens[i:i + len(p)]) == p and i + len(p) <= start for p in v.before):
            return True
    for i in range(end, len(tokens)):
        if tokens[i] in v.scope_ends:
            break
        if _find(tokens, v.after, i):
            return True
    return False


def read_sentence(text: str) -> Sentence:
    """The sentence's words (for word matching) and the findings it states, each with the side,
    zone and size words nearest to it and whether it is denied."""
    v = vocabulary()
    tokens = _tokens(text)
    spans: list[tuple[int, int, str]] = []
    i = 0
    while i < len(tokens):
        hit = next(((p, name) for p, name in v.findings if tuple(tokens[i:i + len(p)]) == p), None)
        if hit is None:
            i += 1
            continue
        spans.append((i, i + len(hit[0]), hit[1]))
        i += len(hit[0])
    sides: list[set[str]] = [set() for _ in spans]
    zones: list[set[str]] = [set() for _ in spans]
    sizes: list[list[float]] = [[] for _ in spans]

    def nearest(k: int) -> int:
        return min(range(len(spans)), key=lambda m: max(spans[m][0] - k, k - spans[m][1] + 1, 0))

    if spans:
        for k, t in enumerate(tokens):
            if t in v.sides:
                sides[nearest(k)] |= v.sides[t]
            if t in v.zones:
                zones[nearest(k)].add(v.zones[t])
        for k, mm in _sizes(tokens, v.units):
            sizes[nearest(k)].append(mm)
    # one finding named twice with one polarity ("airspace opacity ..., in keeping with
    # consolidation") is one statement: its places are pooled
    merged: dict[tuple[str, bool], tuple[set[str], set[str], set[float]]] = {}
    for m, (a, b, name) in enumerate(spans):
        pool = merged.setdefault((name, _negated(tokens, a, b, v)), (set(), set(), set()))
        pool[0].update(sides[m])
        pool[1].update(zones[m])
        pool[2].update(sizes[m])
    mentions = tuple(Mention(name, neg, frozenset(s), frozenset(z), tuple(sorted(mm)))
                     for (name, neg), (s, z, mm) in merged.items())
    words = frozenset(t for t in tokens if len(t) > 2 and t not in v.stop_words and not _NUMBER.match(t))
    return Sentence(text, words, mentions)


def split_sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text) if s.strip()]


# ---- comparing ------------------------------------------------------------------------------------
def _sizes_agree(a: tuple[float, ...], b: tuple[float, ...], v: _Vocabulary) -> bool:
    return any(abs(x - y) <= max(v.tolerance_mm, v.tolerance_share * max(x, y)) for x in a for y in b)


def _fmt_mm(sizes: tuple[float, ...]) -> str:
    return "/".join(f"{s:g} mm" for s in sizes)


def differences(mine: Mention, theirs: Mention) -> list[tuple[str, str]] | None:
    """What differs between one finding as two reports state it, as (mine, theirs) phrases:
    [] = they agree; None = they speak of different things (a denial and an affirmation placed
    differently: "no left effusion" beside "a right effusion")."""
    v = vocabulary()
    placed = []
    if mine.sides and theirs.sides and not mine.sides & theirs.sides:
        placed.append(("/".join(sorted(mine.sides)) + " side", "/".join(sorted(theirs.sides)) + " side"))
    if mine.zones and theirs.zones and not mine.zones & theirs.zones:
        placed.append(("/".join(sorted(mine.zones)) + " zone", "/".join(sorted(theirs.zones)) + " zone"))
    if mine.sizes and theirs.sizes and not _sizes_agree(mine.sizes, theirs.sizes, v):
        placed.append((_fmt_mm(mine.sizes), _fmt_mm(theirs.sizes)))
    if mine.negated != theirs.negated:
        return None if placed else [("absent" if mine.negated else "present",
                                     "absent" if theirs.negated else "present")]
    return [] if mine.negated else placed     # two denials never contradict each other


def _overlap(s: Sentence, others: list[Sentence]) -> float:
    if not s.words:
        return 0.0
    return max((len(s.words & o.words) / len(s.words) for o in others), default=0.0)


def _judge(sentences: list[Sentence], others: list[Sentence], marks: tuple[str, str, str], mine_is_reference: bool
           ) -> None:
    """Mark each of `sentences` against all of `others` with marks (contradicted, matched,
    unmatched); a contradiction is told generated first: "generated 29 mm; reference 19 mm"."""
    contradicted, matched, unmatched = marks
    their_mentions = [m for o in others for m in o.mentions]
    for s in sentences:
        agree: list[bool] = []
        for m in s.mentions:
            same = [d for t in their_mentions if t.finding == m.finding and (d := differences(m, t)) is not None]
            agree.append(any(d == [] for d in same))
            if same and not agree[-1]:
                d = min(same, key=len)
                gen, ref = (", ".join(b for _, b in d), ", ".join(a for a, _ in d)) if mine_is_reference else \
                    (", ".join(a for a, _ in d), ", ".join(b for _, b in d))
                s.conflicts.append(f"{m.finding}: generated {gen}; ground truth {ref}")
        affirmed_ok = all(ok for m, ok in zip(s.mentions, agree) if not m.negated)
        if s.conflicts:
            s.mark = contradicted
        elif (s.mentions and all(agree)) or (affirmed_ok and _overlap(s, others) >= MATCH_SHARE):
            s.mark = matched
        else:
            s.mark = unmatched


def compare(generated: str, reference: str) -> Agreement:
    """Both findings sections split into sentences, each marked (module docstring)."""
    gen = [read_sentence(s) for s in split_sentences(generated)]
    ref = [read_sentence(s) for s in split_sentences(reference)]
    _judge(ref, gen, ("contradicted", "matched", "missing"), True)
    _judge(gen, ref, ("contradicts", "matched", "extra"), False)
    return Agreement(gen, ref)
