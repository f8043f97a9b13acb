"""Whether an image output is in its input's units by its percentiles alone, without the
reference (docs/judge.md "Plausibility"): a restored or super-resolved image keeps the input's
intensity scale (HU for CT), so its value spread and its middle both stay near the input's. The
first comparison of the `Values` relation (tracks/relations.py), which then compares the output
with the input value for value on the input's grid where the task's degradation maps it there."""
from __future__ import annotations

import numpy as np

# the output's 1st-99th percentile spread outside this multiple of the input's: not its units
# (a [0, 1] normalisation kept shrinks it to ~1/1000 of a CT's)
SPREAD = (0.05, 20.0)
# the output's median moved by more than this fraction of the input's spread: an offset (an HU
# shift applied twice moves it by ~1000 HU, about half of a CT's 1st-99th percentile spread);
# denoising or interpolating moves it by a few HU
SHIFT = 0.25


def not_in_input_units(output: np.ndarray, source: np.ndarray) -> str:
    """"" when `output` is in `source`'s units, else what is wrong, in numbers."""
    src = np.asarray(source, dtype=np.float64)
    out = np.asarray(output, dtype=np.float64)
    lo_in, mid_in, hi_in = np.percentile(src, [1, 50, 99])
    lo_out, mid_out, hi_out = np.percentile(out, [1, 50, 99])
    spread_in, spread_out = hi_in - lo_in, hi_out - lo_out
    if spread_in <= 0:
        return ""
    if not SPREAD[0] * spread_in <= spread_out <= SPREAD[1] * spread_in:
        return (f"values span {lo_out:.3g}..{hi_out:.3g} (1st-99th percentile), the input spans "
                f"{lo_in:.3g}..{hi_in:.3g}: not in the input's units")
    if abs(mid_out - mid_in) > SHIFT * spread_in:
        return (f"median {mid_out:.3g} against the input's {mid_in:.3g} (its 1st-99th percentile spread "
                f"{spread_in:.3g}): the values are offset, not in the input's units")
    return ""
