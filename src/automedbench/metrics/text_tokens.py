"""Word tokens for the text metrics (BLEU, ROUGE-L, METEOR). Pure, no I/O.

One tokenisation feeds every metric, so a report is tokenised once per scoring:
lower-case (`str.lower`), then maximal runs of Unicode letters and digits (`[^\\W_]+`);
punctuation, whitespace and underscores separate tokens and are dropped.

On ASCII text this is exactly rouge-score's default tokenizer (lower-case, `[^a-z0-9]+` →
space, split; `rouge_score.tokenize.tokenize` without stemming), which the tests check. Unlike
it, non-ASCII letters are kept (reports are UTF-8 and need not be ASCII: "5 × 3 cm", "Pleuraerguss").
sacrebleu's default `13a` tokenizer keeps punctuation as tokens; we score BLEU on these word
tokens instead (the cross-check passes them to sacrebleu with `tokenize="none"`).
"""
from __future__ import annotations

import re

_WORD = re.compile(r"[^\W_]+")


def tokenize(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def has_words(text: str) -> bool:
    """Whether `tokenize(text)` would return any token (a search, no list built)."""
    return _WORD.search(text) is not None
