"""The agent image for the docker backend, built offline and pinned by its content.

No image registry is reachable, so nothing is pulled: a Debian root filesystem is made by
`mmdebstrap` from the host's configured Debian mirror (apt sources), with the agent's
python runtime (runtime.py: numpy, scipy, matplotlib, pillow, pip + the tracks' packages -- the same set
bwrap gives) synced into /opt/agent-python, then `docker import`ed. The image id
(`sha256:<64 hex>`, the hash of its content) is what runs refer to and what the run record
names.

Caching: a key hashes the recipe (suite, mirror lines, package list, the runtime's key,
layout version). The root filesystem tarball is kept under
`$AUTOMEDBENCH_HOME/docker/<key>/rootfs.tar`, and the engine's tag `automedbench-agent:<key>`
is reused when present, so CI builds once per recipe.
"""
from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from ..base import SandboxError
from ..inside import SANDBOX_UID
from ..runtime import INSIDE_DIR as RUNTIME_INSIDE
from ..runtime import _locked, ensure_agent_runtime
from ..runtime import cache_root as runtime_cache_root

IMAGE_LAYOUT_VERSION = 1
IMAGE_REPO = "automedbench-agent"
# what agent code finds besides python: a compiler (agents build small tools), ps, ip, TLS roots
PACKAGES = ("python3", "python3-venv", "ca-certificates", "gcc", "libc6-dev", "procps", "iproute2")
BUILD_TIMEOUT_S = 1800


class ImageBuildError(SandboxError):
    """The agent image could not be built (an infrastructure fault)."""


@dataclass
class ImageRecord:
    key: str
    image_id: str          # sha256:<64 hex>: what runs use
    tag: str
    suite: str
    mirrors: list[str]
    packages: list[str]
    runtime: str
    build_s: float

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2)


def docker_cache_root() -> Path:
    return runtime_cache_root().parent / "docker"


def host_debian_sources(path_d: Path = Path("/etc/apt/sources.list.d"),
                        legacy: Path = Path("/etc/apt/sources.list")) -> tuple[str, list[str]]:
    """(suite, one-line `deb URI SUITE COMPONENTS` entries) from the host's apt sources
    (deb822 `.sources` and legacy `sources.list`), binary Debian entries only."""
    lines: list[str] = []
    for f in sorted(path_d.glob("*.sources")) if path_d.is_dir() else []:
        for stanza in re.split(r"\n\s*\n", f.read_text(errors="replace")):
            fields: dict[str, str] = {}
            for line in stanza.splitlines():
                if line.startswith("#") or ":" not in line:
                    continue
                k, _, v = line.partition(":")
                fields[k.strip().lower()] = v.strip()
            if "deb" not in fields.get("types", "").split() or fields.get("enabled", "yes") == "no":
                continue
            for uri in fields.get("uris", "").split():
                for suite in fields.get("suites", "").split():
                    lines.append(f"deb {uri} {suite} {fields.get('components', 'main')}")
    files = [legacy] + (sorted(path_d.glob("*.list")) if path_d.is_dir() else [])
    for f in files:
        if f.is_file():
            lines += [ln.strip() for ln in f.read_text(errors="replace").splitlines()
                      if ln.strip().startswith("deb ")]
    lines = [ln for ln in dict.fromkeys(lines) if "debian" in ln]
    if not lines:
        raise ImageBuildError("no Debian apt source configured on this host (/etc/apt/sources.list*)")
    suite = next(ln.split()[2] for ln in lines if not ln.split()[2].endswith(("-updates", "-security",
                                                                              "-backports")))
    return suite, lines


def recipe(runtime: Path) -> dict:
    suite, mirrors = host_debian_sources()
    return {"layout": IMAGE_LAYOUT_VERSION, "suite": suite, "mirrors": mirrors, "packages": list(PACKAGES),
            "runtime": runtime.name, "uid": SANDBOX_UID}


def recipe_key(rec: dict) -> str:
    return hashlib.sha256(json.dumps(rec, sort_keys=True).encode()).hexdigest()[:16]


def _docker(docker: str, *args: str, timeout: float = 600, check: bool = True) -> subprocess.CompletedProcess:
    res = subprocess.run([docker, *args], capture_output=True, text=True, timeout=timeout)
    if check and res.returncode != 0:
        raise ImageBuildError(f"docker {args[0]} failed: {res.stderr.strip()[-300:]}")
    return res


def _mmdebstrap(rec: dict, runtime: Path, out: Path) -> None:
    exe = shutil.which("mmdebstrap")
    if not exe:
        raise ImageBuildError("mmdebstrap is not installed: `apt-get install mmdebstrap` "
                              "(it builds the agent image from the Debian mirror)")
    uid = rec["uid"]
    hooks = [
        f'mkdir -p "$1{RUNTIME_INSIDE}" "$1/workspace" "$1/data/public" "$1/data/private" '
        f'&& cp -a {runtime}/. "$1{RUNTIME_INSIDE}/" && chmod -R a+rX "$1{RUNTIME_INSIDE}"',
        f'echo "agent:x:{uid}:{uid}:agent:/workspace:/bin/bash" >> "$1/etc/passwd" '
        f'&& echo "agent:x:{uid}:" >> "$1/etc/group"',
        # no package manager state or caches in the image
        'rm -rf "$1"/var/cache/apt/* "$1"/var/lib/apt/lists/* "$1"/usr/share/doc/* "$1"/usr/share/man/*',
    ]
    cmd = [exe, "--quiet", "--variant=minbase", f"--include={','.join(rec['packages'])}"]
    for hook in hooks:
        cmd.append(f"--customize-hook={hook}")
    tmp = out.with_suffix(".partial.tar")
    cmd += [rec["suite"], str(tmp), *rec["mirrors"]]
    try:
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=BUILD_TIMEOUT_S)
    except subprocess.TimeoutExpired as exc:
        raise ImageBuildError(f"mmdebstrap took longer than {BUILD_TIMEOUT_S} s") from exc
    if res.returncode != 0:
        tmp.unlink(missing_ok=True)
        raise ImageBuildError("mmdebstrap failed: " + (res.stderr or res.stdout).strip()[-500:])
    tmp.rename(out)


def build_image(docker: str = "docker", *, force: bool = False,
                log: Callable[[str], object] = print) -> ImageRecord:
    """The agent image for this recipe: reused from the engine or the tarball cache when
    present, else built. Writes `<cache>/<key>/image.json` and returns its record."""
    t0 = time.monotonic()
    runtime = ensure_agent_runtime()
    rec = recipe(runtime)
    key = recipe_key(rec)
    tag = f"{IMAGE_REPO}:{key}"
    cache = docker_cache_root() / key
    cache.mkdir(parents=True, exist_ok=True)
    tar = cache / "rootfs.tar"
    image_id = ""
    # one builder per recipe on this machine (docs/sandbox.md): two processes building at once
    # (parallel test workers, two sweeps) wrote the same partial tarball and one lost its rename;
    # the one that waited finds the image or the tarball the other made
    with _locked(cache / ".lock"):
        if not force:
            res = _docker(docker, "image", "inspect", "--format", "{{.Id}}", tag, check=False)
            image_id = res.stdout.strip() if res.returncode == 0 else ""
        if not image_id:
            if force or not tar.is_file():
                log(f"building the agent root filesystem with mmdebstrap ({rec['suite']}, {len(rec['packages'])} "
                    f"packages + the agent runtime) ...")
                tar.unlink(missing_ok=True)
                _mmdebstrap(rec, runtime, tar)
            log(f"importing {tar} ({tar.stat().st_size / 2**20:.0f} MiB) as {tag} ...")
            image_id = _docker(docker, "import", "--change", "WORKDIR /workspace", str(tar), tag).stdout.strip()
    if not re.fullmatch(r"sha256:[0-9a-f]{64}", image_id):
        raise ImageBuildError(f"docker import returned {image_id!r}, not an image id")
    out = ImageRecord(key=key, image_id=image_id, tag=tag, suite=rec["suite"], mirrors=rec["mirrors"],
                      packages=rec["packages"], runtime=rec["runtime"], build_s=round(time.monotonic() - t0, 1))
    (cache / "image.json").write_text(out.to_json())
    (docker_cache_root() / "current.json").write_text(out.to_json())
    return out


def recorded_image() -> str | None:
    """The image id of the last build on this machine, if any."""
    f = docker_cache_root() / "current.json"
    try:
        return json.loads(f.read_text())["image_id"]
    except (OSError, ValueError, KeyError):
        return None
