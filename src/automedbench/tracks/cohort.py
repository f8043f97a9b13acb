"""Parsing a cohort file (one file for the whole cohort, e.g. classification's predictions.csv).

The core parses it once, generically, from the track's SubmissionLayout; each expected case
then gets its row (SubmittedCase.row) or a reason. Never raises for bad agent output.
"""
from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .base import SubmissionLayout
from .safety import safe_output_file

MAX_COHORT_BYTES = 50_000_000   # a cohort file larger than this is refused, not read


@dataclass
class CohortRows:
    rows: dict[str, dict[str, Any]] = field(default_factory=dict)
    file_error: str = ""                          # the whole file is unusable (every case invalid)
    case_errors: dict[str, str] = field(default_factory=dict)   # e.g. duplicate rows
    unknown: list[str] = field(default_factory=list)            # ids not in the expected set
    present: bool = False                         # the file exists at all


def read_cohort(outputs: Path, layout: SubmissionLayout, expected: list[str]) -> CohortRows:
    (spec,) = layout.files
    out = CohortRows()
    path, reason = safe_output_file(outputs, spec.name)
    if path is None:
        out.present = not reason.endswith("missing")
        out.file_error = reason
        return out
    out.present = True
    if path.stat().st_size > MAX_COHORT_BYTES:
        out.file_error = f"{spec.name}: larger than {MAX_COHORT_BYTES // 1_000_000} MB (refused)"
        return out
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError:
        out.file_error = f"{spec.name}: not UTF-8 text"
        return out
    try:
        entries = _parse_csv(text, layout) if layout.cohort_format == "csv" else _parse_json(text, layout)
    except ValueError as exc:
        out.file_error = f"{spec.name}: {exc}"
        return out
    wanted = set(expected)
    seen: dict[str, int] = {}
    for key, entry in entries:
        seen[key] = seen.get(key, 0) + 1
        if key not in wanted:
            if key not in out.unknown:
                out.unknown.append(key)
            continue
        out.rows.setdefault(key, entry)
    for key, n in seen.items():
        if n > 1 and key in wanted:
            out.case_errors[key] = f"{spec.name}: {n} rows for this case (duplicates are refused)"
            out.rows.pop(key, None)
    return out


def _parse_csv(text: str, layout: SubmissionLayout) -> list[tuple[str, dict[str, Any]]]:
    try:
        reader = csv.DictReader(io.StringIO(text))
        header = [h.strip() for h in (reader.fieldnames or [])]
    except csv.Error as exc:
        raise ValueError(f"malformed CSV: {exc}") from None
    need = [layout.key, *layout.columns]
    missing = [c for c in need if c not in header]
    if missing:
        raise ValueError(f"CSV header {header} lacks column(s) {missing}")
    entries = []
    try:
        for row in reader:
            clean = {(k or "").strip(): (v.strip() if isinstance(v, str) else v) for k, v in row.items()}
            key = clean.get(layout.key) or ""
            if key:
                entries.append((key, clean))
    except csv.Error as exc:
        raise ValueError(f"malformed CSV at line {reader.line_num}: {exc}") from None
    return entries


def _parse_json(text: str, layout: SubmissionLayout) -> list[tuple[str, dict[str, Any]]]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"malformed JSON: {exc.msg} (line {exc.lineno})") from None
    if isinstance(data, dict):
        return [(str(k), v if isinstance(v, dict) else {"value": v}) for k, v in data.items()]
    if isinstance(data, list):
        out = []
        for item in data:
            if isinstance(item, dict) and item.get(layout.key) is not None:
                out.append((str(item[layout.key]), item))
        return out
    raise ValueError("expected a JSON object or a list of objects")
