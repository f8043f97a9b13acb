"""The staging folder each sandbox keeps under the system's temp folder (its copy of the
inputs, its /etc, the decoy), and the sweep that removes those a killed harness left behind
(docs/sandbox.md "Staging folders").

A sandbox removes its folder when it closes. A harness killed mid-run (SIGKILL, the OOM
killer, a node taken away) never closes it, and the folder holds a copy of the task's public
inputs, gigabytes for a real dataset, once per run in flight. So the folder's name says who
made it, `<prefix><pid namespace>-<pid>-<random>`, and every new sandbox first removes the
folders of its own prefix whose maker is gone: same pid namespace (a pid means nothing in
another), same owner, and no process with that pid. A reused pid keeps a folder a while
longer, never the other way round.
"""
from __future__ import annotations

import os
import re
import shutil
import stat
import tempfile
from contextlib import ExitStack
from pathlib import Path


def _pid_namespace() -> str:
    try:
        return re.sub(r"\D", "", os.readlink("/proc/self/ns/pid")) or "0"
    except OSError:
        return "0"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True          # someone else's process: alive
    return True


def sweep_orphans(prefix: str, tmp: Path | None = None) -> list[Path]:
    """Remove the staging folders `prefix` names whose maker is gone; returns what was removed."""
    tmp = Path(tmp or tempfile.gettempdir())
    pattern = re.compile(re.escape(prefix) + re.escape(_pid_namespace()) + r"-(\d+)-[A-Za-z0-9_]+")
    removed = []
    for entry in tmp.glob(prefix + "*"):
        found = pattern.fullmatch(entry.name)
        if found is None or int(found.group(1)) == os.getpid():
            continue
        try:
            st = entry.lstat()
        except OSError:
            continue
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid() or _alive(int(found.group(1))):
            continue
        shutil.rmtree(entry, ignore_errors=True)
        removed.append(entry)
    return removed


def make_stage(prefix: str) -> Path:
    """A new staging folder for this process, after sweeping the orphans of `prefix`."""
    sweep_orphans(prefix)
    return Path(tempfile.mkdtemp(prefix=f"{prefix}{_pid_namespace()}-{os.getpid()}-"))


def open_stage(opening: ExitStack, prefix: str, mode: int) -> Path:
    """A new staging folder (make_stage) with `mode`, removed when `opening` unwinds: at the
    sandbox's close, or at once when a later step of its opening fails."""
    stage = make_stage(prefix)
    opening.callback(remove_stage, stage)
    os.chmod(stage, mode)
    return stage


def remove_stage(stage: Path) -> None:
    """Remove a staging folder. shutil.rmtree holds a descriptor for each level of the tree;
    where it could not finish (an opening that failed for lack of descriptors has released what
    it took, but may have fewer left than the tree is deep), the rest goes by a walk that holds
    one descriptor at a time, removing by path (docs/sandbox.md "Opening and closing")."""
    shutil.rmtree(stage, ignore_errors=True)
    if not os.path.lexists(stage):
        return
    for dirpath, dirnames, filenames in os.walk(stage, topdown=False):
        for name in filenames + dirnames:
            path = os.path.join(dirpath, name)
            try:
                if os.path.isdir(path) and not os.path.islink(path):
                    os.rmdir(path)
                else:
                    os.unlink(path)
            except OSError:
                pass   # what cannot go stays, for the sweep (sweep_orphans) once this process is gone
    try:
        os.rmdir(stage)
    except OSError:
        pass
