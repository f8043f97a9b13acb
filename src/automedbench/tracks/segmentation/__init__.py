"""Segmentation track: binary organ + lesion, and multi-class label maps (SPEC §4)."""
from .track import SegmentationOptions, SegmentationTrack

TRACK = SegmentationTrack()

__all__ = ["TRACK", "SegmentationOptions", "SegmentationTrack"]
