"""Tracks by name — the one registry the core reads.

A track is found in two ways, and adding one edits no file here:
  - built-in: any sub-package `automedbench.tracks.<name>` that defines `TRACK`
    (an object satisfying tracks.base.Track);
  - third-party: a Python entry point in the group `automedbench.tracks`, e.g. in the
    other package's pyproject.toml:
        [project.entry-points."automedbench.tracks"]
        my_track = "my_pkg.track:TRACK"
"""
from __future__ import annotations

import importlib
import logging
import pkgutil
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any

from ..errors import UserError
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


@lru_cache(maxsize=1)
def all_tracks() -> dict[str, Track[Any]]:
    """Every registered track by name. A broken third-party plug-in is logged and skipped; a
    broken built-in track is a bug and raises."""
    found: dict[str, Track[Any]] = {}
    for module in sorted(_builtin().values()):
        mod = importlib.import_module(module)
        if hasattr(mod, "TRACK"):
            found[mod.TRACK.name] = _validate(mod.TRACK, module)
    for ep in metadata.entry_points(group=ENTRY_POINT_GROUP):
        try:
            track = _validate(ep.load(), f"entry point {ep.name} ({ep.value})")
        except Exception as exc:  # a third-party plug-in must not break the harness
            log.warning("skipping track plug-in %s: %s", ep.name, exc)
            continue
        found.setdefault(track.name, track)
    return found


def register(track: Any) -> Track[Any]:
    """Register a track object at run time (tests, notebooks). Returns it."""
    found = all_tracks()
    found[track.name] = _validate(track, f"register({track!r})")
    return found[track.name]


def get_track(name: str) -> Track[Any]:
    tracks = all_tracks()
    if name not in tracks:
        raise TrackError(f"unknown track {name!r}; registered: {', '.join(sorted(tracks)) or 'none'}")
    return tracks[name]
