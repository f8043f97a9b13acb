"""A module written under the name of a package the agent could neither import nor install: a method
run on it is not the method set up, and an import of it sets up nothing (docs/judge.md "A substitute
for a missing package")."""
from __future__ import annotations

import re
from pathlib import PurePosixPath

from .attempts import INSTALL, package_key, failed_attempts
from .calls import CallFacts, Fact

_MISSING = re.compile(r"No module named '?([A-Za-z_]\w*)")


def substitute_files(calls: list[CallFacts]) -> dict[str, str]:
    """Workspace source files named as a package a call could not import, once an install was tried,
    or as one an install named and failed to get."""
    missing: set[str] = set()        # import failures not yet followed by an install attempt
    sought: set[str] = set()         # ... and those an install was attempted after, or failed on
    found: dict[str, str] = {}
    for c in calls:
        for w in c.written:          # `cv2.py`, or a file in `sklearn/` or `SimpleITK/`
            if sought and w.path.endswith(".py") and w.path.startswith(c.roots.workspace + "/"):
                parts = PurePosixPath(w.path[len(c.roots.workspace) + 1:]).parts
                if name := next((n for n in (*parts[:-1], PurePosixPath(parts[-1]).stem) if package_key(n) in sought), None):
                    found[w.path] = name
        missing |= {package_key(m) for m in _MISSING.findall(c.text)}
        if installs := list(INSTALL.finditer(c.code)):
            sought |= missing
            if not c.ok or failed_attempts(c.text, True):
                sought |= {package_key(p) for m in installs for p in m.group("args").split() if p[:1].isalpha()}
    return found


def runs_on_substitutes(calls: list[CallFacts], batch: list[CallFacts]) -> tuple[Fact, Fact]:
    """The method runs of the batch (all of them without one) that opened a substitute, and every
    call that opened one (an import check passing on it)."""
    found = substitute_files(calls)
    def opened(runs: list[CallFacts]) -> Fact:
        on = {c.index: hit for c in runs if (hit := found.keys() & {*c.read, *c.held})}
        paths = sorted(set().union(*on.values()))
        return Fact(bool(on), list(on)[:8], paths, f"a stand-in for the missing package(s) {', '.join(sorted({found[p] for p in paths}))}")
    return opened([c for c in (batch or calls) if c.units]), opened(calls)
