"""The root command's table and its help, without typer: `automedbench --help` and a bare
`automedbench` print `root_help()` before typer or any command module is imported (docs/cli.md
"Start-up"). cli/root.py builds the typer root from the same table and texts, and
tests/test_cli.py checks the two print the same help at several widths. A command's own help
(`automedbench run --help`, `automedbench tasks list --help`) is `command_help()`: the page
typer prints, kept in cli/help_pages.py, on a terminal at least 80 columns wide."""
from __future__ import annotations

import os
import sys

# Nothing here imports typing, shutil or textwrap at start-up: with them `automedbench run
# --help` took 2.6-3.0x a bare interpreter, without them ~1.7x (bench/cli_help.py).


def terminal_columns() -> int:
    """shutil.get_terminal_size().columns, as click reads it, without importing shutil (which
    imports bz2 and lzma): $COLUMNS if a positive number, else the terminal of stdout, else 80."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns if sys.__stdout__ else 0
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns if columns > 0 else 80

APP_HELP = ("AutoMedBench: run LLM coding agents on medical-AI research tasks and score "
            "the artifact and the workflow (S1 Plan .. S5 Submit).")
VERSION_HELP = "Print the version and exit."
VERBOSE_HELP = "Log progress (INFO level)."
OPTIONS = [("--version", VERSION_HELP), ("-v, --verbose", VERBOSE_HELP), ("--help", "Show this message and exit.")]


class Entry:
    """One command of the table (a plain class: a NamedTuple would import typing)."""
    __slots__ = ("module", "app", "group", "help")

    def __init__(self, module: str, app: str, group: bool, help: str) -> None:
        self.module = module    # a module of this package
        self.app = app          # its typer app
        self.group = group      # the app is the command (a group); else the app holds the command by name
        self.help = help        # the line `automedbench --help` shows (the command's own first sentence)


# the command table, in the order `--help` lists them (tests/test_cli.py checks each help line
# against the command's own)
COMMANDS: dict[str, Entry] = {
    "run": Entry("running", "app", False,
                 "Run one (task, tier, agent) cell and print its run directory."),
    "sweep": Entry("running", "app", False,
                   "Run every agent × task × tier × repeat (crash-safe, resumable), then write "
                   "the leaderboard."),
    "demo": Entry("running", "app", False,
                  "Build the embedded datasets, sweep the built-in agents over the demo tasks "
                  "(repeats), build the leaderboard site, and print its path, a compact table and "
                  "the slowest step."),
    "score": Entry("saved_runs", "app", False,
                   "Re-score saved runs from their workspace outputs alone (no agent); rewrites "
                   "detail_report.json."),
    "judge": Entry("saved_runs", "app", False,
                   "Re-judge S1..S3 of saved runs without re-running the agent (cached)."),
    "judge-eval": Entry("saved_runs", "app", False,
                        "Measure a judge against the hand-labelled calibration trajectories "
                        "(docs/judge.md)."),
    "report": Entry("saved_runs", "app", False,
                    "Aggregate saved runs into the leaderboard site (index.html, task boards, run "
                    "pages, comparison, error analysis) plus leaderboard.json and .csv."),
    "analyze": Entry("saved_runs", "app", False,
                     "The error analysis: fired codes by category and step, stage score "
                     "distributions per agent, the overall gap between runs with a fired code and "
                     "clean runs, the most frequent codes."),
    "export": Entry("saved_runs", "app", False,
                    "Export runs to another tool's format."),
    "prompt": Entry("catalog", "app", False,
                    "Print the exact rendered system prompt of a task and tier (as the bwrap "
                    "sandbox lays it out)."),
    "doctor": Entry("doctor", "app", False,
                    "What this machine supports: sandbox backends, network on for a root and a "
                    "non-root harness, GPUs, the Docker engine and image."),
    "tasks": Entry("catalog", "tasks_app", True,
                   "List and describe tasks."),
    "data": Entry("catalog", "data_app", True,
                  "Build embedded datasets or stage official ones."),
    "agents": Entry("catalog", "agents_app", True,
                    "List configured agents."),
    "sandbox": Entry("sandbox", "sandbox_app", True,
                     "Run one execution in a fresh sandbox, as an agent would; list backends."),
    "tracks": Entry("lists", "tracks_app", True,
                    "Tracks: built-in packages and plug-ins (entry-point group "
                    "automedbench.tracks)."),
    "judges": Entry("lists", "judges_app", True,
                    "Judges of S1-S3: judge classes (automedbench.judges) and LLM judges from the "
                    "agent registry."),
    "executors": Entry("lists", "executors_app", True,
                       "Where a sweep's runs execute (entry-point group automedbench.executors)."),
}


def short_help(text: str, limit: int) -> str:
    """`text` cut at a word to fit `limit` characters, with "..." (click's short help)."""
    if len(text) <= limit:
        return text
    words, kept = text.split(), ""
    for w in words:
        if len(kept) + len(w) + 1 > limit - 3:
            break
        kept = f"{kept} {w}" if kept else w
    return kept + "..."


def _rows(rows: list[tuple[str, str]], width: int, indent: int = 2) -> list[str]:
    """A definition list as click writes one: first column at most 30 wide, two spaces, the
    second wrapped to the rest of the width."""
    import textwrap
    first_col = min(max(len(a) for a, _ in rows), 30) + 2
    out = []
    for first, second in rows:
        lines = textwrap.wrap(second, max(width - first_col - 2, 10)) or [""]
        if len(first) <= first_col - 2:
            out.append(" " * indent + first + " " * (first_col - len(first)) + lines[0])
        else:
            out += [" " * indent + first, " " * (first_col + indent) + lines[0]]
        out += [" " * (first_col + indent) + line for line in lines[1:]]
    return out


def root_help() -> str:
    """`automedbench --help`, laid out as click lays out the typer root's."""
    import textwrap
    width = max(min(terminal_columns(), 80) - 2, 50)
    limit = width - 6 - max(len(n) for n in COMMANDS)
    lines = ["Usage: automedbench [OPTIONS] COMMAND [ARGS]...", ""]
    lines += textwrap.wrap(APP_HELP, width, initial_indent="  ", subsequent_indent="  ")
    lines += ["", "Options:", *_rows(OPTIONS, width), "", "Commands:"]
    lines += _rows([(n, short_help(e.help, limit)) for n, e in COMMANDS.items()], width)
    return "\n".join(lines)


def command_help(path: list[str]) -> str | None:
    """`automedbench PATH --help` as typer prints it, from cli/help_pages.py without importing
    typer or the command (docs/cli.md "Start-up"); None where typer must lay it out: a terminal
    narrower than 80 columns (click's help is 78 wide on any wider one), or no such page."""
    if terminal_columns() < 80:
        return None
    from .help_pages import PAGES
    return PAGES.get(" ".join(path))
