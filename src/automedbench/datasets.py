"""The catalog of datasets (those of every registered track) and the one entry point that builds (demo) or stages (official) them.

``stage(name, root=None, force=False, **options)`` builds into a temporary sibling folder
(``<data_root>/.<name>.tmp-XXXX``) and renames it into place only when the build finished
and its manifest was written, so a crash or Ctrl-C never leaves a half-staged dataset
behind.  An already staged dataset is reused unless ``force=True``; the options it was
staged with are recorded in the manifest (``stage_options``) and asking for different ones
without ``force`` is an error rather than a silent reuse.
"""
from __future__ import annotations

import contextlib
import json
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator, MutableMapping
from pathlib import Path
from typing import Any

from .data import DatasetError, DatasetInfo, DatasetPaths, dataset_paths, swap_into_place
from .plugins import Registry
from .tracks.registry import TRACKS


def _track_datasets() -> Iterator[tuple[str, DatasetInfo, str]]:
    """Every registered track's datasets (`TrackAssets.datasets()`), attributed to the track's origin."""
    for entry in TRACKS.entries():
        for info in entry.obj.datasets():
            yield info.name, info, entry.origin


def _dataset_info(obj: Any, where: str) -> DatasetInfo:
    if not isinstance(obj, DatasetInfo):
        raise DatasetError(f"{where}: not a DatasetInfo (automedbench.data.DatasetInfo)")
    return obj


# The catalog, one kind of the one registry (docs/architecture.md "One registry"): the datasets a
# track declares (re-read whenever the tracks change), plug-ins of the entry-point group
# `automedbench.datasets` (a DatasetInfo each) and run-time additions (`DATASETS[name] = info`).
DATASET_REGISTRY: Registry[DatasetInfo] = Registry(
    "dataset", group="automedbench.datasets", validate=_dataset_info, name_of=lambda i: i.name,
    describe=lambda i: i.description, builtins=_track_datasets, follows=TRACKS, error=DatasetError)


def all_datasets() -> dict[str, DatasetInfo]:
    """Every dataset of every registered track (tracks declare them in `datasets()`), plug-ins and additions."""
    return dict(DATASET_REGISTRY.items())


class _Datasets(MutableMapping[str, DatasetInfo]):
    """Mapping view of the catalog; assignment registers one at run time (tests, notebooks)."""

    def __getitem__(self, name: str) -> DatasetInfo:
        if name not in DATASET_REGISTRY:
            raise KeyError(name)
        return DATASET_REGISTRY.get(name)

    def __setitem__(self, name: str, info: DatasetInfo) -> None:
        # attributed to the module of its builder: a test's is a run-time addition
        DATASET_REGISTRY.add(name, info, replace=True, module=info.builder.__module__)

    def __delitem__(self, name: str) -> None:
        DATASET_REGISTRY.remove(name)

    def __iter__(self) -> Iterator[str]:
        return iter(DATASET_REGISTRY.names())

    def __len__(self) -> int:
        return len(DATASET_REGISTRY.names())


DATASETS = _Datasets()


def get(name: str) -> DatasetInfo:
    if name not in DATASET_REGISTRY:
        raise DatasetError(f"unknown dataset {name!r}; known: {', '.join(sorted(DATASET_REGISTRY.names()))}. To stage "
                           f"your own data: automedbench data stage {name} --from-folder DIR --task TASK "
                           "(docs/your-task.md)")
    return DATASET_REGISTRY.get(name)


def _check_required_fields(info: DatasetInfo, manifest: dict[str, Any]) -> None:
    """Refuse, at staging, a dataset whose cases lack what scoring needs (never guessed later)."""
    for case in manifest.get("cases", []):
        missing = [f for f in info.required_case_fields if case.get(f) is None]
        if missing:
            raise DatasetError(f"{info.name}: case {case.get('case_id')!r} has no {', '.join(missing)} "
                               "in its manifest entry; the track needs it to score (refused)")


def _progress_context(name: str, quiet: bool) -> tuple[contextlib.AbstractContextManager[Any],
                                                      Callable[[int, int, str], None] | None]:
    """(context manager, callback) showing a rich progress bar, or a no-op."""

    if quiet:
        return contextlib.nullcontext(), None
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    # its own console: on rich's shared one, a live display another caller left open (a sweep's
    # bar) would take this bar in as a child and it would never reach the terminal
    bar = Progress(TextColumn(f"[bold]{name}[/bold]"), BarColumn(), MofNCompleteColumn(),
                   TextColumn("{task.description}"), TimeElapsedColumn(), transient=False, console=Console())
    task = bar.add_task("", total=None)

    def callback(done: int, total: int, case_id: str) -> None:
        bar.update(task, completed=done, total=total, description=case_id)

    return bar, callback


def _normalise(options: dict[str, Any]) -> dict[str, Any]:
    """Options as they are recorded in the manifest (JSON types; paths as strings)."""
    return json.loads(json.dumps(options, sort_keys=True, default=str))


def stage(name: str, root: Path | str | None = None, *, force: bool = False,
          quiet: bool | None = None, **options: Any) -> DatasetPaths:
    """Build or stage dataset ``name`` under ``root`` (default data root); return its paths.

    quiet: no progress bar (default: quiet unless stdout is a terminal).
    options: passed to the dataset's builder (see ``DATASETS[name].options``).
    """
    info = get(name)
    unknown = set(options) - set(info.options)
    if unknown:
        raise DatasetError(f"{name}: unknown option(s) {sorted(unknown)}; "
                           f"known: {sorted(info.options)}")
    paths = dataset_paths(name, root)
    wanted = _normalise(options)
    if paths.is_staged() and not force:
        have = paths.load_manifest().get("stage_options")
        if options and have is not None and have != wanted:
            raise DatasetError(f"{name} at {paths.root} was staged with options {have}, not "
                               f"{wanted}; pass --force to rebuild it (force=True in Python)")
        return paths
    made_root = not paths.root.parent.exists()   # a failed stage removes a data root it created
    paths.root.parent.mkdir(parents=True, exist_ok=True)
    builder = info.builder
    tmp = Path(tempfile.mkdtemp(prefix=f".{name}.tmp-", dir=paths.root.parent))
    if quiet is None:
        quiet = not sys.stdout.isatty()
    ctx, callback = _progress_context(name, quiet)
    try:
        with ctx:
            builder(DatasetPaths(tmp), progress=callback, **options)
        built = DatasetPaths(tmp)
        if not built.is_staged():
            raise DatasetError(f"{name}: builder finished without writing a manifest")
        manifest = built.load_manifest()
        _check_required_fields(info, manifest)
        manifest["stage_options"] = wanted
        built.manifest.write_text(json.dumps(manifest, indent=2) + "\n")
        swap_into_place(tmp, paths.root)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        if made_root:
            try:
                paths.root.parent.rmdir()   # only when empty: nothing of anyone else's is touched
            except OSError:
                pass
        raise
    return paths


def describe() -> list[dict[str, Any]]:
    """One row per dataset, for ``automedbench data list``."""
    return [{"name": e.name, "kind": e.obj.kind, "track": e.obj.track, "origin": e.origin,
             "description": e.description, "options": dict(e.obj.options)} for e in DATASET_REGISTRY.entries()]
