"""`automedbench doctor`: what this machine supports, before any run (docs/cli.md, docs/sandbox.md
"Doctor"). Prints api.machine_report()."""
from __future__ import annotations

import json

import typer
from rich.table import Table
from rich.text import Text

from .. import api
from .common import out

app = typer.Typer()


def _mark(ok: bool | None) -> Text:
    return Text("yes", style="green") if ok else Text("n/a", style="dim") if ok is None else Text("NO", style="bold red")


@app.command("doctor")
def doctor(as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table.")) -> None:
    """What this machine supports: sandbox backends, network on for a root and a non-root
    harness, GPUs, the Docker engine and image. Reads and probes only; always exits 0."""
    report = api.machine_report()
    if as_json:
        print(json.dumps(report, indent=2))
        return
    table = Table("check", "ok", "detail", show_lines=False)
    for check in report["checks"]:
        table.add_row(check["name"], _mark(check["ok"]), Text(check["detail"]))
    out.print(table)
