"""Host-side checks on a workspace after the agent is done with it.

The sandbox stops the agent from *reading* private references, but the agent can still
leave a symlink in its workspace that points at a host path (`outputs/case_1/seg.nii.gz ->
/root/.cache/automedbench/data/ds/private/case_1/seg.nii.gz`). Inside the sandbox it
dangles; outside, a scorer running as root that follows it would score the reference
against itself. Scoring must therefore never follow links out of the workspace: call
`escaping_links()` (and treat every hit as an integrity violation) or open outputs with
`open_output()`.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any


def escaping_links(workspace: Path) -> list[dict[str, Any]]:
    """Every symlink under `workspace` whose target resolves outside it (or dangles)."""
    top = Path(workspace).resolve()
    found: list[dict[str, Any]] = []
    for dirpath, dirnames, filenames in os.walk(top):
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            if not p.is_symlink():
                continue
            target = os.readlink(p)
            resolved = (p.parent / target).resolve()
            if resolved != top and top not in resolved.parents:
                found.append({"kind": "escaping_symlink", "path": str(p.relative_to(top)),
                              "evidence": f"{p.relative_to(top)} -> {target}"})
    return found


def open_output(workspace: Path, relative: str, mode: str = "rb"):
    """Open a workspace file for scoring, refusing any path that leaves the workspace
    through a symlink or `..`."""
    top = Path(workspace).resolve()
    path = (top / relative)
    resolved = path.resolve()
    if top not in resolved.parents:
        raise PermissionError(f"{relative}: resolves outside the workspace ({resolved})")
    if path.is_symlink():
        raise PermissionError(f"{relative}: is a symlink; outputs must be regular files")
    return open(resolved, mode)
