"""Sandbox backends behind one protocol. `open_sandbox(name, spec)` builds one."""
from __future__ import annotations

import os
from typing import Callable

from .base import ExecResult, Sandbox, SandboxConfigError, SandboxError, SandboxSpec
from .bwrap import BwrapSandbox, find_bwrap
from .docker import DockerSandbox, check_image
from .local import LocalSandbox

# name -> factory. Backends register lazily so a missing optional dependency only
# matters when that backend is asked for.
_BACKENDS: dict[str, Callable[[SandboxSpec], Sandbox]] = {}
# name -> a cheap "can this backend run here at all?" check raising SandboxConfigError
_CHECKS: dict[str, Callable[[], None]] = {}


def register_backend(name: str, factory: Callable[[SandboxSpec], Sandbox],
                     check: Callable[[], None] | None = None) -> None:
    _BACKENDS[name] = factory
    if check is not None:
        _CHECKS[name] = check
    else:
        _CHECKS.pop(name, None)


def _local(spec: SandboxSpec) -> Sandbox:
    return LocalSandbox(spec)


def _bwrap(spec: SandboxSpec) -> Sandbox:
    return BwrapSandbox(spec)


def _docker(spec: SandboxSpec) -> Sandbox:
    return DockerSandbox(spec)


def _bwrap_installed() -> None:
    try:
        find_bwrap()
    except SandboxError as exc:
        raise SandboxConfigError(str(exc)) from None


def _docker_image_pinned() -> None:

    try:
        check_image(os.environ.get("AUTOMEDBENCH_DOCKER_IMAGE", ""))
    except SandboxError as exc:
        raise SandboxConfigError(f"--sandbox docker needs AUTOMEDBENCH_DOCKER_IMAGE: {exc}") from None


register_backend("local", _local)
register_backend("bwrap", _bwrap, check=_bwrap_installed)
register_backend("docker", _docker, check=_docker_image_pinned)

# The default backend; `open_sandbox("bwrap", ...)` raises SandboxError naming
# `apt-get install bubblewrap` when the binary is missing.
DEFAULT_BACKEND = "bwrap"


def available_backends() -> list[str]:
    return sorted(_BACKENDS)


def check_backend(name: str) -> None:
    """Raise SandboxConfigError (a user error) when backend `name` cannot run here at all:
    unknown name, bwrap not installed, docker image not pinned. Cheap; called before a run
    starts so a misconfiguration never becomes a run scored against the agent. (A backend
    that passes this and then fails to start is an infrastructure fault, not a user error.)"""
    _require_known(name)
    check = _CHECKS.get(name)
    if check is not None:
        check()


def _require_known(name: str) -> None:
    if name not in _BACKENDS:
        raise SandboxConfigError(f"unknown sandbox backend {name!r}; known: {', '.join(available_backends())}")


def open_sandbox(name: str, spec: SandboxSpec) -> Sandbox:
    _require_known(name)
    return _BACKENDS[name](spec)


__all__ = ["DEFAULT_BACKEND", "ExecResult", "Sandbox", "SandboxConfigError", "SandboxError", "SandboxSpec",
           "check_backend", "open_sandbox",
           "register_backend", "available_backends"]
