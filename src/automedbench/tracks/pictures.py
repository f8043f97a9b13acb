"""Per-case pictures: the one optional track capability behind the run pages' thumbnails.

A track MAY override the optional capability declared on `TrackAssets` (tracks/base.py)

    def case_pictures(self, case: PictureCase, options) -> list[CasePicture]

and return small pictures of one case (the prediction over the input beside the reference).
The default draws none. A case whose output failed its check comes with `prediction=None`, its
`reason` and `output_dir` (the folder as the agent wrote it, per-case layouts): the track draws
what it can read of it — at least the input and the reference — and says the reason in the
caption (`not_scored_note`).
The track only draws, in memory; the core picks the cases (at most a dozen per run, the worst
and the best), calls it after scoring and places the files beside the report
(scoring/pictures.py). The judge never reads them. See docs/site.md "Pictures of outputs".

The helpers below are what the image tracks share: a window for an image, contours of a mask,
a labelled row of panels encoded as PNG (Pillow only; no display, no matplotlib import).
"""
from __future__ import annotations

import html
import io
import logging
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np

from ..number_format import metric_text

log = logging.getLogger(__name__)

PANEL_PX = 256          # the longer side of one panel: large enough to read, small enough to list
GAP_PX = 4              # white between panels
MediaType = Literal["image/png", "text/html"]


@dataclass
class PictureCase:
    """What the core hands the track for one case: a valid, scored one (`reason` empty), or one
    whose output failed its check (`prediction` None, `reason` says why)."""

    case_id: str
    public_dir: Path                 # the case's inputs as the agent saw them (data/public/<case_id>)
    meta: dict[str, Any]             # the manifest's entry for the case
    prediction: Any                  # the checked prediction (check_case's `prediction`)
    reference: Any                   # load_reference's reference
    metrics: dict[str, float | None] = field(default_factory=dict)
    reason: str = ""                 # why the case was not scored; "" for a valid case
    output_dir: Path | None = None   # outputs/<case_id> as written (per-case layouts), for an invalid case


def not_scored_note(case: PictureCase) -> str:
    """The caption's note for a case that was not scored: its reason, first."""
    return f"not scored: {case.reason}" if case.reason else ""


@dataclass
class CasePicture:
    """One picture: `name` is a plain file name (the core places it under the case's folder)."""

    name: str
    data: bytes
    caption: str
    media_type: MediaType = "image/png"


# ---- drawing helpers shared by the image tracks -------------------------------------------------

def window(arr: np.ndarray, lo: float | None = None, hi: float | None = None) -> np.ndarray:
    """uint8 grey levels of a 2-D array, windowed on its 1st-99th percentile unless given."""
    a = np.asarray(arr, dtype=np.float64)
    finite = a[np.isfinite(a)]
    if lo is None or hi is None:
        lo, hi = (float(np.percentile(finite, 1)), float(np.percentile(finite, 99))) if finite.size else (0.0, 1.0)
    if hi <= lo:
        hi = lo + 1.0
    return (np.clip((np.nan_to_num(a, nan=lo) - lo) / (hi - lo), 0, 1) * 255).astype(np.uint8)


def outline(mask: np.ndarray) -> np.ndarray:
    """The boundary pixels of a 2-D boolean mask (the mask minus its 4-neighbour erosion)."""
    m = np.asarray(mask, dtype=bool)
    if not m.any():
        return m
    p = np.pad(m, 1)
    inner = p[1:-1, 1:-1] & p[:-2, 1:-1] & p[2:, 1:-1] & p[1:-1, :-2] & p[1:-1, 2:]
    return m & ~inner


def diverging(diff: np.ndarray, scale: float) -> np.ndarray:
    """RGB uint8 of a signed difference: blue below, white at 0, red above (|d| >= scale saturates)."""
    t = np.clip(np.asarray(diff, dtype=np.float64) / (scale or 1.0), -1, 1)
    rgb = np.ones(t.shape + (3,))
    pos, neg = np.clip(t, 0, 1), np.clip(-t, 0, 1)
    rgb[..., 1] -= pos + neg
    rgb[..., 2] -= pos
    rgb[..., 0] -= neg
    return (np.clip(rgb, 0, 1) * 255).astype(np.uint8)


def panels(images: list[tuple[np.ndarray, str]], note: str = "", size: int = PANEL_PX) -> bytes:
    """One PNG: the images side by side (grey 2-D or RGB), with no text in the pixels: labels
    and the note belong in the caption (`caption_of`), which the site shows as HTML, readable
    at any zoom (docs/site.md "Pictures of outputs")."""
    from PIL import Image

    tiles = []
    for arr, _label in images:
        a = np.asarray(arr)
        img = Image.fromarray(a if a.ndim == 3 else a.astype(np.uint8), "RGB" if a.ndim == 3 else "L").convert("RGB")
        scale = size / max(img.size)
        img = img.resize((max(1, round(img.width * scale)), max(1, round(img.height * scale))), Image.Resampling.NEAREST)
        tiles.append(img)
    w = sum(t.width for t in tiles) + GAP_PX * (len(tiles) + 1)
    h = max(t.height for t in tiles) + 2 * GAP_PX
    sheet = Image.new("RGB", (w, h), (255, 255, 255))
    x = GAP_PX
    for img in tiles:
        sheet.paste(img, (x, GAP_PX))
        x += img.width + GAP_PX
    buf = io.BytesIO()
    # zlib level 3: on a noisy 512x1536 radiograph sheet, 40 ms and 287 KB against level 6's
    # 140 ms and 312 KB (level 1: 41 ms, 372 KB); `optimize=True` (level 9 and a search over
    # encoder settings) took ~4x level 6 (docs/site.md "Pictures of outputs")
    sheet.save(buf, "PNG", compress_level=3)
    return buf.getvalue()


def caption_of(description: str, images: list[tuple[np.ndarray, str]], note: str = "") -> str:
    """The caption of a row of panels: what it shows, each panel's label left to right, the note."""
    labels = [label for _, label in images if label]
    parts = [description]
    if len(labels) > 1:
        parts.append("left to right: " + " | ".join(labels))
    elif labels:
        parts.append(labels[0])
    if note:
        parts.append(note)
    return " · ".join(p for p in parts if p)


def rgb_of(gray: np.ndarray) -> np.ndarray:
    return np.repeat(np.asarray(gray, dtype=np.uint8)[..., None], 3, axis=2)


def paint(rgb: np.ndarray, mask: np.ndarray, colour: tuple[int, int, int]) -> np.ndarray:
    out = rgb.copy()
    out[np.asarray(mask, dtype=bool)] = colour
    return out


def read_png_gray(path: Path) -> np.ndarray | None:
    """A public input image as a grey array, or None when it cannot be read (drawn without it)."""
    try:
        from PIL import Image
        with Image.open(path) as im:
            return np.asarray(im.convert("L"))
    except Exception:  # noqa: BLE001 - a picture without its input image is still useful
        return None


def text_card(rows: list[tuple[str, str]], verdict: str = "", good: bool | None = None) -> bytes:
    """A small HTML snippet (escaped) of labelled text rows, for language outputs."""
    colour = {True: "#166534", False: "#991b1b", None: "#334155"}[good]
    body = "".join(f"<dt>{html.escape(k)}</dt><dd>{html.escape(v)}</dd>" for k, v in rows)
    head = f'<p style="color:{colour};font-weight:600">{html.escape(verdict)}</p>' if verdict else ""
    return (f'<!doctype html><meta charset="utf-8"><body style="font:13px system-ui,sans-serif;margin:6px">'
            f"{head}<dl>{body}</dl></body>").encode()


def text_as_written(out_dir: Path | None, name: str, limit: int = 600) -> str | None:
    """The start of an output file that failed its check, as text (for the caption or a card of
    an invalid case), or None when there is none to read. Never follows a link."""
    if out_dir is None:
        return None
    path = out_dir / name
    try:
        if path.is_symlink() or not path.is_file():
            return None
        with open(path, "rb") as fh:
            head = fh.read(limit * 4)
    except OSError:
        return None
    text = head.decode("utf-8", errors="replace")
    return text if len(text) <= limit else text[:limit] + "…"


def metric_note(metrics: dict[str, float | None]) -> str:
    """A case's metrics for a caption, printed as the run page's table prints them (number_format.py)."""
    return ", ".join(f"{k} {metric_text(k, v)}" for k, v in metrics.items() if v is not None)


def restoration_panels(inp: np.ndarray | None, out: np.ndarray | None, ref: np.ndarray,
                       metrics: dict[str, float | None], where: str = "",
                       windows: list[tuple[str, float, float]] | None = None, reason: str = "",
                       finding: str = "") -> list[CasePicture]:
    """Input, output, reference and output − reference, one picture per grey window.

    `windows` are the task's display windows, (name, level, width) in the images' units (e.g.
    Hounsfield units: a CT's soft-tissue or brain window); without them one window, the
    reference's 1st-99th percentile. The same window is used for every panel of a picture,
    except an output the track's plausibility check found wrong (`finding`, e.g. not in the
    input's units): it is drawn in its own 1st-99th percentile window, named with its range
    beside the input's, so what it holds is seen instead of one flat grey (docs/site.md "One
    source for every statement"). An output that was not scored (`out` None, `reason` set) is
    left out: input and reference only."""
    r = np.asarray(ref, dtype=np.float64)
    finite = r[np.isfinite(r)]
    if windows:
        bounds = [(f"{name} window (level {level:g}, width {width:g})", level - width / 2, level + width / 2)
                  for name, level, width in windows]
    else:
        lo, hi = (float(np.percentile(finite, 1)), float(np.percentile(finite, 99))) if finite.size else (0.0, 1.0)
        bounds = [("window: the ground truth's 1st-99th percentile", lo, hi)]
    diff = None if out is None else np.nan_to_num(np.asarray(out, dtype=np.float64) - r)
    pictures = []
    for i, (wname, lo, hi) in enumerate(bounds):
        tiles: list[tuple[np.ndarray, str]] = []
        if inp is not None:
            tiles.append((window(inp, lo, hi), "input"))
        if out is not None and finding:
            olo, ohi = _percentiles(out)
            tiles.append((window(out, olo, ohi), f"output in its own window {olo:.3g}..{ohi:.3g} "
                                                 f"(input and ground truth {lo:.3g}..{hi:.3g})"))
        elif out is not None:
            tiles.append((window(out, lo, hi), "output"))
        tiles.append((window(r, lo, hi), "ground truth"))
        if diff is not None:
            scale = float(np.percentile(np.abs(diff), 99)) or (hi - lo) or 1.0
            tiles.append((diverging(diff, scale), f"output minus ground truth +-{scale:.3g}"))
        note = " · ".join(x for x in (f"not scored: {reason}" if reason else "", finding, where, wname,
                                      metric_note(metrics)) if x)
        what = ("input and ground truth (the output was not scored)" if out is None else
                "input, output, ground truth and the difference map (red: output above the ground truth, blue: below)")
        name = "panels.png" if i == 0 else f"panels-{_SAFE_NAME.sub('-', wname.split(' window')[0])}.png"
        pictures.append(CasePicture(name, panels(tiles), caption_of(what, tiles, note)))
    return pictures


_SAFE_NAME = re.compile(r"[^A-Za-z0-9]+")


def _percentiles(arr: np.ndarray) -> tuple[float, float]:
    """An array's 1st and 99th percentile over its finite values ((0, 1) when it has none)."""
    a = np.asarray(arr, dtype=np.float64)
    finite = a[np.isfinite(a)]
    return (float(np.percentile(finite, 1)), float(np.percentile(finite, 99))) if finite.size else (0.0, 1.0)
