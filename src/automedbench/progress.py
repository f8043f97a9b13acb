"""The sweep's progress bar on the terminal (the `sweep` and `demo` commands of cli/running.py).

It is handed to api.sweep_and_report / api.demo as `on_event` and only draws: done/total,
elapsed time and ETA, counts of failed, infrastructure-ended and retried cells, and the cells
running now (not the last one that finished).
"""
from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from .runs.sweep import CellResult, SweepEvent


class SweepProgress:
    """A context manager; call it with each SweepEvent. `failed` keeps the failed cells' results."""

    def __init__(self, console: Console):
        self.bar = Progress(TextColumn("[bold]sweep"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                            TextColumn("eta"), TimeRemainingColumn(), TextColumn("{task.fields[counts]}"),
                            TextColumn("{task.description}"), console=console, transient=False)
        self.job: TaskID | None = None
        self.failed: list[CellResult] = []
        self.infra = 0
        self.retried = 0

    def __enter__(self) -> SweepProgress:
        self.bar.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.bar.__exit__(*exc)

    def stop(self) -> None:
        self.bar.stop()

    def _counts(self) -> str:
        parts = []
        if self.failed:
            parts.append(f"[red]{len(self.failed)} failed[/]")
        if self.infra:
            parts.append(f"[yellow]{self.infra} infra[/]")
        if self.retried:
            parts.append(f"{self.retried} retried")
        return " ".join(parts)

    def __call__(self, ev: SweepEvent) -> None:
        if ev.kind == "plan":
            if ev.message:   # a restart: which cells were kept, moved, re-run
                self.bar.console.print(f"restart: {ev.message}", highlight=False, soft_wrap=True)
            self.job = self.bar.add_task("", total=ev.total, counts="")
            return
        if self.job is None:
            return
        adv = 0
        if ev.kind in ("skip", "finish") and ev.result is not None:
            adv = 1
            if ev.result.status == "failed" or (ev.result.error and ev.result.status != "skipped"):
                self.failed.append(ev.result)
            elif ev.result.status == "infra":
                self.infra += 1
        elif ev.kind == "retry":
            self.retried += 1
        names = [c.key for c in ev.running]
        running = ("running: " + ", ".join(names[:3]) + (f" +{len(names) - 3}" if len(names) > 3 else "")) if names else ""
        self.bar.update(self.job, advance=adv, description=running, counts=self._counts())
