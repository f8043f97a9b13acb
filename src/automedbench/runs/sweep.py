"""Crash-safe sweeps: agents × tasks × tiers × repeats, one run directory per cell. This
module holds what a sweep *is* (the spec, its cells, the root's lock, each cell's state on
disk); the scheduler that runs the cells through the run lifecycle is lifecycle/sweep.py.

    spec = load_sweep_file("sweep.yaml")            # or SweepSpec(agents=[...], tasks=[...], ...)
    results = lifecycle.sweep.run_sweep(spec, "runs/", workers=2)   # -> list[CellResult]

The sweep root holds:

    ROOT/sweep.lock.json                    the configuration this root was started with
    ROOT/.sweep.pid                         flock'ed while a sweep is running on ROOT
    ROOT/<task>/<tier>/<agent>/rep<k>/      one run directory per cell
    ROOT/.attempts/<task>/<tier>/<agent>/rep<k>/attempt<n>/
                                            infrastructure-ended attempts that were retried

Restarting a sweep (after Ctrl-C, `kill -9`, a reboot) is always safe:
- a cell whose `detail_report.json` exists and whose run did not end on an infrastructure
  fault is finished and skipped; the report is written last and atomically, so its presence
  means the run completed;
- a cell directory without a report (the run or its scoring was cut off), or whose run
  ended `interrupted`, is deleted and run again;
- a run that ended on an infrastructure fault (`UNSCORED_END_REASONS`: the harness, the
  sandbox, the provider) is moved to `.attempts/` and run again, up to `retries` times;
  the last attempt stays in place and the leaderboard counts it beside the agent's row,
  never as the agent's failure;
- a different configuration on the same root is refused unless `force`; the lock holds the
  effective agent, judge and task configurations (runs/effective_config.py), so an edited
  agent YAML is a change and the same entry given through another file or env var is not.
  With `force`, a finished cell whose run recorded another agent configuration is moved to
  ROOT/.superseded/ and run again.
"""
from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import os
import shutil
import time
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from .. import __version__, yamlfile
from ..errors import UserError, first_field_error
from ..tasks import Task
from .effective_config import config_hash, describe_change, sweep_lock_config
from .executors import EXECUTORS, Resources
from .layout import now_iso, write_json_atomic
from .record import RunFileError, RunRecord
from .models import UNSCORED_END_REASONS
from .options import RunOptions

LOCK_NAME = "sweep.lock.json"
PID_NAME = ".sweep.pid"
ATTEMPTS_DIR = ".attempts"
SUPERSEDED_DIR = ".superseded"
LOCK_VERSION = 2   # 2: effective agent/judge/task configurations instead of file paths


class SweepConfigError(UserError, ValueError):
    """A sweep file or configuration is invalid, or conflicts with the root's lock. One line."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CellFilter(_Strict):
    """Matches cells on the keys it sets (all must match). `repeats` only for include."""
    agent: str | None = None
    task: str | None = None
    tier: str | None = None
    repeats: int | None = Field(None, ge=1)

    def matches(self, agent: str, task: str, tier: str) -> bool:
        return all(v is None or v == have for v, have in ((self.agent, agent), (self.task, task), (self.tier, tier)))


class ResourceSpec(_Strict):
    cpus: float = Field(1.0, gt=0)
    gpus: int = Field(0, ge=0)


class SweepSpec(_Strict):
    agents: list[str] = Field(min_length=1)
    tasks: list[str] = Field(min_length=1)
    tiers: list[str] = Field(default_factory=lambda: ["lite"], min_length=1)
    repeats: int = Field(1, ge=1)
    include: list[CellFilter] = Field(default_factory=list, description="extra cells (agent, task and tier all set)")
    exclude: list[CellFilter] = Field(default_factory=list, description="cells removed (any keys)")
    options: RunOptions = Field(default_factory=RunOptions)
    retries: int = Field(2, ge=0, description="re-runs of an infrastructure-ended cell")
    resources: ResourceSpec = Field(default_factory=ResourceSpec, description="per run, unless the task says otherwise")
    task_resources: dict[str, ResourceSpec] = Field(default_factory=dict)
    # run-time choices: not part of the lock
    workers: int | None = Field(None, ge=1)
    executor: str | None = Field(None, description="a registered executor (automedbench executors list)")
    address: str | None = None
    out: str | None = None

    @field_validator("executor")
    @classmethod
    def _known_executor(cls, v: str | None) -> str | None:
        if v is not None and v not in EXECUTORS:
            raise ValueError(f"unknown executor {v!r}; known: {', '.join(EXECUTORS.names())}")
        return v

    @field_validator("include")
    @classmethod
    def _full_include(cls, v: list[CellFilter]) -> list[CellFilter]:
        for f in v:
            if None in (f.agent, f.task, f.tier):
                raise ValueError("an include entry must set agent, task and tier")
        return v

    def lock_config(self, scripted: Collection[str] = ()) -> dict[str, Any]:
        """What a restart must agree on: the cells, the options that change results and the
        effective agent, judge and task configurations (runs/effective_config.py). `scripted`:
        the scripted agents' names (lifecycle/prepare.py: scripted_agent_names)."""
        return sweep_lock_config(self, expand_cells(self), scripted)


@dataclass(frozen=True)
class Cell:
    task: str
    tier: str
    agent: str
    repeat: int

    def dir(self, root: Path) -> Path:
        return Path(root) / self.task / self.tier / self.agent / f"rep{self.repeat}"

    def attempts_dir(self, root: Path) -> Path:
        return Path(root) / ATTEMPTS_DIR / self.task / self.tier / self.agent / f"rep{self.repeat}"

    @property
    def key(self) -> str:
        return f"{self.task}/{self.tier}/{self.agent}#{self.repeat}"


CellStatus = Literal["done", "skipped", "infra", "failed"]


@dataclass
class CellResult:
    cell: Cell
    run_dir: Path
    status: CellStatus            # done: ran now; skipped: finished before; infra: infra-ended after retries; failed
    error: str | None = None
    end_reason: str | None = None
    attempts: int = 0
    wall_s: float = 0.0
    gpus: str | None = None       # CUDA_VISIBLE_DEVICES the run saw (None: not set)
    worker: str = ""              # host:pid that ran it


@dataclass
class SweepEvent:
    kind: Literal["plan", "skip", "start", "finish", "retry"]
    cell: Cell | None = None
    result: CellResult | None = None
    total: int = 0
    todo: int = 0
    message: str = ""
    running: list[Cell] = field(default_factory=list)


def expand_cells(spec: SweepSpec) -> list[Cell]:
    """The matrix, minus `exclude`, plus `include`, in a stable order, without duplicates."""
    out: dict[Cell, None] = {}
    for task in spec.tasks:
        for tier in spec.tiers:
            for agent in spec.agents:
                if any(f.matches(agent, task, tier) for f in spec.exclude):
                    continue
                for r in range(spec.repeats):
                    out[Cell(task, tier, agent, r)] = None
    for f in spec.include:
        # SweepSpec._full_include has checked that an include sets all three
        assert f.task is not None and f.tier is not None and f.agent is not None
        for r in range(f.repeats or spec.repeats):
            out[Cell(f.task, f.tier, f.agent, r)] = None
    return list(out)


def load_sweep_file(path: Path | str) -> SweepSpec:
    """Parse a sweep YAML; every problem is a SweepConfigError naming the file and field."""
    p = Path(path)
    try:
        raw = yamlfile.safe_load(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SweepConfigError(f"sweep file {p} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SweepConfigError(f"sweep file {p}: cannot read ({exc})") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark else ""
        raise SweepConfigError(f"sweep file {p}:{where} is not valid YAML") from None
    if not isinstance(raw, dict):
        raise SweepConfigError(f"sweep file {p}: expected a mapping with agents, tasks, tiers, repeats")
    for key in ("agents", "tasks", "tiers"):  # a single name is fine too
        if isinstance(raw.get(key), str):
            raw[key] = [raw[key]]
    try:
        spec = SweepSpec.model_validate(raw)
    except ValidationError as exc:
        raise SweepConfigError(f"sweep file {p}: {first_field_error(exc)}") from None
    base = p.resolve().parent  # relative paths in the file are relative to the file
    o = spec.options
    if o.data_root and not Path(o.data_root).is_absolute():
        o.data_root = str(base / o.data_root)
    o.tasks_dirs = [str(base / d) if not Path(d).is_absolute() else d for d in (o.tasks_dirs or [])] or None
    o.agent_configs = [str(base / d) if not Path(d).is_absolute() else d for d in (o.agent_configs or [])] or None
    if spec.out and not Path(spec.out).is_absolute():
        spec.out = str(base / spec.out)
    return spec


# ---- the root's lock -----------------------------------------------------------------

def _fingerprint(config: dict) -> str:
    return hashlib.sha256(json.dumps(config, sort_keys=True).encode()).hexdigest()[:16]


def check_lock(root: Path, spec: SweepSpec, *, force: bool = False, scripted: Collection[str] = ()) -> dict[str, Any]:
    """Write the lock on a new root; refuse a different configuration unless `force`.
    Returns the configuration the root is now locked to."""
    config = spec.lock_config(scripted)
    lock = root / LOCK_NAME
    if lock.is_file() and not force:
        try:
            saved = json.loads(lock.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            raise SweepConfigError(f"{lock} is unreadable; pass --force to replace it") from None
        if saved.get("version") != LOCK_VERSION:
            pass   # a lock of an older harness recorded paths, not configurations: rewritten below
        elif saved.get("fingerprint") != _fingerprint(config):
            raise SweepConfigError(f"{root} holds a sweep with a different configuration "
                                   f"({_describe_change(saved.get('config') or {}, config)}); "
                                   "pass --force to adopt the new one (finished runs of cells in both are kept, "
                                   "except those of a changed agent configuration, which run again)")
        else:
            return config
    write_json_atomic(lock, {"version": LOCK_VERSION, "fingerprint": _fingerprint(config), "config": config,
                             "written_at": now_iso(), "harness_version": __version__})
    return config


def _describe_change(old: dict, new: dict) -> str:
    a, b = set(old.get("cells") or []), set(new.get("cells") or [])
    parts = []
    if b - a:
        parts.append(f"{len(b - a)} cell(s) added, e.g. {sorted(b - a)[0]}")
    if a - b:
        parts.append(f"{len(a - b)} cell(s) removed, e.g. {sorted(a - b)[0]}")
    oo, no = old.get("options") or {}, new.get("options") or {}
    changed = sorted(k for k in set(oo) | set(no) if oo.get(k) != no.get(k))
    if changed:
        parts.append("options changed: " + ", ".join(changed))
    for key in ("agents", "judges", "tasks", "data_root"):
        if old.get(key) != new.get(key):
            parts.append(f"{key} changed: " + "; ".join(describe_change({key: old.get(key)}, {key: new.get(key)})))
    return "; ".join(parts) or "configuration changed"


class RootLock:
    """An flock on ROOT/.sweep.pid: one sweep per root at a time. The kernel drops it when the
    holder dies (even by SIGKILL), so a restarted sweep never finds a stale lock."""

    def __init__(self, root: Path, wait_s: float = 10.0):
        self.path = root / PID_NAME
        self.wait_s = wait_s
        self.fd: int | None = None

    def __enter__(self) -> "RootLock":
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        deadline = time.monotonic() + self.wait_s
        while True:
            try:
                fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EACCES) or time.monotonic() > deadline:
                    holder = os.pread(self.fd, 32, 0).decode(errors="replace").strip() or "?"
                    os.close(self.fd)
                    raise SweepConfigError(f"another sweep (pid {holder}) is running on {self.path.parent}") from None
                time.sleep(0.2)
        os.ftruncate(self.fd, 0)
        os.pwrite(self.fd, f"{os.getpid()}\n".encode(), 0)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


# ---- cell state ---------------------------------------------------------------------

def read_end_reason(run_dir: Path) -> tuple[bool, str | None]:
    """(has a complete report, the run's end_reason), through RunRecord (docs/sweeps.md "Crash safety"):
    a report that is absent, unreadable or not JSON (a torn write) is no complete report; one of
    another schema (a newer harness's) is complete, kept, its end reason read from run.json."""
    rec = RunRecord(run_dir)
    try:
        rep = rec.report
    except RunFileError as exc:
        if exc.kind != "schema":
            return False, None
        try:
            meta = rec.meta
        except RunFileError:
            return True, None
        return True, meta.run.end_reason if meta is not None else None
    return (True, rep.run.end_reason) if rep is not None else (False, None)


def past_attempts(cell: Cell, root: Path) -> int:
    d = cell.attempts_dir(root)
    return sum(1 for p in d.iterdir() if p.name.startswith("attempt")) if d.is_dir() else 0


def archive_attempt(cell: Cell, root: Path) -> None:
    """Move an infrastructure-ended run out of the cell, keeping it for inspection."""
    dest_dir = cell.attempts_dir(root)
    dest_dir.mkdir(parents=True, exist_ok=True)
    n = past_attempts(cell, root) + 1
    os.replace(cell.dir(root), dest_dir / f"attempt{n}")


def clean_cell(path: Path) -> None:
    if path.exists() or path.is_symlink():
        shutil.rmtree(path, ignore_errors=False) if path.is_dir() and not path.is_symlink() else path.unlink()


def superseded(cell: Cell, root: Path, locked: dict[str, Any]) -> bool:
    """A finished cell whose run recorded another effective agent configuration than the one
    the root is locked to is moved to ROOT/.superseded/ (kept, not counted) and run again."""
    want = (locked.get("agents") or {}).get(cell.agent)
    try:
        meta = RunRecord.open(cell.dir(root)).meta
    except RunFileError:
        return False
    have = meta.agent_config_hash if meta is not None else None
    if want is None or have is None or have == config_hash(want):
        return False
    dest = Path(root) / SUPERSEDED_DIR / cell.task / cell.tier / cell.agent / f"rep{cell.repeat}"
    dest.mkdir(parents=True, exist_ok=True)
    n = sum(1 for p in dest.iterdir() if p.name.startswith(have))
    os.replace(cell.dir(root), dest / (have if n == 0 else f"{have}-{n + 1}"))
    return True


def classify(cell: Cell, root: Path, retries: int) -> tuple[str, str | None]:
    """'finished', 'infra_final' (out of retries), 'retry' (infra, retries left), 'partial' or 'new'."""
    d = cell.dir(root)
    if not d.exists():
        return "new", None
    complete, end = read_end_reason(d)
    if not complete:
        return "partial", None
    if end == "interrupted":
        return "partial", end
    if end in UNSCORED_END_REASONS:
        return ("retry" if past_attempts(cell, root) < retries else "infra_final"), end
    return "finished", end


# ---- the sweep ----------------------------------------------------------------------

def cell_resources(spec: SweepSpec, task_obj: Task) -> Resources:
    if task_obj.id in spec.task_resources:
        r = spec.task_resources[task_obj.id]
        return Resources(r.cpus, r.gpus)
    declared = getattr(task_obj, "resources", None)  # a task may declare {cpus, gpus}
    if declared is not None:
        get = declared.get if isinstance(declared, dict) else (lambda k, d=None: getattr(declared, k, d))
        return Resources(float(get("cpus", spec.resources.cpus) or spec.resources.cpus),
                         int(get("gpus", spec.resources.gpus) or 0))
    if getattr(task_obj, "gpu", False):   # task.yaml `gpu: true`: one GPU per run
        return Resources(spec.resources.cpus, max(1, spec.resources.gpus))
    return Resources(spec.resources.cpus, spec.resources.gpus)
