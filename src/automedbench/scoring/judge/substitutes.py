"""A module written under the name of a package the agent could neither import nor install: a method
run on it is not the method set up (docs/judge.md "A substitute for a missing package")."""
from __future__ import annotations

import re
from pathlib import PurePosixPath

from .attempts import INSTALL
from .calls import CallFacts, Fact

_MISSING = re.compile(r"No module named '?([A-Za-z_]\w*)")


def substitute_files(calls: list[CallFacts]) -> dict[str, str]:
    """Workspace source files named as a package a call could not import, once an install was tried."""
    missing: set[str] = set()        # import failures not yet followed by an install attempt
    sought: set[str] = set()         # ... and those an install was attempted after
    found: dict[str, str] = {}
    for c in calls:
        for w in c.written:          # `cv2.py`, or a file in `sklearn/`
            if sought and w.path.endswith(".py") and w.path.startswith(c.roots.workspace + "/"):
                parts = PurePosixPath(w.path[len(c.roots.workspace) + 1:]).parts
                if name := next((n for n in (*parts[:-1], PurePosixPath(parts[-1]).stem) if n in sought), None):
                    found[w.path] = name
        missing |= set(_MISSING.findall(c.text))
        if INSTALL.search(c.code):
            sought |= missing
    return found


def runs_on_substitutes(calls: list[CallFacts], batch: list[CallFacts]) -> Fact:
    """The method runs of the batch (all of them without one) that opened a substitute."""
    found = substitute_files(calls)
    runs = [c for c in (batch or calls) if c.units]
    on = [c for c in runs if found.keys() & {*c.read, *c.held}]
    paths = sorted({p for c in on for p in found.keys() & {*c.read, *c.held}})
    return Fact(bool(on), [c.index for c in on][:8], paths,
                f"a stand-in for the missing package(s) {', '.join(sorted({found[p] for p in paths}))}" if on else "")
