"""Each sandbox reads its own copy of the task's public inputs.

inotify follows inodes, not paths: two sandboxes bound to one shared public directory fire
each other's watches, so one run's recorded reads would hold a concurrent run's reads of
the same dataset (docs/sandbox.md "Observed effects", "Whose reads"). A copy has inodes of
its own. It is a reflink where the file system has them (no data copied), else a plain
copy, and it is skipped above a size cap, where the record then says the reads may be
shared.
"""
from __future__ import annotations

import logging
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

COPY_MAX_ENV = "AUTOMEDBENCH_INPUT_COPY_MAX_MB"
DEFAULT_COPY_MAX_MB = 512
log = logging.getLogger("automedbench.sandbox")


@dataclass(frozen=True)
class InputView:
    """What a sandbox binds at its public-data path. `private`: a copy of its own, so every
    read the recorder sees there is this sandbox's."""
    path: Path
    private: bool


def copy_cap_bytes() -> int:
    raw = os.environ.get(COPY_MAX_ENV, "").strip()
    try:
        return int(float(raw or DEFAULT_COPY_MAX_MB) * 2**20)
    except ValueError:
        log.warning("%s=%r is not a number of MiB; using the default %d", COPY_MAX_ENV, raw, DEFAULT_COPY_MAX_MB)
        return DEFAULT_COPY_MAX_MB * 2**20


def _size_up_to(root: Path, cap: int) -> int:
    """Bytes of regular files under root, stopping once above cap (a large dataset is not walked whole)."""
    total = 0
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            try:
                st = os.lstat(os.path.join(dirpath, name))
            except OSError:
                continue
            total += st.st_size
            if total > cap:
                return total
    return total


def private_inputs(public: Path, into: Path, cap: int | None = None) -> InputView:
    """Copy `public` to `into/public` (reflink when possible) unless it holds more than `cap`
    bytes; `into` is a directory the sandbox owns and removes on close."""
    cap = copy_cap_bytes() if cap is None else cap
    if cap <= 0 or _size_up_to(public, cap) > cap:
        return InputView(public, private=False)
    dest = into / "public"
    # GNU cp keeps modes and symlinks as they are and shares blocks where it can (--reflink=auto)
    cp = shutil.which("cp")
    if cp is None or subprocess.run([cp, "-a", "--reflink=auto", "--", str(public), str(dest)],
                                    capture_output=True).returncode != 0:
        shutil.rmtree(dest, ignore_errors=True)
        shutil.copytree(public, dest, symlinks=True)
    os.chmod(dest, os.stat(public).st_mode & 0o7777)
    return InputView(dest, private=True)
