"""Host-side checks on a workspace after the agent is done with it.

The sandbox stops the agent from *reading* private references, but the agent can still
leave a symlink in its workspace that points at a host path (`outputs/case_1/seg.nii.gz ->
/root/.cache/automedbench/data/ds/private/case_1/seg.nii.gz`). Inside the sandbox it
dangles; outside, a scorer running as root that follows it would score the reference
against itself. Scoring never follows links (tracks/safety.py rejects any symlinked output), and
`escaping_links()` turns every such link into an ESCAPING_SYMLINK integrity error with its
evidence (error_codes.py in this package).
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
