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


register_backend("local", _local)


def available_backends() -> list[str]:
    return sorted(_BACKENDS)


def open_sandbox(name: str, spec: SandboxSpec) -> Sandbox:
    if name not in _BACKENDS:
        raise SandboxError(f"unknown sandbox backend {name!r}; known: {', '.join(available_backends())}")
    return _BACKENDS[name](spec)


__all__ = ["ExecResult", "Sandbox", "SandboxError", "SandboxSpec", "open_sandbox",
           "register_backend", "available_backends"]
