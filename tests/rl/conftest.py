import shutil

import pytest

from automedbench.runs.options import RunOptions
from tests.helpers import tiny_lesion_dataset
from tests.llm.fake_openai import FakeOpenAI

needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")


@pytest.fixture(scope="module")
def data_root(tmp_path_factory):
    """The tiny lesion dataset (3 cases) the episodes of one test file share, read-only."""
    root = tmp_path_factory.mktemp("rl-data")
    tiny_lesion_dataset(root / "mni-brain-lesion", n_cases=3)
    return root


@pytest.fixture(scope="module")
def options(data_root):
    return RunOptions(sandbox="bwrap", data_root=data_root, network=False, exec_timeout_s=120)


@pytest.fixture
def fake_openai():
    srv = FakeOpenAI().start()
    try:
        yield srv
    finally:
        srv.stop()
