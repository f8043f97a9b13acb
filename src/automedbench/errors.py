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
