"""Is the batch's method another version of the piloted one, or another method? (docs/judge.md
"Units, pilot, batch": "A pilot of another method", with the measured ratios)."""
from __future__ import annotations

import difflib
import io
import re
import tokenize
from collections.abc import Iterable, Mapping
from functools import lru_cache

# at least this share of the code's shape in common: another version of one method (docs/judge.md)
SAME_METHOD_RATIO = 0.6

_SKIP = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}
_WORD = re.compile(r"\w+|[^\w\s]")


@lru_cache(maxsize=256)
def code_shape(text: str) -> tuple[str, ...]:
    """The code's tokens with literals as placeholders (any text: not Python, its words)."""
    out: list[str] = []
    try:
        for t in tokenize.generate_tokens(io.StringIO(text).readline):
            if t.type in _SKIP:
                continue
            out.append("#N" if t.type == tokenize.NUMBER else "#S" if t.type == tokenize.STRING else t.string)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        out = [w if not w[0].isdigit() else "#N" for w in _WORD.findall(text)]
    return tuple(out)


def same_method(a: str, b: str) -> bool:
    """Two texts are versions of one method: their shapes share `SAME_METHOD_RATIO`."""
    sa, sb = code_shape(a), code_shape(b)
    return bool(sa and sb) and difflib.SequenceMatcher(None, sa, sb, autojunk=False).ratio() >= SAME_METHOD_RATIO


def versions_of(piloted: str, ran: str, texts: Mapping[str, Iterable[str]], derived: set[tuple[str, str]]) -> bool:
    """Whether file `ran` (run by the batch) is a version of file `piloted`, `derived` holding (source, made)
    pairs (docs/judge.md "A pilot of another method": the same file, one made from it, the same shape)."""
    if piloted == ran or (piloted, ran) in derived:
        return True
    a, b = list(texts.get(piloted, ())), list(texts.get(ran, ()))
    if not a or not b:
        return True
    return any(same_method(x, y) for x in a for y in b)
