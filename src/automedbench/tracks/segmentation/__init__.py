"""Segmentation track: binary organ + lesion, and multi-class label maps (docs/scoring.md#segmentation-rules)."""
from .track import SegmentationOptions, SegmentationTrack

TRACK = SegmentationTrack()

__all__ = ["TRACK", "SegmentationOptions", "SegmentationTrack"]
