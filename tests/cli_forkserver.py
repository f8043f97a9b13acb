"""The suite's CLI processes, forked from a server that has already imported the harness
(docs/testing.md, "CLI processes").

About two hundred tests run the CLI as a user runs it: a process of its own, its own
environment, working directory, exit status, stdout and stderr. Started from scratch, each such
process spent ~0.8 s of CPU importing typer, pydantic, the API and the tracks before doing
anything, ~250 of the suite's ~1000 CPU-seconds on 2 cores. Here one server per pytest worker
imports those modules once; every CLI call is a fork of it that then takes the caller's
environment, directory and arguments and runs `automedbench.cli.main()` exactly as
`python -m automedbench.cli` would. What a fork cannot take over falls back to a plain
subprocess, or to another server (`run_cli`): a variable Python reads at start-up
(PYTHONPATH, the locale) or that a harness module reads when it is imported
(IMPORT_TIME_VARIABLES; a test checks the list against the source). A server is started with
the environment of its first call, and serves the calls that agree with it on those.

Protocol: one AF_UNIX SOCK_SEQPACKET connection per call. The client sends a JSON request with
two file descriptors (its stdout and stderr files); the server forks, answers {"pid": ...} and,
when it has reaped that child, {"returncode": ...} (negative for a signal, as subprocess says).
"""
from __future__ import annotations

import atexit
import contextlib
import importlib
import importlib.util
import json
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import traceback
import types
from collections.abc import Mapping, Sequence
from pathlib import Path

# imported by the server before it forks: the CLI's command modules and what they import
PRELOAD = ("automedbench.cli.root", "automedbench.cli.running", "automedbench.cli.saved_runs",
           "automedbench.cli.catalog", "automedbench.cli.doctor", "automedbench.cli.sandbox",
           "automedbench.cli.lists", "automedbench.api", "openai", "numpy", "nibabel",
           "scipy.ndimage", "PIL.Image")
# harness variables read when their module is imported (module-level os.environ.get): a
# forked child would keep the server's value, so a call that changes one runs as a subprocess
IMPORT_TIME_VARIABLES = frozenset({"AUTOMEDBENCH_AGENT_PYTHON", "AUTOMEDBENCH_SANDBOX_UID",
                                   "AUTOMEDBENCH_SANDBOX_UID_SLOTS", "AUTOMEDBENCH_SANDBOX_UID_LEASES",
                                   "AUTOMEDBENCH_DOCKERD_ROOT"})
# what Python itself reads at start-up (PYTHON*, the locale behind the streams' encoding)
START_UP_PREFIXES = ("PYTHON", "LC_")
START_UP_VARIABLES = frozenset({"LANG", "LANGUAGE"})
CLI_MAIN = "automedbench.cli.__main__"
REPO_ROOT = Path(__file__).resolve().parent.parent


# ------------------------------------------------------------------------------ the server


def _exit_status(exc: BaseException | None) -> int:
    """The exit status Python gives for a SystemExit (or any other uncaught exception)."""
    if exc is None:
        return 0
    if isinstance(exc, SystemExit):
        if exc.code is None:
            return 0
        if isinstance(exc.code, int):
            return exc.code
        print(exc.code, file=sys.stderr)
        return 1
    traceback.print_exception(exc)
    return 1


def _as_cli_main(cwd: str) -> None:
    """Make this process look like `python -m automedbench.cli` started in `cwd`: sys.argv[0],
    sys.path[0] and a __main__ module that multiprocessing's spawn and click's program name
    read as that module's."""
    spec = importlib.util.find_spec(CLI_MAIN)
    assert spec is not None and spec.origin is not None
    main = types.ModuleType("__main__")
    main.__file__ = spec.origin
    main.__spec__ = spec
    main.__package__ = "automedbench.cli"
    sys.modules["__main__"] = main
    sys.argv[0] = spec.origin
    sys.path[0] = cwd


def _child(request: dict, out_fd: int, err_fd: int) -> None:
    """The forked CLI process: take the caller's streams, directory, environment and arguments,
    run the CLI, then end as an interpreter ends (threads joined, atexit run, streams flushed)."""
    status = 1
    try:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        stdin = os.open(os.devnull, os.O_RDONLY)
        os.dup2(stdin, 0)
        os.dup2(out_fd, 1)
        os.dup2(err_fd, 2)
        for fd in (stdin, out_fd, err_fd):
            os.close(fd)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        tempfile.tempdir = None           # TMPDIR is read again, from the caller's environment
        _as_cli_main(request["cwd"])
        sys.argv[1:] = request["args"]
        from automedbench.cli import main
        error: BaseException | None = None
        try:
            main()
        except BaseException as exc:      # noqa: BLE001 - exactly what the interpreter would catch
            error = exc
        status = _exit_status(error)
        threading._shutdown()             # type: ignore[attr-defined]  # as Py_FinalizeEx does
        atexit._run_exitfuncs()
    except BaseException:                 # noqa: BLE001 - a fault here must still end the child
        with contextlib.suppress(Exception):
            traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        os._exit(status & 0xFF)


def serve(path: str) -> None:
    """Import PRELOAD, listen on `path`, fork a CLI process per connection; end when stdin
    closes (the pytest worker that started us is gone)."""
    for name in PRELOAD:
        importlib.import_module(name)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    listener.bind(path)
    listener.listen(16)
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    waiting: dict[int, socket.socket] = {}
    while True:
        readable, _, _ = select.select([listener, sys.stdin], [], [], 0.05)
        if sys.stdin in readable and not os.read(sys.stdin.fileno(), 1):
            return
        if listener in readable:
            conn, _ = listener.accept()
            message, fds, _, _ = socket.recv_fds(conn, 1 << 20, 2)
            request = json.loads(message)
            pid = os.fork()
            if pid == 0:
                for other in (listener, conn, *waiting.values()):   # other calls' answers are not ours
                    other.close()
                _child(request, *fds)
            for fd in fds:
                os.close(fd)
            conn.send(json.dumps({"pid": pid}).encode())
            waiting[pid] = conn
        while waiting:
            pid, wait_status = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                break
            conn = waiting.pop(pid)
            with contextlib.suppress(OSError):
                conn.send(json.dumps({"returncode": os.waitstatus_to_exitcode(wait_status)}).encode())
            conn.close()


# ------------------------------------------------------------------------------ the client


class _Server:
    def __init__(self, env: Mapping[str, str]) -> None:
        # a Unix socket path has at most 107 bytes: a long $TMPDIR gets /tmp instead
        short = len(os.fsencode(tempfile.gettempdir())) <= 60
        self.folder = tempfile.mkdtemp(prefix="amb-cli-forkserver-", dir=None if short else "/tmp")
        self.path = os.path.join(self.folder, "socket")
        self.env = dict(env)
        self.proc = subprocess.Popen([sys.executable, "-m", "tests.cli_forkserver", self.path],
                                     cwd=REPO_ROOT, env=self.env, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], 120)
        line = self.proc.stdout.readline() if ready else b""
        if line != b"ready\n":
            self.proc.kill()
            raise RuntimeError(f"the CLI fork server did not start (said {line!r}, exit {self.proc.poll()})")

    def run(self, argv: Sequence[str], env: Mapping[str, str], cwd: str,
            timeout: float) -> subprocess.CompletedProcess[str]:
        request = {"args": list(argv), "env": dict(env), "cwd": cwd}
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
                socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as conn:
            conn.connect(self.path)
            socket.send_fds(conn, [json.dumps(request).encode()], [out.fileno(), err.fileno()])
            conn.settimeout(30)
            pid = json.loads(conn.recv(1 << 16))["pid"]
            conn.settimeout(timeout)
            try:
                answer = conn.recv(1 << 16)
            except TimeoutError:
                os.kill(pid, signal.SIGKILL)
                raise subprocess.TimeoutExpired(argv, timeout) from None
            if not answer:
                raise RuntimeError(f"the CLI fork server closed without the exit status of {pid}")
            returncode = json.loads(answer)["returncode"]
            out.seek(0)
            err.seek(0)
            return subprocess.CompletedProcess(list(argv), returncode,
                                               out.read().decode(errors="replace"),
                                               err.read().decode(errors="replace"))

    def close(self) -> None:
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        with contextlib.suppress(OSError):
            os.unlink(self.path)
            os.rmdir(self.folder)


# one server per start-up signature (the values of what a fork cannot take over), so a call
# made while a test had changed one of them neither runs in a server with the wrong values nor
# leaves later calls falling back; past MAX_SERVERS a new signature runs as a plain subprocess
MAX_SERVERS = 3
_servers: dict[tuple[tuple[str, str], ...], _Server] = {}
_servers_lock = threading.Lock()


def start_up_signature(env: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    return tuple(sorted((k, v) for k, v in env.items() if k.startswith(START_UP_PREFIXES)
                        or k in START_UP_VARIABLES or k in IMPORT_TIME_VARIABLES))


def _server_for(env: Mapping[str, str]) -> _Server | None:
    key = start_up_signature(env)
    with _servers_lock:
        server = _servers.get(key)
        if server is not None and server.proc.poll() is not None:
            server = None                       # it died: start another
        if server is None:
            if len([s for s in _servers.values() if s.proc.poll() is None]) >= MAX_SERVERS:
                return None
            server = _servers[key] = _Server(env)
            atexit.register(server.close)
        return server


def run_cli(args: Sequence[object], *, env: Mapping[str, str] | None = None,
            cwd: str | os.PathLike[str] | None = None, timeout: float = 300,
            forked: bool = True) -> subprocess.CompletedProcess[str]:
    """`subprocess.run([python, -m, automedbench.cli, *args], capture_output=True, text=True)`
    with `env` (default: this process's) and `cwd`: a fork of the server where it can take the
    call over (one started with the call's start-up signature), else (past MAX_SERVERS, with
    forked=False, or AMB_TEST_CLI_FORKSERVER=0) that subprocess itself. The result's `forked`
    says which ran."""
    argv = [str(a) for a in args]
    env = dict(os.environ if env is None else env)
    where = os.fspath(cwd) if cwd is not None else os.getcwd()
    server = _server_for(env) if forked and os.environ.get("AMB_TEST_CLI_FORKSERVER", "1") != "0" else None
    if server is not None:
        proc = server.run(argv, env, where, timeout)
        proc.forked = True              # type: ignore[attr-defined]  # tests/test_cli_forkserver.py
        return proc
    proc = subprocess.run([sys.executable, "-m", "automedbench.cli", *argv], capture_output=True,
                          text=True, env=env, cwd=where, timeout=timeout)
    proc.forked = False                 # type: ignore[attr-defined]
    return proc


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        serve(sys.argv[1])
