"""Is the batch's method another version of the piloted one, or another method? (docs/judge.md
"A pilot of another method").

A pilot that ran a method file of its own, looked at and found fine, confirms the method worked
(s2e) only when the batch ran that method: the same file, a file made from it (a step that opened
it wrote the other: `cp`, `sed`), or a file whose code is the piloted code with settings changed.
The last is decided on the code's shape: both texts as Python tokens with every literal (number,
string) replaced by a placeholder and comments dropped, compared by difflib's ratio (twice the
tokens in common over both lengths). A parameter changed, a line fixed or added leaves the shape
nearly whole (0.98-1.0 on the demo methods), and a script grown to twice its length around the
piloted code (a loop over the cases, logging) keeps 0.67; a quick filter in place of the planned
method shares a few import and I/O lines (0.1-0.2), and two different methods written in one
house style share about half (0.48). Where the judge does not
know a file's text (it was not written from the agent's own code) nothing is compared and the
pilot keeps its credit, as before this rule.
"""
from __future__ import annotations

import difflib
import io
import re
import tokenize
from collections.abc import Iterable, Mapping
from functools import lru_cache

# at least this share of the code's shape in common: another version of one method (module doc)
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
    if not sa or not sb:
        return False
    return difflib.SequenceMatcher(None, sa, sb, autojunk=False).ratio() >= SAME_METHOD_RATIO


def versions_of(piloted: str, ran: str, texts: Mapping[str, Iterable[str]], derived: set[tuple[str, str]]) -> bool:
    """Whether file `ran` (run by the batch) is a version of file `piloted`: the same path, made
    from it (`derived` holds (source, made) pairs), any of its texts the same method as any of
    the other's, or either text unknown (nothing to compare: credit kept)."""
    if piloted == ran or (piloted, ran) in derived:
        return True
    a, b = list(texts.get(piloted, ())), list(texts.get(ran, ()))
    if not a or not b:
        return True
    return any(same_method(x, y) for x in a for y in b)
