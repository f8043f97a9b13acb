"""A module the agent wrote under the name of a package it could neither import nor install
stands in for that package: a method run on it is not the method set up (docs/judge.md
"A substitute for a missing package")."""
from __future__ import annotations

import re
from pathlib import PurePosixPath

from .attempts import INSTALL
from .calls import CallFacts, Fact

_MISSING = re.compile(r"No module named '?([A-Za-z_]\w*)")


def substitute_files(calls: list[CallFacts]) -> dict[str, str]:
    """Source files written under the name of a package an earlier call could not import, after
    an attempt to install something: path -> the package's name."""
    missing: set[str] = set()        # import failures not yet followed by an install attempt
    sought: set[str] = set()         # ... and those an install was attempted after
    found: dict[str, str] = {}
    for c in calls:
        for w in c.written:
            name = _shadowed(w.path, c.roots.workspace, sought)
            if name is not None:
                found[w.path] = name
        missing |= set(_MISSING.findall(c.text))
        if INSTALL.search(c.code):
            sought |= missing
    return found


def _shadowed(path: str, workspace: str, names: set[str]) -> str | None:
    """The package name a workspace source file takes: `cv2.py`, or a file in `sklearn/`."""
    if not names or not path.endswith(".py") or not path.startswith(workspace + "/"):
        return None
    parts = PurePosixPath(path[len(workspace) + 1:]).parts
    return next((n for n in (*parts[:-1], PurePosixPath(parts[-1]).stem) if n in names), None)


def runs_on_substitutes(calls: list[CallFacts], batch_start: int | None) -> Fact:
    """The method runs of the batch (all of them without one) that opened a substitute."""
    found = substitute_files(calls)
    runs = [c for c in (calls if batch_start is None else calls[batch_start:]) if c.units]
    on = [c for c in runs if found.keys() & {*c.read, *c.held}]
    paths = sorted({p for c in on for p in found.keys() & {*c.read, *c.held}})
    return Fact(bool(on), [c.index for c in on][:8], paths,
                f"a stand-in for the missing package(s) {', '.join(sorted({found[p] for p in paths}))}" if on else "")
