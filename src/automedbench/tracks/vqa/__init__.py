"""Medical VQA track (open-ended and multiple-choice questions); see track.py."""
from .track import VQATrack

TRACK = VQATrack()
