"""Opening a sandbox is all or nothing (docs/sandbox.md "Opening and closing"): each step's
release joins one ExitStack as it is acquired, so a step that fails releases every one before
it. Here the steps fail for real: a child interpreter opens the sandbox again and again with one
more free file descriptor each time (the rest taken, close-on-exec, so the processes it starts
are not starved), so the opening runs out of descriptors at each of its steps in turn (the uid lease's file, the copy of the inputs, the inotify and fanotify
instances, the recorder's pipe, the staging namespace's helper, the decoy's watcher; docker's
CLI calls), and after each failure the child looks for anything left: an open descriptor, a
child process, a thread, a staging folder (and, for docker, a container). And no sandbox constructor is longer than 40 lines (measured with ast): no __init__, no
classmethod, no step either calls on self, no module-level open... function."""
from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import needs_bwrap

SRC = Path(__file__).resolve().parents[2] / "src"
SANDBOX = SRC / "automedbench" / "sandbox"

CHILD = r'''
import glob, json, os, resource, sys, tempfile, threading, time, traceback
from pathlib import Path
from automedbench.sandbox import SandboxSpec
from automedbench.sandbox.stage import _pid_namespace

backend, root = sys.argv[1], Path(sys.argv[2])
public, workspace = root / "data" / "public", root / "ws"
spec = SandboxSpec(public_dir=public, workspace=workspace, network=False, gpu=False)
if backend == "bwrap":
    from automedbench.sandbox.bwrap.backend import BwrapSandbox as Box
    prefix = "amb-sbx-"
elif backend == "docker":
    from automedbench.sandbox.docker.backend import DockerSandbox
    Box = lambda spec: DockerSandbox(spec, image=os.environ["AMB_TEST_DOCKER_IMAGE"])
    prefix = "amb-dkr-"
elif backend == "local":
    from automedbench.sandbox.local import LocalSandbox as Box
    prefix = "amb-local-"
else:
    from automedbench.sandbox.observe.effects import EffectsRecorder
    Box = lambda spec: EffectsRecorder((str(workspace), "/workspace"), (str(public), "/data/public"),
                                       is_ours=lambda pid: False)
    prefix = "amb-none-"


def held():
    fds = {}
    for fd in os.listdir("/proc/self/fd"):
        try:
            fds[fd] = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            pass   # the listing's own descriptor
    kids = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/stat") as fh:
                    if int(fh.read().rsplit(")", 1)[1].split()[1]) == os.getpid():
                        kids.append(pid)
            except (OSError, IndexError, ValueError):
                pass
    stages = glob.glob(os.path.join(tempfile.gettempdir(), f"{prefix}{_pid_namespace()}-{os.getpid()}-*"))
    return {"fds": fds, "children": sorted(kids), "threads": threading.active_count(), "stages": stages}


def settled(base):
    # a thread or child a release stopped may take a moment to be gone
    end = time.monotonic() + 5
    while True:
        now = held()
        if now == base or time.monotonic() > end:
            return now
        time.sleep(0.05)


LIMIT = 1024   # the processes this one starts keep this limit, with descriptors to spare
resource.setrlimit(resource.RLIMIT_NOFILE, (LIMIT, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))


def leave_free(n):
    """Take every free descriptor of this process but n (its children do not inherit them)."""
    taken = []
    try:
        while True:
            taken.append(os.open("/dev/null", os.O_RDONLY | os.O_CLOEXEC))
    except OSError:
        pass
    for _ in range(min(n, len(taken))):
        os.close(taken.pop())
    return taken


def give_back(taken):
    for fd in taken:
        os.close(fd)


Box(spec).close()   # warm: the agent runtime, the privilege probe, every import
base = held()
out, opened = [], 0
for extra in range(0, 60):
    taken = leave_free(extra)
    try:
        box = Box(spec)
    except BaseException as exc:
        give_back(taken)
        ours = [f for f in traceback.extract_tb(exc.__traceback__) if "/automedbench/" in f.filename]
        # the step that failed: the innermost frame of ours
        where = f"{ours[-1].filename.split('/automedbench/')[1]}:{ours[-1].name}" if ours else "?"
        step = {"free": extra, "error": f"{type(exc).__name__}: {exc}", "where": where}
    else:
        give_back(taken)
        box.close()
        step = {"free": extra, "error": None}
        opened += 1
    now = settled(base)
    step["left"] = {k: v for k, v in now.items() if v != base[k]}
    step["base"] = {k: base[k] for k in step["left"]}
    out.append(step)
    if opened >= 2:
        break
print(json.dumps(out))
'''


def _sweep(backend: str, tmp_path: Path, **env_extra: str) -> list[dict]:
    public = tmp_path / "data" / "public"
    for case in ("case_00000", "case_00001"):
        (public / case).mkdir(parents=True)
        (public / case / "imaging.txt").write_text(f"input of {case}\n")
    (tmp_path / "data" / "private" / "case_00000").mkdir(parents=True)
    (tmp_path / "data" / "private" / "case_00000" / "ref.txt").write_text("reference\n")
    (tmp_path / "ws").mkdir()
    env = {**os.environ, "PYTHONPATH": str(SRC), **env_extra}
    res = subprocess.run([sys.executable, "-c", CHILD, backend, str(tmp_path)], capture_output=True, text=True,
                         env=env, timeout=600)
    assert res.returncode == 0, res.stderr[-3000:]
    return json.loads(res.stdout.strip().splitlines()[-1])


def _check(steps: list[dict], at_least: int) -> None:
    failed = [s for s in steps if s["error"] is not None]
    left = [s for s in steps if s["left"]]
    assert not left, "left behind after a failed (or closed) opening:\n" + "\n".join(map(json.dumps, left))
    # the sweep reached the end of the opening, after failing at several different steps
    assert steps[-1]["error"] is None
    assert len({s["where"] for s in failed}) >= at_least, [(s["where"], s["error"]) for s in failed]


@needs_bwrap
def test_a_bwrap_sandbox_that_fails_at_any_step_of_opening_leaves_nothing(tmp_path):
    _check(_sweep("bwrap", tmp_path), at_least=3)


def _containers() -> set[str]:
    res = subprocess.run(["docker", "ps", "-a", "--filter", "name=amb-", "--format", "{{.Names}}"],
                         capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    return set(res.stdout.split())


@pytest.mark.slow
def test_a_docker_sandbox_that_fails_at_any_step_of_opening_leaves_nothing(tmp_path, docker_image):
    """As bwrap's, and no container of the child's is left on the engine."""
    before = _containers()
    _check(_sweep("docker", tmp_path, AMB_TEST_DOCKER_IMAGE=docker_image), at_least=3)
    # other workers' docker tests make containers on the same engine meanwhile: the child's are
    # those that mount something under this test's folder
    assert {c for c in _containers() - before if str(tmp_path.resolve()) in _mounts(c)} == set()


def _mounts(container: str) -> str:
    res = subprocess.run(["docker", "inspect", "--format", "{{range .Mounts}}{{.Source}} {{end}}", container],
                         capture_output=True, text=True, timeout=60)
    return res.stdout if res.returncode == 0 else ""    # gone meanwhile: not left behind


def test_a_local_sandbox_that_fails_at_any_step_of_opening_leaves_nothing(tmp_path):
    _check(_sweep("local", tmp_path), at_least=2)


def test_an_effects_recorder_that_fails_as_it_opens_leaves_nothing(tmp_path):
    _check(_sweep("recorder", tmp_path), at_least=1)


MAX_LINES = 40


def _lines(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    assert node.end_lineno is not None
    return node.end_lineno - node.lineno + 1


def _steps(methods: dict[str, ast.FunctionDef | ast.AsyncFunctionDef], root: str) -> list[str]:
    """`root` and every method of the same class it calls on self/cls, transitively: the steps
    of an opening (`self._open_network(opening, ...)`)."""
    seen: list[str] = []
    todo = [root]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.append(name)
        for node in ast.walk(methods[name]):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and isinstance(node.func.value, ast.Name) and node.func.value.id in ("self", "cls")
                    and node.func.attr in methods):
                todo.append(node.func.attr)
    return seen


def _constructors(package: Path = SANDBOX) -> list[tuple[str, int]]:
    """Every constructor of the sandbox package with its length: each class's __init__ and
    classmethods (alternate constructors) with the methods they call on self/cls (their steps),
    and each module-level opening function (`open...`)."""
    found = []
    for path in sorted(package.rglob("*.py")):
        where = path.relative_to(package.parent).as_posix()
        tree = ast.parse(path.read_text())
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("open"):
                found.append((f"{where}:{node.name}", _lines(node)))
        for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
            methods = {f.name: f for f in cls.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))}
            roots = [name for name, f in methods.items()
                     if name == "__init__" or any(ast.unparse(d) == "classmethod" for d in f.decorator_list)]
            steps = {step for root in roots for step in _steps(methods, root)}
            found += [(f"{where}:{cls.name}.{step}", _lines(methods[step])) for step in sorted(steps)]
    return found


def test_no_sandbox_constructor_is_longer_than_40_lines():
    sizes = dict(_constructors())
    for opening in ("BwrapSandbox.__init__", "BwrapSandbox._open_network", "DockerSandbox.__init__",
                    "DockerSandbox._start_container", "LocalSandbox.__init__", "EffectsRecorder.__init__",
                    "OpenerLog.start", "open_stage"):
        assert any(name.endswith(f":{opening}") for name in sizes), opening
    assert [(name, n) for name, n in sizes.items() if n > MAX_LINES] == []


def test_the_length_check_finds_a_long_step_and_a_long_classmethod(tmp_path):
    """A step the constructor calls, an alternate constructor and an opening function, each one
    line too long, are named; a long method no constructor calls is not a constructor."""
    def body(indent: str) -> str:
        return "\n".join(f"{indent}x{i} = {i}" for i in range(MAX_LINES - 1))
    pkg = tmp_path / "sandbox"
    pkg.mkdir()
    (pkg / "m.py").write_text(
        "class Box:\n"
        "    def __init__(self):\n        self._step()\n\n"
        f"    def _step(self):\n{body(' ' * 8)}\n        return None\n\n"
        f"    @classmethod\n    def make(cls):\n{body(' ' * 8)}\n        return cls()\n\n"
        f"    def other(self):\n{body(' ' * 8)}\n        return None\n\n\n"
        f"def open_box():\n{body(' ' * 4)}\n    return Box()\n")
    long = [(name, n) for name, n in _constructors(pkg) if n > MAX_LINES]
    assert long == [("sandbox/m.py:open_box", MAX_LINES + 1), ("sandbox/m.py:Box._step", MAX_LINES + 1),
                    ("sandbox/m.py:Box.make", MAX_LINES + 1)]


@pytest.mark.parametrize("backend", ["bwrap", "docker"])
def test_each_isolating_backend_opens_under_one_exit_stack(backend):
    """Its constructor has one `with ExitStack()`, and close() releases that stack only."""
    module = ast.parse((SANDBOX / backend / "backend.py").read_text())
    cls = next(n for n in module.body if isinstance(n, ast.ClassDef) and n.name.lower().startswith(backend))
    init = next(n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__init__")
    stacks = [w for w in ast.walk(init) if isinstance(w, ast.With)
              and any(isinstance(i.context_expr, ast.Call) and getattr(i.context_expr.func, "id", "") == "ExitStack"
                      for i in w.items)]
    assert len(stacks) == 1
    close = next(n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "close")
    assert "self._resources.close()" in ast.unparse(close)
