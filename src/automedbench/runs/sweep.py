"""Crash-safe sweeps: agents × tasks × tiers × repeats, one run directory per cell.

    spec = load_sweep_file("sweep.yaml")            # or SweepSpec(agents=[...], tasks=[...], ...)
    results = run_sweep(spec, "runs/", workers=2)   # -> list[CellResult]

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
from collections import deque
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Literal, Protocol

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from .. import __version__, yamlfile
from ..errors import UserError
from ..tasks import Task, get_task
from .effective_config import config_hash, describe_change, sweep_lock_config
from .executors import EXECUTORS, JobResult, Resources, RunFunction, RunJob, make_executor
from .layout import RunFiles, now_iso, write_json_atomic
from .models import UNSCORED_END_REASONS
from .options import RunOptions
from .preflight import check_endpoints, check_gpus, check_requirements, check_scripted_methods

# (tasks, tiers, agents, run options) -> None, raising UserError: api.check_sweep
CheckFunction = Callable[[list[str], list[str], list[str], RunOptions], None]


@dataclass(frozen=True)
class SweepChecks:
    """What the sweep needs to know from the layers above it, handed in by the API
    (api.sweep_checks()): the runs layer imports neither the API, nor the agents, nor the
    sandbox (docs/architecture.md, "Layers")."""
    check: CheckFunction                              # user errors of every task, tier, agent
    scripted: frozenset[str] = frozenset()            # the scripted agents (no endpoint, no entry)
    runtime_packages: Callable[[], set[str] | None] = lambda: None   # the agent runtime's distributions

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
        the scripted agents' names (SweepChecks.scripted)."""
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
        e = exc.errors()[0]
        loc = ".".join(str(x) for x in e["loc"]) or "<root>"
        raise SweepConfigError(f"sweep file {p}: field {loc}: {e['msg']}") from None
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
    """(has a complete report, the run's end_reason)."""
    try:
        rep = json.loads(RunFiles(run_dir).report.read_text(encoding="utf-8"))
        return True, (rep.get("run") or {}).get("end_reason")
    except (OSError, ValueError, AttributeError):
        return False, None


def past_attempts(cell: Cell, root: Path) -> int:
    d = cell.attempts_dir(root)
    return sum(1 for p in d.iterdir() if p.name.startswith("attempt")) if d.is_dir() else 0


def _archive_attempt(cell: Cell, root: Path) -> None:
    """Move an infrastructure-ended run out of the cell, keeping it for inspection."""
    dest_dir = cell.attempts_dir(root)
    dest_dir.mkdir(parents=True, exist_ok=True)
    n = past_attempts(cell, root) + 1
    os.replace(cell.dir(root), dest_dir / f"attempt{n}")


def _clean(path: Path) -> None:
    if path.exists() or path.is_symlink():
        shutil.rmtree(path, ignore_errors=False) if path.is_dir() and not path.is_symlink() else path.unlink()


def _superseded(cell: Cell, root: Path, locked: dict[str, Any]) -> bool:
    """A finished cell whose run recorded another effective agent configuration than the one
    the root is locked to is moved to ROOT/.superseded/ (kept, not counted) and run again."""
    want = (locked.get("agents") or {}).get(cell.agent)
    try:
        have = json.loads(RunFiles(cell.dir(root)).meta.read_text(encoding="utf-8")).get("agent_config_hash")
    except (OSError, ValueError, AttributeError):
        return False
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

def _resources(spec: SweepSpec, task_obj: Task) -> Resources:
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


def validate(spec: SweepSpec, checks: SweepChecks) -> dict[str, Any]:
    """User errors before any run starts. `checks.check` (api.check_sweep: prepare_run for every
    agent, task and tier: unknown task/tier/agent/judge/backend, a missing API key, unstaged
    official data) is handed in by the caller, as the runs layer never imports the API; then the
    impossible cells are refused, named (runs/preflight.py)."""
    cells = expand_cells(spec)

    def distinct(values: Iterable[str]) -> list[str]:
        return list(dict.fromkeys(values))
    checks.check(distinct(c.task for c in cells), distinct(c.tier for c in cells), distinct(c.agent for c in cells),
                 spec.options)
    tasks = {t: get_task(t, spec.options.tasks_dir_paths) for t in sorted({c.task for c in cells})}
    check_scripted_methods(cells, tasks)            # impossible cells: refused, named (runs/preflight.py)
    check_requirements(cells, tasks, spec.options.network, spec.options.sandbox,
                       have=checks.runtime_packages(), scripted=checks.scripted)
    return tasks


def run_sweep(spec: SweepSpec, root: Path | str, *, run: RunFunction, checks: SweepChecks, workers: int | None = None, executor: str | None = None,
              address: str | None = None, force: bool = False, resume: bool = True, gpus: list[str] | None = None,
              on_event: Callable[[SweepEvent], None] | None = None, poll_s: float = 0.5) -> list[CellResult]:
    """Run every cell of `spec` under `root` (see module doc). Returns one CellResult per cell,
    in matrix order. Raises only for user errors (SweepConfigError, unknown task/agent...).
    `run` runs one cell and `checks` find the user errors first (api.run_sweep hands in
    api.run_one and api.sweep_checks())."""
    root = Path(root)
    tasks = validate(spec, checks)
    cells = expand_cells(spec)
    root.mkdir(parents=True, exist_ok=True)
    emit = on_event or (lambda ev: None)
    with RootLock(root):
        # endpoint configuration errors stop the sweep before the lock is written, so a fixed
        # base_url or model name is not "a changed configuration" of a root that never ran
        pending = [c for c in cells if not resume or classify(c, root, spec.retries)[0] not in ("finished", "infra_final")]
        check_endpoints([c.agent for c in pending], spec.options.agent_config_paths, checks.scripted)
        locked = check_lock(root, spec, force=force, scripted=checks.scripted)
        moved: list[Cell] = []
        redone: list[Cell] = []
        results, todo = _plan(cells, root, spec.retries, locked, resume, moved, redone)
        emit(SweepEvent("plan", total=len(cells), todo=len(todo), message=plan_message(results, todo, moved, redone)))
        for cell, res in results.items():
            emit(SweepEvent("skip", cell, res))

        pool = make_executor(executor or spec.executor or "local", workers=workers or spec.workers or 1,
                             address=address or spec.address, gpus=gpus)
        try:
            if todo:   # before the first cell: resource requests the executor can never meet
                check_gpus(todo, lambda c: _resources(spec, tasks[c.task]), pool.check)
            _Scheduler(pool, root, spec, tasks, run, emit, results).drain(todo, poll_s)
        except BaseException:  # Ctrl-C, SIGTERM, a bug: stop the runs; a restart re-runs them
            pool.shutdown(kill=True)
            raise
        pool.shutdown()
    return [results[c] for c in cells]


def _names(cells: list[Cell]) -> str:
    return ", ".join(c.key for c in cells[:3]) + (f" and {len(cells) - 3} more" if len(cells) > 3 else "")


def plan_message(results: dict[Cell, CellResult], todo: deque[Cell], moved: list[Cell], redone: list[Cell]) -> str:
    """What a restart does with the cells already on the root (kept, moved and re-run, re-run,
    new), naming them; '' for a fresh root (docs/sweeps.md "Crash safety")."""
    kept = [c for c, r in results.items() if r.status == "skipped"]
    if not (kept or moved or redone):
        return ""
    new = [c for c in todo if c not in moved and c not in redone]
    parts = [f"{len(kept)} finished cell(s) kept" + (f" ({_names(kept)})" if kept else "")]
    if moved:
        parts.append(f"{len(moved)} moved to {SUPERSEDED_DIR}/ and re-run (they ran with another agent "
                     f"configuration): {_names(moved)}")
    if redone:
        parts.append(f"{len(redone)} re-run (unfinished or an infrastructure fault): {_names(redone)}")
    parts.append(f"{len(new)} new")
    return "; ".join(parts)


def _plan(cells: list[Cell], root: Path, retries: int, locked: dict[str, Any], resume: bool,
          moved: list[Cell] | None = None, redone: list[Cell] | None = None) -> tuple[dict[Cell, CellResult], deque[Cell]]:
    """What a (re)start does with each cell (module doc): resuming, a finished cell is skipped
    and one out of infrastructure retries keeps its last attempt; a finished cell of another
    agent configuration runs again; a cell to retry has its attempt archived, a partial one is
    cleaned; everything else is queued in matrix order."""
    results: dict[Cell, CellResult] = {}
    todo: deque[Cell] = deque()
    for cell in cells:
        state, end = classify(cell, root, retries)
        if state == "finished" and _superseded(cell, root, locked):
            state = "new"   # ran with another agent configuration (adopted with --force): run again
            if moved is not None:
                moved.append(cell)
        elif state in ("retry", "partial") and redone is not None:
            redone.append(cell)
        if resume and state in ("finished", "infra_final"):
            results[cell] = CellResult(cell, cell.dir(root), "skipped" if state == "finished" else "infra",
                                       end_reason=end, attempts=past_attempts(cell, root) + 1)
            continue
        if state == "retry":
            _archive_attempt(cell, root)
        elif state != "new":
            _clean(cell.dir(root))
        todo.append(cell)
    return results, todo


class _Slots(Protocol):
    """What the scheduler needs of an executor (runs/executors.py)."""

    def check(self, res: Resources) -> str | None: ...

    def can_start(self, res: Resources) -> bool: ...

    def submit(self, job: RunJob) -> Any: ...

    def wait(self, handles: list[Any], timeout: float) -> list[tuple[Any, JobResult]]: ...


class _Scheduler:
    """Runs the queued cells on the executor until none is queued or running, recording each
    cell's result and telling `emit` about every start, finish and retry."""

    def __init__(self, pool: _Slots, root: Path, spec: SweepSpec, tasks: dict[str, Task], run: RunFunction,
                 emit: Callable[[SweepEvent], None], results: dict[Cell, CellResult]) -> None:
        self.pool, self.root, self.spec, self.tasks = pool, root, spec, tasks
        self.run, self.emit, self.results = run, emit, results
        self.job_options = spec.options   # every cell runs with the sweep's options (RunOptions)
        self.running: dict[Any, Cell] = {}
        self.crashes: dict[Cell, int] = {}

    def drain(self, todo: deque[Cell], poll_s: float) -> None:
        while todo or self.running:
            self._start_what_fits(todo)
            if self.running:
                self._settle_finished(todo, poll_s)

    def _start_what_fits(self, todo: deque[Cell]) -> None:
        """Start queued cells in order while the executor has room: a big run waits for its
        slots rather than being overtaken forever; a cell the executor can never hold fails,
        with the reason, without blocking the queue."""
        while todo:
            cell = todo[0]
            need = _resources(self.spec, self.tasks[cell.task])
            why = self.pool.check(need)
            if why:
                todo.popleft()
                self.results[cell] = CellResult(cell, cell.dir(self.root), "failed", error=why)
                self.emit(SweepEvent("finish", cell, self.results[cell], running=list(self.running.values())))
                continue
            if not self.pool.can_start(need):
                return
            todo.popleft()
            job = RunJob(cell.key, cell.task, cell.tier, cell.agent, str(cell.dir(self.root)), self.job_options, self.run, need)
            self.running[self.pool.submit(job)] = cell
            self.emit(SweepEvent("start", cell, running=list(self.running.values())))

    def _settle_finished(self, todo: deque[Cell], poll_s: float) -> None:
        """Wait up to `poll_s` for runs to end; each ended run is settled (_settle): a cell to
        run again goes back to the front of the queue, any other gets its result."""
        for handle, jr in self.pool.wait(list(self.running), poll_s):
            cell = self.running.pop(handle)
            outcome = _settle(cell, self.root, jr, self.spec.retries, self.crashes)
            if outcome is None:  # retried
                todo.appendleft(cell)
                self.emit(SweepEvent("retry", cell, message=jr.error or "infrastructure fault",
                                     running=list(self.running.values())))
                continue
            self.results[cell] = outcome
            self.emit(SweepEvent("finish", cell, outcome, running=list(self.running.values())))


def _settle(cell: Cell, root: Path, jr: JobResult, retries: int, crashes: dict[Cell, int]) -> CellResult | None:
    """The cell's result after one attempt, or None when it is to be run again."""
    d = cell.dir(root)
    complete, end = read_end_reason(d)
    attempts = past_attempts(cell, root) + 1
    if complete and end not in UNSCORED_END_REASONS:
        return CellResult(cell, d, "done", error=jr.error, end_reason=end, attempts=attempts, wall_s=jr.wall_s,
                          gpus=jr.gpus, worker=jr.worker)
    if complete:  # the run ended on an infrastructure fault
        if past_attempts(cell, root) < retries:
            _archive_attempt(cell, root)
            return None
        return CellResult(cell, d, "infra", error=jr.error, end_reason=end, attempts=attempts, wall_s=jr.wall_s,
                          gpus=jr.gpus)
    # no report: run_one raised or the worker died; a harness fault, retried like one
    crashes[cell] = crashes.get(cell, 0) + 1
    if crashes[cell] <= retries:
        _clean(d)
        return None
    return CellResult(cell, d, "failed", error=jr.error or "no report written", attempts=crashes[cell],
                      wall_s=jr.wall_s)
