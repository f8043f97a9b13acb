"""The agent runtime: the Python that agent code gets *inside* the sandbox.

The harness's own interpreter lives in its virtualenv, inside the harness source tree, and
must never be visible to the agent. So the agent gets Debian's `/usr/bin/python3` (under
`/usr`, which is bound read-only anyway) plus a package directory built once per machine:

    <cache>/agent-runtime/<key>/
        site/            numpy, scipy, matplotlib, pillow + each track's runtime_packages (+ deps, + pip)
        boot/sitecustomize.py   adds site/ to sys.path (after the user site, before
                                Debian's dist-packages) -- only for the matching X.Y
        bin/python, bin/python3 -> /usr/bin/python3.X ; bin/pip (python -m pip)

It is bound read-only at `/opt/agent-python`; `PATH` starts with `/opt/agent-python/bin`
and `PYTHONPATH=/opt/agent-python/boot`. `pip install X` inside the sandbox therefore
installs into the user site `/workspace/.local` (PIP_BREAK_SYSTEM_PACKAGES=1 is set because
Debian marks its python externally managed), and the user's newer packages win.

How `site/` is filled, in order:
  1. copied file by file (each distribution's RECORD) from the harness's own environment
     when it runs the same Python X.Y as /usr/bin/python3 -- offline, ~1-2 s;
  2. otherwise `pip install --target` from the package registry.
Creation is cached under a key (python version + package versions), guarded by a file
lock so racing processes build it once, and published with an atomic rename.
"""
from __future__ import annotations

import fcntl
import functools
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from importlib import metadata
from pathlib import Path
from typing import Any

from ..home import home
from .base import SandboxError

RUNTIME_LAYOUT_VERSION = 3
INSIDE_DIR = "/opt/agent-python"
SYSTEM_PYTHON = os.environ.get("AUTOMEDBENCH_AGENT_PYTHON", "/usr/bin/python3")
# the base set; each registered track adds what its agent code needs (Track.runtime_packages)
BASE_AGENT_PACKAGES = ("numpy", "scipy", "matplotlib", "pillow", "pip")
# compileall -x: paths not compiled ahead (a package's own test suite)
COMPILE_SKIP = r"/tests?/"


def agent_packages() -> tuple[str, ...]:
    # Imported here, not at the top: the sandbox package must import with the standard library
    # alone, because a non-root harness may drive it from the system python (docs/sandbox.md,
    # tests/sandbox/test_network.py); the track registry needs pydantic. The one in-package
    # lazy import (docs/architecture.md, tests/test_layers.py IN_PACKAGE_LAZY).
    from ..tracks import all_tracks
    extra = sorted({p for t in all_tracks().values() for p in t.runtime_packages} - set(BASE_AGENT_PACKAGES))
    return (*BASE_AGENT_PACKAGES, *extra)


def runtime_package_names() -> set[str] | None:
    """The distributions the agent runtime holds: a prepared one's (`AUTOMEDBENCH_AGENT_RUNTIME`,
    read from its site/*.dist-info), else the list the harness builds; None when unknown."""
    given = os.environ.get("AUTOMEDBENCH_AGENT_RUNTIME")
    if given:
        names = {_canon(p.name.split("-")[0].strip()) for p in Path(given).glob("site/*.dist-info")}
        return names or None
    return {_canon(p) for p in agent_packages()}


SITECUSTOMIZE = '''\
# automedbench agent runtime: make the preinstalled packages importable.
import os, site, sys
_SITE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "site")
if sys.version_info[:2] == ({major}, {minor}) and os.path.isdir(_SITE) and _SITE not in sys.path:
    _before = list(sys.path)
    site.addsitedir(_SITE)
    _added = [p for p in sys.path if p not in _before]
    _rest = [p for p in sys.path if p in _before]
    # after the user site and the workspace venv, before Debian's dist-packages
    _at = next((i for i, p in enumerate(_rest) if "dist-packages" in p or
                (p.startswith("/usr/") and "site-packages" in p)), len(_rest))
    sys.path[:] = _rest[:_at] + _added + _rest[_at:]
'''

PIP_WRAPPER = '#!/bin/sh\nexec {python} -m pip "$@"\n'


class RuntimeBuildError(SandboxError):
    """The agent runtime could not be built (an infrastructure fault)."""


RuntimeError_ = RuntimeBuildError  # short internal alias


def cache_root() -> Path:
    return home() / "agent-runtime"


@functools.lru_cache(maxsize=8)
def system_python_version(python: str = SYSTEM_PYTHON) -> tuple[int, int]:
    # once per process: every sandbox open asks, and the answer is an interpreter start
    out = subprocess.run([python, "-c", "import sys; print(sys.version_info[0], sys.version_info[1])"],
                         capture_output=True, text=True, check=True).stdout.split()
    return int(out[0]), int(out[1])


def _canon(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@functools.lru_cache(maxsize=8)
def _closure(names: tuple[str, ...]) -> dict[str, metadata.Distribution] | None:
    """The harness environment's distributions needed for `names` (requirements followed,
    extras and markers respected), or None if one is missing. Once per process: reading
    ~200 distributions' metadata was half of a sandbox open's CPU, and the harness's own
    environment does not change under it."""
    try:
        from packaging.requirements import Requirement  # a matplotlib dependency
    except ImportError:
        return None

    found: dict[str, metadata.Distribution] = {}
    todo = list(names)
    while todo:
        name = _canon(todo.pop())
        if name in found:
            continue
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            return None
        found[name] = dist
        for spec in dist.requires or []:
            req = Requirement(spec)
            if req.marker is not None and not req.marker.evaluate({"extra": ""}):
                continue
            todo.append(req.name)
    return found


@functools.lru_cache(maxsize=8)
def _pins(packages: tuple[str, ...], same: bool) -> dict[str, Any]:
    """The runtime's distributions and their versions, which name its cache folder (each
    version is a metadata read: once per process)."""
    dists = _closure(packages) if same else None
    return ({n: d.version for n, d in sorted(dists.items())} if dists
            else {"pip-install": list(packages)})


def _key(version: tuple[int, int], dists: Mapping[str, object]) -> str:
    blob = json.dumps({"layout": RUNTIME_LAYOUT_VERSION, "python": version, "dists": dists,
                       "platform": sys.platform}, sort_keys=True)
    return f"py{version[0]}{version[1]}-" + hashlib.sha256(blob.encode()).hexdigest()[:12]


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _copy_dists(dists: dict[str, metadata.Distribution], site: Path) -> str:
    """Each distribution's files into `site`: hard links where the harness environment and the
    cache share a file system (the ~360 MB copy was ~3 s of an ~8 s build, ~10 s on a loaded
    machine), else copies. A link is safe here: the runtime is bound read-only into sandboxes,
    and pip replaces files rather than rewriting them, so an upgrade of the harness leaves the
    runtime's files as they were (docs/sandbox.md, "The agent runtime"). Returns how: "link",
    "copy" or "link+copy"."""
    linking, used = True, set()
    for dist in dists.values():
        base = Path(str(dist.locate_file("")))
        for rel in dist.files or []:
            if ".." in Path(rel).parts or str(rel).endswith(".pyc"):
                continue  # console scripts live outside site-packages; bytecode is rebuilt
            src = base / rel
            if not src.is_file():
                continue
            dst = site / rel
            dst.parent.mkdir(parents=True, exist_ok=True)
            if linking:
                try:
                    os.link(os.path.realpath(src), dst)
                    used.add("link")
                    continue
                except OSError:   # another file system (EXDEV), protected_hardlinks (EPERM): copy
                    linking = False
            shutil.copy2(src, dst, follow_symlinks=True)
            used.add("copy")
    return "+".join(sorted(used)) or "copy"


def _pip_install(site: Path, python: str, packages: tuple[str, ...]) -> None:
    cmd = [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
           "--no-warn-script-location", "--target", str(site), *packages]
    if subprocess.run([python, "-m", "pip", "--version"], capture_output=True).returncode != 0:
        # Debian without python3-pip: let the harness's pip resolve wheels for that python.
        ver = "%d.%d" % system_python_version(python)
        cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
               "--no-warn-script-location", "--only-binary=:all:", "--python-version", ver,
               "--target", str(site), *packages]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        raise RuntimeError_("could not build the agent runtime with pip:\n" + res.stderr[-2000:])


def ensure_agent_runtime(python: str = SYSTEM_PYTHON, root: Path | None = None,
                         compile_bytecode: bool = True) -> Path:
    """Build (once per machine, cached) and return the host directory of the agent runtime.

    `AUTOMEDBENCH_AGENT_RUNTIME=/dir` skips the build and uses a prepared directory with the
    same layout (bin/python, boot/, site/), e.g. on a GPU machine whose python has torch."""
    given = os.environ.get("AUTOMEDBENCH_AGENT_RUNTIME")
    if given and root is None:
        if not (Path(given) / "bin").is_dir():
            raise RuntimeError_(f"AUTOMEDBENCH_AGENT_RUNTIME={given}: no bin/ directory there")
        return Path(given)
    if not Path(python).exists():
        raise RuntimeError_(f"{python} not found: the sandbox needs the system python "
                            "(Debian: apt-get install python3)")
    version = system_python_version(python)
    same = sys.version_info[:2] == version
    packages = agent_packages()
    dists = _closure(packages) if same else None
    root = root or cache_root()
    pins = _pins(packages, same)
    final = root / _key(version, pins)
    if (final / ".complete").is_file():
        return final
    with _locked(root / ".lock"):
        if (final / ".complete").is_file():
            return final  # another process built it while we waited
        tmp = root / f".build-{os.getpid()}"
        shutil.rmtree(tmp, ignore_errors=True)
        (tmp / "site").mkdir(parents=True)
        how = "pip-install"
        if dists:
            how = _copy_dists(dists, tmp / "site")
        else:
            _pip_install(tmp / "site", python, packages)
        # bytecode, compiled by the interpreter that will use it: the runtime is read-only
        # inside the sandbox, so without this every `import scipy` would recompile. The
        # packages' own test suites (a third of the files: numpy/tests, scipy/*/tests, ...)
        # are left as source: agent code does not import them, and skipping them takes
        # ~2 s off the first run on a machine (docs/sandbox.md, "The agent runtime").
        if compile_bytecode:
            subprocess.run([python, "-m", "compileall", "-q", "-j", "0", "-x", COMPILE_SKIP,
                            str(tmp / "site")], capture_output=True)
        (tmp / "boot").mkdir()
        (tmp / "boot" / "sitecustomize.py").write_text(
            SITECUSTOMIZE.format(major=version[0], minor=version[1]))
        (tmp / "bin").mkdir()
        target = os.path.realpath(python)
        for name in ("python", "python3", f"python{version[0]}.{version[1]}"):
            (tmp / "bin" / name).symlink_to(target)
        for name in ("pip", "pip3"):
            (tmp / "bin" / name).write_text(PIP_WRAPPER.format(python=target))
            (tmp / "bin" / name).chmod(0o755)
        (tmp / "runtime.json").write_text(json.dumps({"python": list(version), "packages": pins,
                                                      "filled_by": how}, indent=1))
        make_world_readable(tmp)
        (tmp / ".complete").write_text("ok\n")
        if final.exists():
            shutil.rmtree(final)
        os.rename(tmp, final)
    return final


def make_world_readable(top: Path) -> None:
    """The sandbox user is not the owner: everything must be a+rX."""
    for dirpath, _dirnames, filenames in os.walk(top):
        os.chmod(dirpath, 0o755)
        for f in filenames:
            p = os.path.join(dirpath, f)
            if not os.path.islink(p):
                mode = os.stat(p).st_mode
                wanted = (mode | 0o444 | (0o111 if mode & 0o100 else 0)) & 0o7777
                if wanted != mode & 0o7777:   # a hard-linked file of the harness venv is left as it is
                    os.chmod(p, wanted)
