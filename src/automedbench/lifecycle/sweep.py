"""The sweep scheduler: every cell of a SweepSpec (runs/sweep.py: spec, cells, lock, the state
of each cell on disk) run through this package's `run_one`, on an executor (runs/executors.py),
crash-safe and resumable. It sits in the lifecycle package because it calls the lifecycle:
the user-error checks (`check_sweep`) and the run itself (`run_one`, handed to the executor by
name so it pickles into worker processes and Ray tasks)."""
from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Callable, Protocol

from ..runs.executors import JobResult, Resources, RunJob, make_executor
from ..runs.models import UNSCORED_END_REASONS
from ..runs.preflight import check_endpoints, check_gpus, check_requirements, check_scripted_methods
from ..runs.sweep import (
    Cell,
    CellResult,
    RootLock,
    SweepEvent,
    SUPERSEDED_DIR,
    SweepSpec,
    archive_attempt,
    cell_resources,
    check_lock,
    classify,
    clean_cell,
    expand_cells,
    past_attempts,
    read_end_reason,
    superseded,
)
from ..sandbox.runtime import runtime_package_names
from ..tasks import Task, get_task
from .prepare import check_sweep, scripted_agent_names
from .run import run_one


def validate(spec: SweepSpec) -> dict[str, Task]:
    """User errors before any run starts: check_sweep (prepare_run for every agent, task and
    tier: unknown task/tier/agent/judge/backend, a missing API key, unstaged official data),
    then the impossible cells are refused, named (runs/preflight.py)."""
    cells = expand_cells(spec)

    def distinct(values: Iterable[str]) -> list[str]:
        return list(dict.fromkeys(values))
    check_sweep(distinct(c.task for c in cells), distinct(c.tier for c in cells), distinct(c.agent for c in cells),
                 spec.options)
    tasks = {t: get_task(t, spec.options.tasks_dir_paths) for t in sorted({c.task for c in cells})}
    check_scripted_methods(cells, tasks)            # impossible cells: refused, named (runs/preflight.py)
    check_requirements(cells, tasks, spec.options.network, spec.options.sandbox,
                       have=runtime_package_names(), scripted=scripted_agent_names())
    return tasks


def run_sweep(spec: SweepSpec, root: Path | str, *, workers: int | None = None, executor: str | None = None,
              address: str | None = None, force: bool = False, resume: bool = True, gpus: list[str] | None = None,
              on_event: Callable[[SweepEvent], None] | None = None, poll_s: float = 0.5) -> list[CellResult]:
    """Run every cell of `spec` under `root` (see module doc). Returns one CellResult per cell,
    in matrix order. Raises only for user errors (SweepConfigError, unknown task/agent...)."""
    root = Path(root)
    tasks = validate(spec)
    scripted = scripted_agent_names()
    cells = expand_cells(spec)
    root.mkdir(parents=True, exist_ok=True)
    emit = on_event or (lambda ev: None)
    with RootLock(root):
        # endpoint configuration errors stop the sweep before the lock is written, so a fixed
        # base_url or model name is not "a changed configuration" of a root that never ran
        pending = [c for c in cells if not resume or classify(c, root, spec.retries)[0] not in ("finished", "infra_final")]
        check_endpoints([c.agent for c in pending], spec.options.agent_config_paths, scripted)
        locked = check_lock(root, spec, force=force, scripted=scripted)
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
                check_gpus(todo, lambda c: cell_resources(spec, tasks[c.task]), pool.check)
            _Scheduler(pool, root, spec, tasks, emit, results).drain(todo, poll_s)
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
        if state == "finished" and superseded(cell, root, locked):
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
            archive_attempt(cell, root)
        elif state != "new":
            clean_cell(cell.dir(root))
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

    def __init__(self, pool: _Slots, root: Path, spec: SweepSpec, tasks: dict[str, Task],
                 emit: Callable[[SweepEvent], None], results: dict[Cell, CellResult]) -> None:
        self.pool, self.root, self.spec, self.tasks = pool, root, spec, tasks
        self.emit, self.results = emit, results
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
            need = cell_resources(self.spec, self.tasks[cell.task])
            why = self.pool.check(need)
            if why:
                todo.popleft()
                self.results[cell] = CellResult(cell, cell.dir(self.root), "failed", error=why)
                self.emit(SweepEvent("finish", cell, self.results[cell], running=list(self.running.values())))
                continue
            if not self.pool.can_start(need):
                return
            todo.popleft()
            job = RunJob(cell.key, cell.task, cell.tier, cell.agent, str(cell.dir(self.root)), self.job_options, run_one, need)
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
            archive_attempt(cell, root)
            return None
        return CellResult(cell, d, "infra", error=jr.error, end_reason=end, attempts=attempts, wall_s=jr.wall_s,
                          gpus=jr.gpus)
    # no report: run_one raised or the worker died; a harness fault, retried like one
    crashes[cell] = crashes.get(cell, 0) + 1
    if crashes[cell] <= retries:
        clean_cell(d)
        return None
    return CellResult(cell, d, "failed", error=jr.error or "no report written", attempts=crashes[cell],
                      wall_s=jr.wall_s)
