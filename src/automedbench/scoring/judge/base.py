"""The judge interface for S1..S3: a judge sees the run's evidence (task brief, tier, plan files,
the trace) and NEVER the task score (no outcome bias: docs/scoring.md#how-the-judge-decides-s1s3);
it returns item verdicts per judged stage, None where it could not judge (an infrastructure fault)."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from ...errors import UserError
from ...plugins import Registry
from ...runs.models import Conversation, StageResult, TraceEvent
from ...tasks import Task
from ..experiments import RunExperiments


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
    # the experiments run at the run's close (evidence/experiments.json, docs/judge.md
    # "Experiments"): which looks killed which broken outputs; None: none recorded
    experiments: RunExperiments | None = None


@runtime_checkable
class BareJudge(Protocol):
    """What a judge must have: its identity and `judge()`. A plug-in judge class may stop here;
    `as_judge` gives it the members below (docs/judge.md "Writing a judge")."""

    @property
    def backend(self) -> str: ...

    @property
    def model(self) -> str | None: ...

    @property
    def version(self) -> str: ...

    def judge(self, evidence: JudgeEvidence) -> dict[str, StageResult | None]:
        """Return {"s1": ..., "s2": ..., "s3": ...}; None for a stage = could not judge."""


@runtime_checkable
class Judge(BareJudge, Protocol):
    """Every member the harness reads from a judge (the scorer, the panel). `JudgeBase` holds
    their defaults; the built-in judges satisfy it (mypy: tests/typing_protocols.py)."""

    @property
    def name(self) -> str | None:
        """How a panel names this judge (None: its model, else its backend)."""

    @property
    def last_errors(self) -> Sequence[str]:
        """The problems the last `judge()` call met (provider, parse, citation errors)."""

    @property
    def last_agreement(self) -> dict[str, Any] | None:
        """A panel's agreement statistics of the last call (DetailReport.judge.agreement)."""

    @property
    def judges(self) -> Sequence[Judge]:
        """The judges a panel is made of; () for a single judge."""

    def check_ready(self) -> None:
        """Raise a user error before the first paid call if the judge cannot run (an LLM
        judge's key variable unset); a panel checks each of its judges."""


class JudgeBase:
    """The defaults of `Judge`'s optional members: a single judge, nothing recorded."""

    name: str | None = None
    last_errors: Sequence[str] = ()
    last_agreement: dict[str, Any] | None = None
    judges: Sequence[Judge] = ()

    def check_ready(self) -> None:
        """A judge that needs no endpoint is always ready."""


class PluginJudge(JudgeBase):
    """A judge that has only `BareJudge`'s members, given `JudgeBase`'s defaults for the rest."""

    def __init__(self, inner: BareJudge):
        self.inner = inner

    @property
    def backend(self) -> str:
        return self.inner.backend

    @property
    def model(self) -> str | None:
        return self.inner.model

    @property
    def version(self) -> str:
        return self.inner.version

    def judge(self, evidence: JudgeEvidence) -> dict[str, StageResult | None]:
        return self.inner.judge(evidence)


def as_judge(obj: BareJudge) -> Judge:
    """`obj` itself when it has every member `Judge` declares, else wrapped in `PluginJudge`."""
    return obj if isinstance(obj, Judge) else PluginJudge(obj)


class JudgeError(UserError, LookupError):
    """An unknown judge name: neither a judge class nor an entry of the agent registry."""


JudgeFactory = Callable[[], BareJudge]


def _judge_class(obj: Any, where: str) -> JudgeFactory:
    if not callable(obj) or (isinstance(obj, type) and not any(callable(vars(k).get("judge")) for k in obj.__mro__)):
        raise JudgeError(f"{where}: not a judge class (a class with judge(evidence), built with no arguments)")
    return obj


# Judge classes built without a model endpoint (the heuristic judge, plug-ins of the entry-point
# group `automedbench.judges`); an LLM judge is an entry of the agent registry instead
# (docs/architecture.md "One registry", docs/judge.md).
JUDGES: Registry[JudgeFactory] = Registry("judge", group="automedbench.judges", validate=_judge_class, error=JudgeError)
