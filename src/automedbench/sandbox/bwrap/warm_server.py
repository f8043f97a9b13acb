"""The prewarmed interpreter's server, run INSIDE the sandbox as `python -c <this file> MODULE...`
(docs/judge.md "What replays cost"). It imports the modules named on its command line once, then
for each request forks a child that runs the request's code as `python -c CODE` would: a fresh
`__main__`, `sys.argv == ['-c']`, tracebacks naming "<string>", SystemExit's status, atexit
handlers and non-daemon threads finished before the exit. The child's stdout and stderr come back
to the host with its exit status, so a replay costs a fork instead of an interpreter start and
its imports.

Frames (both ways): 4-byte big-endian length + JSON. Request: {"code": str, "timeout": seconds}.
Reply: {"exit": int, "out": base64, "err": base64, "timed_out": bool, "cut": [int, int]}, or
{"declined": why} when a fork would not behave as a fresh interpreter (a file in the working
folder shadows a preloaded module). The server speaks on
duplicates of its stdin/stdout; its fds 0 and 1 become /dev/null so nothing it imports can write
into the protocol. It reads nothing else and imports only from the standard library before the
named modules; it is not part of the package's import graph (the host sends its text)."""
import atexit
import base64
import builtins
import importlib
import json
import os
import selectors
import signal
import struct
import sys
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
# a fresh `python -c` in a folder holding numpy.py would import that file, not the preloaded numpy:
# such a request is declined and the host runs it fresh
PRELOADED = sorted({name.split(".")[0] for name in sys.argv[1:]})
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


def _child(code: str, out_w: int, err_w: int) -> None:
    status = 1
    try:
        os.setsid()
        os.close(PROTO_IN)
        os.close(PROTO_OUT)
        os.dup2(out_w, 1)
        os.dup2(err_w, 2)
        os.close(out_w)
        os.close(err_w)
        main = types.ModuleType("__main__")
        main.__dict__["__builtins__"] = builtins
        sys.modules["__main__"] = main
        try:
            compiled = compile(code, "<string>", "exec")
        except SyntaxError as exc:
            traceback.print_exception(type(exc), exc, None)
            raise SystemExit(1) from None
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
    except SystemExit as exc:
        status = _status(exc)
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except BaseException:  # noqa: B036
                pass
        os._exit(status)


def _kill(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass


def _shadowed() -> str | None:
    for name in PRELOADED:
        for candidate in (name + ".py", name):
            if os.path.exists(candidate):
                return candidate
    return None


def _serve_one(request: dict[str, Any]) -> dict[str, Any]:
    shadow = _shadowed()
    if shadow is not None:
        return {"declined": f"{shadow} in the working folder shadows a preloaded module"}
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        os.close(out_r)
        os.close(err_r)
        _child(request["code"], out_w, err_w)
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
