import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
# A test-only third-party track, registered through the public entry-point group (its
# dist-info lives beside the package): no core file knows it. See tests/toy_track/.
sys.path.insert(0, str(Path(__file__).parent / "toy_track"))


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory, monkeypatch):
    """Keep every test away from the user's real data/cache directories."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("AUTOMEDBENCH_DATA", str(home / "data"))
    monkeypatch.setenv("AUTOMEDBENCH_JUDGE_CACHE", str(home / "judge-cache"))
    monkeypatch.delenv("AUTOMEDBENCH_TASKS", raising=False)
    yield
