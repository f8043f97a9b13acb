"""Task discovery: built-in tasks plus user task folders (no code change needed)."""
from __future__ import annotations

import difflib
import os
from pathlib import Path

from ..tracks import all_tracks
from .model import TIERS, Task, TaskError, load_task


def task_dirs(extra: list[Path] | None = None) -> list[Path]:
    """Each registered track's built-in tasks, then $AUTOMEDBENCH_TASKS, then --tasks-dir."""
    dirs = [Path(t.tasks_dir) for t in all_tracks().values() if t.tasks_dir is not None]
    env = os.environ.get("AUTOMEDBENCH_TASKS", "")
    dirs += [Path(p) for p in env.split(os.pathsep) if p]
    dirs += list(extra or [])
    return dirs


def discover(extra: list[Path] | None = None) -> dict[str, Task]:
    """All tasks by id. Raises TaskError for the first malformed task folder."""
    found: dict[str, Task] = {}
    for root in task_dirs(extra):
        if not root.is_dir():
            raise TaskError(f"{root}: tasks directory does not exist")
        for folder in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))):
            task = load_task(folder)
            found[task.id] = task
    return found


def get_task(task_id: str, extra: list[Path] | None = None) -> Task:
    tasks = discover(extra)
    if task_id not in tasks:
        close = difflib.get_close_matches(task_id, list(tasks), n=3, cutoff=0.6)
        raise TaskError(f"unknown task {task_id!r}"
                        + (f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else "")
                        + "; a task of your own: pass --tasks-dir DIR (the folder holding <task_id>/task.yaml) or "
                        f"set AUTOMEDBENCH_TASKS (docs/your-task.md); known: {', '.join(sorted(tasks))}")
    return tasks[task_id]


def check_tier(tier: str) -> str:
    if tier not in TIERS:
        raise TaskError(f"unknown tier {tier!r}; choose one of {', '.join(TIERS)}")
    return tier


__all__ = ["TIERS", "Task", "TaskError", "discover", "get_task", "check_tier", "load_task", "task_dirs"]

