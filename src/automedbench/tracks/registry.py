"""Tracks by name — a `Registry` of the one mechanism (automedbench/plugins.py, docs/architecture.md).

A track is found in two ways, and adding one edits no file here:
  - built-in: any sub-package `automedbench.tracks.<name>` that defines `TRACK`
    (an object satisfying tracks.base.Track);
  - third-party: a Python entry point in the group `automedbench.tracks`, e.g. in the
    other package's pyproject.toml:
        [project.entry-points."automedbench.tracks"]
        my_track = "my_pkg.track:TRACK"
A track is named by its own `name`, not by the entry point's.
"""
from __future__ import annotations

import importlib
import logging
import pkgutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..errors import UserError
from ..plugins import BUILT_IN, Registry, first_line
from .base import Track, TrackAssets, TrackContract, TrackScoring

log = logging.getLogger(__name__)
ENTRY_POINT_GROUP = "automedbench.tracks"


class TrackError(UserError, LookupError):
    """Unknown track, or a track package that does not satisfy the protocol."""


def _builtin() -> dict[str, str]:
    """The sub-packages of this folder (read from disk: the registry never imports its parent)."""
    package = __name__.rpartition(".")[0]
    return {m.name: f"{package}.{m.name}" for m in pkgutil.iter_modules([str(Path(__file__).parent)]) if m.ispkg}


def _members(protocol: type) -> list[str]:
    """The members one seam protocol declares (annotated attributes and methods)."""
    own = vars(protocol)
    return sorted({*own.get("__annotations__", {}), *(n for n, v in own.items() if not n.startswith("_") and callable(v))})


def _validate(obj: Any, origin: str) -> Track[Any]:
    if not isinstance(obj, Track):
        missing = [f"{part.__name__}.{a}" for part in (TrackContract, TrackScoring, TrackAssets)
                   for a in _members(part) if not hasattr(obj, a)]
        raise TrackError(f"{origin}: not a Track (missing {', '.join(missing) or 'attributes'}; "
                         "subclass automedbench.tracks.base.Track to inherit the optional members)")
    return obj


def _track_packages() -> Iterator[tuple[str, Any, str, str]]:
    """(name, TRACK, origin, description) of every built-in track package, imported now; the
    description is the first sentence of the package's docstring."""
    for module in sorted(_builtin().values()):
        mod = importlib.import_module(module)
        if hasattr(mod, "TRACK"):
            yield mod.TRACK.name, mod.TRACK, BUILT_IN, first_line(mod)


TRACKS: Registry[Track[Any]] = Registry(
    "track", group=ENTRY_POINT_GROUP, validate=_validate, name_of=lambda t: t.name,
    builtins=_track_packages, error=TrackError)


def all_tracks() -> dict[str, Track[Any]]:
    """Every registered track by name. A broken third-party plug-in is logged and skipped; a
    broken built-in track is a bug and raises."""
    return dict(TRACKS.items())


def register(track: Any) -> Track[Any]:
    """Register a track object at run time (tests, notebooks), replacing one of the same name. Returns it."""
    return TRACKS.add(getattr(track, "name", None), track, replace=True)


def get_track(name: str) -> Track[Any]:
    return TRACKS.get(name)
