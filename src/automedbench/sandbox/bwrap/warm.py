"""A prewarmed interpreter for the judge's replays (docs/judge.md "What replays cost").

A replay of a look is mostly an interpreter starting and importing numpy or nibabel; the look
itself takes milliseconds. `WarmPython` keeps one server (warm_server.py) running inside the
replay sandbox, with the modules the replayed calls import already imported, and runs each
python execution -- and each bash call that is only `python SCRIPT ARGS...` (`shell_python`) --
in a fork of it. It is used only where the result is the same as a fresh interpreter's: the judge replays a call warm only while its control reproduces the recorded call,
and falls back to a fresh interpreter otherwise (lifecycle/experiments.py). Any fault of the
server (it died, it answered garbage, it did not answer in time) ends it and answers None, and
the caller runs the code the ordinary way."""
from __future__ import annotations

import ast
import base64
import json
import os
import re
import select
import signal
import struct
import subprocess
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Protocol, runtime_checkable

from ..base import ExecResult, bounded_text

SERVER_SOURCE = Path(__file__).with_name("warm_server.py").read_text()
# Modules worth starting warm: the third-party ones a look imports that take a noticeable
# time to import. A replayed call's own modules (a method file in the workspace) are never
# preloaded: they must run against the workspace as each replay lays it down.
WARMABLE = frozenset({"numpy", "nibabel", "PIL", "scipy", "pandas", "SimpleITK", "skimage", "pydicom",
                      "sklearn", "imageio", "tifffile", "h5py", "matplotlib", "cv2", "torch", "monai"})
SPARE_S = 10.0   # the host waits this much past a request's own timeout before giving the server up


def warm_enabled() -> bool:
    """On unless $AUTOMEDBENCH_WARM_REPLAYS is 0 (to measure the fresh baseline: bench/experiments_cost.py)."""
    return os.environ.get("AUTOMEDBENCH_WARM_REPLAYS", "1").strip().lower() not in {"0", "false", "no", "off"}


@runtime_checkable
class WarmCapable(Protocol):
    """A backend that can keep a prewarmed interpreter inside its sandbox (bwrap today)."""

    def warm_python(self, modules: list[str]) -> WarmPython: ...


def warm_imports(codes: Iterable[str], literals: Iterable[str] = ()) -> list[str]:
    """The WARMABLE modules (and their imported submodules) the given python sources import;
    for the sources in `literals` also what the python among their string literals imports (code
    that writes a script and runs it, where what it ran is not known: tracks/scripted_code.py
    `launch`)."""
    found: dict[str, None] = {}
    todo = [(code, False) for code in codes] + [(code, True) for code in literals]
    while todo:
        code, deep = todo.pop()
        try:
            tree = ast.parse(code)
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if deep and isinstance(node, ast.Constant) and isinstance(node.value, str) and "import " in node.value:
                todo.append((node.value, True))
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module] if isinstance(node, ast.ImportFrom) and node.module and not node.level
                     else [])
            for name in names:
                if name.split(".")[0] in WARMABLE:
                    found[name] = None
    return list(found)


# a word of a bash command line that expands to itself alone: plain characters (no glob, brace,
# tilde, variable, comment, escape), single-quoted text, double-quoted text without `$`, `` ` ``,
# `\` or `!`
_WORD = re.compile(r"""(?:[A-Za-z0-9_@%+=:,./-]|'[^']*'|"[^"$`\\!]*")+""")
_BLANK = re.compile(r"[ \t]+")
_QUOTED = re.compile(r"'([^']*)'|\"([^\"]*)\"")


def _words(line: str) -> list[str] | None:
    """The words of `line` as bash splits and unquotes them, or None where bash would do more
    than split and unquote (an operator, a redirection, an expansion)."""
    words, at = [], 0
    while at < len(line):
        blank = _BLANK.match(line, at)
        if blank:
            at = blank.end()
            continue
        word = _WORD.match(line, at)
        if word is None:
            return None
        words.append(_QUOTED.sub(lambda m: m.group(1) if m.group(1) is not None else m.group(2), word.group()))
        at = word.end()
    return words


PYTHON_NAME = re.compile(r"(?:.*/)?python3?(?:\.\d+)?")


def shell_python(code: str) -> tuple[list[str], str | None] | None:
    """A bash call's code that only starts python -- `python SCRIPT ARGS...` or `python -c CODE
    ARGS...`, maybe after `cd DIR &&` -- as (argv, DIR or None); None for anything else a shell
    would do more with (pipes, redirections, other operators, several commands, variables,
    globs, an assignment before the command, interpreter options). The warm server checks the
    rest (docs/judge.md "What replays cost"): `python` must be the interpreter it runs, the
    script a plain file, the folder a folder."""
    line = code.strip()
    if "\n" in line or "\r" in line:
        return None
    cwd = None
    if line.startswith("cd "):
        head, sep, line = line[3:].partition("&&")
        words = _words(head) if sep else None
        if not words or len(words) != 1 or words[0].startswith("-"):
            return None
        cwd = words[0]
    argv = _words(line)
    if (not argv or len(argv) < 2 or not PYTHON_NAME.fullmatch(argv[0])
            or (argv[1].startswith("-") and not (argv[1] == "-c" and len(argv) >= 3))):
        return None
    return argv, cwd


class WarmPython:
    """One warm server; `start(argv_tail)` launches it in the sandbox (the backend's own argv,
    limits and namespaces) with stdin and stdout as pipes."""

    def __init__(self, start: Callable[[list[str]], subprocess.Popen[bytes]], modules: list[str], cap: int):
        self._start, self._modules, self._cap = start, modules, cap
        self._proc: subprocess.Popen[bytes] | None = None
        self.broken = False
        self.runs = 0
        self.declined = 0

    def run(self, code: str, timeout_s: float) -> ExecResult | None:
        """`python -c code` in a fork of the warm server; None when the server cannot answer
        (then it is ended and `broken`) or declines (a workspace file shadows a preloaded module)."""
        return self._request({"code": code, "timeout": timeout_s}, timeout_s)

    def run_argv(self, argv: list[str], cwd: str | None, timeout_s: float) -> ExecResult | None:
        """The bash call `[cd CWD &&] python SCRIPT ARGS...` (`shell_python`) in a fork of the
        warm server; None as for `run`, or when the server declines it (another interpreter, a
        script that is not a plain file, a folder that is not one)."""
        return self._request({"argv": argv, "cwd": cwd, "timeout": timeout_s}, timeout_s)

    def _request(self, request: dict, timeout_s: float) -> ExecResult | None:
        if self.broken:
            return None
        t0 = time.monotonic()
        try:
            proc = self._server()
            body = json.dumps(request).encode()
            assert proc.stdin is not None and proc.stdout is not None
            proc.stdin.write(struct.pack(">I", len(body)) + body)
            proc.stdin.flush()
            reply = self._reply(proc, timeout_s + SPARE_S)
        except (OSError, ValueError, AssertionError):
            reply = None
        if reply is not None and "declined" in reply:
            self.declined += 1
            return None
        if reply is None or "exit" not in reply:
            self.close()
            self.broken = True
            return None
        self.runs += 1
        out_total, err_total = reply.get("cut") or [0, 0]
        stderr = bounded_text(base64.b64decode(reply["err"]), int(err_total), self._cap)
        if reply.get("timed_out"):
            stderr += f"\n[harness: execution killed after {timeout_s:g} s time limit]"
        return ExecResult(int(reply["exit"]), bounded_text(base64.b64decode(reply["out"]), int(out_total), self._cap),
                          stderr, time.monotonic() - t0, bool(reply.get("timed_out")))

    def start(self) -> None:
        """Start the server now, so that its imports overlap the host's own work (the replay
        workspace being laid down); a start that fails leaves it `broken`."""
        try:
            self._server()
        except OSError:
            self.broken = True

    def _server(self) -> subprocess.Popen[bytes]:
        if self._proc is None or self._proc.poll() is not None:
            self._proc = self._start(["-c", SERVER_SOURCE, *self._modules])
        return self._proc

    @staticmethod
    def _reply(proc: subprocess.Popen[bytes], wait_s: float) -> dict | None:
        assert proc.stdout is not None
        fd = proc.stdout.fileno()
        deadline = time.monotonic() + wait_s

        def read(n: int) -> bytes | None:
            data = b""
            while len(data) < n:
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                ready, _, _ = select.select([fd], [], [], left)
                if not ready:
                    return None
                chunk = os.read(fd, n - len(data))
                if not chunk:
                    return None
                data += chunk
            return data

        header = read(4)
        body = read(struct.unpack(">I", header)[0]) if header else None
        try:
            reply = json.loads(body) if body else None
        except ValueError:
            return None
        return reply if isinstance(reply, dict) and ("exit" in reply or "declined" in reply) else None

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                stream.close()
        proc.wait()
