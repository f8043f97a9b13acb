"""`automedbench sandbox ...`: exec, build-image, and list (cli/lists.py)."""
from __future__ import annotations

import json
import os
from enum import Enum
from pathlib import Path
from typing import Optional

import typer

from ..data import dataset_paths
from ..sandbox import DEFAULT_BACKEND
from ..sandbox.base import SandboxError
from ..sandbox.docker.backend import find_engine
from ..sandbox.docker.image import build_image
from ..sandbox.exec import sandbox_exec
from ..tasks import TaskError, get_task
from .lists import sandbox_list

sandbox_app = typer.Typer(help="Run one execution in a fresh sandbox, as an agent would; list backends.",
                          no_args_is_help=True)


class OnOff(str, Enum):
    on = "on"
    off = "off"


@sandbox_app.callback()
def _group() -> None:
    """Sandbox tools."""


@sandbox_app.command("exec")
def exec_cmd(
    task: str = typer.Option(..., "--task", metavar="TASK", help="task id; its dataset's public dir is mounted"),
    backend: str = typer.Option(DEFAULT_BACKEND, "--backend", metavar="BACKEND",
                                help="a registered backend (see `automedbench sandbox list`)"),
    network: OnOff = typer.Option(OnOff.off, "--network", metavar="on|off"),
    data_root: Optional[Path] = typer.Option(None, "--data-root", metavar="DIR", help="default: $AUTOMEDBENCH_DATA"),
    workspace: Optional[Path] = typer.Option(None, "--workspace", metavar="DIR", help="default: a temporary one"),
    python: Optional[Path] = typer.Option(None, "--python", metavar="FILE", help="python file to run", exists=True,
                                          dir_okay=False),
    bash: Optional[Path] = typer.Option(None, "--bash", metavar="FILE", help="bash file to run", exists=True, dir_okay=False),
    timeout: float = typer.Option(120.0, "--timeout", metavar="SECONDS", help="time limit of the execution"),
) -> None:
    """Run one python or bash file inside the sandbox of TASK; print one JSON object."""

    if (python is None) == (bash is None):
        typer.echo("error: give exactly one of --python FILE or --bash FILE", err=True)
        raise typer.Exit(2) from None
    try:
        t = get_task(task)
    except TaskError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    public = dataset_paths(t.dataset, data_root).public
    if not public.is_dir():
        typer.echo(f"error: dataset {t.dataset!r} is not staged ({public} missing); "
                   f"run `automedbench data stage {t.dataset}`", err=True)
        raise typer.Exit(2) from None
    language, path = ("python", python) if python is not None else ("bash", bash)
    assert path is not None      # exactly one of --python / --bash, checked above
    try:
        out = sandbox_exec(public, workspace, backend, network == OnOff.on, language,
                           path.read_text(), timeout_s=timeout)
    except SandboxError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    typer.echo(json.dumps(out))
    raise typer.Exit(script_exit_status(out))


def script_exit_status(out: dict) -> int:
    """The script's own exit status, shell-style: 124 when it ran into the time limit,
    128+N when signal N killed it."""
    if out.get("timed_out"):
        return 124
    code = int(out.get("exit_code") or 0)
    return 128 - code if code < 0 else code


@sandbox_app.command("build-image")
def build_image_cmd(
    force: bool = typer.Option(False, "--force", help="rebuild even when the recipe's image is cached"),
) -> None:
    """Build the docker backend's agent image offline (mmdebstrap from this host's Debian
    mirror + the agent runtime, `docker import`); print its record (image id, recipe key)."""

    from rich.console import Console


    console = Console(stderr=True)
    host, why = find_engine()
    if why:
        typer.echo(f"error: no Docker engine: {why}", err=True)
        raise typer.Exit(2)
    if host:
        os.environ["DOCKER_HOST"] = host
    try:
        with console.status("building the agent image (cached by recipe; a first build takes minutes)"):
            record = build_image(force=force, log=lambda m: console.log(m))
    except SandboxError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from exc
    typer.echo(record.to_json())


sandbox_app.command("list")(sandbox_list)
