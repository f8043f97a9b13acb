"""Tracks: plug-in packages (tracks/<name>/) behind one protocol (tracks/base.py) and one
registry (tracks/registry.py). Shared track utilities: safety.py, cohort.py, nifti_io.py."""
from __future__ import annotations

from .registry import TRACKS, TrackError, all_tracks, get_track, register

__all__ = ["TRACKS", "TrackError", "all_tracks", "get_track", "register"]
