"""Output files must be plain files inside the case's output folder: a symlink (e.g. to
private references) or a path that resolves outside is rejected, never followed."""
from __future__ import annotations

import os
import stat
from pathlib import Path


def safe_output_file(case_dir: Path, name: str) -> tuple[Path | None, str]:
    if Path(name).is_absolute() or ".." in Path(name).parts:
        return None, f"{name}: output names must be plain file names"
    if case_dir.is_symlink():
        return None, "case output folder is a symlink (rejected)"
    path = case_dir / name
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None, f"{name}: missing"
    except OSError as exc:
        return None, f"{name}: cannot stat: {exc.strerror}"
    if stat.S_ISLNK(st.st_mode):
        return None, f"{name}: is a symlink (rejected; outputs must be real files)"
    if not stat.S_ISREG(st.st_mode):
        return None, f"{name}: not a regular file"
    try:
        path.resolve().relative_to(case_dir.resolve())
    except ValueError:
        return None, f"{name}: resolves outside the case folder (rejected)"
    return path, ""
