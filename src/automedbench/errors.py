"""Who caused a failure (docs/faults.md): one small hierarchy the whole harness raises from.

    UserError            the user asked for something that cannot be done (unknown task, tier,
                         agent, judge or sandbox backend; a missing API key variable; data not
                         staged; not a run directory). The CLI prints ONE line and exits 2, and
                         the API raises it BEFORE any agent turn or paid model call.
    InfrastructureError  the harness or a provider failed under a run (the sandbox could not
                         start or died, the provider stayed down after retries). The run ends
                         with end_reason "infra_error"; it is never charged to the agent and
                         never averaged into a ranking.
    AgentFault           the agent ended its own run (a limit hit, disqualified); recorded and
                         scored like any other run.

A run interrupted by the user (Ctrl-C, SIGTERM) raises `RunInterrupted`, a KeyboardInterrupt:
it is neither of the above and must not be swallowed by `except Exception`.

Concrete classes elsewhere (TaskError, DatasetError, SandboxError, ...) subclass these, so a
caller catches one class instead of listing seven.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:   # pydantic is not imported at run time here: the bottom layer stays light
    from pydantic import ValidationError


class AutoMedBenchError(Exception):
    """Base of every error the harness raises on purpose."""


class UserError(AutoMedBenchError):
    """Bad input from the user: one clear line, exit 2, nothing run."""


class InfrastructureError(AutoMedBenchError):
    """The harness or a provider failed: the run is `infra_error`, never the agent's fault.

    `detail` is a short machine-readable cause recorded beside the end reason
    (e.g. "sandbox_start_failed", "sandbox_died", "provider_unavailable")."""

    detail = "infrastructure"

    def __init__(self, message: str = "", *, detail: str | None = None):
        super().__init__(message)
        if detail is not None:
            self.detail = detail


class ScoringContainerUnavailable(InfrastructureError, RuntimeError):
    """A docker run could not be scored in a scoring container (no engine, no image, the
    container failed); the caller scores it in-process, flagged. Raised by the sandbox's
    container scorer and caught by scoring, which never import each other (docs/architecture.md)."""


class AgentFault(AutoMedBenchError):
    """The agent ended its own run (limit, disqualification). Scored and recorded."""


class RunInterrupted(KeyboardInterrupt):
    """The user stopped a run (Ctrl-C or SIGTERM). `run_dir` holds the closed, unscored run."""

    def __init__(self, signal_name: str = "SIGINT", run_dir: str | None = None):
        super().__init__(signal_name)
        self.signal_name = signal_name
        self.run_dir = run_dir


def one_line(exc: BaseException) -> str:
    """The message on one line (the CLI never prints a multi-line error): lines joined by '; '."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return "; ".join(lines) or type(exc).__name__


class FieldError(NamedTuple):
    """The first error of a pydantic ValidationError, as every user-facing message names it:
    the field's dotted path, pydantic's message, its error type and the raw location."""

    field: str
    msg: str
    type: str
    loc: tuple[Any, ...]
    more: int            # how many further errors the exception holds

    def __str__(self) -> str:
        return f"field '{self.field}': {self.msg}"


def first_field_error(exc: ValidationError, *, under: str = "", root: str = "<root>") -> FieldError:
    """The one formatter of a validation error's first problem (task.yaml, sweep files, agent
    configs, manifests, run records): its field as a dotted path, prefixed by `under` (the part of
    the file the model was validated from), or `root` when the error is about the whole object."""
    errors = exc.errors()
    if not errors:
        return FieldError(under or root, str(exc), "", (), 0)
    first = errors[0]
    loc = tuple(first["loc"])
    field = ".".join([*([under] if under else []), *(str(p) for p in loc)]) or root
    return FieldError(field, str(first["msg"]), str(first["type"]), loc, len(errors) - 1)
