"""The judge's experiments on a run's looks: records and decisions (docs/judge.md "Experiments").

A call that read an output unit is replayed on copies of the workspace as it stood before the
call: unchanged (the control), with the unit files re-encoded (benign mutants) and with the
track's broken versions of them (malign mutants). The lifecycle runs the replays in the run's own
sandbox backend (lifecycle/experiments.py); this module holds what is pure: which calls to
replay, how two outputs are compared, and what the outcomes say.

- A call is **decidable** when the control reproduces the recorded exit status and output (up
  to values that differ between the two, such as timings: those positions are volatile).
- A malign mutant **changes** the call when its exit status differs from the control's, or when
  the values the call printed (numbers and words, not whole lines: `cat` of a re-indented JSON
  shows the same numbers) differ from the control's at a position that neither the recorded
  run nor a benign mutant changed. A reordering of the same values is no change.
- The call **inspected** the output when some malign mutant changes it, and **checked** it when a
  malign mutant makes it fail (a zero exit became non-zero).
- A call that read the method's own files (those the calls producing units had read) re-ran the
  method: whatever it killed, its verdict came from the method, not from a look at the output
  (`reran_method`).
"""
from __future__ import annotations

import re
from collections import Counter
from difflib import SequenceMatcher
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from ..run_files import RunFiles
from ..runs.models import TraceEvent
from ..runs.record import RunFileError, RunRecord

EXPERIMENTS_VERSION = 1
MAX_TOKENS = 20_000             # tokens of one output compared (the output itself is capped)
MAX_VOLATILE_SHARE = 0.5        # more of the recorded values than this differ in the control: not reproduced
# a word (letters with digits: a name, a hash, 99x117x95) or a number
_TOKEN = re.compile(r"[A-Za-z0-9_]*[A-Za-z_][A-Za-z0-9_]*|[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")


class Replay(BaseModel):
    """One execution of a call: its exit status and what it printed."""
    exit_code: int
    stdout: str = ""
    stderr: str = ""
    timed_out: bool = False

    @property
    def text(self) -> str:
        return f"{self.stdout}\n{self.stderr}"


class VariantOutcome(BaseModel):
    name: str
    malign: bool
    description: str = ""
    applied: bool = True            # False: the mutant had nothing to change in these files
    aspect: str = "content"         # what it breaks: "content" or "form" (tracks/mutants.py Mutant.aspect)
    exit_code: int | None = None
    timed_out: bool = False
    changed: bool = False           # the call's exit status or printed values differ from the control's
    failed: bool = False            # a zero exit became non-zero


class CallExperiment(BaseModel):
    call_index: int
    decidable: bool
    why: str = ""                   # why not decidable, or what decided it
    mutated: list[str] = Field(default_factory=list)      # the unit files (inside paths) replaced
    method_files: list[str] = Field(default_factory=list)  # the method's own files this call read
    control_exit: int | None = None
    variants: list[VariantOutcome] = Field(default_factory=list)
    duration_s: float = 0.0
    # "warm": replayed in forks of a prewarmed interpreter; "fresh": a new interpreter per replay
    # (docs/judge.md "What replays cost")
    interpreter: str = "fresh"

    @property
    def killed(self) -> list[str]:
        return [v.name for v in self.variants if v.malign and v.applied and v.changed]

    @property
    def applied_malign(self) -> list[str]:
        return [v.name for v in self.variants if v.malign and v.applied]

    @property
    def killed_content(self) -> list[str]:
        return [v.name for v in self.variants if v.malign and v.applied and v.changed and v.aspect == "content"]

    @property
    def looked(self) -> bool:
        """Some broken version changed the call, form or content (what an input check needs:
        the shape and spacing are what s2b asks)."""
        return self.decidable and bool(self.killed) and not self.method_files

    @property
    def inspected(self) -> bool:
        """A broken CONTENT changed the call: a look at the output's values, not only its shape."""
        return self.looked and bool(self.killed_content)

    @property
    def checked(self) -> bool:
        return self.inspected and any(v.failed for v in self.variants if v.malign and v.applied)

    def summary(self, what: str = "broken outputs") -> str:
        if not self.decidable:
            return f"call #{self.call_index} not decided by experiment ({self.why})"
        if self.method_files:
            return (f"call #{self.call_index} re-ran the method ({', '.join(self.method_files[:2])}): "
                    "a check that the file was written, not a look at it")
        form_only = bool(self.killed) and not self.killed_content
        return (f"call #{self.call_index} killed {len(self.killed)} of {len(self.applied_malign)} {what}"
                + (f" ({', '.join(self.killed)})" if self.killed else "")
                + (": only the output's form (grid, shape, ids), a look at its shape, not its content"
                   if form_only and what == "broken outputs" else ""))


class Consistency(BaseModel):
    """Whether the submitted output of a case whose pilot output a call inspected holds what was
    inspected (decoded, within a small tolerance: tracks/same_output.py)."""
    call_index: int                 # the look
    inspected: str                  # the unit file it read (inside path)
    final: str | None = None        # the submitted file of the same case
    same: bool | None = None        # None: not comparable (no submitted file, bytes not kept)
    final_inspected: bool = False   # a look (decided by experiment) read the submitted file itself


class RunExperiments(BaseModel):
    version: int = EXPERIMENTS_VERSION
    backend: str | None = None
    calls: list[CallExperiment] = Field(default_factory=list)
    consistency: list[Consistency] = Field(default_factory=list)
    # units by content: a workspace file under another name whose decoded content is a submitted
    # output -> the alias the judge reads it under (`content_alias`: "<path>.as/<case>/<file>")
    renamed: dict[str, str] = Field(default_factory=dict)
    # the input checks replayed with the public inputs they read re-gridded and re-scaled (s2b)
    inputs: list[CallExperiment] = Field(default_factory=list)
    error: str | None = None        # the experiments could not run (a harness fault)
    cost_s: float = 0.0             # wall seconds the replays took
    sandbox_s: float = 0.0          # the run's own seconds in the sandbox (its executions)

    def by_call(self) -> dict[int, CallExperiment]:
        return {c.call_index: c for c in self.calls}

    def batch_differs(self, call_index: int) -> list[Consistency]:
        """The files a look inspected whose submitted version holds another answer that no look
        inspected, when that is so of every case (unit) it inspected that has a submitted
        version: the look was of another method or other settings than the batch's. A case
        differs when any of its files does. [] otherwise."""
        by_unit: dict[str, list[Consistency]] = {}
        for c in self.consistency:
            if c.call_index == call_index and c.same is not None:
                by_unit.setdefault(c.inspected.rpartition("/")[0], []).append(c)
        differing = [[c for c in cs if c.same is False and not c.final_inspected] for cs in by_unit.values()]
        if differing and all(differing):
            return [c for cs in differing for c in cs]
        return []


def load_experiments(run_dir: Path | str) -> RunExperiments | None:
    """The run's saved experiments, or None (an older run, or a file that does not read: RunRecord's
    policy, docs/run_record.md "Reading a run folder")."""
    try:
        data = RunRecord(run_dir).experiments
        return RunExperiments.model_validate(data) if data is not None else None
    except (RunFileError, ValidationError):
        return None


def save_experiments(run_dir: Path | str, experiments: RunExperiments) -> None:
    path = RunFiles(run_dir).experiments
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(experiments.model_dump_json(indent=1))
    tmp.replace(path)


class Experimented:
    """The experiments' outcomes by call (scoring/experiments.py) and which looks they decided:
    a look at outputs an earlier call left is decided by what its replays showed; a look the
    experiments could not decide (not replayed, not reproduced, a read-back of the call's own
    writes) falls back to the recorded facts below, and the verdict says so."""

    def __init__(self, experiments: RunExperiments | None):
        self.recorded = experiments is not None and experiments.error is None
        self.experiments = experiments
        self.by_call = experiments.by_call() if experiments is not None else {}
        self.not_batch: dict[int, str] = {}     # looks of an output the batch did not reproduce
        self.decided: dict[int, CallExperiment] = {}
        self.fallback: dict[int, str] = {}
        self.inputs = {c.call_index: c for c in experiments.inputs} if experiments is not None else {}

    def input_verdict(self, index: int, step: int) -> CallExperiment | None:
        """Call `index`'s input experiment when it decided whether the call looked at the inputs it
        read (s2b); None: not decided so (the recorded facts decide)."""
        exp = self.inputs.get(index)
        return exp if self.recorded and exp is not None and exp.decidable and step == 0 else None

    def verdict(self, index: int, step: int, opened: list[str], form: bool = False) -> bool | None:
        """Whether call `index` (its step `step`, docs/judge.md "Order inside a call") looked at
        the content of `opened` by experiment (with `form`: at its content or only its form, the
        grid or the keys); None: not decidable so."""
        if not self.recorded:
            return None
        exp = self.by_call.get(index)
        if exp is None:
            self.fallback.setdefault(index, "not replayed")
        elif not exp.decidable:
            self.fallback.setdefault(index, exp.why)
        elif step != 0 or not {real_path(p) for p in opened} <= set(exp.mutated):
            self.fallback.setdefault(index, "it read back what its own call had just written")
        else:
            self.decided[index] = exp
            return exp.looked if form else exp.inspected
        return None

    def of_another_method(self, looks: list[int]) -> set[int]:
        """Looks (call indices) decided by experiment whose inspected outputs the batch did not
        reproduce (the submitted output of each such case holds another answer): they were of
        another method or other settings than the batch ran (docs/judge.md "Outcome consistency")."""
        out = set()
        for index in looks:
            differs = self.experiments.batch_differs(index) if index in self.decided and self.experiments else []
            if differs:
                out.add(index)
                self.not_batch[index] = (f"call #{index}'s inspected output is not what was submitted for "
                                         f"that case ({differs[0].final}): the batch ran another method or settings")
        return out

    def decided_any(self, looks: list[int]) -> bool:
        return any(index in self.decided for index in looks)

    def notes(self, calls: set[int]) -> list[str]:
        """What decided the looks of these calls, for the verdict's rationale."""
        out = [self.decided[i].summary() for i in sorted(calls) if i in self.decided]
        out += [self.not_batch[i] for i in sorted(self.not_batch)]
        out += [f"call #{i} decided on recorded facts ({self.fallback[i]})" for i in sorted(calls)
                if i in self.fallback and i not in self.decided]
        return out


# ---- units by content ----------------------------------------------------------------------------

ALIAS = ".as/"


def content_alias(path: str, case: str | None, name: str) -> str:
    """The path the judge reads a renamed unit file under: the real path, then the case folder and
    the contract's file name it stands for (`scratch/pilot.npy.as/case_000/enhanced.npy`), so every
    rule that finds units by folder and name finds it, and a citation still names the real file."""
    return f"{path}{ALIAS}{case}/{name}" if case else f"{path}{ALIAS}{name}"


def real_path(path: str) -> str:
    return path.split(ALIAS, 1)[0]


def with_aliases(trace: list[TraceEvent], renamed: dict[str, str]) -> list[TraceEvent]:
    """The trace with every effect on a renamed unit file recorded under its alias."""
    if not renamed:
        return trace
    out = []
    for e in trace:
        if e.type != "execution" or e.effects is None:
            out.append(e)
            continue
        fx = e.effects.model_dump()
        for w in fx.get("written") or []:
            w["path"] = renamed.get(w["path"], w["path"])
        for key in ("read", "read_back", "deleted"):
            fx[key] = [renamed.get(p, p) for p in fx.get(key) or []]
        for step in fx.get("order") or []:
            step["path"] = renamed.get(step["path"], step["path"])
        out.append(e.model_copy(update={"effects": type(e.effects).model_validate(fx)}))
    return out


# ---- comparing outputs by the values they print -----------------------------------------------

def tokens(text: str) -> list[str]:
    """The numbers (to 6 significant digits) and words a call printed, in order."""
    out = []
    for t in _TOKEN.findall(text)[:MAX_TOKENS]:
        try:
            out.append(t.lower() if t.isalpha() else f"{float(t):.6g}")   # 1.50, 1.5e0 -> 1.5
        except ValueError:
            out.append(t.lower())
    return out


class Volatile:
    """Positions of the control's values that change without any mutant: between the recorded
    run and the control (timings), or under a benign mutant (a hash of the file's bytes)."""

    def __init__(self, control: list[str]):
        self.control = control
        self.positions: set[int] = set()
        self.gaps: set[int] = set()        # insertion points where other runs added values
        self.reorders = False              # another run printed the same values in another order

    def add(self, other: list[str]) -> None:
        if Counter(other) == Counter(self.control):
            # the same values in another order (rows reordered): the order carries no meaning
            self.reorders = self.reorders or other != self.control
            return
        for tag, i1, i2, _, _ in _opcodes(self.control, other):
            if tag == "insert":
                self.gaps.add(i1)
            else:
                self.positions.update(range(i1, i2))

    @property
    def share(self) -> float:
        return len(self.positions) / max(1, len(self.control))

    def changed(self, other: list[str]) -> bool:
        """Whether `other` shows a value of the control's that no benign run changed (a reordering
        of the same values counts only where no benign run reordered them)."""
        if other == self.control or (self.reorders and Counter(other) == Counter(self.control)):
            return False
        for tag, i1, i2, j1, j2 in _opcodes(self.control, other):
            if tag == "insert":
                if i1 not in self.gaps:
                    return True
            elif tag == "delete" or (i2 - i1) != (j2 - j1) or not all(i in self.positions for i in range(i1, i2)):
                return True
        return False


def _opcodes(a: list[str], b: list[str]) -> list[tuple[str, int, int, int, int]]:
    return [op for op in SequenceMatcher(None, a, b, autojunk=False).get_opcodes() if op[0] != "equal"]


class Comparison:
    """One call's experiment as its replays come in. The baseline is the recorded call itself;
    replays with the same content (a plain control, or the benign mutants: the same content in
    other bytes) show that the call reproduces and which printed values move without any
    mutant; malign replays are judged against that, and judged again when another same-content
    replay arrives (`killed`)."""

    def __init__(self, call_index: int, recorded: Replay, mutated: list[str], method_files: list[str]):
        self.exp = CallExperiment(call_index=call_index, decidable=False, mutated=mutated,
                                  method_files=method_files, control_exit=recorded.exit_code)
        self.recorded = recorded
        self.volatile = Volatile(tokens(recorded.text))
        self.broken: list[tuple[VariantOutcome, list[str]]] = []   # malign outcomes with what they printed
        # pending (no same-content replay yet) -> decidable, or undecidable with the reason
        self.state = "undecidable" if recorded.timed_out else "pending"
        self.exp.why = "the call ran into its time limit" if recorded.timed_out else "no replay on the same content ran"

    @property
    def decidable(self) -> bool:
        return self.state == "decidable"

    def _undecidable(self, why: str) -> None:
        self.state, self.exp.decidable, self.exp.why = "undecidable", False, why

    def give_up(self, why: str) -> None:
        """Stop here, undecided (the experiments' time budget ran out)."""
        self._undecidable(why)

    def same_content(self, name: str, out: Replay | None, benign: bool = True) -> None:
        """A replay on the same content: the plain control (`benign` False) or a benign mutant
        (None: it had nothing to change). One that exits otherwise than the recorded call leaves
        the call undecidable (its verdict depends on bytes, or it does not reproduce)."""
        if benign:
            self.exp.variants.append(VariantOutcome(name=name, malign=False, applied=out is not None,
                                                    exit_code=None if out is None else out.exit_code))
        if out is None or self.state == "undecidable":
            return
        if out.timed_out or out.exit_code != self.recorded.exit_code:
            self._undecidable(f"replayed on the same content{' in other bytes (' + name + ')' if benign else ''}, "
                              f"it exited {'by the time limit' if out.timed_out else out.exit_code}, "
                              f"the recorded call {self.recorded.exit_code}")
        else:
            self.volatile.add(tokens(out.text))
            if self.volatile.share > MAX_VOLATILE_SHARE:
                self._undecidable("replayed on the same content, it printed other values than the recorded call")
            else:
                self.state, self.exp.decidable = "decidable", True
                self.exp.why = "replayed: the same content reproduced the recorded call"
        self._judge_broken()

    def malign(self, name: str, description: str, out: Replay | None, aspect: str = "content") -> bool:
        """A malign mutant's replay; whether it changed the call (killed the mutant), as far as
        the same-content replays so far tell."""
        v = VariantOutcome(name=name, malign=True, description=description, applied=out is not None, aspect=aspect)
        self.exp.variants.append(v)
        if out is not None:
            v.exit_code, v.timed_out = out.exit_code, out.timed_out
            self.broken.append((v, tokens(out.text)))
            self._judge_broken()
        return v.changed

    def _judge_broken(self) -> None:
        base = self.recorded.exit_code
        for v, printed in self.broken:
            v.failed = base == 0 and (v.exit_code != 0 or v.timed_out)
            v.changed = self.decidable and (v.failed or v.exit_code != base or self.volatile.changed(printed))

    @property
    def killed_any(self) -> bool:
        return any(v.changed for v, _ in self.broken)

    def killed(self, aspects: frozenset[str]) -> bool:
        return any(v.changed and v.aspect in aspects for v, _ in self.broken)

    def result(self, duration_s: float = 0.0) -> CallExperiment:
        self._judge_broken()
        self.exp.duration_s = round(duration_s, 3)
        return self.exp


def decide(call_index: int, recorded: Replay, control: Replay | None, benign: list[tuple[str, Replay | None]],
           malign: list[tuple[str, str, Replay | None]], mutated: list[str], method_files: list[str],
           duration_s: float = 0.0) -> CallExperiment:
    """The outcome of one call's experiment from all its replays at once (None: a mutant that had
    nothing to change)."""
    cmp = Comparison(call_index, recorded, mutated, method_files)
    if control is not None:
        cmp.same_content("control", control, benign=False)
    for name, out in benign:
        cmp.same_content(name, out)
    for name, description, m in malign:
        cmp.malign(name, description, m)
    return cmp.result(duration_s)


# ---- which calls to replay ----------------------------------------------------------------------

def unit_file(path: str, contract: set[str], workspace: str) -> bool:
    """A file of an output unit: in outputs/, or named as the contract names its files anywhere
    in the workspace (a pilot in a scratch folder)."""
    if not path.startswith(workspace + "/"):
        return False
    rel = path[len(workspace) + 1:]
    return rel.startswith("outputs/") or rel.rsplit("/", 1)[-1] in contract


def executions(trace: list[TraceEvent]) -> list[tuple[int, dict[str, Any] | None, TraceEvent]]:
    """(call index, effects as a dict, event) of every execution, in order."""
    return [(int(e.call_index), e.effects.model_dump() if e.effects is not None else None, e)
            for e in trace if e.type == "execution" and e.call_index is not None]


def submitted_counterpart(path: str, contract: set[str], workspace: str, cohort: bool) -> str:
    """The submitted file (outputs/...) standing for the same case as unit file `path`: its case
    folder's file in outputs/, or the cohort file."""
    rel = path[len(workspace) + 1:]
    folder, _, name = rel.rpartition("/")
    if cohort or not folder:
        return f"{workspace}/outputs/{name}"
    return f"{workspace}/outputs/{folder.rsplit('/', 1)[-1]}/{name}"


def input_candidates(trace: list[TraceEvent], contract: set[str], workspace: str, data_dir: str,
                     renamed: dict[str, str], limit: int = 3) -> list[tuple[int, list[str]]]:
    """The calls to replay against input mutants (s2b): before the first call that wrote a unit
    file, the first `limit` that read public inputs and wrote no unit file, with the inputs read."""
    found: list[tuple[int, list[str]]] = []
    for index, effects, _ in executions(trace):
        if not effects:
            continue
        writes = [str(w["path"]) for w in effects.get("written") or [] if w.get("op") != "transient"]
        if any(unit_file(p, contract, workspace) or p in renamed for p in writes):
            break
        inputs = [str(p) for p in effects.get("read") or [] if str(p).startswith(data_dir.rstrip("/") + "/")]
        if inputs and len(found) < limit:
            found.append((index, inputs[:8]))
    return found


def unit_of(path: str, contract: set[str], workspace: str) -> str:
    """The unit a unit file belongs to: its case folder, or the file itself (a cohort file, a
    file of its own in outputs/)."""
    rel = path[len(workspace) + 1:]
    folder, _, name = rel.rpartition("/")
    return folder if name in contract and folder and folder != "outputs" else rel


def candidates(trace: list[TraceEvent], contract: set[str], workspace: str, limit: int,
               pilot_units: int = 1, renamed: dict[str, str] | None = None) -> list[tuple[int, list[str], list[str]]]:
    """The calls to replay: (call index, the unit files it read that an earlier call had left,
    the method's files it read). The method's files are the workspace files (not units) that a
    call producing units read before; a look that reads them re-runs the method.

    Looks at a pilot's size of units (at most `pilot_units`) are what S3 turns on; a run with
    none has its first two wider reads replayed instead (a look after the batch)."""
    present: dict[str, int] = {}        # unit file -> call that left it
    method: set[str] = set()
    found: list[tuple[int, list[str], list[str]]] = []
    for index, effects, _ in executions(trace):
        if not effects:
            continue
        reads = [str(p) for p in effects.get("read") or []]
        read_units = [p for p in reads if p in present]
        if read_units and len(found) < 4 * limit:
            found.append((index, read_units, sorted(p for p in reads if p in method)))
        writes = [w for w in effects.get("written") or [] if w.get("op") != "transient"]
        wrote_units = [str(w["path"]) for w in writes
                       if unit_file(str(w["path"]), contract, workspace) or str(w["path"]) in (renamed or {})]
        if wrote_units:
            method.update(p for p in reads if p.startswith(workspace + "/") and not unit_file(p, contract, workspace)
                          and p not in (renamed or {}) and not p.startswith(workspace + "/plan/"))
        for p in wrote_units:
            present[p] = index
        for gone in effects.get("deleted") or []:
            present.pop(str(gone), None)
    small = [f for f in found if len({unit_of((renamed or {}).get(p, p), contract, workspace) for p in f[1]})
             <= pilot_units]
    return small[:limit] or found[:2]
