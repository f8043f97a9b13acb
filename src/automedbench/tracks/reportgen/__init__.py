"""Report generation: free-text reports per imaging study, scored by text metrics (BLEU, ROUGE-L,
METEOR) and, with the `[radiology]` extra, RadGraph / CheXbert. See track.py and
docs/tracks/report-generation.md."""
from .track import ReportGenerationTrack

TRACK = ReportGenerationTrack()
