"""Sandbox backends behind one protocol. `open_sandbox(name, spec)` builds one."""
from __future__ import annotations

from typing import Callable

from .base import ExecResult, Sandbox, SandboxError, SandboxSpec

# name -> factory. Backends register lazily so a missing optional dependency only
# matters when that backend is asked for.
_BACKENDS: dict[str, Callable[[SandboxSpec], Sandbox]] = {}


def register_backend(name: str, factory: Callable[[SandboxSpec], Sandbox]) -> None:
    _BACKENDS[name] = factory


def _local(spec: SandboxSpec) -> Sandbox:
    from .local import LocalSandbox
    return LocalSandbox(spec)


def _bwrap(spec: SandboxSpec) -> Sandbox:
    from .bwrap import BwrapSandbox
    return BwrapSandbox(spec)


def _docker(spec: SandboxSpec) -> Sandbox:
    from .docker import DockerSandbox
    return DockerSandbox(spec)


register_backend("local", _local)
register_backend("bwrap", _bwrap)
register_backend("docker", _docker)

# The default backend; `open_sandbox("bwrap", ...)` raises SandboxError naming
# `apt-get install bubblewrap` when the binary is missing.
DEFAULT_BACKEND = "bwrap"


def available_backends() -> list[str]:
    return sorted(_BACKENDS)


def open_sandbox(name: str, spec: SandboxSpec) -> Sandbox:
    if name not in _BACKENDS:
        raise SandboxError(f"unknown sandbox backend {name!r}; known: {', '.join(available_backends())}")
    return _BACKENDS[name](spec)


__all__ = ["DEFAULT_BACKEND", "ExecResult", "Sandbox", "SandboxError", "SandboxSpec", "open_sandbox",
           "register_backend", "available_backends"]
