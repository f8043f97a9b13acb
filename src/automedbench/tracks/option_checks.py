"""Validators shared by the tracks' option models (task.yaml `track_options`)."""
from __future__ import annotations


def distinct_names(values: list[str], what: str) -> list[str]:
    """Class or label names: each non-empty, no two equal ignoring case and outer spaces
    (the scorers fold case, so "Nodule" and "nodule" would silently be one class)."""
    folded = [v.strip().casefold() for v in values]
    if len(set(folded)) != len(folded) or not all(folded):
        raise ValueError(f"{what} must be non-empty and distinct (case-insensitive)")
    return values
