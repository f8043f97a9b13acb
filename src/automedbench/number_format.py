"""How every number is printed, on the CLI and on every page (docs/site.md "One number format").

    score_text(0.8125) == "81.3"      a score, x100, one decimal (digits=0: whole points)
    metric_text("ssim", 0.0) == "0.000";  metric_text("correct", 1.0, FLAG) == "yes"
    metric_kind(name, values) -> COUNT | FLAG | VALUE

Rounding is the one rule site.js's `toFixed` applies: the value as stored (a binary float) is
rounded half away from zero, exactly, once. Python's own format rounds a tie to even (81.25 ->
"81.2", where the browser prints "81.3"), and rounding a value twice (to 4 decimals for the
page's data, then to 1 for the cell) moves 79.948 to "80.0": the CLI and the index then disagreed.
"""
from __future__ import annotations

import math
import re
from decimal import ROUND_HALF_UP, Decimal

# metric names that say "a count" (printed as integers): the tracks name theirs so
COUNT_NAMES = re.compile(r"^n_|_(voxels|count|boxes|pixels)$")
# metric names that say "a yes/no" (1 or 0 per case: the answer is right, a placeholder was given)
FLAG_NAMES = re.compile(r"^(correct|placeholder)$|^is_|_flag$")

COUNT, FLAG, VALUE = "count", "flag", "value"
VALUE_DIGITS = 3      # a metric's value: 3 decimals everywhere (tables, captions, diagnostics)
MISSING = "—"


def fixed(x: float, digits: int) -> str:
    """`x` with `digits` decimals, rounded half away from zero on its exact binary value: the
    digits JavaScript's `Number.prototype.toFixed` prints for the same float."""
    x = float(x)
    if not math.isfinite(x):
        return str(x)
    if x == 0:
        x = 0.0   # -0.0 prints as 0, as toFixed does
    return str(Decimal(x).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP))


def score_text(v: float | None, digits: int = 1) -> str:
    """A score in [0, 1] as points out of 100 ("—" for none)."""
    return MISSING if v is None else fixed(float(v) * 100, digits)


def metric_kind(name: str, values: list[float]) -> str:
    """What a metric's numbers are, from its name and its values in a run: a flag (every value 0
    or 1 and a flag's name), a count (every value whole, and some above 1 or a count's name),
    else a value."""
    if not values or not all(math.isfinite(float(v)) for v in values):
        return VALUE
    if FLAG_NAMES.search(name) and all(float(v) in (0.0, 1.0) for v in values):
        return FLAG
    if all(float(v).is_integer() for v in values) and (max(values) > 1 or bool(COUNT_NAMES.search(name))):
        return COUNT
    return VALUE


def metric_text(name: str, v: float | None, kind: str | None = None) -> str:
    """One metric value as printed: a count as an integer, a flag as yes/no, else 3 decimals;
    `kind` from `metric_kind` over the run's values (default: this value alone)."""
    if v is None:
        return MISSING
    kind = kind or metric_kind(name, [v])
    if kind == FLAG:
        return "yes" if v else "no"
    if kind == COUNT:
        return f"{int(v):d}"
    return fixed(v, VALUE_DIGITS)
