"""Datasets: where they live, how they are built (demo) or staged (official sources).

Layout (docs/data.md#the-data-contract):
    <data_root>/<dataset>/public/<case_id>/<input files>      agent sees it, read-only
    <data_root>/<dataset>/private/<case_id>/<reference files> agent never sees it
    <data_root>/<dataset>/manifest.json                       case ids + sha256 of every file

`data_root` is `--data-root`, else $AUTOMEDBENCH_DATA, else $AUTOMEDBENCH_HOME/data
(~/.cache/automedbench/data).
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Literal

from ..errors import UserError
from ..home import home


class DatasetError(UserError, RuntimeError):
    pass


def data_root(root: Path | str | None = None) -> Path:
    if root:
        return Path(root).expanduser()
    env = os.environ.get("AUTOMEDBENCH_DATA")
    return Path(env).expanduser() if env else home() / "data"


@dataclass(frozen=True)
class DatasetPaths:
    root: Path

    @property
    def public(self) -> Path:
        return self.root / "public"

    @property
    def private(self) -> Path:
        return self.root / "private"

    @property
    def manifest(self) -> Path:
        return self.root / "manifest.json"

    def is_staged(self) -> bool:
        return self.manifest.is_file() and self.public.is_dir() and self.private.is_dir()

    def load_manifest(self) -> dict[str, Any]:
        if not self.manifest.is_file():
            raise DatasetError(f"dataset at {self.root} is not staged (no manifest.json); "
                               f"run `automedbench data stage {self.root.name}`")
        try:
            return json.loads(self.manifest.read_text())
        except json.JSONDecodeError as exc:
            raise DatasetError(f"{self.manifest}: not valid JSON: {exc}") from None

    def case_ids(self) -> list[str]:
        return [c["case_id"] for c in self.load_manifest()["cases"]]


def dataset_paths(name: str, root: Path | str | None = None) -> DatasetPaths:
    return DatasetPaths(data_root(root) / name)


def source_root(source: str | Path | None, name: str) -> Path:
    """The folder holding the user's local copy of an official release (`source`), checked."""
    if not source:
        raise DatasetError(f"{name}: no source given: pass source=<path to your local copy of the "
                           "official release> (CLI: --source DIR)")
    root = Path(source).expanduser()
    if not root.exists():
        raise DatasetError(f"{name}: source {root} is not a folder: it does not exist")
    if not root.is_dir():
        raise DatasetError(f"{name}: source {root} is not a folder")
    return root


def link_or_copy(src: Path, dst: Path, link: bool = True) -> str:
    """Put `src` at `dst` (replacing it): a hard link when `link` and the file system allows,
    else a copy. Returns "hardlink" or "copy"."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    if dst.exists():
        dst.unlink()
    if link:
        try:
            os.link(src, dst)
            return "hardlink"
        except OSError:
            pass            # another file system: copy
    shutil.copyfile(src, dst)
    return "copy"


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def write_manifest(paths: DatasetPaths, *, dataset: str, description: str,
                   cases: list[dict[str, Any]], provenance: dict[str, Any]) -> dict[str, Any]:
    """Hash every public and private file of every case and write manifest.json."""
    for case in cases:
        files = {}
        for side in ("public", "private"):
            case_dir = getattr(paths, side) / case["case_id"]
            for f in sorted(case_dir.rglob("*")):
                if f.is_file():
                    files[str(f.relative_to(paths.root))] = sha256_file(f)
        case["files"] = files
    manifest = {"dataset": dataset, "description": description, "provenance": provenance,
                "cases": cases}
    paths.manifest.write_text(json.dumps(manifest, indent=2) + "\n")
    return manifest


def verify_manifest(paths: DatasetPaths) -> list[str]:
    """Files whose sha256 no longer matches the manifest (empty list = intact)."""
    bad = []
    for case in paths.load_manifest()["cases"]:
        for rel, digest in case.get("files", {}).items():
            f = paths.root / rel
            if not f.is_file() or sha256_file(f) != digest:
                bad.append(rel)
    return bad


# A track's datasets are described here (below the tracks); the catalog of every track's datasets
# and stage() live in automedbench/datasets.py, above the tracks (docs/architecture.md, "Layers").
Builder = Callable[..., dict[str, Any]]


@dataclass(frozen=True)
class DatasetInfo:
    name: str
    description: str
    kind: Literal["demo", "official"]       # demo: built offline here; official: staged
    # the function that builds (demo) or stages (official) it into a DatasetPaths: an object the
    # track imports, so mypy and the layer contracts see the dependency (docs/tracks.md)
    builder: Builder
    options: dict[str, str] = field(default_factory=dict)   # option -> help text
    track: str = ""
    # per-case manifest fields scoring relies on; a build/stage without them is refused
    required_case_fields: tuple[str, ...] = ()


def swap_into_place(tmp: Path, target: Path) -> None:
    """Rename ``tmp`` to ``target``; a previous ``target`` is moved aside, then deleted."""
    old = None
    if target.exists() or target.is_symlink():
        old = Path(tempfile.mkdtemp(prefix=f".{target.name}.old-", dir=target.parent))
        old.rmdir()
        target.rename(old)
    try:
        tmp.rename(target)
    except BaseException:
        if old is not None and not target.exists():
            old.rename(target)              # put the previous version back
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
