"""Fixtures every test directory may use. Shared helpers are plain modules of the `tests`
package (`from tests.helpers import ...`); the test-only plug-in track in tests/toy_track/ is
put on the path by pytest itself (`pythonpath` in pyproject.toml), so its entry point is seen
like an installed distribution's."""
import pytest

from automedbench.tracks.segmentation import SegmentationTrack
from tests.helpers import tiny_lesion_dataset

# Tests that share one machine-wide resource run on one pytest-xdist worker, one after the
# other (`make test` runs `pytest -n auto --dist loadgroup`). The private dockerd of
# tests/sandbox has one fixed socket and data root and is started and stopped by a session
# fixture: two workers must never start or stop it at once, so every test that reaches it
# (a docker_* fixture, or the docker parameter of a backend-parametrized fixture) is in one group.
DOCKER_ENGINE_GROUP = "docker-engine"


def _uses_docker_engine(item) -> bool:
    params = getattr(item, "callspec", None)
    return (any(name.startswith("docker_") for name in item.fixturenames)
            or (params is not None and "docker" in params.params.values()))


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Group tests for pytest-xdist: a module's tests stay on one worker (its module- and
    session-scoped fixtures, e.g. a built dataset or a set of whole runs, are built once, not
    once per worker), and the tests that use the docker engine form one group of their own."""
    for item in items:
        if item.get_closest_marker("xdist_group") is not None:
            continue
        group = DOCKER_ENGINE_GROUP if _uses_docker_engine(item) else item.path.relative_to(config.rootpath).as_posix()
        item.add_marker(pytest.mark.xdist_group(group))


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
