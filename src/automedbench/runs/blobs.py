"""The bytes each call left in the workspace, kept by sha256 so the workspace can be rebuilt as
it stood before any call (docs/judge.md "Experiments": a look is replayed on the files as it
read them, not on the final workspace, where a later fix has replaced them).

After every call the lifecycle hands the call's effects to `BlobStore.keep`: each file the call
wrote (created or modified, still there at its end) is copied into `evidence/blobs/<sha256>`
when its bytes still hash to what the recorder saw. Files above `max_file` bytes, and files once
the run's blobs pass `max_total`, are not kept; a workspace rebuilt without them names them."""
from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

MAX_FILE_BYTES = 16 * 1024 * 1024
MAX_TOTAL_BYTES = 256 * 1024 * 1024


class BlobStore:
    def __init__(self, root: Path, workspace: Path, workspace_inside: str,
                 max_file: int = MAX_FILE_BYTES, max_total: int = MAX_TOTAL_BYTES):
        self.root = Path(root)
        self.workspace = Path(workspace)
        self.inside = workspace_inside.rstrip("/")
        self.max_file, self.max_total = max_file, max_total
        self.total = 0

    def path(self, sha: str) -> Path:
        return self.root / sha

    def has(self, sha: str | None) -> bool:
        return bool(sha) and self.path(str(sha)).is_file()

    def host_path(self, inside: str) -> Path | None:
        """The host file of an inside workspace path; None outside the workspace or with `..`."""
        if not inside.startswith(self.inside + "/"):
            return None
        rel = PurePosixPath(inside[len(self.inside) + 1:])
        return None if ".." in rel.parts else self.workspace / rel

    def keep(self, effects: dict[str, Any] | None) -> int:
        """Copy the files this call wrote; returns how many were kept. Never raises for the
        agent's files (a file gone, a link, a device): those are simply not kept."""
        kept = 0
        for w in (effects or {}).get("written") or []:
            sha, size = w.get("sha256"), w.get("size") or 0
            if not sha or w.get("op") == "transient" or size > self.max_file or self.has(sha):
                continue
            if self.total + size > self.max_total:
                break
            host = self.host_path(str(w.get("path", "")))
            if host is None:
                continue
            kept += self._copy(host, sha)
        return kept

    def _copy(self, host: Path, sha: str) -> int:
        try:
            if host.is_symlink() or not host.is_file():
                return 0
            self.root.mkdir(parents=True, exist_ok=True)
            tmp = self.root / f".{sha}.{os.getpid()}"
            digest = hashlib.sha256()
            with open(host, "rb") as src, open(tmp, "wb") as dst:
                while chunk := src.read(1 << 20):
                    digest.update(chunk)
                    dst.write(chunk)
            if digest.hexdigest() != sha:          # changed since the recorder hashed it
                tmp.unlink()
                return 0
            self.total += tmp.stat().st_size
            tmp.replace(self.path(sha))
            return 1
        except OSError:
            return 0


@dataclass
class WorkspaceState:
    """The workspace's files (inside path -> sha256, None when the bytes were never hashed) as
    they stood before a call, from the effects of the calls before it."""
    files: dict[str, str | None] = field(default_factory=dict)

    @classmethod
    def before(cls, executions: Iterable[tuple[int, dict[str, Any] | None]], call_index: int) -> "WorkspaceState":
        state = cls()
        for index, effects in executions:
            if index >= call_index:
                break
            for w in (effects or {}).get("written") or []:
                if w.get("op") == "transient":
                    continue
                state.files[str(w["path"])] = w.get("sha256")
            for gone in (effects or {}).get("deleted") or []:
                state.files.pop(str(gone), None)
        return state

    def missing(self, store: BlobStore) -> list[str]:
        """The inside paths whose bytes were not kept: what `materialise` would leave out."""
        return [inside for inside, sha in sorted(self.files.items())
                if _relative(inside, store.inside) is not None and (not sha or not store.has(sha))]

    def materialise(self, store: BlobStore, dest: Path) -> list[str]:
        """Write these files under `dest` (a fresh folder standing for the workspace); returns
        the inside paths whose bytes were not kept (left out)."""
        missing = []
        for inside, sha in sorted(self.files.items()):
            rel = _relative(inside, store.inside)
            if rel is None:
                continue
            if not sha or not store.has(sha):
                missing.append(inside)
                continue
            target = dest / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(store.path(sha), target)
        return missing


def _relative(inside: str, root: str) -> PurePosixPath | None:
    if not inside.startswith(root + "/"):
        return None
    rel = PurePosixPath(inside[len(root) + 1:])
    return None if ".." in rel.parts else rel
