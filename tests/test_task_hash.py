"""A task's version (its hash, which splits boards) ignores track options a track marks as
presentation only (docs/tracks.md): changing how pictures are drawn never makes a new task
version; changing any other option does."""
import shutil

import yaml

from automedbench.scoring.score_run import task_hash
from automedbench.tasks import get_task
from automedbench.tasks.model import load_task


def _copy_with(tmp_path, name, edit):
    src = get_task("ldct-denoise").folder
    dst = tmp_path / name / "ldct-denoise"
    shutil.copytree(src, dst)
    data = yaml.safe_load((dst / "task.yaml").read_text())
    edit(data["track_options"])
    (dst / "task.yaml").write_text(yaml.safe_dump(data))
    return load_task(dst)


def test_display_windows_do_not_change_the_task_version(tmp_path):
    task = get_task("ldct-denoise")
    assert task.snapshot()["track_options"].get("display_windows"), "the demo task draws in HU windows"
    none = _copy_with(tmp_path, "a", lambda o: o.pop("display_windows"))
    other = _copy_with(tmp_path, "b", lambda o: o.update(display_windows=[{"name": "bone", "level": 400,
                                                                          "width": 1800}]))
    assert task_hash(task.hashed_snapshot()) == task_hash(none.hashed_snapshot()) == task_hash(other.hashed_snapshot())
    assert task.snapshot() != none.snapshot()      # run.json keeps what the task was, windows included
    # any other option is part of the version
    other_option = _copy_with(tmp_path, "c", lambda o: o.update(lpips=False))
    assert task_hash(other_option.hashed_snapshot()) != task_hash(task.hashed_snapshot())
