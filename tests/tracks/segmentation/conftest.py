"""Shared fixtures for the data tests: the demo datasets are built once per session."""
from __future__ import annotations

import pytest



@pytest.fixture(scope="session")
def data_root(tmp_path_factory):
    return tmp_path_factory.mktemp("data_root")


@pytest.fixture(scope="session")
def lesion_ds(data_root, staged_once):
    return staged_once("mni-brain-lesion", data_root)


@pytest.fixture(scope="session")
def tissue_ds(data_root, staged_once):
    return staged_once("mni-brain-tissue", data_root)
