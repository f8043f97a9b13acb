"""The judge interface for S1..S3. Backends: heuristic (offline default), llm (issue 4).

A judge sees the evidence of the run — task brief, tier, saved plan artifacts, the trace —
and NEVER the task score (avoids outcome bias, docs/scoring.md#how-the-judge-decides-s1s3). It returns, per judged stage,
item verdicts or None when the stage could not be judged (infrastructure fault)."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from ...errors import UserError
from ...plugins import Registry
from ...runs.models import Conversation, StageResult, TraceEvent
from ...tasks import Task


@dataclass
class JudgeEvidence:
    task: Task
    tier: str
    workspace: Path
    trace: list[TraceEvent]
    conversation: Conversation | None
    # the run's expected case ids (run.json): the judge's pilot/batch facts count units against them
    case_ids: list[str] | None = None
    # the host folder of the public inputs the agent saw at /data/public: content facts of the
    # inputs a call opened are computed from it (docs/judge.md "Content facts"); None: unavailable
    data_dir: Path | None = None


class Judge(Protocol):
    @property
    def backend(self) -> str: ...

    @property
    def model(self) -> str | None: ...

    @property
    def version(self) -> str: ...

    def judge(self, evidence: JudgeEvidence) -> dict[str, StageResult | None]:
        """Return {"s1": ..., "s2": ..., "s3": ...}; None for a stage = could not judge."""


class JudgeError(UserError, LookupError):
    """An unknown judge name: neither a judge class nor an entry of the agent registry."""


JudgeFactory = Callable[[], Judge]


def _judge_class(obj: Any, where: str) -> JudgeFactory:
    if not callable(obj) or (isinstance(obj, type) and not callable(getattr(obj, "judge", None))):
        raise JudgeError(f"{where}: not a judge class (a class with judge(evidence), built with no arguments)")
    return obj


# Judge classes built without a model endpoint (the heuristic judge, plug-ins of the entry-point
# group `automedbench.judges`); an LLM judge is an entry of the agent registry instead
# (docs/architecture.md "One registry", docs/judge.md).
JUDGES: Registry[JudgeFactory] = Registry("judge", group="automedbench.judges", validate=_judge_class,
                                          error=JudgeError)
