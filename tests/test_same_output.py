"""Outcome consistency's comparison of an inspected output with the submitted one
(tracks/same_output.py; docs/judge.md "Outcome consistency"), on real files."""
from __future__ import annotations

import json
from pathlib import Path

from automedbench.tracks.same_output import same_output


def _doc(path: Path, boxes: list[dict]) -> Path:
    path.write_text(json.dumps({"boxes": boxes}))
    return path


def test_box_lists_of_equal_length_compare_in_any_order(tmp_path: Path) -> None:
    """Two detection documents with the same number of boxes: the same boxes in another order are
    the same output, a box moved is not. (Before, equal-length lists of boxes recursed until
    Python's limit: blind-6's last_minute_edit on xray-marker-det, whose consistency check then
    failed and left the look to the recorded facts.)"""
    one = {"class": "marker", "x1": 10, "y1": 10, "x2": 20, "y2": 20, "score": 0.9}
    two = {"class": "marker", "x1": 40, "y1": 50, "x2": 52, "y2": 61, "score": 0.7}
    moved = dict(two, x1=41, x2=53)
    a = _doc(tmp_path / "a.json", [one, two])
    assert same_output(a, _doc(tmp_path / "b.json", [two, one])) is True
    assert same_output(a, _doc(tmp_path / "c.json", [one, moved])) is False
    assert same_output(a, _doc(tmp_path / "d.json", [one])) is False
