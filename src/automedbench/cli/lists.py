"""`automedbench <kind> list` for the kinds of the one registry (automedbench/plugins.py,
docs/architecture.md "One registry"): tracks, sandbox backends, judges and executors. Each prints
name, origin (built-in, or the plug-in's distribution and version) and a one-line description;
`--json` prints the same rows as JSON. (`agents list`, `data list` and `tasks list` live with
their groups in cli/catalog.py and read the same registries.) The command table of
cli/__init__.py names the groups; cli/sandbox.py adds `sandbox_list` to its group."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..errors import UserError, one_line
from ..llm.registry import load_agent_configs
from ..plugins import Registry
from ..runs.executors import EXECUTORS
from ..sandbox import SANDBOX_BACKENDS
from ..scoring.judge import JUDGES
from ..tracks import TRACKS

JsonOpt = typer.Option(False, "--json", help="Print JSON instead of a table.")


def _rows(registry: Registry[Any]) -> list[dict[str, str]]:
    return [e.row() for e in registry.entries()]


def _print(rows: list[dict[str, str]], as_json: bool, columns: tuple[str, ...] = ("name", "origin", "description")) -> None:
    if as_json:
        print(json.dumps(rows, indent=2))
        return
    table = Table(*columns)
    for r in rows:   # Text: a description's "[ray]" is text, not rich markup
        table.add_row(*(Text(r.get(c, "")) for c in columns))
    Console(soft_wrap=True).print(table)


def _group(help_text: str) -> typer.Typer:
    group = typer.Typer(no_args_is_help=True, help=help_text)

    @group.callback()
    def _keep_as_group() -> None:   # a group of one command stays a group (`tracks list`, not `tracks`)
        """List what is registered."""

    return group


tracks_app = _group("Tracks: built-in packages and plug-ins (entry-point group automedbench.tracks).")
judges_app = _group("Judges of S1-S3: judge classes (automedbench.judges) and LLM judges from the agent registry.")
executors_app = _group("Where a sweep's runs execute (entry-point group automedbench.executors).")


@tracks_app.command("list")
def tracks_list(as_json: bool = JsonOpt) -> None:
    """Registered tracks: name, origin, description."""
    _print(_rows(TRACKS), as_json)


def sandbox_list(as_json: bool = JsonOpt) -> None:
    """Registered sandbox backends (entry-point group automedbench.sandbox_backends): name, origin, description."""
    _print(_rows(SANDBOX_BACKENDS), as_json)


@judges_app.command("list")
def judges_list(as_json: bool = JsonOpt,
                agent_config: Optional[list[Path]] = typer.Option(
                    None, "--agent-config", metavar="FILE", help="Extra agent registry YAML (repeatable).")) -> None:
    """Judge classes (the heuristic default, plug-ins), then every agent-registry entry, each usable
    as an LLM judge (`--judge NAME`)."""
    rows = [{**r, "kind": "class"} for r in _rows(JUDGES)]
    try:
        configs = load_agent_configs(agent_config)
    except UserError as exc:
        typer.echo(f"error: {one_line(exc)}", err=True)
        raise typer.Exit(2) from None
    rows += [{"name": c.name, "kind": "llm", "origin": str(c.source or ""),
              "description": c.description or f"{c.model} at {c.base_url}"} for c in configs.values()]
    _print(rows, as_json, ("name", "kind", "origin", "description"))


@executors_app.command("list")
def executors_list(as_json: bool = JsonOpt) -> None:
    """Registered executors (`sweep --executor NAME`): name, origin, description."""
    _print(_rows(EXECUTORS), as_json)
