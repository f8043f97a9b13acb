"""The judge's experiments, run at the close of a run (docs/judge.md "Experiments").

Each call that read an output unit an earlier call had left is replayed in the run's own sandbox
backend, network off, on a throwaway copy of the workspace as it stood before the call (the
files kept by `runs/blobs.py`): once unchanged (the control), once with the unit files re-encoded
(benign), and once per malign mutant the track declares (tracks/<name>/mutants.py). What each
replay exited with and printed is compared in `scoring/experiments.py`; the outcomes are saved in
`evidence/experiments.json`, which the judge reads (re-judging never replays unless asked).

Experiments are the harness's work: a failure here is recorded in the file (`error`) and leaves
the judge on its recorded facts; it never ends or charges the run.
"""
from __future__ import annotations

import functools
import hashlib
import math
import os
import shutil
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import one_line
from ..run_files import RunFiles
from ..runs.blobs import BlobStore, WorkspaceState
from ..runs.record import RunFileError, RunRecord
from ..sandbox import SandboxSpec, open_sandbox
from ..sandbox.base import ExecResult, Sandbox
from ..sandbox.privilege import chown_tree
from ..sandbox.stage import make_stage
from ..sandbox.bwrap.warm import WarmCapable, WarmPython, shell_python, warm_enabled, warm_imports
from ..scoring.experiments import (CallExperiment, Comparison, Consistency, Replay, RunExperiments, candidates,
                                   content_alias, executions, input_candidates, save_experiments, submitted_counterpart,
                                   unit_file)
from ..tasks import Task
from ..tracks.mutants import BENIGN, INPUT_MUTANTS, Mutant, UnitFiles
from ..tracks.content_facts import suffix_of
from ..tracks.same_output import same_output

CONTENT, ANY_ASPECT = frozenset({"content"}), frozenset({"content", "form"})

MAX_CALLS = 8                  # calls replayed per run (the first ones that read an output)
# the replays of one run stop after this many seconds, or the run's own seconds in the sandbox if
# more: a run of slow looks cannot hold a sweep for hours (the rest fall back to recorded facts)
MIN_BUDGET_S = 60.0
OUT_OF_TIME = "the experiments' time budget ran out before this call was decided"
MIN_TIMEOUT_S, MAX_TIMEOUT_S = 20.0, 120.0
# "0": no experiments (the judge falls back to its recorded facts); "all": every malign mutant
# is replayed (the default stops at the first one a look catches: that decides the look)
SWITCH = "AUTOMEDBENCH_EXPERIMENTS"


def experiments_enabled() -> bool:
    return os.environ.get(SWITCH, "1") != "0"


def exhaustive_by_default() -> bool:
    return os.environ.get(SWITCH, "1") == "all"


def run_experiments(run_dir: Path | str, task: Task, backend: str, public_dir: Path,
                    exhaustive: bool | None = None, budget_s: float | None = None) -> RunExperiments:
    """Replay the run's looks against mutants and save the outcomes; never raises for a fault of
    ours (the file then says what went wrong). `exhaustive`: replay every malign mutant, not
    only up to the first one a look catches (default: $AUTOMEDBENCH_EXPERIMENTS=all); `budget_s`:
    the replays' time budget (default: MIN_BUDGET_S, or the run's own sandbox seconds if more)."""
    files = RunFiles(run_dir)
    t0 = time.monotonic()
    every = exhaustive_by_default() if exhaustive is None else exhaustive
    try:
        result = _experiments(files, task, backend, public_dir, every, budget_s)
    except Exception as exc:  # noqa: BLE001 -- a harness fault: recorded, the judge falls back
        result = RunExperiments(backend=backend, error=f"{type(exc).__name__}: {one_line(exc)}")
    result.cost_s = round(time.monotonic() - t0, 3)
    save_experiments(files.dir, result)
    return result


def _experiments(files: RunFiles, task: Task, backend: str, public_dir: Path, exhaustive: bool,
                 budget_s: float | None) -> RunExperiments:
    record = RunRecord(files.dir)   # docs/run_record.md "Reading a run folder"
    trace = record.trace
    start = next((e for e in trace if e.type == "run_start"), None)
    inside = str(((start.data or {}) if start else {}).get("workspace_dir") or "/workspace").rstrip("/")
    layout = task.track_impl.submission(task.options)
    contract = set(layout.file_names)
    execs = executions(trace)
    out = RunExperiments(backend=backend, sandbox_s=round(sum(float(e.duration_s or 0) for _, _, e in execs), 3))
    deadline = time.monotonic() + (max(MIN_BUDGET_S, out.sandbox_s) if budget_s is None else budget_s)
    meta = record.meta
    if meta is None:
        raise RunFileError(files.meta, "no such file")
    pilot_units = max(1, math.floor(layout.pilot_max_fraction * max(1, len(meta.case_ids))))
    store = BlobStore(files.blobs, files.workspace, inside)
    effects = [(i, fx) for i, fx, _ in execs]
    out.renamed = renamed_units(effects, store, contract, inside, layout.kind == "cohort")
    todo = candidates(trace, contract, inside, MAX_CALLS, pilot_units, out.renamed)
    data_inside = str(((start.data or {}) if start else {}).get("data_dir") or "/data/public").rstrip("/")
    input_todo = input_candidates(trace, contract, inside, data_inside, out.renamed)
    if not todo and not input_todo:
        return out
    if meta.run.sandbox == "local":
        why = "the local backend shares the host's paths: no throwaway copy to replay in"
        out.calls = [CallExperiment(call_index=i, decidable=False, mutated=m, method_files=f, why=why) for i, m, f in todo]
        out.inputs = [CallExperiment(call_index=i, decidable=False, mutated=m, why=why) for i, m in input_todo]
        return out
    malign = task.track_impl.mutants(task.options)
    events = {i: e for i, _, e in execs}
    codes = {int(e.call_index): (e.code, e.language or "python") for e in trace
             if e.type == "tool_call" and e.call_index is not None}
    # named after this process, and swept by the next run's experiments if a killed harness left
    # it (sandbox/stage.py): it holds a copy of the workspace and, for input checks, of the inputs
    tmp = make_stage("amb-exp-")
    try:
        ws = tmp / "workspace"
        ws.mkdir()
        # one sandbox for every replay; with input checks to replay it reads a copy of the inputs
        # (hard links, the checked files copied) that the input mutants may edit
        public, too_large = _replay_inputs(public_dir, tmp, data_inside, input_todo)
        sandbox = _open_replay_sandbox(backend, public, ws, inside)
        runner = _Runner(sandbox, *_python_sources([*(t[0] for t in todo), *(t[0] for t in input_todo)], codes,
                                                   effects, store, inside))
        try:
            for index, mutated, method_files in todo:
                out.calls.append(runner.decided(functools.partial(
                    _replay_call, store=store, state=WorkspaceState.before(effects, index), ws=ws,
                    event=events[index], call=codes.get(index), mutated=mutated, method_files=method_files,
                    contract=contract, malign=malign, exhaustive=exhaustive, renamed=out.renamed,
                    deadline=deadline)))
            out.inputs = [CallExperiment(call_index=i, decidable=False, mutated=m, why=too_large)
                          for i, m in input_todo] if too_large else [
                runner.decided(functools.partial(
                    _replay_input_call, store=store, state=WorkspaceState.before(effects, i), ws=ws, event=events[i],
                    call=codes.get(i), inputs=m, copies={p: public / p[len(data_inside) + 1:] for p in m},
                    restore=functools.partial(_restore, public_dir, public, data_inside, m), exhaustive=exhaustive,
                    deadline=deadline))
                for i, m in input_todo]
        finally:
            runner.close()
            sandbox.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    out.consistency = _consistency(out.calls, effects, store, contract, inside, layout.kind == "cohort", out.renamed)
    return out


MAX_CONTENT_COMPARISONS = 400     # decoded comparisons per run when looking for renamed unit files


def renamed_units(effects: list[tuple[int, dict[str, Any] | None]], store: BlobStore, contract: set[str],
                  inside: str, cohort: bool) -> dict[str, str]:
    """Units by content (docs/judge.md "Experiments"): a workspace file the contract does not name
    whose decoded content is what was submitted for a case (its file in outputs/, or the cohort
    file's rows) stands for that case's file, wherever it lies and whatever its name. Returns
    path -> alias (scoring/experiments.py `content_alias`)."""
    final = WorkspaceState.before(effects, 1 << 62).files
    submitted = {p: sha for p, sha in final.items() if p.startswith(f"{inside}/outputs/") and sha and store.has(sha)
                 and p.rsplit("/", 1)[-1] in contract}
    suffix = {name: suffix_of(Path(name)) for name in contract}
    found: dict[str, str] = {}
    budget = MAX_CONTENT_COMPARISONS
    for _, fx in effects:
        for w in (fx or {}).get("written") or []:
            path, sha = str(w.get("path", "")), w.get("sha256")
            if (not sha or path in found or unit_file(path, contract, inside) or w.get("op") == "transient"
                    or not store.has(sha) or path.startswith(f"{inside}/plan/")):
                continue
            for sub, sub_sha in submitted.items():
                name = sub.rsplit("/", 1)[-1]
                if suffix_of(Path(path)) != suffix[name] or budget <= 0:
                    continue
                budget -= 1
                if sha == sub_sha or same_output(store.path(sha), store.path(sub_sha), name):
                    case = None if cohort else sub[len(f"{inside}/outputs/"):].split("/", 1)[0]
                    found[path] = content_alias(path, case, name)
                    break
    return found


def _consistency(calls: list[CallExperiment], effects: list[tuple[int, dict[str, Any] | None]], store: BlobStore,
                 contract: set[str], inside: str, cohort: bool, renamed: dict[str, str]) -> list[Consistency]:
    """For every file an inspecting look read: does the submitted file of the same case hold
    what it saw (tracks/same_output.py)?"""
    final = WorkspaceState.before(effects, 1 << 62)
    inspecting = [c for c in calls if c.inspected]
    seen_by = {c.call_index: WorkspaceState.before(effects, c.call_index).files for c in inspecting}
    looked_final = {(p, sha) for c in inspecting for p in c.mutated if (sha := seen_by[c.call_index].get(p))}
    out = []
    for c in inspecting:
        seen = seen_by[c.call_index]
        for p in c.mutated:
            sub = submitted_counterpart(renamed.get(p, p), contract, inside, cohort)
            read, last = seen.get(p), final.files.get(sub)
            entry = Consistency(call_index=c.call_index, inspected=p, final=sub if last else None,
                                final_inspected=(sub, last) in looked_final)
            if last and read:
                entry.same = True if read == last else (
                    same_output(store.path(read), store.path(last), renamed.get(p, p).rsplit("/", 1)[-1])
                    if store.has(read) and store.has(last) else None)
            out.append(entry)
    return out


def _python_sources(indices: list[int], codes: dict[int, tuple[str | None, str]],
                    effects: list[tuple[int, dict[str, Any] | None]], store: BlobStore,
                    inside: str) -> tuple[list[str], list[str]]:
    """The python the replayed calls ran, whose imports the warm interpreter preloads: a python
    call's code, a bash call's `python -c` code (sandbox/bwrap/warm.py `shell_python`), and every
    workspace `.py` file the call read (its effects: the script a command line or `subprocess`
    started, the modules it imported), as the call read it. A python call whose reads were not
    recorded comes second: the python among its string literals counts too (a script it writes
    and runs)."""
    sources: list[str] = []
    unknown: list[str] = []
    recorded = dict(effects)
    for i in indices:
        code, language = codes.get(i, (None, ""))
        if not code:
            continue
        fx = recorded.get(i)
        command = shell_python(code) if language == "bash" else None
        if language == "python":
            (sources if fx else unknown).append(code)
        elif command is None:        # a bash call run fresh whatever it starts
            continue
        elif command[0][1] == "-c":
            sources.append(command[0][2])
        if not fx:
            continue
        written = {str(w.get("path")): w.get("sha256") for w in fx.get("written") or []}
        before: dict[str, str | None] | None = None
        for path in [*(fx.get("read") or []), *(fx.get("read_back") or [])]:
            if not str(path).endswith(".py") or not str(path).startswith(inside + "/"):
                continue
            if path not in written and before is None:
                before = WorkspaceState.before(effects, i).files
            sha = written[path] if path in written else (before or {}).get(path)
            if sha and store.has(sha):
                try:
                    sources.append(store.path(sha).read_text(errors="replace"))
                except OSError:
                    pass
    return sources, unknown


class _Runner:
    """Runs the replays' code: python, and bash that only starts python on a script, in forks of
    a prewarmed interpreter where the backend has one (sandbox/bwrap/warm.py), else (and for any
    other bash) a fresh process per replay as the run had. A call
    replayed warm that its control does not reproduce is replayed again fresh, so the warm
    interpreter never changes what is decided, only what it costs (docs/judge.md "What replays
    cost")."""

    def __init__(self, sandbox: Sandbox, python_codes: list[str], unknown: list[str] | None = None):
        self.sandbox = sandbox
        self.warm: WarmPython | None = (sandbox.warm_python(warm_imports(python_codes, unknown or []))
                                        if (python_codes or unknown) and isinstance(sandbox, WarmCapable)
                                        and warm_enabled() else None)
        self._use_warm = False
        if self.warm is not None:
            self.warm.start()

    def execute(self, language: str, code: str, timeout_s: float) -> ExecResult:
        if self._use_warm and self.warm is not None:
            command = shell_python(code) if language == "bash" else None
            result = (self.warm.run(code, timeout_s) if language == "python"
                      else self.warm.run_argv(*command, timeout_s) if command is not None else None)
            if result is not None:
                return result
        return self.sandbox.execute(language, code, timeout_s=timeout_s)

    def decided(self, replay: Callable[[_Runner], CallExperiment]) -> CallExperiment:
        if self.warm is None or self.warm.broken:
            return replay(self)
        self._use_warm, runs = True, self.warm.runs
        try:
            result = replay(self)
        finally:
            self._use_warm = False
        if self.warm.runs == runs:      # nothing ran warm (a bash call, nothing to replay)
            return result
        if result.decidable or result.why == OUT_OF_TIME:
            result.interpreter = "warm"
            return result
        return replay(self)

    def close(self) -> None:
        if self.warm is not None:
            self.warm.close()


def _open_replay_sandbox(backend: str, public_dir: Path, ws: Path, inside: str) -> Sandbox:
    spec = SandboxSpec(public_dir=public_dir, workspace=ws, network=False, record_effects=False, gpu=False)
    sandbox = open_sandbox(backend, spec)
    if sandbox.workspace_dir.rstrip("/") != inside:
        sandbox.close()
        raise RuntimeError(f"the replay sandbox's workspace is {sandbox.workspace_dir}, the run's {inside}")
    return sandbox


MAX_PUBLIC_COPY_BYTES = 512 * 1024 * 1024


def _replay_inputs(public_dir: Path, tmp: Path, data_inside: str, todo: list[tuple[int, list[str]]]) -> tuple[Path, str]:
    """The inputs the replays read: the dataset itself (read-only) when no input check is to be
    replayed, else a copy under `tmp` the input mutants may edit; with the reason when the data is
    too large to copy (the input checks are then left to the recorded facts)."""
    if not todo:
        return public_dir, ""
    size = sum(p.stat().st_size for p in public_dir.rglob("*") if p.is_file())
    if size > MAX_PUBLIC_COPY_BYTES:
        return public_dir, f"the public data ({size / 1e6:.0f} MB) is too large to copy for a replay"
    public = tmp / "public"
    _link_tree(public_dir, public, {p[len(data_inside) + 1:] for _, inputs in todo for p in inputs})
    return public, ""


def _link_tree(src: Path, dest: Path, own: set[str]) -> None:
    """`src` laid down at `dest`: hard links where the filesystem allows (nothing copied), but a
    file of its own for each path in `own` (relative), which the mutants edit in place and which
    must never be a link to the dataset itself."""
    def link(a: str, b: str) -> None:
        try:
            os.link(a, b)
        except OSError:
            shutil.copy2(a, b)
    shutil.copytree(src, dest, symlinks=False, copy_function=link)
    for rel in own:
        target = dest / rel
        if target.is_file():
            target.unlink()
            shutil.copyfile(src / rel, target)


def _restore(public_dir: Path, public: Path, data_inside: str, inputs: list[str]) -> None:
    """The copy's inputs back as the dataset has them."""
    for p in inputs:
        src = public_dir / p[len(data_inside) + 1:]
        if src.is_file():
            shutil.copyfile(src, public / p[len(data_inside) + 1:])


def _recorded(event: Any) -> tuple[Replay, float]:
    """The recorded execution (the replays' baseline) and the time limit of each replay of it."""
    timeout = min(MAX_TIMEOUT_S, max(MIN_TIMEOUT_S, 3 * float(event.duration_s or 0) + 5))
    return Replay(exit_code=int(event.exit_code if event.exit_code is not None else -1), stdout=event.stdout or "",
                  stderr=event.stderr or "", timed_out=bool(event.timed_out)), timeout


def _replay_input_call(sandbox: _Runner, store: BlobStore, state: WorkspaceState, ws: Path, event: Any,
                       call: tuple[str | None, str] | None, inputs: list[str], copies: dict[str, Path],
                       restore: Callable[[], None], exhaustive: bool, deadline: float) -> CallExperiment:
    t0 = time.monotonic()
    code, language = call or (None, "python")
    exp = CallExperiment(call_index=int(event.call_index), decidable=False, mutated=inputs)
    if code is None:
        exp.why = "its code is not in the trace"
        return exp
    recorded, timeout = _recorded(event)
    pinned = time.time_ns()      # every replay's files dated alike (_pin_times)
    files = {p: copies[p] for p in inputs}     # input mutants edit each file whatever its name

    def run(mutant: Mutant | None) -> Replay | None:
        restore()
        _reset(store, state, ws)
        if mutant is not None and not _apply(mutant, [files]):
            return None
        _pin_times(ws, pinned)
        return _replay(sandbox.execute(language, code, timeout_s=timeout))

    return _compare(cmp=Comparison(exp.call_index, recorded, inputs, []), run=run, malign=INPUT_MUTANTS,
                    exhaustive=exhaustive, t0=t0, deadline=deadline, enough=ANY_ASPECT)


def _compare(cmp: Comparison, run: Callable[[Mutant | None], Replay | None], malign: list[Mutant],
             exhaustive: bool, t0: float, deadline: float, enough: frozenset[str] = CONTENT) -> CallExperiment:
    """The replays of one call, in the order that decides it soonest: the first benign mutant (or
    a plain control where it has nothing to change) shows the call reproduces; the malign ones
    follow; the other benign mutants run once a malign one seems caught, to tell a value that
    follows the bytes (a size, a hash) from one that follows the content, and the kill is judged
    again. The default stops at the first malign mutant of an aspect in `enough` caught (a look
    needs a content mutant: a form kill alone, the grid or the ids, goes on to them; an input
    check is decided by either); `exhaustive` replays them all. Past `deadline` no replay starts:
    the call is left undecided."""
    def timed(mutant: Mutant | None) -> Replay | None:
        if time.monotonic() > deadline:
            raise TimeoutError(OUT_OF_TIME)
        return run(mutant)
    try:
        return _compare_in_order(cmp, timed, malign, exhaustive, t0, enough)
    except TimeoutError as exc:
        cmp.give_up(str(exc))
        return cmp.result(time.monotonic() - t0)


def _compare_in_order(cmp: Comparison, run: Callable[[Mutant | None], Replay | None], malign: list[Mutant],
                      exhaustive: bool, t0: float, enough: frozenset[str]) -> CallExperiment:
    first, *later = BENIGN
    out = run(first)
    cmp.same_content(first.name, out)
    if out is None:
        cmp.same_content("control", run(None), benign=False)
    if exhaustive:
        for b in later:
            cmp.same_content(b.name, run(b))
        later = []
    for m in malign:
        if not cmp.decidable:
            break
        cmp.malign(m.name, m.description, run(m), m.aspect)
        if cmp.killed_any and later:
            for b in later:
                cmp.same_content(b.name, run(b))
            later = []
        if cmp.killed(enough) and not exhaustive:
            break
    return cmp.result(time.monotonic() - t0)


def _replay_call(sandbox: _Runner, store: BlobStore, state: WorkspaceState, ws: Path, event: Any,
                 call: tuple[str | None, str] | None, mutated: list[str], method_files: list[str], contract: set[str],
                 malign: list[Mutant], exhaustive: bool, renamed: dict[str, str], deadline: float) -> CallExperiment:
    t0 = time.monotonic()
    exp = CallExperiment(call_index=int(event.call_index), decidable=False, mutated=mutated, method_files=method_files)
    # what was not kept, known from the state alone: each replay lays the workspace down itself
    missing = set(state.missing(store))
    lost = [p for p in mutated if p in missing]
    if lost:
        exp.why = f"the bytes it read were not kept ({lost[0]})"
        return exp
    code, language = call or (None, "python")
    if code is None:
        exp.why = "its code is not in the trace"
        return exp
    recorded, timeout = _recorded(event)
    pinned = time.time_ns()      # every replay's files dated alike (_pin_times)

    def run(mutant: Mutant | None) -> Replay | None:
        _reset(store, state, ws)
        if mutant is not None and not _apply(mutant, _units(mutated, store, ws, contract, renamed)):
            return None
        _pin_times(ws, pinned)
        return _replay(sandbox.execute(language, code, timeout_s=timeout))

    # the recorded call is the baseline (scoring/experiments.py Comparison)
    return _compare(Comparison(exp.call_index, recorded, mutated, method_files), run, malign, exhaustive, t0,
                    deadline)


def _reset(store: BlobStore, state: WorkspaceState, ws: Path) -> list[str]:
    """Empty the throwaway workspace and lay the files down as they stood before the call,
    owned as the workspace is (a backend that runs the agent under its own uid handed the
    folder to it when it opened), as the agent's own files were: a replayed call may then
    rewrite a file or write into a folder that an earlier call made."""
    for child in ws.iterdir():
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child, ignore_errors=True)
        else:
            child.unlink(missing_ok=True)
    missing = state.materialise(store, ws)
    owner = ws.stat().st_uid
    if owner != os.geteuid():
        chown_tree(ws, owner)
    return missing


def _pin_times(ws: Path, ns: int) -> None:
    """Date every file and folder of the throwaway workspace alike before a replay: a look that
    prints times (`ls -l`) must not differ between replays by the minute each ran in, which read
    as a broken output caught (docs/judge.md "Dated alike")."""
    for dirpath, dirnames, filenames in os.walk(ws):
        for name in (*dirnames, *filenames):
            try:
                os.utime(os.path.join(dirpath, name), ns=(ns, ns), follow_symlinks=False)
            except OSError:
                pass


def _units(mutated: list[str], store: BlobStore, ws: Path, contract: set[str],
           renamed: dict[str, str]) -> list[UnitFiles]:
    """The replaced files grouped by unit (a case folder's files by their names; a cohort file or
    a file of its own alone; a renamed unit file under the contract's name it stands for), as
    host paths in the throwaway workspace."""
    groups: dict[str, UnitFiles] = {}
    for inside in mutated:
        rel = inside[len(store.inside) + 1:]
        alias = renamed.get(inside, inside)[len(store.inside) + 1:]
        name = alias.rsplit("/", 1)[-1]
        unit = alias.rsplit("/", 1)[0] if name in contract and "/" in alias else alias
        groups.setdefault(unit, {})[name] = ws / rel
    return list(groups.values())


def _apply(mutant: Mutant, units: list[UnitFiles]) -> bool:
    changed = False
    for files in units:
        changed = MEMO.apply(mutant, files) or changed
    return changed


def _apply_one(mutant: Mutant, files: UnitFiles) -> bool:
    try:
        return mutant.apply(files)
    except Exception:  # noqa: BLE001 -- a file the mutant cannot read (the agent's bad output) stays as it was
        return False


class _Made:
    """What a mutant left of the files it was given: each file it touched, its bytes (None:
    removed) and whether it was written as a new file (another inode: owned as the harness's new
    files are); and what the mutant answered."""

    def __init__(self, mutant: Mutant, changed: bool, files: dict[str, tuple[bytes | None, bool]]):
        self.mutant, self.changed, self.files = mutant, changed, files
        self.size = sum(len(data or b"") for data, _ in files.values())

    def lay_down(self, files: UnitFiles) -> None:
        for name, (data, new_file) in self.files.items():    # the files it touched
            path = files[name]
            if data is None or new_file:
                path.unlink(missing_ok=True)
            if data is not None:
                path.write_bytes(data)


class MutantMemo:
    """The files each mutant made, by the mutant and the names and bytes it was given (docs/judge.md
    "What replays cost"). A mutant is a function of its files' names and bytes alone (tracks/mutants.py:
    no clock, no randomness, no other file), so the same mutant on the same bytes is applied once
    and laid down from memory after: the benign and input mutants every run shares (the runs of a
    sweep or a benchmark on one task read the same inputs), a call replayed again fresh, two looks
    at the same pilot output. Kept per process, least recently used first out, at most `max_bytes`
    and `max_entries`."""

    def __init__(self, max_bytes: int, max_entries: int = 1024) -> None:
        self.max_bytes, self.max_entries = max_bytes, max_entries
        self.size = 0
        self.hits = 0
        self.entries: OrderedDict[tuple[int, tuple[tuple[str, str, str], ...]], _Made] = OrderedDict()
        self.lock = threading.Lock()      # runs closed in threads of one process share it

    def apply(self, mutant: Mutant, files: UnitFiles) -> bool:
        try:
            given = {name: (path.stat().st_ino, hashlib.sha256(path.read_bytes()).hexdigest())
                     for name, path in files.items()}
        except OSError:
            return _apply_one(mutant, files)
        key = (id(mutant), tuple(sorted((name, files[name].name, sha) for name, (_, sha) in given.items())))
        with self.lock:
            made = self.entries.get(key)
            if made is not None:
                self.entries.move_to_end(key)
        if made is not None and made.mutant is mutant:    # the entry holds the mutant: its id is its own
            try:
                made.lay_down(files)
            except OSError:
                return False
            self.hits += 1
            return made.changed
        changed = _apply_one(mutant, files)
        try:
            after: dict[str, tuple[bytes | None, bool]] = {
                name: (path.read_bytes(), path.stat().st_ino != given[name][0]) if path.is_file() else (None, False)
                for name, path in files.items()}
        except OSError:
            return changed
        after = {name: (data, new_file) for name, (data, new_file) in after.items()   # the files it touched
                 if data is None or new_file or hashlib.sha256(data).hexdigest() != given[name][1]}
        self._keep(key, _Made(mutant, changed, after))
        return changed

    def _keep(self, key: tuple[int, tuple[tuple[str, str, str], ...]], made: _Made) -> None:
        if made.size > self.max_bytes // 4:
            return
        with self.lock:
            old = self.entries.pop(key, None)
            self.size -= old.size if old is not None else 0
            while self.entries and (self.size + made.size > self.max_bytes or len(self.entries) >= self.max_entries):
                self.size -= self.entries.popitem(last=False)[1].size
            self.entries[key] = made
            self.size += made.size


MEMO_BYTES = 64 * 1024 * 1024
MEMO = MutantMemo(MEMO_BYTES)


def _replay(result: ExecResult) -> Replay:
    return Replay(exit_code=result.exit_code, stdout=result.stdout, stderr=result.stderr, timed_out=result.timed_out)
