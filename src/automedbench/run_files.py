"""The names of a run folder's files: the one place they are spelled (docs/run_record.md).
Every layer that reads or writes a run folder (the lifecycle, scoring, the Docker scoring
container, the site, export, collect, calibration) goes through `RunFiles`; it sits at the
bottom of the layers so the sandbox may use it as well as runs/ and report/."""
from __future__ import annotations

from pathlib import Path


class WorkspaceNames:
    """The names the harness gives places in the agent's workspace (docs/run_record.md): the
    outputs it scores and the plan it judges. Relative to the workspace, '/'-separated."""
    OUTPUTS = "outputs"                # outputs/<case_id>/... (or the cohort's files)
    PLAN_DIR = "plan"
    PLAN_MD = "plan/plan.md"           # S1's written plan
    PLAN_PNG = "plan/plan.png"         # S1's plan figure
    PLAN_FILES = (PLAN_MD, PLAN_PNG)


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
    def outputs(self) -> Path:
        return self.workspace / WorkspaceNames.OUTPUTS

    @property
    def plan_md(self) -> Path:
        return self.workspace / WorkspaceNames.PLAN_MD

    @property
    def plan_png(self) -> Path:
        return self.workspace / WorkspaceNames.PLAN_PNG

    @property
    def pictures(self) -> Path:
        return self.dir / self.PICTURES

    @property
    def blobs(self) -> Path:
        return self.dir / self.BLOBS

    @property
    def experiments(self) -> Path:
        return self.dir / self.EXPERIMENTS
