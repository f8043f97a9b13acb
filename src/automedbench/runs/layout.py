"""Run directory layout. One folder per run:

    RUN_DIR/run.json            what was run (task, tier, agent, dataset location, limits) — RunMeta
    RUN_DIR/conversation.json   rendered system prompt + every message — Conversation
    RUN_DIR/trace.jsonl         one TraceEvent per line
    RUN_DIR/judge.json          the judge's S1..S3 verdicts (re-used by `score`, replaced by `judge`)
    RUN_DIR/detail_report.json  the scored report — DetailReport
    RUN_DIR/workspace/          the agent's workspace (outputs/<case_id>/..., plan/plan.md, ...)
    RUN_DIR/pictures/           the thumbnails scoring drew (docs/site.md)

The names are spelled once, in run_files.py (RunFiles, and WorkspaceNames for the places the
harness names in the workspace: outputs/, plan/plan.md, plan/plan.png), re-exported here.
"""
from __future__ import annotations

import json
import os
import secrets
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..run_files import RunFiles, WorkspaceNames  # noqa: F401  (the run folder's names; runs/ re-exports them)
from pydantic import BaseModel, ConfigDict, Field, model_validator

from .models import RunInfo, scaffold_of


class RunMeta(BaseModel):
    model_config = ConfigDict(extra="forbid")
    run: RunInfo
    dataset: str
    dataset_root: str
    tasks_dirs: list[str] = Field(default_factory=list)
    case_ids: list[str]
    # reproducibility: what exactly ran (docs/scoring.md#what-a-run-records)
    task_snapshot: dict[str, Any] | None = None
    task_hash: str | None = None
    manifest_sha256: str | None = None
    harness_version: str | None = None
    rubric_version: str | None = None
    judges: list[str] | None = None
    answer_judge: str | None = None      # registry name of the LLM answer judge (ScoringContext)
    limits: dict[str, Any] = Field(default_factory=dict)   # the effective limits (docs/llm.md)
    # the agent's effective configuration (endpoint, model, sampling, limits; never a key) and its hash
    agent_config: dict[str, Any] | None = None
    agent_config_hash: str | None = None
    # an RL episode's own facts (docs/rl.md): episode id, seed, group, the reward spec; null for a run
    episode: dict[str, Any] | None = None
    disqualified: bool = False
    violations: list[dict[str, Any]] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _drop_keys_of_older_harnesses(cls, data: Any) -> Any:
        # run.json written by an older harness may hold keys this one no longer records (1.0 kept
        # one track's per-case flags here; cases now carry the manifest's metadata): they are
        # dropped when read, so old runs still re-score; new run.json files stay strict
        if isinstance(data, dict) and not data.get("harness_version"):
            data = {k: v for k, v in data.items() if k in cls.model_fields}
        return data

    @model_validator(mode="after")
    def _scaffold_of_older_harnesses(self) -> "RunMeta":
        # run.json before schema 1.10 has no run.scaffold: it is derived from the agent's recorded
        # configuration, "unknown" without one (docs/agents.md "Scaffold and model")
        if self.run.scaffold is None:
            self.run.scaffold = scaffold_of(self.agent_config)
        return self


def new_run_id(agent: str, task: str, tier: str) -> str:
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    return f"{stamp}_{task}_{tier}_{agent}_{secrets.token_hex(3)}"


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def write_json_atomic(path: Path, data: Any) -> None:
    """Write via a temp file + rename so a crash never leaves half a JSON file."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{time.monotonic_ns()}.tmp")
    text = data.model_dump_json(indent=2) if isinstance(data, BaseModel) else json.dumps(data, indent=2)
    tmp.write_text(text + "\n", encoding="utf-8")
    os.replace(tmp, path)
