"""Rows of a table a public dataset ships (CSV with a header, or a JSON list of objects), read
for the folder layouts that stage from one (the VQA and report tables: docs/your-task.md)."""
from __future__ import annotations

import csv
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from . import DatasetError


def find_table(src: Path, names: Iterable[str]) -> Path | None:
    """The first of `names` that is a file in `src`."""
    return next((src / n for n in names if (src / n).is_file()), None)


def table_rows(path: Path) -> list[dict[str, Any]]:
    """A CSV's rows by its header, or a JSON list of objects; a clear DatasetError otherwise."""
    try:
        if path.suffix == ".csv":
            with open(path, newline="", encoding="utf-8") as fh:
                return list(csv.DictReader(fh))
        rows = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
            raise ValueError("not a list of objects")
        return rows
    except (ValueError, UnicodeDecodeError) as exc:
        raise DatasetError(f"layout 'table': {path}: unreadable ({exc}); fix: a CSV with a header row, or a "
                           "JSON list of objects") from None


def column(row: dict[str, Any], names: Iterable[str]) -> Any:
    """The row's value under the first of `names` it fills (public sets name a field differently)."""
    return next((row[k] for k in names if row.get(k) not in (None, "")), None)


def image_names(value: Any) -> list[str]:
    """One or more image names: a list, a JSON list in a string, or names joined by ';'."""
    if isinstance(value, list):
        return [str(v) for v in value]
    text = str(value or "").strip()
    if text.startswith("["):
        return [str(v) for v in json.loads(text)]
    return [v.strip() for v in text.split(";") if v.strip()]
