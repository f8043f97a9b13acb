"""Classification track: one cohort predictions.csv, task score = accuracy. See track.py."""
from .track import ClassificationTrack

TRACK = ClassificationTrack()

__all__ = ["TRACK", "ClassificationTrack"]
