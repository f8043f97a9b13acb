"""The root command: the command table, the lazy group that loads a command's module only when
it runs, and the root options (--version, -v). cli/__init__.py's `main` runs it."""
from __future__ import annotations

import contextlib
import importlib
import io
import logging
import os
from typing import Any

import typer
import typer.core
from typer.main import get_command

from .. import __version__
from .table import APP_HELP, COMMANDS, VERBOSE_HELP, VERSION_HELP, short_help


def _plain_help(cmd: Any) -> Any:
    """Help in click's plain layout for a command and its subcommands, as the root's
    `rich_markup_mode=None` gives (typer's rich layout labels each value with its Python type)."""
    if hasattr(cmd, "rich_markup_mode"):
        cmd.rich_markup_mode = None
    for sub in getattr(cmd, "commands", {}).values():
        _plain_help(sub)
    return cmd


def load_command(name: str) -> Any:
    """The click command `name` of the table, its module imported now."""
    entry = COMMANDS[name]
    app = getattr(importlib.import_module(f"{__package__}.{entry.module}"), entry.app)
    cmd = get_command(app)
    if not entry.group and isinstance(cmd, typer.core.TyperGroup):
        cmd = cmd.commands[name]
    cmd.name = name
    return _plain_help(cmd)


class LazyGroup(typer.core.TyperGroup):
    """The root group: lists the table, loads a command only when it is invoked (or its own
    help is asked for)."""

    def list_commands(self, ctx: Any) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        return load_command(cmd_name) if cmd_name in COMMANDS else None

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        limit = formatter.width - 6 - max(len(n) for n in COMMANDS)
        rows = [(n, short_help(e.help, limit)) for n, e in COMMANDS.items()]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


# Help is click's plain layout (rich_markup_mode=None): typer's rich layout labels each value with
# its Python type (`<bool>` beside every flag, even --help). Every option that takes a value names
# it with `metavar=` (docs/cli.md).
app = typer.Typer(cls=LazyGroup, add_completion=False, no_args_is_help=True, rich_markup_mode=None,
                  help=APP_HELP)


def _print_version(value: bool) -> None:
    if value:
        print(f"automedbench {__version__}")
        raise typer.Exit()


@app.callback()
def _main(version: bool = typer.Option(False, "--version", callback=_print_version, is_eager=True,
                                       help=VERSION_HELP),
          verbose: bool = typer.Option(False, "-v", "--verbose", help=VERBOSE_HELP)) -> None:
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, format="%(levelname)s %(message)s")


def command_paths() -> list[tuple[str, ...]]:
    """Every command of the table and, of a group, each of its subcommands, in table order."""
    paths: list[tuple[str, ...]] = []
    for name, entry in COMMANDS.items():
        paths.append((name,))
        if entry.group:
            paths += [(name, sub) for sub in load_command(name).commands]
    return paths


def render_help(path: tuple[str, ...]) -> str:
    """What typer prints for `automedbench PATH --help` on a terminal 80 or more columns wide
    (click's help is never wider), without its final newline: cli/help_pages.py holds these,
    written by scripts/cli_help_pages.py and checked by tests/test_cli.py."""
    # not typer's CliRunner: it lays help out 80 wide, where a terminal gets click's 78
    buf = io.StringIO()
    columns = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "80"
    try:
        with contextlib.redirect_stdout(buf):
            code = app([*path, "--help"], prog_name="automedbench", standalone_mode=False)
    finally:
        if columns is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = columns
    if code not in (0, None):
        raise RuntimeError(f"automedbench {' '.join(path)} --help exited {code}: {buf.getvalue()}")
    return buf.getvalue().rstrip("\n")
