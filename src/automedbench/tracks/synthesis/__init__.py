"""Synthesis track: CT ×4 z super-resolution and MRI→CT (see track.py)."""
from .track import SynthesisOptions, SynthesisTrack

TRACK = SynthesisTrack()
__all__ = ["TRACK", "SynthesisOptions", "SynthesisTrack"]
