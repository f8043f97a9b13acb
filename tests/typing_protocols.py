"""Checked by mypy (not run by pytest): every built-in track and judge satisfies its protocol.

`make test` runs mypy on this file (see [tool.mypy] in pyproject.toml). Assigning an object to
a variable typed with the Protocol makes mypy verify the structure: a track whose method
signature drifts from tracks/base.py fails CI here, not at a user's run time."""
from __future__ import annotations

from automedbench.scoring.judge.base import Judge
from automedbench.scoring.judge.heuristic import HeuristicJudge
from automedbench.scoring.judge.llm import LLMJudge
from automedbench.scoring.judge.panel import JudgePanel
from automedbench.tracks.base import ScriptedMethods, Track
from automedbench.tracks.enhancement import TRACK as ENHANCEMENT
from automedbench.tracks.enhancement.scripted import EnhancementMethods
from automedbench.tracks.segmentation import TRACK as SEGMENTATION
from automedbench.tracks.segmentation.scripted import SegmentationMethods
from automedbench.tracks.synthesis import TRACK as SYNTHESIS
from automedbench.tracks.synthesis.scripted import SynthesisMethods

tracks: list[Track] = [SEGMENTATION, ENHANCEMENT, SYNTHESIS]
judges: list[type[Judge]] = [HeuristicJudge, LLMJudge, JudgePanel]
methods: list[type[ScriptedMethods]] = [SegmentationMethods, EnhancementMethods, SynthesisMethods]
