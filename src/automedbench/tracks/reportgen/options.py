"""The `track_options` of a report-generation task (task.yaml), validated before anything runs.

A module of its own so that track.py and scripted.py both import it without importing each other
(docs/architecture.md, "Layers").
"""
from __future__ import annotations

from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

from .text import rules

Component = Literal["bleu", "rougeL", "meteor", "radgraph_f1", "chexbert_micro_f1"]
ALL_COMPONENTS: tuple[Component, ...] = get_args(Component)


class ReportGenOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    output_file: str = "report.txt"
    # which part of each report is scored: the findings section (when headers exist) or all
    section: Literal["findings", "full"] = "findings"
    # components this task asks for; the ones that cannot be computed are left out and named
    components: list[Component] = Field(default_factory=lambda: list(ALL_COMPONENTS))
    max_bytes: int = Field(default_factory=lambda: int(rules()["max_bytes"]), gt=0)
    # the modality wording used in the prompt's output contract
    report_kind: str = "radiology report"
    # METEOR 1.5 (pycocoevalcap's jar) beside our numbers: Java, ~20 s per scoring, so opt-in
    meteor_1_5: bool = False
