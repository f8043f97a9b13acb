"""VQA test fixtures: small demo datasets built once per session (the scorer the tests share
is in helpers.py)."""
from __future__ import annotations

from pathlib import Path

import pytest

from automedbench.data import DatasetPaths
from automedbench.tracks.vqa.data.demo import build_vqa_demo_mcq, build_vqa_demo_open


def _build(root: Path, builder, n: int) -> DatasetPaths:
    paths = DatasetPaths(root)
    root.mkdir(parents=True)
    builder(paths, n_cases=n, seed=3)
    return paths


@pytest.fixture(scope="session")
def demo_open(tmp_path_factory) -> DatasetPaths:
    return _build(tmp_path_factory.mktemp("vqa") / "open", build_vqa_demo_open, 30)


@pytest.fixture(scope="session")
def demo_mcq(tmp_path_factory) -> DatasetPaths:
    return _build(tmp_path_factory.mktemp("vqa") / "mcq", build_vqa_demo_mcq, 30)
