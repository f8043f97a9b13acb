"""Shared fixtures for the data tests: the demo datasets are built once per session."""
from __future__ import annotations

import pytest

from automedbench import datasets as registry


@pytest.fixture(scope="session")
def data_root(tmp_path_factory):
    return tmp_path_factory.mktemp("data_root")


@pytest.fixture(scope="session")
def lesion_ds(data_root):
    return registry.stage("mni-brain-lesion", data_root, quiet=True)


@pytest.fixture(scope="session")
def tissue_ds(data_root):
    return registry.stage("mni-brain-tissue", data_root, quiet=True)
