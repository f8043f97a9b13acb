"""The Sandbox protocol: where agent code runs. Backends: bwrap (default), docker, local.

A backend is built from a `SandboxSpec` (what the agent may see) and exposes `execute()`.
The agent only ever learns the *inside* paths (`data_dir`, `workspace_dir`), so the same
prompt works for every backend.
"""
from __future__ import annotations

import ctypes
import os
import selectors
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

from ..errors import InfrastructureError, UserError

# Bytes of stdout/stderr kept per stream; longer output keeps head and tail with a marker.
DEFAULT_OUTPUT_CAP = 64 * 1024

# The only host variables that may pass into a sandbox. Everything else (API keys, tokens,
# harness paths) is dropped. Backends may add their own fixed values on top.
ENV_ALLOW = ("LANG", "LC_ALL", "TZ", "TERM")

_PR_SET_PDEATHSIG = 1
_prctl = ctypes.CDLL(None, use_errno=True).prctl   # looked up here: no dlopen between fork and exec


@dataclass
class SandboxSpec:
    public_dir: Path            # task's public data, read-only inside
    workspace: Path             # the run's workspace, read-write inside
    network: bool = False       # egress through the sandbox's own network namespace (netns.py)
    # with the network on: only these hosts (names or IPv4 literals, resolved at open);
    # None = any public address
    network_allow: list[str] | None = None
    timeout_s: float = 600.0    # per execution
    memory_mb: int | None = 16384
    max_procs: int | None = 512
    max_file_mb: int | None = 4096
    cpus: float | None = None   # CPU share (docker --cpus); None = no limit
    output_cap: int = DEFAULT_OUTPUT_CAP
    gpu: bool = True            # bind GPUs when the host has them
    extra_env: dict[str, str] = field(default_factory=dict)
    # (host path, inside path) pairs bound read-only, e.g. ("/opt/torch", "/opt/torch")
    extra_ro_binds: list[tuple[str, str]] = field(default_factory=list)
    # observe each execution's file (and network) effects from the host (effects.py,
    # docs/sandbox.md "Observed effects"); off only to measure what recording costs
    record_effects: bool = True


@dataclass
class ExecResult:
    exit_code: int
    stdout: str
    stderr: str
    duration_s: float
    timed_out: bool = False
    violations: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[dict[str, Any]] = field(default_factory=list)
    blocked: bool = False
    # what the call did to the files the agent sees, observed from the host (effects.py);
    # None when the backend did not observe it
    effects: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "exit_code": self.exit_code, "stdout": self.stdout, "stderr": self.stderr,
            "duration_s": round(self.duration_s, 4), "timed_out": self.timed_out,
            "violations": self.violations, "warnings": self.warnings, "effects": self.effects,
        }


@runtime_checkable
class Sandbox(Protocol):
    name: str            # backend name as recorded in the report, e.g. "bwrap"
    isolated: bool       # False only for `local`
    data_dir: str        # public data path as the agent sees it
    workspace_dir: str   # workspace path as the agent sees it

    def execute(self, language: str, code: str, timeout_s: float | None = None) -> ExecResult: ...

    def close(self) -> None: ...


class SandboxError(InfrastructureError, RuntimeError):
    """The sandbox could not be built or died under the agent — an infrastructure fault."""

    detail = "sandbox_failed"


class SandboxConfigError(UserError, SandboxError):
    """The sandbox asked for cannot exist here (unknown backend, bwrap not installed, docker
    image not pinned): a user error, raised before a run starts."""


def base_env(spec: SandboxSpec, home: str, tmp: str = "/tmp") -> dict[str, str]:
    """Environment rebuilt from an allow-list; caches point into the workspace."""
    env = {k: os.environ[k] for k in ENV_ALLOW if k in os.environ}
    env.update({
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": home,
        "TMPDIR": tmp,
        "PYTHONUNBUFFERED": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "HF_HOME": f"{home}/.cache/huggingface",
        "TORCH_HOME": f"{home}/.cache/torch",
        "PIP_CACHE_DIR": f"{home}/.cache/pip",
        "XDG_CACHE_HOME": f"{home}/.cache",
        "MPLBACKEND": "Agg",
        "MPLCONFIGDIR": f"{home}/.cache/matplotlib",
    })
    env.update(spec.extra_env)
    return env


def command_for(language: str, code: str, python: str) -> list[str]:
    if language == "python":
        return [python, "-c", code]
    if language == "bash":
        return ["/bin/bash", "-c", code]
    raise ValueError(f"unsupported language {language!r}: use 'python' or 'bash'")


def run_process(argv: list[str], *, env: dict[str, str], cwd: str | None, timeout_s: float,
                cap: int, preexec: Callable[[], object] | None = None,
                pass_fds: Sequence[int] = (), on_start: Callable[[int], None] | None = None,
                on_output: Callable[[int, int], None] | None = None) -> ExecResult:
    """Run argv in its own session; on timeout kill the whole process group.

    Output is read as it comes and bounded while reading (head + tail), so a flood of
    output cannot exhaust the harness's memory. `on_start(pid)` is told the process's pid as
    soon as it exists (effects attribution: docs/sandbox.md "Whose reads"); `on_output(stdout
    bytes, stderr bytes)` the bytes read so far as each chunk arrives (the effects order's place
    in the output: docs/sandbox.md "Order inside a call")."""
    start = time.monotonic()
    # Popen returns only after the child has exec'd; a Ctrl-C / SIGTERM raised in that window
    # would leave a running agent process we hold no handle to. Hold those signals until
    # the handle exists, then raise them inside the block that kills the group.
    held = _HeldSignals()
    try:
        proc = subprocess.Popen(argv, env=env, cwd=cwd, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                start_new_session=True, preexec_fn=_dies_with(os.getpid(), preexec),
                                pass_fds=pass_fds)
    except BaseException:
        held.release()
        raise
    if on_start is not None:   # the call's pid, before anything it runs is waited for
        on_start(proc.pid)
    out, err = _Bounded(cap), _Bounded(cap)
    if on_output is not None:
        out.on_add = err.on_add = lambda: on_output(out.total, err.total)
    try:
        held.release()
        timed_out = not _pump(proc, {proc.stdout: out, proc.stderr: err}, time.monotonic() + timeout_s)
    except BaseException:   # Ctrl-C / SIGTERM of the harness: the agent's processes die with it
        _kill_group(proc)
        proc.wait()
        raise
    if timed_out:
        _kill_group(proc)
        _pump(proc, {proc.stdout: out, proc.stderr: err}, time.monotonic() + 10)
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        proc.wait()
    # Children that outlived the main process (daemonised, nohup) die with the group.
    _kill_group(proc)
    duration = time.monotonic() - start
    stderr = err.text()
    if timed_out:
        stderr += f"\n[harness: execution killed after {timeout_s:g} s time limit]"
    return ExecResult(proc.returncode if proc.returncode is not None else -9,
                      out.text(), stderr, duration, timed_out)


def _dies_with(parent: int, setup: Callable[[], object] | None) -> Callable[[], None]:
    """The child's setup between fork and exec: the backend's `setup` (namespaces, rlimits,
    dropping privileges), then a SIGKILL when the thread that started it dies
    (PR_SET_PDEATHSIG). An execution runs in a session of its own, so nothing else ends it when
    the harness is killed outright (`kill -9` of a sweep's leader takes its workers: docs/sweeps.md
    "Crash safety"); the thread waits for it, so it never dies first otherwise. Set after
    `setup`, since changing the process's user or group clears it."""
    def child() -> None:
        if setup is not None:
            setup()
        _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent:   # the harness died before the request took effect
            os._exit(137)
    return child


class _HeldSignals:
    """Defers SIGINT/SIGTERM in the main thread until `release()`, which restores the
    previous handlers and then delivers what arrived meanwhile (other threads never run
    Python signal handlers, so there is nothing to hold there)."""

    _SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self) -> None:
        self.pending: list[int] = []
        self.previous: dict[int, Any] = {}
        if threading.current_thread() is threading.main_thread():
            for signum in self._SIGNALS:
                self.previous[signum] = signal.signal(signum, self._hold)

    def _hold(self, signum: int, frame: object) -> None:
        self.pending.append(signum)

    def release(self) -> None:
        previous, self.previous = self.previous, {}
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        for signum in dict.fromkeys(self.pending):
            handler = previous.get(signum)
            if callable(handler):
                handler(signum, None)          # e.g. raises KeyboardInterrupt / RunInterrupted
            elif handler == signal.SIG_DFL:
                signal.raise_signal(signum)    # the default action, as if never held
        self.pending = []


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _pump(proc: subprocess.Popen, sinks: dict, deadline: float) -> bool:
    """Read both pipes until EOF (True) or the deadline (False)."""

    sel = selectors.DefaultSelector()
    for stream in sinks:
        if not stream.closed:
            sel.register(stream, selectors.EVENT_READ)
    try:
        while sel.get_map():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            for key, _ in sel.select(timeout=min(remaining, 0.5)):
                chunk = os.read(key.fd, 65536)
                if chunk:
                    sinks[key.fileobj].add(chunk)
                else:
                    sel.unregister(key.fileobj)
        return True
    finally:
        sel.close()


def bounded_text(data: bytes, total: int, cap: int) -> str:
    """The text run_process would keep of a stream of `total` bytes whose first and last
    bytes are `data` (at least cap // 2 of each end where the stream was longer)."""
    kept = _Bounded(cap)
    kept.add(data)
    kept.total = max(total, len(data))
    return kept.text()


class _Bounded:
    """Keeps the first and last `cap // 2` bytes of a stream and counts the rest."""

    def __init__(self, cap: int):
        self.half, self.head, self.tail, self.total = cap // 2, bytearray(), bytearray(), 0
        self.on_add: Callable[[], None] | None = None

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        if self.on_add is not None:
            self.on_add()
        room = self.half - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self.tail += chunk
            if len(self.tail) > self.half:
                del self.tail[: len(self.tail) - self.half]

    def text(self) -> str:
        head = self.head.decode("utf-8", errors="replace")
        tail = self.tail.decode("utf-8", errors="replace")
        cut = self.total - len(self.head) - len(self.tail)
        return head + tail if cut <= 0 else f"{head}\n[... {cut} bytes cut by the harness ...]\n{tail}"
