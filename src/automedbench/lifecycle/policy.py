"""The rules a run is governed by, beside the lifecycle that applies them
(docs/faults.md "End reasons", docs/judge.md "No self-judging"):

- readiness: an LLM agent or judge whose key/header variables are unset is a user error
  before the first turn or paid call;
- no self-judging: a judge whose model is the agent's model is refused unless allowed;
- end reasons: the agent's own ending is kept; a provider failure is an infrastructure error
  (its reason kept as detail); a sandbox that cannot start or dies, or a harness fault, is an
  infrastructure error; Ctrl-C and SIGTERM end the run `interrupted`.
"""
from __future__ import annotations

import logging
import signal
import threading
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Literal, NoReturn, Protocol

from ..agents import RunStopped
from ..errors import InfrastructureError, RunInterrupted, UserError, one_line
from ..runs.models import RunInfo, is_end_reason
from ..runs.trace import TraceWriter
from ..scoring.error_codes import PROVIDER_DETAILS
from ..scoring.judge import Judge

log = logging.getLogger(__name__)


class RunRecord(Protocol):
    """What a policy writes to: the run's record and its trace (lifecycle/session.py: OpenRun)."""
    info: RunInfo
    trace: TraceWriter


class SelfJudgeError(UserError):
    """The judge's model is the agent's model (docs/judge.md "No self-judging")."""


def check_judge_ready(judge: Judge) -> None:
    """An LLM judge whose key/header variables are unset is a user error, found before the
    first paid call (LLMConfigError names every unset variable); a judge panel is ready when
    each of its judges is (`Judge.check_ready`, docs/judge.md "Writing a judge")."""
    judge.check_ready()


def _same_model(a: str | None, b: str | None) -> bool:
    """Model ids name the same model: equal ignoring case and a provider prefix
    (`openai/gpt-4o` is `gpt-4o`)."""
    if not a or not b:
        return False
    return a.strip().lower().rsplit("/", 1)[-1] == b.strip().lower().rsplit("/", 1)[-1]


def check_self_judge(agent_model: str | None, judge: Judge, allow: bool = False) -> None:
    """A judge (or a member of a judge panel) whose model is the agent's model grades its own
    work: a user error unless `allow` (--allow-self-judge)."""
    members = list(judge.judges) or [judge]
    same = [j.model for j in members if _same_model(agent_model, j.model)]
    if same and not allow:
        raise SelfJudgeError(f"the judge's model {same[0]!r} is the agent's model {agent_model!r}: a model would "
                             "grade its own work. Pick another judge, or pass --allow-self-judge")


def agent_end(info: RunInfo, reason: str | None) -> None:
    """Record the agent's end reason; provider faults become infra_error (detail kept), an
    end reason the schema does not know is kept as detail of agent_finished."""
    if reason in PROVIDER_DETAILS:
        info.end_reason, info.end_detail = "infra_error", reason
    elif is_end_reason(reason):
        info.end_reason = reason
    else:
        info.end_reason, info.end_detail = "agent_finished", str(reason)


def end_as_infra(run: RunRecord, detail: str, exc: BaseException) -> None:
    run.info.end_reason, run.info.end_detail = "infra_error", detail
    run.trace.emit("error", kind="infrastructure", message=f"{type(exc).__name__}: {one_line(exc)}",
                   data={"detail": detail})
    log.error("run %s: infrastructure fault (%s): %s", run.info.run_id, detail, one_line(exc))


Phase = Literal["open", "act", "act_outside", "close"]


@contextmanager
def faults_recorded(run: RunRecord, phase: Phase) -> Iterator[None]:
    """Whatever goes wrong in `phase` ends the run with the right reason, recorded, and never
    escapes, except an interrupt (re-raised once recorded, so the caller stops):
    a harness stop (limit, disqualification) is the agent's end; a sandbox that dies under the
    agent is `sandbox_died`; an exception of our agent loop is `agent_crash`, any other (the
    harness's, or an outside driver's tools) `harness_error`."""
    try:
        yield
    except RunStopped as stop:
        run.info.end_reason = stop.reason
    except InfrastructureError as exc:
        died = phase != "open" and exc.detail == "sandbox_failed"
        end_as_infra(run, "sandbox_died" if died else exc.detail, exc)
    except Exception as exc:
        if phase == "act":   # a crashed agent must not crash the sweep
            run.info.end_reason = "agent_crash"
            run.trace.emit("error", kind="agent_crash", message=f"{type(exc).__name__}: {exc}",
                           data={"traceback": traceback.format_exc()[-4000:]})
        else:
            end_as_infra(run, "harness_error", exc)
    except KeyboardInterrupt as exc:   # Ctrl-C, or SIGTERM through RunInterrupted
        run.info.end_reason = "interrupted"
        run.info.end_detail = exc.signal_name if isinstance(exc, RunInterrupted) else "SIGINT"
        run.trace.emit("error", kind="interrupted", message=f"run interrupted by {run.info.end_detail}")
        raise


@contextmanager
def interrupts_as_exceptions() -> Iterator[None]:
    """SIGTERM raises RunInterrupted (like Ctrl-C raises KeyboardInterrupt), so a killed run
    still closes its records. Only the main thread can own signal handlers."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_term(signum: int, frame: FrameType | None) -> NoReturn:
        raise RunInterrupted("SIGTERM")
    previous = signal.signal(signal.SIGTERM, on_term)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
