"""What every command of the CLI shares: the consoles, the one-line user error, the options
that several commands take and how they read (docs/cli.md)."""
from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any, NoReturn, Optional

import typer
from rich.console import Console

from ..errors import UserError, one_line

if TYPE_CHECKING:   # a command's help needs none of these (docs/cli.md "Start-up")
    from ..runs.models import DetailReport


class _StreamConsole(Console):
    """The console of sys.stdout (or sys.stderr), set up when a command first prints, not when
    this module is imported: a process that imported the CLI before its environment was final
    (the test suite's fork server, docs/testing.md "CLI processes") still gets the width that
    $COLUMNS says as the command runs. Until then it holds no attribute of Console's, so the
    first one asked for runs Console's own __init__.

    Piped output (CI logs, `| tee`) gets wide tables instead of 80 squeezed columns, unless
    $COLUMNS says how wide; a terminal's own width is always respected (tables fit 80 columns)."""

    def __init__(self, stderr: bool) -> None:    # Console.__init__ runs at first use
        self.__dict__["_pending"] = stderr

    def __getattr__(self, name: str) -> Any:
        stderr = self.__dict__.pop("_pending", None)    # set up once; a real miss stays a miss
        if stderr is None:
            raise AttributeError(name)
        stream = sys.stderr if stderr else sys.stdout
        fixed = stream.isatty() or os.environ.get("COLUMNS", "").isdigit()
        Console.__init__(self, stderr=stderr, width=None if fixed else 200)
        return getattr(self, name)


out: Console = _StreamConsole(stderr=False)
err: Console = _StreamConsole(stderr=True)


def user_errors() -> tuple[type[BaseException], ...]:
    """One class (errors.UserError: unknown task/tier/agent/judge/backend, missing key,
    unstaged data, not a run directory...) plus a missing file named on the command line."""
    return (UserError, FileNotFoundError)


def fail(msg: str, code: int = 2) -> NoReturn:
    err.print(f"[bold red]error:[/] {one_line(Exception(msg))}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)


def parse_network(value: Optional[str]) -> Optional[bool]:
    if value is None:
        return None
    if value not in ("on", "off"):
        fail(f"--network must be 'on' or 'off', not {value!r}")
    return value == "on"


def check_profile_or_fail(profile: str) -> None:
    from ..report.profiles import check_profile
    try:
        check_profile(profile)
    except ValueError as exc:
        fail(str(exc))


def print_profile(reports: list[DetailReport], profile: str, console: Console) -> None:
    """The runs' task score under a non-default scoring profile (docs/scoring-profiles.md)."""
    if profile != "ours" and reports:
        from ..report.profiles import profile_table
        console.print(profile_table(reports, profile))


# --tier shows its choices: tasks/model.py's TIERS (tests/test_cli.py checks they agree; that
# module is not imported for a metavar, docs/cli.md "Start-up")
TIERS_METAVAR = "lite|standard|pro"

# Every option names what it takes (metavar) instead of a Python type, and says what it does.
TasksDir = typer.Option(None, "--tasks-dir", metavar="DIR", help="Extra folder of task folders (repeatable).")
DataRoot = typer.Option(None, "--data-root", metavar="DIR",
                        help="Where datasets live (default $AUTOMEDBENCH_DATA or ~/.cache/automedbench/data).")
AgentCfg = typer.Option(None, "--agent-config", metavar="FILE", help="Extra agent registry YAML (repeatable).")
TIER_HELP = "Tier: how much help the agent gets (lite = model named, standard = candidates, pro = background only)."
SANDBOX_HELP = ("Sandbox backend: bwrap (default when installed) | docker | local (isolates nothing) | a plug-in's "
                "(`automedbench sandbox list`).")
NETWORK_HELP = "Network inside the sandbox: on | off (default: the task's setting)."
JUDGE_HELP = "S1-S3 judge: heuristic (default), another judge class or an agent-registry name (`judges list`); repeat for a panel."
ANSWER_JUDGE_HELP = ("Registry name of an LLM answer judge, for tracks that grade free-text answers; "
                     "verdicts are cached; an answer it cannot judge is null, never 0.")
ProfileOpt = typer.Option("ours", "--profile", metavar="ours|reference",
                          help="Also print the task score under this scoring profile: 'reference' = the published "
                               "reference's definition (docs/scoring-profiles.md). Both are always saved.")
