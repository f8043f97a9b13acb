"""Fixtures every test directory may use. Shared helpers are plain modules of the `tests`
package (`from tests.helpers import ...`); the test-only plug-in track in tests/toy_track/ is
put on the path by pytest itself (`pythonpath` in pyproject.toml), so its entry point is seen
like an installed distribution's."""
import pytest

from automedbench.tracks.segmentation import SegmentationTrack
from tests.helpers import tiny_lesion_dataset


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory, monkeypatch):
    """Keep every test away from the user's real data/cache directories."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("AUTOMEDBENCH_DATA", str(home / "data"))
    monkeypatch.setenv("AUTOMEDBENCH_JUDGE_CACHE", str(home / "judge-cache"))
    monkeypatch.delenv("AUTOMEDBENCH_TASKS", raising=False)
    yield


@pytest.fixture
def tiny(tmp_path):
    """A user task folder + a staged tiny dataset, wired through env vars as a user would."""
    data = tmp_path / "data"
    tiny_lesion_dataset(data / "tiny-lesion")
    tasks = tmp_path / "tasks"
    (tasks / "tiny-seg").mkdir(parents=True)
    src = (SegmentationTrack.tasks_dir / "brain-lesion-seg" / "task.yaml").read_text()
    (tasks / "tiny-seg" / "task.yaml").write_text(
        src.replace("id: brain-lesion-seg", "id: tiny-seg").replace("dataset: mni-brain-lesion", "dataset: tiny-lesion"))
    return {"AUTOMEDBENCH_DATA": str(data), "AUTOMEDBENCH_TASKS": str(tasks)}, tmp_path
