"""Detection's broken outputs (docs/judge.md "Experiments"): boxes a look at one prediction
should catch -- all the same box, width/height written where x2/y2 belong, boxes off the image,
no boxes at all (a form mutant: it changes only how many boxes there are)."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..mutants import Apply, Mutant, UnitFiles, edit_json
from .options import DetectionOptions

OFF_IMAGE = 100_000.0     # far outside any image


def _boxes(options: DetectionOptions, fn: Callable[[list[dict[str, Any]]], list[dict[str, Any]] | None]) -> Apply:
    def edit(doc: Any) -> Any:
        boxes = doc.get("boxes") if isinstance(doc, dict) else None
        if not isinstance(boxes, list) or not all(isinstance(b, dict) for b in boxes):
            return None
        new = fn([dict(b) for b in boxes])
        return None if new is None else {**doc, "boxes": new}

    def apply(files: UnitFiles) -> bool:
        p = files.get(options.output_file)
        return p is not None and edit_json(p, edit)
    return apply


def _identical(boxes: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
    # as many boxes as before: a look that prints only how many there are must not see it
    return None if len(boxes) < 2 else [dict(boxes[0]) for _ in boxes]


def _corner_size(boxes: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
    try:
        return [{**b, "x2": b["x2"] - b["x1"], "y2": b["y2"] - b["y1"]} for b in boxes] or None
    except (KeyError, TypeError):
        return None


def _off_image(boxes: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
    try:
        return [{**b, **{k: b[k] + OFF_IMAGE for k in ("x1", "y1", "x2", "y2")}} for b in boxes] or None
    except (KeyError, TypeError):
        return None


def detection_mutants(options: DetectionOptions) -> list[Mutant]:
    return [
        Mutant("identical_boxes", "every box a copy of the first one", _boxes(options, _identical)),
        Mutant("corner_size", "width/height written where x2/y2 belong (COCO's x,y,w,h)", _boxes(options, _corner_size)),
        Mutant("off_image", "every box moved outside the image", _boxes(options, _off_image)),
        # how many boxes there are is the list's form, as a shape is an array's: a look that
        # prints only a count sees no box (docs/judge.md "Verdicts": emptiness is form)
        Mutant("no_boxes", "no boxes at all", _boxes(options, lambda b: [] if b else None), aspect="form"),
    ]
