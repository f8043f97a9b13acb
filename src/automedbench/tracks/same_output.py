"""Whether two output files hold the same answer, decoded (docs/judge.md "Experiments": the
cohort's output of the pilot case must be the output that was inspected).

Bytes are not the test: nibabel's gzip stamps a time, a JSON may be re-indented, a cohort file
holds more rows than its pilot. Volumes and arrays are compared value for value within a small
tolerance, JSON documents leaf by leaf (numbers within the same tolerance), a cohort table on
the rows the pilot's file holds (matched by their first column, the case key), text with its
white space normalised. None: the files cannot be read or compared (then nothing is decided)."""
from __future__ import annotations

import csv
import json
import math
import shutil
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from .base import SubmissionLayout
from .cohort import read_cohort

RTOL, ATOL = 1e-4, 1e-4


def same_output(inspected: Path, final: Path, name: str | None = None) -> bool | None:
    """`name`: the files' contract name when their paths do not end like it (kept blobs: then
    they are read from copies named like it, as readers go by the name)."""
    if name is not None and not (inspected.name.endswith(name) and final.name.endswith(name)):
        with tempfile.TemporaryDirectory(prefix="amb-same-") as tmp:
            a, b = Path(tmp) / f"inspected_{name}", Path(tmp) / f"final_{name}"
            try:
                shutil.copyfile(inspected, a)
                shutil.copyfile(final, b)
            except OSError:
                return None
            return same_output(a, b)
    name = inspected.name.lower()
    try:
        if name.endswith((".nii", ".nii.gz")):
            return _same_volume(inspected, final)
        if name.endswith(".npy"):
            a, b = np.load(inspected, allow_pickle=False), np.load(final, allow_pickle=False)
            return _close(a, b)
        if name.endswith(".json"):
            return _same_doc(json.loads(inspected.read_text(encoding="utf-8")),
                             json.loads(final.read_text(encoding="utf-8")))
        if name.endswith((".csv", ".tsv")):
            return _same_rows(inspected, final, "\t" if name.endswith(".tsv") else ",")
        if name.endswith((".txt", ".md")):
            return inspected.read_text(errors="replace").split() == final.read_text(errors="replace").split()
        return inspected.read_bytes() == final.read_bytes()
    except (OSError, ValueError, KeyError, IndexError, TypeError):
        return None


def _close(a: np.ndarray, b: np.ndarray) -> bool:
    if a.shape != b.shape:
        return False
    if a.dtype.kind in "fc" or b.dtype.kind in "fc":
        return bool(np.allclose(a.astype(np.float64), b.astype(np.float64), rtol=RTOL, atol=ATOL, equal_nan=True))
    return bool(np.array_equal(a, b))


def _same_volume(a_path: Path, b_path: Path) -> bool:
    import nibabel as nib
    a: Any = nib.load(str(a_path))
    b: Any = nib.load(str(b_path))
    return _close(np.asanyarray(a.dataobj), np.asanyarray(b.dataobj)) and bool(
        np.allclose(a.affine, b.affine, atol=1e-4))


def _same_doc(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(a, b, rel_tol=RTOL, abs_tol=ATOL)
    if isinstance(a, dict) and isinstance(b, dict):
        if set(a) == set(b):
            return all(_same_doc(a[k], b[k]) for k in a)
        # a pilot's cohort document: its keys' entries, as the final one has them
        return set(a) < set(b) and all(_same_doc(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return False
        key = json.dumps
        if all(isinstance(x, dict) for x in a + b):     # boxes, rows: their order means nothing
            a, b = sorted(a, key=key), sorted(b, key=key)
        return all(_same_doc(x, y) for x, y in zip(a, b))
    return bool(a == b)


def _same_rows(a_path: Path, b_path: Path, delimiter: str) -> bool | None:
    def rows(p: Path) -> tuple[list[str], dict[str, list[str]]]:
        with open(p, newline="", encoding="utf-8") as fh:
            table = [r for r in csv.reader(fh, delimiter=delimiter) if r]
        return table[0], {r[0]: r for r in table[1:]}
    head_a, a = rows(a_path)
    head_b, b = rows(b_path)
    if not a or head_a != head_b:
        return None if not a else False
    return all(k in b and b[k] == r for k, r in a.items())


# ---- one output for every case ------------------------------------------------------------------

MIN_CASES_ALIKE = 5     # fewer cases than this may honestly share one answer


def one_output_for_all(outputs: Path, layout: SubmissionLayout, case_ids: list[str]) -> str:
    """What is wrong when every one of at least MIN_CASES_ALIKE cases was given the same output,
    decoded (one mask, one image, one class, one answer, one report for every case: a method that
    ignored its input); "" otherwise or when it cannot be read (docs/judge.md "One output for every case"). Needs
    no reference: the cases' inputs differ, so their outputs should."""
    if len(case_ids) < MIN_CASES_ALIKE:
        return ""
    if layout.kind == "cohort":
        rows = read_cohort(Path(outputs), layout, case_ids).rows
        answers = {json.dumps({k: v for k, v in row.items() if k != layout.key}, sort_keys=True, default=str)
                   for row in rows.values()}
        return (f"every one of the {len(rows)} rows of {layout.files[0].name} holds the same answer"
                if len(rows) >= MIN_CASES_ALIKE and len(answers) == 1 else "")
    for spec in layout.files:
        present = [(c, f) for c in case_ids if (f := Path(outputs) / c / spec.name).is_file()]
        if len(present) < MIN_CASES_ALIKE:
            return ""
        (c0, f0), rest = present[0], present[1:]
        if f0.name.lower().endswith(".json"):      # a case's own id in its file is no answer
            first = _without_id(f0, c0)
            if first is None or not all(_same_doc(first, _without_id(f, c)) for c, f in rest):
                return ""
        elif not all(same_output(f0, f) is True for _, f in rest):
            return ""
    return (f"every one of the {len(present)} cases was given the same {', '.join(layout.file_names)} "
            "(decoded): the output does not depend on the input")


def _without_id(path: Path, case_id: str) -> Any:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return {k: v for k, v in doc.items() if v != case_id} if isinstance(doc, dict) else doc
