"""The prewarmed interpreter's server, run INSIDE the sandbox as `python -c <this file> MODULE...`
(docs/judge.md "What replays cost"). It imports the modules named on its command line once, then
for each request forks a child that runs the request as a fresh interpreter would:
- `python -c CODE` (a python call): a fresh `__main__`, `sys.argv == ['-c']`, tracebacks naming
  "<string>", `sys.path[0] == ''`;
- `python SCRIPT ARGS...` (a bash call that is only that command line, maybe after `cd DIR &&`):
  `sys.argv == [SCRIPT, *ARGS]`, `__main__.__file__` the script's path joined to the working
  folder, `sys.path[0]` the script's folder, `sys.executable` the `python` bash would find, and
  the variables bash exports (`SHLVL`, `_`, `PWD` and `OLDPWD` after a `cd`);
and in both SystemExit's status, atexit handlers and non-daemon threads finished before the exit.
The child's stdout and stderr come back to the host with its exit status, so a replay costs a
fork instead of an interpreter start and its imports.

A request's code that names `subprocess` gets a *zygote*: a second fork made before the code
runs, so still as the server left it. When the code starts the sandbox's python on a script
(or `-c`) through `subprocess` with nothing a fresh process would inherit differently (the same
environment, working folder existing, standard file descriptors only, no preexec function, no
new session, signals, mask, umask and limits as the server's), the zygote takes the new
process's place: it receives the three standard descriptors and runs the script as `python
SCRIPT` would, and `subprocess` waits for it as for its own child. Anything else is left to the
real fork and exec.

Frames (both ways): 4-byte big-endian length + JSON. Request: {"code": str, "timeout": seconds}
or {"argv": ["python", SCRIPT, ARG...], "cwd": folder or null, "timeout": seconds}.
Reply: {"exit": int, "out": base64, "err": base64, "timed_out": bool, "cut": [int, int]}, or
{"declined": why} when a fork would not behave as a fresh interpreter (a file in the folder
first on the request's module path shadows a module the server imported, the user's site
folder exists, the script is not a plain file, `python` is another interpreter). The server
speaks on duplicates of its stdin/stdout; its fds 0 and 1 become /dev/null so nothing it
imports can write into the protocol. It reads nothing else and imports only from the standard
library before the named modules; it is not part of the package's import graph (the host sends
its text)."""
import sys
STARTUP = frozenset(name.split(".")[0] for name in sys.modules)  # what a fresh interpreter has imported
import atexit
import base64
import builtins
import importlib
import importlib.machinery
import json
import os
import resource
import selectors
import signal
import socket
import struct
import subprocess
import site
import threading
import time
import traceback
import types
from typing import Any

KEEP = 4 * 1024 * 1024     # bytes kept per stream: head and tail, the host caps further

PROTO_IN, PROTO_OUT = os.dup(0), os.dup(1)
_null = os.open(os.devnull, os.O_RDWR)
os.dup2(_null, 0)
os.dup2(_null, 1)
os.close(_null)
# preloaded from the installed packages only, never from the working folder: whatever the
# workspace holds when the server starts, the modules are the ones a fresh interpreter finds
# when nothing shadows them (requests made while something does are declined below)
_path = list(sys.path)
sys.path[:] = [p for p in sys.path if p not in ("", ".", os.getcwd())]
for _name in sys.argv[1:]:
    try:
        importlib.import_module(_name)
    except BaseException:   # noqa: B036 -- a module that fails to import is simply not warm
        pass
sys.path[:] = _path
# a fresh interpreter in a folder holding numpy.py (or json.py: numpy imports json) would import
# that file, not the one the server imported: such a request is declined and the host runs it fresh
IMPORTED = frozenset(name.split(".")[0] for name in sys.modules) - STARTUP - {"__main__"}
SUFFIXES = tuple(importlib.machinery.all_suffixes())
EXECUTABLE = sys.executable
ENVIRON = dict(os.environ)
SIGNALS = sorted(signal.valid_signals())
LIMITS = [getattr(resource, name) for name in dir(resource) if name.startswith("RLIMIT_")]
REAL_FORK_EXEC = getattr(subprocess, "_fork_exec", None)
sys.stdout.flush()
sys.argv = ["-c"]


def _read(n: int) -> bytes | None:
    data = b""
    while len(data) < n:
        chunk = os.read(PROTO_IN, n - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def _send(obj: dict[str, Any]) -> None:
    body = json.dumps(obj).encode()
    os.write(PROTO_OUT, struct.pack(">I", len(body)) + body)


def _status(exc: SystemExit) -> int:
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


# ------------------------------------------------------------------ what a fresh interpreter runs
class Launch:
    """One interpreter start: `python -c CODE ARGS...` or `python SCRIPT ARGS...`, as the process
    would see it (argv as given, the interpreter's path as found, the working folder)."""

    def __init__(self, argv: list[str], executable: str, cwd: str, shell: bool = False, cd: bool = False):
        self.orig_argv, self.executable, self.cwd = argv, executable, cwd
        self.shell, self.cd = shell, cd      # run by bash (its variables), after a `cd` (PWD, OLDPWD)
        if argv[1] == "-c":
            self.code, self.script, self.args = argv[2], None, argv[3:]
            self.first = cwd         # '' on sys.path: the working folder
        else:
            self.script, self.args = argv[1], argv[2:]
            self.file = os.path.join(cwd, self.script)
            self.first = os.path.dirname(os.path.realpath(self.file))

    def why_not(self) -> str | None:
        """Why a fork of the server would not run this as a fresh interpreter would, or None."""
        if self.script is not None:
            if not os.path.isfile(self.file) or os.path.islink(self.file):
                return f"{self.script} is not a plain file"
            if self.file.endswith((".pyc", ".zip")) or not os.access(self.file, os.R_OK):
                return f"{self.script} is not a readable source file"
        if site.ENABLE_USER_SITE and os.path.isdir(site.getusersitepackages()):
            return "the user's site folder exists (a fresh interpreter puts it on its path)"
        try:
            names = os.listdir(self.first)
        except OSError:
            return f"{self.first} cannot be listed"
        for entry in names:
            name = entry.split(".", 1)[0]
            if name in IMPORTED and (entry == name or entry.endswith(SUFFIXES)):
                return f"{entry} in {self.first} shadows a module the server imported"
        return None

    def source(self) -> str | bytes:
        """The code as the interpreter compiles it: `-c`'s text as given, a script's bytes (its
        coding declaration honoured)."""
        if self.script is None:
            return self.code
        with open(self.file, "rb") as f:
            return f.read()

    def run(self, source: str | bytes) -> int:
        """Become the interpreter: run the code in a fresh `__main__` and return its exit status."""
        sys.orig_argv = list(self.orig_argv)
        sys.executable = self.executable
        main = types.ModuleType("__main__")
        main.__dict__["__annotations__"] = {}    # as the interpreter makes its __main__
        main.__dict__["__builtins__"] = builtins
        if self.script is None:
            sys.argv = ["-c", *self.args]
            sys.path[0] = ""
            filename = "<string>"
            main.__loader__ = importlib.machinery.BuiltinImporter
        else:
            sys.argv = [self.script, *self.args]
            sys.path[0] = self.first
            filename = self.file
            main.__dict__.update(__file__=self.file, __cached__=None,
                                 __loader__=importlib.machinery.SourceFileLoader("__main__", self.file))
        sys.modules["__main__"] = main
        try:
            compiled = compile(source, filename, "exec")
        except SyntaxError as exc:
            traceback.print_exception(type(exc), exc, None)
            return 1
        status = 1
        try:
            exec(compiled, main.__dict__)
            status = 0
        except SystemExit as exc:
            status = _status(exc)
        except BaseException as exc:   # noqa: B036 -- as the interpreter would: printed, exit 1
            # the traceback starts at the code's own frame, as the interpreter's would
            inner = exc.__traceback__.tb_next if exc.__traceback__ else None
            sys.excepthook(type(exc), exc.with_traceback(inner), inner)
            status = 1
        try:
            threading._shutdown()  # type: ignore[attr-defined]
        except BaseException:  # noqa: B036
            pass
        try:
            atexit._run_exitfuncs()  # type: ignore[attr-defined]
        except BaseException:  # noqa: B036
            pass
        return status


def _finish(status: int) -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:  # noqa: B036
            pass
    os._exit(status)


def _found(name: str, path_var: str) -> str | None:
    """Where `name` is found on the PATH `path_var` (as bash and execvp look), or None."""
    if "/" in name:
        return name if os.path.isabs(name) else None
    for folder in path_var.split(os.pathsep):
        candidate = os.path.join(folder or ".", name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def _same_interpreter(path: str | None) -> bool:
    return path is not None and os.path.realpath(path) == os.path.realpath(EXECUTABLE)


def _plain_argv(argv: list[str]) -> bool:
    """`python SCRIPT ARGS...` or `python -c CODE ARGS...`: no interpreter option."""
    return len(argv) >= 2 and (argv[1] == "-c" and len(argv) >= 3 or not argv[1].startswith("-"))


# ------------------------------------------------------------------ the zygote
def _state() -> tuple[Any, ...]:
    """What a process started by fork and exec inherits beyond its arguments and descriptors."""
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    handlers = []
    for sig in SIGNALS:
        try:
            handlers.append(signal.getsignal(sig))
        except (OSError, ValueError):
            handlers.append(None)
    umask = os.umask(0o022)
    os.umask(umask)
    limits: list[tuple[int, int] | None] = []
    for r in LIMITS:
        try:
            limits.append(resource.getrlimit(r))
        except (OSError, ValueError):
            limits.append(None)
    return (sorted(mask), handlers, umask, limits)


class Zygote:
    """A fork of the request's child made before its code runs; it waits for one launch order."""

    def __init__(self) -> None:
        self.pristine = _state()
        self.environ = dict(os.environ)
        self.owner = os.getpid()     # only its parent can wait for it: a forked copy of the code gets the real exec
        ours, theirs = socket.socketpair()
        self.pid = os.fork()
        if self.pid == 0:
            ours.close()
            self._serve(theirs)
        theirs.close()
        self.sock: socket.socket | None = ours

    @staticmethod
    def _serve(sock: socket.socket) -> None:
        try:
            msg, fds, _, _ = socket.recv_fds(sock, 1 << 22, 3)
            order = json.loads(msg) if msg else None
        except BaseException:  # noqa: B036
            order, fds = None, []
        if order is None or len(fds) != 3:
            os._exit(0)
        sock.close()
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        os.closerange(3, 1 << 16)      # close_fds: only the three standard descriptors
        os.chdir(order["cwd"])
        launch = Launch(order["argv"], order["executable"], os.getcwd())   # the folder as the new process finds it
        try:
            source = launch.source()
        except OSError:
            os._exit(1)
        _finish(launch.run(source))

    def fork_exec(self, *a: Any) -> int:
        """subprocess's `_fork_exec`: the zygote takes the new process's place where it would
        run as that process would, else the real fork and exec."""
        order = self._order(a)
        assert REAL_FORK_EXEC is not None
        if order is None or self.sock is None or os.getpid() != self.owner:
            return REAL_FORK_EXEC(*a)
        sock, self.sock = self.sock, None
        try:
            socket.send_fds(sock, [json.dumps(order[0]).encode()], order[1])
        except OSError:
            return REAL_FORK_EXEC(*a)
        finally:
            sock.close()
        return self.pid

    def _order(self, a: tuple[Any, ...]) -> tuple[dict[str, Any], list[int]] | None:
        """The launch order and the three standard descriptors, or None: the real fork and exec."""
        if len(a) != 23:     # the signature this server knows (CPython 3.11 and 3.12)
            return None
        (args, executables, close_fds, keep, cwd, env_list, p2cread, _p2cwrite, _c2pread, c2pwrite, _errread,
         errwrite, _errpipe_read, errpipe_write, restore_signals, new_session, group, gid, gids, uid, umask,
         preexec, _vfork) = a
        if not (close_fds and tuple(keep) == (errpipe_write,) and restore_signals and not new_session
                and group == -1 and gid is None and gids is None and uid is None and umask == -1 and preexec is None):
            return None
        try:
            argv = [os.fsdecode(x) for x in args]
        except (TypeError, ValueError):
            return None
        if not _plain_argv(argv) or "/" in argv[0] and not os.path.isabs(argv[0]):
            return None
        first = next((os.fsdecode(x) for x in executables if os.path.isfile(x) and os.access(x, os.X_OK)), None)
        # the interpreter finds its own path from its argv[0] as given, or on its PATH
        executable = argv[0] if os.path.isabs(argv[0]) else _found(argv[0], self.environ.get("PATH", os.defpath))
        if not _same_interpreter(first) or not _same_interpreter(executable):
            return None
        env = dict(os.environ) if env_list is None else dict(
            os.fsdecode(kv).split("=", 1) for kv in env_list if b"=" in kv)
        if env != self.environ or dict(os.environ) != self.environ or _state() != self.pristine:
            return None
        where = os.getcwd() if cwd is None else os.path.realpath(os.path.join(os.getcwd(), os.fsdecode(cwd)))
        if not os.path.isdir(where):
            return None
        if Launch(argv, str(executable), where).why_not() is not None:
            return None
        return {"argv": argv, "cwd": where, "executable": executable}, [p2cread if p2cread != -1 else 0, c2pwrite if c2pwrite != -1 else 1,
                             errwrite if errwrite != -1 else 2]


# ------------------------------------------------------------------ one request
def _child(launch: Launch, source: str | bytes, out_w: int, err_w: int) -> None:
    status = 1
    try:
        os.setsid()
        os.close(PROTO_IN)
        os.close(PROTO_OUT)
        os.dup2(out_w, 1)
        os.dup2(err_w, 2)
        os.close(out_w)
        os.close(err_w)
        if "subprocess" in (source if isinstance(source, str) else source.decode("latin-1")) and REAL_FORK_EXEC:
            subprocess._fork_exec = Zygote().fork_exec  # type: ignore[attr-defined]
        status = launch.run(source)
    except SystemExit as exc:
        status = _status(exc)
    finally:
        _finish(status)


def _kill(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass


def _launch(request: dict[str, Any]) -> Launch | str:
    """The request as the interpreter start it stands for, or why it is declined."""
    here = os.getcwd()
    if "code" in request:
        return Launch([EXECUTABLE, "-c", request["code"]], EXECUTABLE, here)
    argv = [str(x) for x in request.get("argv") or []]
    if not _plain_argv(argv):
        return "not a plain `python SCRIPT` command line"
    cwd = os.path.join(here, request["cwd"]) if request.get("cwd") else here
    if not os.path.isdir(cwd) or os.path.realpath(cwd) != os.path.normpath(cwd):
        return f"{cwd} is not a folder of its own name"
    executable = _found(argv[0], os.environ.get("PATH", os.defpath))
    if not _same_interpreter(executable):
        return f"{argv[0]} is not the interpreter the server runs"
    assert executable is not None
    return Launch(argv, executable, os.path.normpath(cwd), shell=True, cd=bool(request.get("cwd")))


def _as_bash_would(launch: Launch) -> None:
    """In the fork: the folder and variables bash gives the command it runs."""
    if launch.cd:                       # the `cd DIR &&` before the command: bash's variables
        os.environ["OLDPWD"] = os.environ.get("PWD", os.getcwd())
        os.environ["PWD"] = launch.cwd
        os.chdir(launch.cwd)
    if launch.shell:                    # bash exports these to the command it runs
        os.environ.setdefault("SHLVL", "0")
        os.environ["_"] = launch.executable


def _serve_one(request: dict[str, Any]) -> dict[str, Any]:
    launch = _launch(request)
    if isinstance(launch, str):
        return {"declined": launch}
    why = launch.why_not()
    if why is not None:
        return {"declined": why}
    try:
        source = launch.source()
    except OSError as exc:
        return {"declined": f"{launch.script}: {exc}"}
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        os.close(out_r)
        os.close(err_r)
        _as_bash_would(launch)
        _child(launch, source, out_w, err_w)
    os.close(out_w)
    os.close(err_w)
    streams: dict[int, list[Any]] = {out_r: [bytearray(), bytearray(), 0], err_r: [bytearray(), bytearray(), 0]}
    sel = selectors.DefaultSelector()
    for fd in streams:
        sel.register(fd, selectors.EVENT_READ)
    deadline = time.monotonic() + float(request.get("timeout") or 600)
    timed_out = False
    while sel.get_map():
        left = deadline - time.monotonic()
        if left <= 0:
            timed_out = True
            _kill(pid)
            deadline = time.monotonic() + 5
            left = 5
        for key, _ in sel.select(timeout=left):
            chunk = os.read(key.fd, 65536)
            if not chunk:
                sel.unregister(key.fd)
                os.close(key.fd)
                continue
            head, tail, total = streams[key.fd]
            streams[key.fd][2] = total + len(chunk)
            room = KEEP // 2 - len(head)
            if room > 0:
                head += chunk[:room]
                chunk = chunk[room:]
            tail += chunk
            del tail[: max(0, len(tail) - KEEP // 2)]
        if timed_out and time.monotonic() > deadline:
            break
    _, raw = os.waitpid(pid, 0)
    _kill(pid)   # what it left running in the background dies with it, as after `python -c`
    exit_code = os.waitstatus_to_exitcode(raw)
    if timed_out:       # the host kills a timed-out call's bwrap itself: SIGKILL's -9
        exit_code = -9
    elif exit_code < 0:   # killed by a signal: bwrap reports 128 + its number, so do we
        exit_code = 128 - exit_code
    return {"exit": exit_code, "timed_out": timed_out,
            "out": base64.b64encode(bytes(streams[out_r][0] + streams[out_r][1])).decode(),
            "err": base64.b64encode(bytes(streams[err_r][0] + streams[err_r][1])).decode(),
            "cut": [streams[out_r][2], streams[err_r][2]]}


while True:
    header = _read(4)
    if header is None:
        break
    body = _read(struct.unpack(">I", header)[0])
    if body is None:
        break
    _send(_serve_one(json.loads(body)))
