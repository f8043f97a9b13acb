"""`automedbench` command line: a thin layer over automedbench.api (docs/cli.md). Each command
parses its flags, calls the API, prints; the commands live in running.py (run, sweep, demo),
saved_runs.py (score, judge, judge-eval, report, analyze, export), catalog.py (tasks, data,
prompt, agents), doctor.py, sandbox.py and lists.py (`<kind> list`), sharing common.py.

The root knows its commands only by the table below: a command's module (and with it the API
and everything under it) is imported when that command runs, so `--version` and `--help`
start in a fraction of a second, and a command's `--help` is printed from cli/help_pages.py
(docs/cli.md "Start-up"; bench/cli_startup.py and bench/cli_help.py measure them).

User errors (unknown task/tier/agent, unstaged data, not a run directory) print one clear
line and exit 2. Agent failures never make the CLI fail: they are scored and recorded.
"""
from __future__ import annotations

import sys
import warnings

from .. import __version__
from .table import command_help, root_help


def main() -> None:
    """The `automedbench` console script. `--version`, the root's help and a command's help
    (`automedbench run --help`) answer before typer is imported (cli/table.py)."""
    warnings.simplefilter("default", RuntimeWarning)
    args = sys.argv[1:]
    if args == ["--version"]:
        print(f"automedbench {__version__}")
        return
    if args in ([], ["--help"]):
        print(root_help())
        return
    if len(args) in (2, 3) and args[-1] == "--help" and (page := command_help(args[:-1])) is not None:
        print(page)
        return
    from .root import app   # typer and the command table: every other invocation needs them
    try:
        app()
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        sys.exit(130)


def __getattr__(name: str) -> object:   # not typing.Any: typing is not imported at start-up
    """`automedbench.cli.app`, the root typer app (tests drive it in-process), loaded on first use."""
    if name == "app":
        from .root import app
        return app
    raise AttributeError(name)
