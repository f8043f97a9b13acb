"""Classification's broken outputs (docs/judge.md "Experiments"): one class for every case,
labels shifted by one (an off-by-one label table)."""
from __future__ import annotations

from collections.abc import Callable

from ..mutants import Apply, Mutant, UnitFiles, edit_csv
from .options import ClassificationOptions

RowsEdit = Callable[[list[str], list[dict[str, str]]], "list[dict[str, str]] | None"]


def _rows(options: ClassificationOptions, fn: RowsEdit) -> Apply:
    def apply(files: UnitFiles) -> bool:
        p = files.get(options.output_file)
        return p is not None and edit_csv(p, fn)
    return apply


def classification_mutants(options: ClassificationOptions) -> list[Mutant]:
    labels, col = list(options.labels), options.label_column

    def one_class(header: list[str], rows: list[dict[str, str]]) -> list[dict[str, str]] | None:
        if col not in header or len({r[col] for r in rows}) < 2:
            return None
        return [{**r, col: rows[0][col]} for r in rows]

    def shifted(header: list[str], rows: list[dict[str, str]]) -> list[dict[str, str]] | None:
        if col not in header:
            return None
        return [{**r, col: labels[(labels.index(r[col]) + 1) % len(labels)] if r[col] in labels else r[col]}
                for r in rows]

    return [
        Mutant("one_class", "every case given the same class", _rows(options, one_class)),
        Mutant("labels_shifted", "every label replaced by the next one in the label list", _rows(options, shifted)),
    ]
