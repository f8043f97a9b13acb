"""Sandbox backends behind one protocol, in one registry (`SANDBOX_BACKENDS`, docs/architecture.md
"One registry"). `open_sandbox(name, spec)` builds one; a third-party package adds one through
the entry-point group `automedbench.sandbox_backends` (a `SandboxBackend`, or a callable taking a
`SandboxSpec`, optionally with a `check_available()` attribute)."""
from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..plugins import Registry, first_line
from .base import ExecResult, Sandbox, SandboxConfigError, SandboxError, SandboxSpec
from .bwrap.backend import BwrapSandbox, find_bwrap
from .docker.backend import DockerSandbox, check_image
from .local import LocalSandbox
from .netcheck import check_network_on, network_support


@dataclass(frozen=True)
class SandboxBackend:
    """How to open one backend, and cheap "can it run here at all?" checks raising
    SandboxConfigError: `check` always, `network_check` when the run asks for the network."""
    open: Callable[[SandboxSpec], Sandbox]
    check: Callable[[], None] | None = None
    description: str = ""
    network_check: Callable[[], None] | None = None


def _as_backend(obj: Any, where: str) -> SandboxBackend:
    if isinstance(obj, SandboxBackend):
        return obj
    if callable(obj):
        check = getattr(obj, "check_available", None)
        return SandboxBackend(obj, check if callable(check) else None, first_line(obj))
    raise SandboxConfigError(f"{where}: not a sandbox backend (a SandboxBackend, or a callable taking a SandboxSpec)")


SANDBOX_BACKENDS: Registry[SandboxBackend] = Registry(
    "sandbox backend", group="automedbench.sandbox_backends", validate=_as_backend,
    describe=lambda b: b.description or first_line(b.open), error=SandboxConfigError)


def register_backend(name: str, factory: Callable[[SandboxSpec], Sandbox],
                     check: Callable[[], None] | None = None) -> None:
    """Register (or replace) backend `name` at run time (tests, notebooks)."""
    SANDBOX_BACKENDS.add(name, SandboxBackend(factory, check, first_line(factory)), replace=True,
                         module=getattr(factory, "__module__", None))


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


SANDBOX_BACKENDS.add("local", SandboxBackend(LocalSandbox, None, "a plain subprocess in the workspace; isolates nothing"))
SANDBOX_BACKENDS.add("bwrap", SandboxBackend(BwrapSandbox, _bwrap_installed,
                                             "a fresh bubblewrap namespace per execution (the default)",
                                             network_check=check_network_on))
SANDBOX_BACKENDS.add("docker", SandboxBackend(DockerSandbox, _docker_image_pinned,
                                              "the bwrap layout inside a pinned container image",
                                              network_check=lambda: check_network_on(container=True)))

# The default backend; `open_sandbox("bwrap", ...)` raises SandboxError naming
# `apt-get install bubblewrap` when the binary is missing.
DEFAULT_BACKEND = "bwrap"


def available_backends() -> list[str]:
    return sorted(SANDBOX_BACKENDS.names())


def check_backend(name: str, *, network: bool = False) -> None:
    """Raise SandboxConfigError (a user error) when backend `name` cannot run here at all:
    unknown name, bwrap not installed, docker image not pinned, or -- with `network` -- the
    machine cannot give a sandbox the network (netcheck.py: /dev/net/tun, user namespaces).
    Cheap; called before a run starts so a misconfiguration never becomes a run scored against
    the agent. (A backend that passes this and then fails to start is an infrastructure
    fault, not a user error.)"""
    backend = SANDBOX_BACKENDS.get(name)
    if backend.check is not None:
        backend.check()
    if network and backend.network_check is not None:
        backend.network_check()


def open_sandbox(name: str, spec: SandboxSpec) -> Sandbox:
    return SANDBOX_BACKENDS.get(name).open(spec)


__all__ = ["DEFAULT_BACKEND", "ExecResult", "SANDBOX_BACKENDS", "Sandbox", "SandboxBackend", "SandboxConfigError",
           "SandboxError", "SandboxSpec", "check_backend", "check_network_on", "network_support", "open_sandbox", "register_backend", "available_backends"]
