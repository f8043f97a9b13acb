"""Detection track: boxes on 2D images, mAP@0.5 (COCO 101-point) × completion. See track.py."""
from .track import DetectionTrack

TRACK = DetectionTrack()

__all__ = ["TRACK", "DetectionTrack"]
