"""Where a sweep's runs execute: a local process pool with CPU/GPU slots, or a Ray cluster.

Both take `RunJob`s (one cell of the sweep) and hand back `JobResult`s; the sweep
(runs/sweep.py) decides what to run, retries infrastructure faults and keeps the books.

- `LocalPool(workers, gpus)`: `workers` CPU slots and the GPUs listed in `gpus` (default:
  `CUDA_VISIBLE_DEVICES`, else the devices `nvidia-smi -L` lists). A run that asks for k
  GPUs gets k free ones, exported as `CUDA_VISIBLE_DEVICES` for that run only (the bwrap
  sandbox passes that variable through). A run that asks for no GPU on a GPU machine gets
  `CUDA_VISIBLE_DEVICES=""`, so it cannot grab one another run holds. Worker processes are
  persistent (imports are paid once) and die with the sweep (`PR_SET_PDEATHSIG`), so a
  `kill -9` of the sweep never leaves orphans writing into run directories.
- `RayPool(address, num_cpus)`: each run is one Ray task that requests its CPUs/GPUs as Ray
  resources (Ray sets `CUDA_VISIBLE_DEVICES`); the worker writes the run directory into the
  sweep root, which must be on a filesystem every node shares.

Executors are one kind of the one registry (`EXECUTORS`, docs/architecture.md "One registry"):
a third-party package adds one through the entry-point group `automedbench.executors` (a
factory taking `workers=`, `address=`, `gpus=` and returning an `Executor`).
"""
from __future__ import annotations

import concurrent.futures as cf
import ctypes
import multiprocessing
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Protocol

from ..errors import UserError
from ..plugins import Registry
from .forkserver_guard import LEADER_ENV
from .options import RunOptions


@dataclass(frozen=True)
class Resources:
    cpus: float = 1.0
    gpus: int = 0


class RunFunction(Protocol):
    """Runs one cell and records it in `run_dir` (api.run_one)."""

    def __call__(self, task_id: str, tier: str, agent_name: str, out_dir: Path | str = ...,
                 options: RunOptions | None = ..., *, run_dir: Path | str | None = ...) -> object: ...


@dataclass
class RunJob:
    key: str                      # the cell's name, e.g. task/tier/agent#0
    task: str
    tier: str
    agent: str
    run_dir: str
    options: RunOptions           # how the cell runs (sandbox, judges, data_root, ...)
    # the function that runs one cell, handed in by the caller (api.run_one): the runs layer never
    # imports the API above it (docs/architecture.md, "Layers"); a module-level function, so it
    # pickles by name into worker processes and Ray tasks
    run: RunFunction
    resources: Resources = field(default_factory=Resources)


@dataclass
class JobResult:
    key: str
    run_dir: str
    error: str | None             # None: run_one returned (the run is recorded and scored)
    wall_s: float = 0.0
    gpus: str | None = None       # the CUDA_VISIBLE_DEVICES the run saw
    worker: str = ""              # host:pid of the process that ran it


class ExecutorError(UserError, RuntimeError):
    """An executor cannot be used as asked (Ray not installed, no GPU for a GPU task...)."""


def execute_job(job: RunJob, gpu_ids: list[str] | None) -> JobResult:
    """Run one cell in this process. Never raises: an exception becomes `error`."""
    t0 = time.monotonic()
    old = os.environ.get("CUDA_VISIBLE_DEVICES")
    if gpu_ids is not None:
        os.environ["CUDA_VISIBLE_DEVICES"] = ",".join(gpu_ids)
    seen = os.environ.get("CUDA_VISIBLE_DEVICES")
    worker = f"{socket.gethostname()}:{os.getpid()}"
    try:
        job.run(job.task, job.tier, job.agent, options=job.options, run_dir=job.run_dir)
        return JobResult(job.key, job.run_dir, None, time.monotonic() - t0, seen, worker)
    except Exception as exc:  # one bad cell never stops a sweep (Ctrl-C/SIGTERM do: they propagate)
        return JobResult(job.key, job.run_dir, f"{type(exc).__name__}: {exc}", time.monotonic() - t0, seen, worker)
    finally:
        if gpu_ids is not None:
            if old is None:
                os.environ.pop("CUDA_VISIBLE_DEVICES", None)
            else:
                os.environ["CUDA_VISIBLE_DEVICES"] = old


def _die_with_parent() -> None:
    """Worker initializer: SIGKILL this worker when the sweep process dies (Linux)."""
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        if os.getppid() == 1:  # the parent died before prctl took effect
            os._exit(1)
    except OSError:
        pass
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the sweep's to handle


def detect_gpus() -> list[str]:
    """GPU ids this process may use: CUDA_VISIBLE_DEVICES if set, else nvidia-smi -L."""
    env = os.environ.get("CUDA_VISIBLE_DEVICES")
    if env is not None:
        return [g.strip() for g in env.split(",") if g.strip() and g.strip() != "-1"]
    if shutil.which("nvidia-smi") is None:
        return []
    try:
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    return [str(i) for i, line in enumerate(out.splitlines()) if line.startswith("GPU ")]


# The fork server listens on a Unix socket under $TMPDIR (<tmp>/pymp-XXXXXXXX/listener-XXXXXXXX),
# and a socket path has at most 107 bytes: under a long $TMPDIR (a cluster job's scratch
# folder, a test's temp folder) the server cannot start ("AF_UNIX path too long"). Workers
# are then spawned instead: slower to start, the same runs (docs/sweeps.md "Workers").
_SOCKET_PATH_MAX = 107
_FORKSERVER_SOCKET_SUFFIX = len("/pymp-XXXXXXXX/listener-XXXXXXXX")


def _start_method() -> str:
    fits = len(os.fsencode(tempfile.gettempdir())) + _FORKSERVER_SOCKET_SUFFIX <= _SOCKET_PATH_MAX
    return "forkserver" if fits else "spawn"


GUARD_MODULE = "automedbench.runs.forkserver_guard"


class LocalPool:
    """Persistent worker processes; a run starts only when its CPU and GPU slots are free."""

    name = "local"

    def __init__(self, workers: int = 1, gpus: list[str] | None = None):
        self.cpu_slots = float(max(1, workers))
        self.gpus = list(detect_gpus() if gpus is None else gpus)
        self.free_gpus = list(self.gpus)
        self.cpu_used = 0.0
        self._pool: cf.ProcessPoolExecutor | None = None
        self._held: dict[cf.Future, tuple[float, list[str]]] = {}
        self._jobs: dict[cf.Future, RunJob] = {}

    def _executor(self, job: RunJob) -> cf.ProcessPoolExecutor:
        if self._pool is None:
            # Workers are forked from a fresh single-threaded server process, never from this
            # threaded one (rich's refresh thread), and that server imports the module of the
            # run function once: each worker then starts in ~0.1 s instead of importing the
            # harness again (~1-2 s of CPU each under "spawn"). The server is killed when this
            # process dies, even by SIGKILL (forkserver_guard.py), and its workers die with it
            # (_die_with_parent).
            ctx = multiprocessing.get_context(_start_method())
            if ctx.get_start_method() == "forkserver":
                # the server dies with this process, even by SIGKILL (forkserver_guard.py)
                os.environ[LEADER_ENV] = str(os.getpid())
                ctx.set_forkserver_preload([GUARD_MODULE, job.run.__module__])
            self._pool = cf.ProcessPoolExecutor(max_workers=int(self.cpu_slots), mp_context=ctx,
                                                initializer=_die_with_parent)
        return self._pool

    def check(self, res: Resources) -> str | None:
        """Why a run with `res` can never start here, or None."""
        if res.gpus > len(self.gpus):
            return f"needs {res.gpus} GPU(s) but this machine offers {len(self.gpus)}"
        return None

    def can_start(self, res: Resources) -> bool:
        cpus = min(res.cpus, self.cpu_slots)  # a run asking for more CPUs than exist runs alone
        return self.cpu_used + cpus <= self.cpu_slots + 1e-9 and res.gpus <= len(self.free_gpus)

    def submit(self, job: RunJob) -> cf.Future:
        cpus = min(job.resources.cpus, self.cpu_slots)
        gpu_ids = [self.free_gpus.pop(0) for _ in range(job.resources.gpus)]
        self.cpu_used += cpus
        fut = self._executor(job).submit(execute_job, job, gpu_ids if self.gpus else None)
        # the fork server has started (submit starts it): no later child of this process may take
        # the leader's mark for its own (forkserver_guard.py)
        os.environ.pop(LEADER_ENV, None)
        self._held[fut] = (cpus, gpu_ids)
        self._jobs[fut] = job
        return fut

    def wait(self, handles: list, timeout: float) -> list[tuple[Any, JobResult]]:
        done, _ = cf.wait(handles, timeout=timeout, return_when=cf.FIRST_COMPLETED)
        results = []
        for fut in done:
            cpus, gpu_ids = self._held.pop(fut)
            job = self._jobs.pop(fut)
            self.cpu_used -= cpus
            self.free_gpus.extend(gpu_ids)
            try:
                res = fut.result()
            except Exception as exc:  # the worker process itself died (OOM kill, segfault)
                res = JobResult(job.key, job.run_dir, f"worker process died: {type(exc).__name__}: {exc}")
                self._reset()
            results.append((fut, res))
        return results

    def _reset(self) -> None:
        """A broken pool cannot take new work: replace it (runs still in it are lost and retried)."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    def shutdown(self, kill: bool = False) -> None:
        """kill=True (Ctrl-C): SIGTERM the workers, so their runs close as `interrupted`
        (a restart re-runs them) instead of the sweep waiting for them to finish."""
        if self._pool is None:
            return
        if kill:
            for proc in list(getattr(self._pool, "_processes", {}).values()):
                try:
                    proc.terminate()
                except (OSError, AttributeError):
                    pass
        self._pool.shutdown(wait=True, cancel_futures=True)
        self._pool = None


class InlinePool:
    """One slot, runs in the sweep's own process: no worker start-up, and in-process
    registrations (a test's sandbox backend) apply. What `--workers 1` gets."""

    name = "inline"

    def __init__(self, gpus: list[str] | None = None):
        self.gpus = list(detect_gpus() if gpus is None else gpus)
        self._queue: list[tuple[object, RunJob]] = []

    def check(self, res: Resources) -> str | None:
        if res.gpus > len(self.gpus):
            return f"needs {res.gpus} GPU(s) but this machine offers {len(self.gpus)}"
        return None

    def can_start(self, res: Resources) -> bool:
        return not self._queue

    def submit(self, job: RunJob) -> object:
        handle = object()
        self._queue.append((handle, job))
        return handle

    def wait(self, handles: list, timeout: float) -> list[tuple[Any, JobResult]]:
        if not self._queue:
            return []
        handle, job = self._queue.pop(0)
        ids = self.gpus[:job.resources.gpus] if self.gpus else None
        return [(handle, execute_job(job, ids))]

    def shutdown(self, kill: bool = False) -> None:
        self._queue.clear()


def _ray_execute(job: RunJob) -> JobResult:
    # Ray already set CUDA_VISIBLE_DEVICES for a task that asked for GPUs.
    return execute_job(job, None)


class RayPool:
    """Each run is a Ray task with `num_cpus`/`num_gpus`; results land on the shared sweep root.

    `address=None` starts (or joins, per RAY_ADDRESS) a local Ray; `"auto"` or
    `"ray://host:10001"` joins a cluster. If Ray is already initialised (a test, a notebook)
    that instance is used."""

    name = "ray"

    def __init__(self, address: str | None = None, num_cpus: int | None = None):
        try:
            import ray
        except ImportError as exc:
            raise ExecutorError("the Ray executor needs Ray: pip install 'automedbench[ray]'") from exc
        self.ray = ray
        self._owns = False
        if not ray.is_initialized():
            kw: dict[str, Any] = {"address": address} if address else {"num_cpus": num_cpus}
            ray.init(include_dashboard=False, log_to_driver=False, ignore_reinit_error=True,
                     configure_logging=False, **{k: v for k, v in kw.items() if v is not None})
            self._owns = True
        res = ray.cluster_resources()
        self.cpu_slots = float(res.get("CPU", 1.0))
        self.gpu_slots = int(res.get("GPU", 0))
        self.cpu_used = 0.0
        self.gpu_used = 0
        self._remote = ray.remote(_ray_execute)
        self._held: dict[Any, tuple[float, int, RunJob]] = {}

    def check(self, res: Resources) -> str | None:
        if res.gpus > self.gpu_slots:
            return f"needs {res.gpus} GPU(s) but the Ray cluster offers {self.gpu_slots}"
        return None

    def can_start(self, res: Resources) -> bool:
        # Keep no more tasks in flight than the cluster can run, so "running" means running.
        cpus = min(res.cpus, self.cpu_slots)
        return self.cpu_used + cpus <= self.cpu_slots + 1e-9 and self.gpu_used + res.gpus <= self.gpu_slots

    def submit(self, job: RunJob) -> Any:   # a Ray ObjectRef
        cpus = min(job.resources.cpus, self.cpu_slots)
        ref = self._remote.options(num_cpus=cpus, num_gpus=job.resources.gpus, max_retries=0).remote(job)
        self.cpu_used += cpus
        self.gpu_used += job.resources.gpus
        self._held[ref] = (cpus, job.resources.gpus, job)
        return ref

    def wait(self, handles: list, timeout: float) -> list[tuple[Any, JobResult]]:
        ready, _ = self.ray.wait(handles, num_returns=1, timeout=timeout)
        results = []
        for ref in ready:
            cpus, gpus, job = self._held.pop(ref)
            self.cpu_used -= cpus
            self.gpu_used -= gpus
            try:
                res = self.ray.get(ref)
            except Exception as exc:  # the Ray worker or its node died
                res = JobResult(job.key, job.run_dir, f"ray task failed: {type(exc).__name__}: {str(exc)[:300]}")
            results.append((ref, res))
        return results

    def shutdown(self, kill: bool = False) -> None:
        for ref in list(self._held):
            try:
                self.ray.cancel(ref, force=True)
            except Exception:
                pass
        if self._owns:
            self.ray.shutdown()


class Executor(Protocol):
    """What the sweep drives (runs/sweep.py): slots, submission, completion, shutdown."""
    name: str

    def check(self, res: Resources) -> str | None: ...

    def can_start(self, res: Resources) -> bool: ...

    def submit(self, job: RunJob) -> Any: ...

    def wait(self, handles: list[Any], timeout: float) -> list[tuple[Any, JobResult]]: ...

    def shutdown(self, kill: bool = False) -> None: ...


ExecutorFactory = Callable[..., Executor]   # (*, workers: int, address: str | None, gpus: list[str] | None)


def _executor_factory(obj: Any, where: str) -> ExecutorFactory:
    if not callable(obj):
        raise ExecutorError(f"{where}: not an executor factory (a callable taking workers=, address=, gpus=)")
    return obj


EXECUTORS: Registry[ExecutorFactory] = Registry("executor", group="automedbench.executors",
                                                validate=_executor_factory, error=ExecutorError)


@EXECUTORS.register("local")
def local_executor(*, workers: int = 1, address: str | None = None, gpus: list[str] | None = None) -> Executor:
    """Worker processes on this machine with CPU and GPU slots (one worker: the sweep's own process)."""
    return InlinePool(gpus) if workers <= 1 else LocalPool(workers, gpus)


@EXECUTORS.register("ray")
def ray_executor(*, workers: int = 1, address: str | None = None, gpus: list[str] | None = None) -> Executor:
    """A Ray cluster, one Ray task per run (the [ray] extra; --address joins a running cluster)."""
    return RayPool(address, num_cpus=workers if address is None else None)


def make_executor(kind: str, *, workers: int = 1, address: str | None = None,
                  gpus: list[str] | None = None) -> Executor:
    """The executor registered as `kind`; an unknown name is an ExecutorError naming the known ones."""
    return EXECUTORS.get(kind)(workers=workers, address=address, gpus=gpus)


def executor_names() -> list[str]:
    return EXECUTORS.names()
