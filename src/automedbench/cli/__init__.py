"""`automedbench` command line: a thin layer over automedbench.api (docs/cli.md). Each command
parses its flags, calls the API, prints; the commands live in running.py (run, sweep, demo),
saved_runs.py (score, judge, judge-eval, report, analyze, export) and catalog.py (tasks, data,
prompt, agents), sharing common.py.

User errors (unknown task/tier/agent, unstaged data, not a run directory) print one clear
line and exit 2. Agent failures never make the CLI fail: they are scored and recorded.
"""
from __future__ import annotations

import logging
import sys
import warnings

import typer

from .. import __version__, cli_lists
from ..sandbox.cli import sandbox_app
from . import catalog, doctor, running, saved_runs
from .common import err

# Help is click's plain layout (rich_markup_mode=None, inherited by every sub-app): typer's rich
# layout labels each value with its Python type (`<bool>` beside every flag, even --help).
# Every option that takes a value names it with `metavar=` (docs/cli.md).
app = typer.Typer(add_completion=False, no_args_is_help=True, rich_markup_mode=None,
                  help="AutoMedBench: run LLM coding agents on medical-AI research tasks and score "
                       "the artifact and the workflow (S1 Plan .. S5 Submit).")
app.add_typer(running.app)     # no name: their commands are the root's
app.add_typer(saved_runs.app)
app.add_typer(catalog.app)
app.add_typer(doctor.app)
app.add_typer(catalog.tasks_app, name="tasks")
app.add_typer(catalog.data_app, name="data")
app.add_typer(catalog.agents_app, name="agents")
app.add_typer(sandbox_app, name="sandbox", help="Run one execution in a fresh sandbox, as an agent would; list backends.")
cli_lists.mount(app, sandbox_app)   # `tracks|judges|executors|sandbox list` (docs/architecture.md "One registry")


def _print_version(value: bool) -> None:
    if value:
        print(f"automedbench {__version__}")
        raise typer.Exit()


@app.callback()
def _main(version: bool = typer.Option(False, "--version", callback=_print_version, is_eager=True,
                                       help="Print the version and exit."),
          verbose: bool = typer.Option(False, "-v", "--verbose", help="Log progress (INFO level).")) -> None:
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, format="%(levelname)s %(message)s")


def main() -> None:
    warnings.simplefilter("default", RuntimeWarning)
    try:
        app()
    except KeyboardInterrupt:
        err.print("interrupted")
        sys.exit(130)
