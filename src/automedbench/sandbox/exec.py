"""One-shot execution, the engine of `automedbench sandbox exec` (handy for trying the
sandbox by hand and for red-teaming it)."""
from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

from . import DEFAULT_BACKEND, SandboxSpec, open_sandbox


def sandbox_exec(public_dir: Path, workspace: Path | None, backend: str = DEFAULT_BACKEND,
                 network: bool = False, language: str = "python", code: str = "",
                 timeout_s: float = 600.0, **spec_options: Any) -> dict[str, Any]:
    """Run `code` once in a fresh sandbox over `public_dir`; returns a JSON-able dict with
    exit_code, stdout, stderr, duration_s, timed_out, violations, warnings, effects, backend.
    Without `workspace` a temporary one is used and removed afterwards."""
    tmp = None
    if workspace is None:
        tmp = Path(tempfile.mkdtemp(prefix="amb-ws-"))
        workspace = tmp
    try:
        spec = SandboxSpec(public_dir=Path(public_dir), workspace=Path(workspace), network=network,
                           timeout_s=timeout_s, **spec_options)
        sandbox = open_sandbox(backend, spec)
        try:
            result = sandbox.execute(language, code, timeout_s=timeout_s)
        finally:
            sandbox.close()
        out = result.to_dict()
        out["backend"] = sandbox.name
        out["isolated"] = sandbox.isolated
        return out
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
