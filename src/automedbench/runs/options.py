"""The options of one run: the one list of them (docs/sweeps.md, "Options").

`automedbench run` and `automedbench sweep` build a RunOptions from their flags, a sweep file
holds one under `options:`, and api.run_one, api.sweep and every sweep cell take it whole.
A sweep records it in its lock (changing an option changes results)."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, field_validator


class RunOptions(BaseModel):
    """How a (task, tier, agent) cell runs: sandbox, network, judges, data, task and agent
    files, limits. Paths are kept as strings (the lock and sweep files are JSON/YAML);
    a Path given here is accepted."""
    model_config = ConfigDict(extra="forbid")

    sandbox: str | None = None          # backend; None: bwrap when installed (api.default_backend)
    network: bool | None = None         # None: the task's setting
    judges: list[str] | None = None     # S1-S3 judge(s); None: heuristic
    answer_judge: str | None = None     # registry name of the LLM answer judge (ScoringContext)
    data_root: str | None = None
    tasks_dirs: list[str] | None = None
    agent_configs: list[str] | None = None
    exec_timeout_s: float = 600.0
    allow_self_judge: bool = False      # a judge may share the agent's model (docs/judge.md)

    @field_validator("data_root", mode="before")
    @classmethod
    def _path_as_text(cls, v: Any) -> Any:
        return os.fspath(v) if isinstance(v, os.PathLike) else v

    @field_validator("tasks_dirs", "agent_configs", mode="before")
    @classmethod
    def _paths_as_text(cls, v: Any) -> Any:
        return [os.fspath(p) if isinstance(p, os.PathLike) else p for p in v] if isinstance(v, (list, tuple)) else v

    @property
    def tasks_dir_paths(self) -> list[Path] | None:
        return [Path(p) for p in self.tasks_dirs] if self.tasks_dirs else None

    @property
    def agent_config_paths(self) -> list[Path] | None:
        return [Path(p) for p in self.agent_configs] if self.agent_configs else None

    def resolved(self) -> RunOptions:
        """The same options with absolute paths: a sweep's cells run in other processes (or
        hosts) and its lock must not depend on the directory it was started from."""
        return self.model_copy(update={
            "data_root": str(Path(self.data_root).resolve()) if self.data_root else self.data_root,
            "tasks_dirs": [str(Path(p).resolve()) for p in self.tasks_dirs] if self.tasks_dirs else self.tasks_dirs,
            "agent_configs": ([str(Path(p).resolve()) for p in self.agent_configs] if self.agent_configs
                              else self.agent_configs)})

    def overridden_by(self, given: RunOptions) -> RunOptions:
        """These options (a sweep file's) with every option `given` sets to other than its
        default (the command line's flags) taking precedence."""
        return self.model_copy(update=given.model_dump(exclude_defaults=True))

    def lock_options(self) -> dict[str, Any]:
        # a sweep without an answer judge keeps the fingerprint it had before the option existed
        return self.model_dump(mode="json", exclude={"answer_judge"} if self.answer_judge is None else None)
