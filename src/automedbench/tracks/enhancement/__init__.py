"""Enhancement track: LDCT denoising and MRI super-resolution (see track.py)."""
from .track import EnhancementOptions, EnhancementTrack

TRACK = EnhancementTrack()
__all__ = ["TRACK", "EnhancementOptions", "EnhancementTrack"]
