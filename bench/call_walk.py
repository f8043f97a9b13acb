"""The call-graph walk of one run, measured on the real calls (docs/architecture.md "The walk").

    python bench/call_walk.py [--task TASK] [--agent AGENT] [--sandbox BACKEND] [--data DIR]

Runs `api.run_one` on a task with a scripted agent (the demo dataset is staged into a temporary
folder unless --data names a data root) and then `api.score` on the run folder it wrote, each
under `sys.settrace`, and reports for each of the two walks:

- the path: every entry into a function of the engine room (`PATH_MODULES`: the API, the
  lifecycle, score_run) and every function such a function calls directly, in call order;
- functions of the path entered more than once, against `REPEATS` (the ones that are entered
  once per phase or per record on purpose, each with its reason);
- stays: consecutive entries of the path in one file merged into one stay, and how many files;
- climbs: calls on the path from a module of a lower layer into one of a higher layer (the
  layers of `[tool.importlinter]`), which only a handed-in callable can make.

`walk()` is what tests/test_call_walk.py asserts on.
"""
from __future__ import annotations

import argparse
import functools
import importlib
import importlib.util
import inspect
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
PKG = "automedbench"
# the engine room whose calls make the path
PATH_MODULES = ("automedbench.api", "automedbench.lifecycle", "automedbench.scoring.score_run")

# functions of the path entered more than once on purpose (docs/architecture.md "The walk")
REPEATS = {
    "automedbench.lifecycle.policy:faults_recorded":
        "one fault boundary per phase (open, act, close), each recording that phase's end reason",
    "automedbench.runs.trace:TraceWriter.emit":
        "one call per trace event the lifecycle writes (run start, the prompt, run end...)",
    "automedbench.runs.layout:write_json_atomic":
        "one write per file: run.json when the run opens and when it closes, judge.json, the report",
    "automedbench.runs.record:RunRecord.__init__":
        "each reader of the run folder opens its own record where it reads (scoring's run.json, "
        "conversation and judge.json, the experiments' trace): a record reads each file at most once, "
        "and none outlives its phase, since the lifecycle rewrites run.json between phases",
    "automedbench.run_files:RunFiles.__init__":
        "a RunFiles is a view of a folder's names, made where a folder is at hand (no state)",
    "automedbench.scoring.rubric:load_rubric":
        "the rubric is read once and cached (lru_cache); each reader asks for it",
    "automedbench.errors:one_line":
        "formats each message that is recorded on one line",
    "automedbench.scoring.score_run:field_digests":
        "one digest per recorded snapshot: the task's and the agent configuration's",
    # a run folder is scored from what was recorded on disk (the same as `score RUN_DIR` later):
    "automedbench.runs.layout:RunMeta._drop_keys_of_older_harnesses":
        "run.json validated when the lifecycle writes it and when score_run reads it back",
    "automedbench.data:DatasetPaths.load_manifest":
        "the lifecycle records the expected case ids in run.json; score_run reads the cases' entries",
    # the judge's experiments at close (docs/judge.md "Experiments"): one replay per variant of a look
    "automedbench.runs.trace:read_trace":
        "the experiments read the recorded trace from disk at close, as score_run does after them",
    "automedbench.sandbox:open_sandbox": "the run's sandbox, then one throwaway sandbox for the replays",
    "automedbench.sandbox.bwrap.backend:BwrapSandbox.close": "each sandbox opened is closed",
    "automedbench.sandbox.bwrap.backend:BwrapSandbox.execute": "one execution per replay of a look",
    "automedbench.runs.blobs:BlobStore.__init__":
        "the lifecycle keeps each call's files as the run goes; the experiments read them at close",
    "automedbench.runs.blobs:WorkspaceState.before":
        "the workspace as it stood before each replayed look, and at the end (outcome consistency)",
    "automedbench.runs.blobs:WorkspaceState.materialise": "the throwaway workspace laid down before each replay",
    "automedbench.lifecycle.experiments:_reset": "the throwaway workspace emptied and laid down before each replay",
    "automedbench.sandbox.privilege:chown_tree": "the throwaway workspace handed to the sandbox's uid after each reset "
                                                 "(and once when the sandbox opens)",
    "automedbench.lifecycle.experiments:_replay_call.<locals>.run": "one replay per variant of a look",
    "automedbench.lifecycle.experiments:_units": "the replaced files grouped by unit for each mutant",
    "automedbench.lifecycle.experiments:_apply": "each mutant applied to the look's unit files",
    "automedbench.lifecycle.experiments:MutantMemo.apply": "each mutant applied to a unit's files, or laid down from the memo",
    "automedbench.lifecycle.experiments:_apply_one": "each mutant the memo has not seen on these bytes, applied",
    # the memo lives as long as the process: after an earlier run of the same task in it (a sweep,
    # a test session), the mutants of these bytes are laid down from memory instead of applied
    "automedbench.lifecycle.experiments:_Made.lay_down": "each mutant the memo has seen on these bytes, laid down",
    "automedbench.lifecycle.experiments:_pin_times": "each replay's workspace dated alike before it runs",
    "automedbench.lifecycle.experiments:_Made.__init__": "what each mutant applied made, kept for the memo",
    "automedbench.lifecycle.experiments:MutantMemo._keep": "each mutant applied, kept in the memo",
    "automedbench.lifecycle.experiments:_replay": "each replay's result recorded",
    "automedbench.tracks.mutants:each.<locals>.apply": "a mutant edits each file of a unit it applies to",
    "automedbench.scoring.experiments:Comparison.same_content": "the benign replays, each compared as it comes",
    "automedbench.scoring.experiments:Comparison.malign": "the malign replays, each compared as it comes",
    "automedbench.scoring.experiments:Comparison._judge_broken": "the malign replays judged again as replays come",
    "automedbench.scoring.experiments:Comparison.killed": "whether the replays so far decide the call, after each malign one",
    "automedbench.runs.blobs:BlobStore.has": "each written file's kept bytes looked up (units by content, replays)",
    "automedbench.tracks.content_facts:suffix_of": "each written file's kind compared with the outputs' (units by content)",
    "automedbench.lifecycle.experiments:_recorded": "the recorded baseline of each replayed call",
    "automedbench.scoring.experiments:unit_file": "each written and read file asked whether it is a unit file",
    "automedbench.lifecycle.experiments:_compare": "the looks at outputs, then the input checks, each decided alike",
    "automedbench.lifecycle.experiments:_compare_in_order": "the replays of each call in the order that decides it",
    "automedbench.lifecycle.experiments:_compare.<locals>.timed": "each replay checked against the time budget",
    "automedbench.lifecycle.experiments:_link_tree.<locals>.link": "one hard link per input file of the replays' copy",
    "automedbench.lifecycle.experiments:_replay_input_call.<locals>.run": "one replay per variant of an input check",
    "automedbench.lifecycle.experiments:_restore": "the copy's inputs restored before each replay of an input check",
    "automedbench.scoring.experiments:Comparison.__init__": "one comparison per replayed call",
    "automedbench.scoring.experiments:Comparison.result": "one outcome per replayed call",
    "automedbench.lifecycle.experiments:_Runner.decided": "each replayed call decided through the runner",
    "automedbench.lifecycle.experiments:_Runner.execute": "one execution per replay of a look",
    "automedbench.sandbox.bwrap.warm:WarmPython.run": "one warm execution per python replay of a look",
    "automedbench.sandbox.bwrap.warm:WarmPython._request": "one request to the warm server per replay run warm",
    "automedbench.runs.blobs:BlobStore.path": "each kept python source a replayed call read, for the warm server's "
        "preloads, and each kept file compared by content",
}


@functools.cache
def _module_of(filename: str) -> str | None:
    # cached per file name: the tracer asks for every Python call and every frame above it,
    # and resolving the path each time was most of a traced run's cost
    path = Path(filename)
    try:
        rel = path.resolve().relative_to(SRC)
    except ValueError:
        return None
    if rel.parts[0] != PKG or path.suffix != ".py":
        return None
    parts = list(rel.with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _in_path_modules(module: str) -> bool:
    return any(module == m or module.startswith(m + ".") for m in PATH_MODULES)


def code_stats() -> Any:
    """bench/code_stats.py (the layers of pyproject.toml and a module's layer)."""
    spec = importlib.util.spec_from_file_location("code_stats", Path(__file__).with_name("code_stats.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def accessor(function: str) -> bool:
    """Whether "module:Class.name" is a property (or cached property) of its class."""
    module, _, qualname = function.partition(":")
    owner, _, attr = qualname.rpartition(".")
    if not owner or "." in owner or "<" in owner:
        return False
    cls = getattr(importlib.import_module(module), owner, None)
    return isinstance(inspect.getattr_static(cls, attr, None), (property, functools.cached_property))


@dataclass
class Call:
    caller: str       # "module:qualname" of the nearest calling function of the package
    callee: str

    @property
    def callee_module(self) -> str:
        return self.callee.split(":")[0]

    @property
    def caller_module(self) -> str:
        return self.caller.split(":")[0]


@dataclass
class Walk:
    path: list[Call] = field(default_factory=list)

    @property
    def entries(self) -> Counter[str]:
        return Counter(c.callee for c in self.path)

    def repeated(self) -> dict[str, int]:
        """Functions of the path entered more than once (with how often); a property's getter is
        an attribute read, not a step of the walk, and is left out."""
        return {f: n for f, n in self.entries.items() if n > 1 and not accessor(f)}

    def callers(self, function: str) -> Counter[str]:
        return Counter(c.caller for c in self.path if c.callee == function)

    def unexplained(self) -> dict[str, int]:
        return {f: n for f, n in self.repeated().items() if f not in REPEATS}

    def stays(self) -> list[str]:
        files: list[str] = []
        for c in self.path:
            if not files or files[-1] != c.callee_module:
                files.append(c.callee_module)
        return files

    def climbs(self, layers: list[list[str]]) -> list[Call]:
        layer_of = code_stats().layer_of
        out = []
        for c in self.path:
            a, b = layer_of(layers, c.caller_module), layer_of(layers, c.callee_module)
            if a is not None and b is not None and b < a:
                out.append(c)
        return out


@contextmanager
def traced() -> Iterator[Walk]:
    """Record the path of whatever runs in this thread inside the block."""
    walk = Walk()
    resumed: set[int] = set()      # generator frames already entered once

    def name_of(frame: FrameType) -> str | None:
        module = _module_of(frame.f_code.co_filename)
        return None if module is None else f"{module}:{frame.f_code.co_qualname}"

    def tracer(frame: FrameType, event: str, arg: Any) -> None:
        # the global trace function sees each Python call once ("call"), and no line events
        # since it returns None; C calls are not reported to it (cheaper than setprofile)
        callee = name_of(frame)
        if callee is None or frame.f_code.co_name.startswith("<"):   # comprehensions, lambdas, modules
            return
        if frame.f_code.co_flags & (inspect.CO_GENERATOR | inspect.CO_COROUTINE):
            if id(frame) in resumed:      # a generator resumed, not entered
                return
            resumed.add(id(frame))
        back = frame.f_back
        caller = None
        while back is not None and caller is None:
            caller = name_of(back) if not back.f_code.co_name.startswith("<") else None
            back = back.f_back
        if caller == callee:     # a recursive call is the same step
            return
        if caller is None:       # the walk's entry, called from outside the package
            caller = "<outside>:"
        if _in_path_modules(caller.split(":")[0]) or _in_path_modules(callee.split(":")[0]):
            walk.path.append(Call(caller, callee))

    before = sys.gettrace()
    sys.settrace(tracer)
    try:
        yield walk
    finally:
        sys.settrace(before)


def walk(task: str, agent: str, sandbox: str | None, data_root: Path, out: Path) -> tuple[Walk, Walk]:
    """(the walk of `run_one` from the task id to the record, the walk of `score` over its folder)."""
    from automedbench import api
    options = api.RunOptions(sandbox=sandbox, data_root=str(data_root), network=False)
    with traced() as run_walk:
        report = api.run_one(task, "lite", agent, out, options)
    assert report.run_dir is not None
    with traced() as score_walk:
        api.score(report.run_dir)
    return run_walk, score_walk


def describe(name: str, w: Walk, layers: list[list[str]]) -> list[str]:
    stays = w.stays()
    climbs = w.climbs(layers)
    lines = [f"{name}: {len(w.path)} entries of {len(w.entries)} functions; {len(stays)} stays in "
             f"{len(set(stays))} files; {len(climbs)} climbs"]
    for f, n in sorted(w.repeated().items()):
        by = ", ".join(f"{c.split(':')[1]} {k}x" for c, k in w.callers(f).most_common())
        lines.append(f"  entered {n}x: {f} ({REPEATS.get(f, 'UNEXPLAINED')}; from {by})")
    lines += [f"  climb: {c.caller} -> {c.callee}" for c in climbs]
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--task", default="xray-marker-det")
    ap.add_argument("--agent", default="reference")
    ap.add_argument("--sandbox", default=None)
    ap.add_argument("--data", type=Path, default=None)
    a = ap.parse_args(argv)
    from automedbench.datasets import stage
    from automedbench.tasks import get_task
    with tempfile.TemporaryDirectory(prefix="call-walk-") as tmp:
        data = a.data
        if data is None:
            data = Path(tmp) / "data"
            stage(get_task(a.task).dataset, data, quiet=True)
        run_walk, score_walk = walk(a.task, a.agent, a.sandbox, data, Path(tmp) / "runs")
    layers = code_stats().read_layers(ROOT / "pyproject.toml")
    for line in describe(f"run {a.task} ({a.agent})", run_walk, layers) + describe("score", score_walk, layers):
        print(line)
    return 1 if run_walk.unexplained() or score_walk.unexplained() else 0


if __name__ == "__main__":
    sys.exit(main())

