"""The names of a run folder's files: the one place they are spelled (docs/run_record.md).
Every layer that reads or writes a run folder (the lifecycle, scoring, the Docker scoring
container, the site, export, collect, calibration) goes through `RunFiles`; it sits at the
bottom of the layers so the sandbox may use it as well as runs/ and report/."""
from __future__ import annotations

from pathlib import Path


class RunFiles:
    META = "run.json"
    CONVERSATION = "conversation.json"
    TRACE = "trace.jsonl"
    JUDGE = "judge.json"
    REPORT = "detail_report.json"
    WORKSPACE = "workspace"
    PICTURES = "pictures"    # the thumbnails scoring drew (docs/site.md)
    # what the judge's experiments need and found (docs/judge.md "Experiments"): the bytes of the
    # files each call left in the workspace, by sha256, and the experiments' outcomes
    BLOBS = "evidence/blobs"
    EXPERIMENTS = "evidence/experiments.json"

    def __init__(self, run_dir: Path | str):
        self.dir = Path(run_dir)

    @property
    def meta(self) -> Path:
        return self.dir / self.META

    @property
    def conversation(self) -> Path:
        return self.dir / self.CONVERSATION

    @property
    def trace(self) -> Path:
        return self.dir / self.TRACE

    @property
    def judge(self) -> Path:
        return self.dir / self.JUDGE

    @property
    def report(self) -> Path:
        return self.dir / self.REPORT

    @property
    def workspace(self) -> Path:
        return self.dir / self.WORKSPACE

    @property
    def pictures(self) -> Path:
        return self.dir / self.PICTURES

    @property
    def blobs(self) -> Path:
        return self.dir / self.BLOBS

    @property
    def experiments(self) -> Path:
        return self.dir / self.EXPERIMENTS
