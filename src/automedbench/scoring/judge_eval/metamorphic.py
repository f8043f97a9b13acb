"""Metamorphic tests of a judge (`automedbench judge-eval --metamorphic`, docs/judge.md
"Metamorphic variants").

Agreement with hand labels on the trajectories a judge was built against proves consistency,
not validity. A metamorphic variant needs no new label: it is a calibration trajectory changed
in one known way, and the change says what the verdict must do.

  keep     the substance stays (the same work, cut or named differently): every item's
           verdict must stay as it was on the original;
  remove   the substance goes (an inspection that no longer looks, a pilot that is a copy):
           the named item must drop below its verdict on the original. Applied only where the
           original earned the item's full credit (1): a ladder's 0.5 ("partial validation")
           can rest on other grounds, so it need not move.

A variant applies only where its substance exists (a pilot to move, an inspection to empty);
the counts say how many trajectories each one ran on. Variants the judge is known to fail are
marked `open` with the failure they show (docs/judge.md says which are still open): they are
measured and printed like the others, and `make test` enforces 100 % on the rest.

Each transform is a pure function of the trace and the facts the heuristic derived from it.
"""
from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from ...run_files import RunFiles
from ...runs.models import Effects, OutputCheck, TraceEvent, WrittenFile
from ...runs.trace import read_trace
from ...tasks import Task, get_task
from ..rubric import load_rubric
from ..judge.base import Judge, JudgeEvidence
from ..judge.facts import Roots, WorkflowFacts, derive_facts
from ..judge.made_from import SOURCE_SUFFIXES
from ..judge.heuristic import input_describer, output_describer
from . import Trajectory, calibration_inputs, load_set
from .merged import failed_attempts_in_one_loop, merge_calls
from .scripts import batch_by_a_stand_in, installs_hidden, look_via_report, pilot_by_a_stand_in, pytest_look

Events = list[TraceEvent]
_TAG_LINE = re.compile(r"^\s*#\s*S[1-5]\b.*$\n?", re.MULTILINE | re.IGNORECASE)


@dataclass(frozen=True)
class Context:
    """What a transform may read besides the trace: the facts and the run's layout."""
    facts: WorkflowFacts
    roots: Roots
    contract: tuple[str, ...]        # the output contract's file names
    per_case: bool
    case_ids: tuple[str, ...]


Transform = Callable[[Events, Context], Events | None]   # None: not applicable to this trajectory


@dataclass(frozen=True)
class Variant:
    name: str
    kind: str                 # "keep" | "remove"
    transform: Transform
    drops: str | None = None  # remove: the item that must drop
    what: str = ""
    open: str = ""            # a known failure of the judge this variant shows (docs/judge.md)


@dataclass
class VariantResult:
    name: str
    kind: str
    drops: str | None
    what: str
    open: str
    applied: int = 0
    held: int = 0             # keep: every verdict stayed; remove: the item dropped
    failures: list[dict[str, Any]] = field(default_factory=list)

    @property
    def rate(self) -> float | None:
        return self.held / self.applied if self.applied else None


# ---- helpers ------------------------------------------------------------------------------
def _calls(events: Events) -> dict[int, list[int]]:
    """call index -> positions of its events."""
    out: dict[int, list[int]] = {}
    for pos, e in enumerate(events):
        if e.call_index is not None:
            out.setdefault(e.call_index, []).append(pos)
    return out


def _execution(events: Events, call: int) -> TraceEvent | None:
    return next((e for e in events if e.type == "execution" and e.call_index == call), None)


def _with_effects(e: TraceEvent, *, written: list[WrittenFile] | None = None, read: list[str] | None = None,
                  read_back: list[str] | None = None, **fields: Any) -> TraceEvent:
    eff = e.effects or Effects()
    eff = eff.model_copy(update={k: v for k, v in (("written", written), ("read", read), ("read_back", read_back))
                                 if v is not None})
    return e.model_copy(update={"effects": eff, **fields})


def _map_paths(e: TraceEvent, move: Callable[[str], str]) -> TraceEvent:
    if e.effects is None:
        return e
    checks = [ch.model_copy(update={"path": move(ch.path), "files": {move(k): v for k, v in ch.files.items()},
                                    "facts": {move(k): v for k, v in ch.facts.items()}})
              for ch in e.output_checks or []] or None
    moved = _with_effects(e, written=[w.model_copy(update={"path": move(w.path)}) for w in e.effects.written],
                          read=[move(p) for p in e.effects.read], read_back=[move(p) for p in e.effects.read_back],
                          output_checks=checks)
    if e.effects.order is None or moved.effects is None:
        return moved
    order = [st.model_copy(update={"path": move(st.path)}) for st in e.effects.order]
    return moved.model_copy(update={"effects": moved.effects.model_copy(update={"order": order})})


def _renumber(events: Events) -> Events:
    """Call indices 1..n in order of first appearance (after calls were split or merged)."""
    new: dict[int, int] = {}
    out = []
    for e in events:
        if e.call_index is not None:
            new.setdefault(e.call_index, len(new) + 1)
            e = e.model_copy(update={"call_index": new[e.call_index]})
        out.append(e)
    return out


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _unit_file(path: str, ctx: Context) -> bool:
    """An output path the contract names (so it stays a unit file wherever it is moved)."""
    if not path.startswith(ctx.roots.outputs) or PurePosixPath(path).name not in ctx.contract:
        return False
    rest = path[len(ctx.roots.outputs):]
    return ("/" in rest and rest.split("/", 1)[0] in ctx.case_ids) if ctx.per_case else "/" not in rest


# ---- substance kept --------------------------------------------------------------------------
def tags_removed(events: Events, ctx: Context) -> Events | None:
    """No stage tags: neither the declared stage nor `# S3 ...` lines in the code."""
    if not any(e.stage or (e.code and _TAG_LINE.search(e.code)) for e in events):
        return None
    return [e.model_copy(update={"stage": None, "code": _TAG_LINE.sub("", e.code) if e.code else e.code})
            for e in events]


def folders_renamed(events: Events, ctx: Context) -> Events | None:
    """Every workspace folder other than outputs/ and plan/ under another name, and the files
    at the workspace's top in a folder of their own."""
    top = ctx.roots.workspace + "/"
    keep = {"outputs", "plan"}

    def move(p: str) -> str:
        if not p.startswith(top):
            return p
        first, sep, rest = p[len(top):].partition("/")
        if first in keep or first.startswith("."):
            return p
        return f"{top}renamed_{first}/{rest}" if sep else f"{top}renamed_top/{first}"
    if not any(move(p) != p for e in events if e.effects for p in [w.path for w in e.effects.written] + e.effects.read):
        return None
    return [_map_paths(e, move) for e in events]


def pilot_in_scratch(events: Events, ctx: Context) -> Events | None:
    """The pilot (and any look at it and fix of it) written to a scratch folder instead of
    outputs/: every call before the batch writes and reads `scratch/...` where it had `outputs/...`."""
    f = ctx.facts
    if not f.pilot.holds or not f.pilot.paths or not all(_unit_file(p, ctx) for p in f.pilot.paths):
        return None
    first_batch = min(f.batch.calls) if f.batch.calls else None
    scratch = ctx.roots.workspace + "/scratch/"

    def move(p: str) -> str:
        return scratch + p[len(ctx.roots.outputs):] if _unit_file(p, ctx) else p
    return [_map_paths(e, move) if e.call_index is not None and (first_batch is None or e.call_index < first_batch)
            else e for e in events]


def batch_split(events: Events, ctx: Context) -> Events | None:
    """The batch's first call cut into two calls, each writing half of its units."""
    f = ctx.facts
    if not ctx.per_case or not f.batch.calls:
        return None
    call = f.batch.calls[0]
    ex = _execution(events, call)
    if ex is None or ex.effects is None:
        return None
    units = sorted({w.path[len(ctx.roots.outputs):].split("/", 1)[0] for w in ex.effects.written
                    if _unit_file(w.path, ctx)})
    # both halves must still be more than a pilot, or the first half would BE a pilot
    if len(units) // 2 <= f.pilot_max:
        return None
    first = set(units[: len(units) // 2])

    def half(w: WrittenFile) -> bool:
        return _unit_file(w.path, ctx) and w.path[len(ctx.roots.outputs):].split("/", 1)[0] in first
    out: Events = []
    for e in events:
        if e.call_index != call:
            out.append(e)
            continue
        a = e.model_copy(update={"call_index": call * 1000})   # renumbered below
        if e.type == "execution" and e.effects is not None:
            a = _with_effects(a, written=[w for w in e.effects.written if half(w)])
            b = _with_effects(e, written=[w for w in e.effects.written if not half(w)])
            out += [a, b]
        else:
            out += [a, e]
    return _split_order(out, call)


def _split_order(events: Events, call: int) -> Events:
    """Place the first half's events (call * 1000) right before the original call's."""
    first = [e for e in events if e.call_index == call * 1000]
    rest = [e for e in events if e.call_index != call * 1000]
    at = next(i for i, e in enumerate(rest) if e.call_index == call)
    return _renumber(rest[:at] + first + rest[at:])


def pilot_and_look_merged(events: Events, ctx: Context) -> Events | None:
    """The pilot and the first look at it done by one script: one call that writes the pilot
    and reads it back (the recorder lists what a call read back of its own writes: read_back)."""
    f = ctx.facts
    if not f.pilot.holds or not f.pilot_inspection.holds:
        return None
    pilot, look = f.pilot.calls[0], f.pilot_inspection.calls[0]
    if look != pilot + 1:
        return None
    pe, le = _execution(events, pilot), _execution(events, look)
    if pe is None or le is None or pe.effects is None or le.effects is None:
        return None
    written = {w.path for w in pe.effects.written}
    merged = _with_effects(pe, read=[p for p in dict.fromkeys(pe.effects.read + le.effects.read) if p not in written],
                           read_back=[p for p in le.effects.read if p in written],
                           output_checks=(pe.output_checks or []) + (le.output_checks or []) or None,
                           stdout=(pe.stdout or "") + (le.stdout or ""), exit_code=le.exit_code,
                           code=(pe.code or "") + "\n" + (le.code or ""))
    out = [merged if e is pe else e for e in events if not (e.call_index == look)]
    return _renumber(out)


def _pilot_to_batch(ctx: Context) -> tuple[int, int] | None:
    """The calls from the first pilot call to the batch's first, where the pilot was looked at."""
    f = ctx.facts
    if not (f.pilot.holds and f.pilot_inspection.holds and f.batch.calls):
        return None
    return min(f.pilot.calls), min(f.batch.calls)


def pilot_look_batch_in_one_script(events: Events, ctx: Context) -> Events | None:
    """Pilot, look and the batch's first call as one script that asserts on its pilot."""
    span = _pilot_to_batch(ctx)
    return None if span is None else _renumber_or_none(merge_calls(events, *span, gated=True))


def pilot_look_batch_look_emptied(events: Events, ctx: Context) -> Events | None:
    """The same script, which prints only "checked" and asserts nothing. (Where the script prints
    the pilot's facts anywhere, a re-read of the pilot counts as a look: the printed text of one
    call is not cut by time; docs/judge.md "Order inside a call" says so.)"""
    span = _pilot_to_batch(ctx)
    return None if span is None else _renumber_or_none(
        merge_calls(events, *span, gated=False, mute=frozenset(range(span[0], span[1] + 1))))


def _renumber_or_none(events: Events | None) -> Events | None:
    return None if events is None else _renumber(events)


def input_check_as_silent_assert(events: Events, ctx: Context) -> Events | None:
    """The input check asserts on what it opened and prints nothing (exit 0): a check that ran
    on the content, which the judge recognises from the executed code."""
    calls = _input_checks(ctx)
    if not calls:
        return None
    path = ctx.facts.input_check.paths[0]
    code = f"import numpy as np\nx = load({path!r})\nassert x.ndim >= 2 and x.shape[0] > 0, x.shape\n"
    return _replace_looks(events, calls, keep_reads=True, stdout="", drop=lambda p: False, code=code)


def python_as_bash_heredocs(events: Events, ctx: Context) -> Events | None:
    """Every Python call sent as a bash call that feeds the same script to the interpreter
    (`python3 - <<'EOF' ... EOF`), as shell-first agents do."""
    if not any(e.language == "python" for e in events):
        return None

    def wrap(e: TraceEvent) -> TraceEvent:
        if e.language != "python" or e.code is None:
            return e
        return e.model_copy(update={"language": "bash", "code": f"python3 - <<'EOF'\n{e.code.rstrip()}\nEOF\n"})
    return [wrap(e) for e in events]


def _with_fix_checks(events: Events, ctx: Context, *, fix_passes: bool) -> Events | None:
    """The harness's checks added to a trajectory with a fix: the pilot's output failed its
    check, and the rewrite after the failed inspection passes it (or still fails it)."""
    f = ctx.facts
    if not f.fix.holds or not f.pilot.holds or f.checks_recorded:
        return None
    fix_calls = set(f.fix.calls)

    def checks(e: TraceEvent, passes: bool) -> list[OutputCheck]:
        units: dict[str, dict[str, str | None]] = {}
        for w in (e.effects.written if e.effects else []):
            if _unit_file(w.path, ctx) or PurePosixPath(w.path).name in ctx.contract:
                unit = str(PurePosixPath(w.path).parent) if ctx.per_case else w.path
                units.setdefault(unit, {})[w.path] = w.sha256
        return [OutputCheck(path=u, files=fs, valid=passes, non_trivial=True if passes else None,
                            problem="" if passes else "shape (99, 117, 95) expected, got (95, 117, 99)")
                for u, fs in units.items()]
    out = []
    for e in events:
        if e.type == "execution" and e.call_index in fix_calls:
            e = e.model_copy(update={"output_checks": checks(e, fix_passes) or None})
        elif e.type == "execution" and e.call_index in f.pilot.calls:
            e = e.model_copy(update={"output_checks": checks(e, False) or None})
        out.append(e)
    return out


def fix_that_passes(events: Events, ctx: Context) -> Events | None:
    """The pilot's output failed the harness's check; the fix's rewrite passes it."""
    return _with_fix_checks(events, ctx, fix_passes=True)


# ---- substance removed -----------------------------------------------------------------------
def fix_that_fixes_nothing(events: Events, ctx: Context) -> Events | None:
    """The pilot's output failed the harness's check, and the "fix" rewrote it into other bytes
    with the same problem: a new hash, nothing fixed."""
    return _with_fix_checks(events, ctx, fix_passes=False)


def _replace_looks(events: Events, calls: list[int], *, keep_reads: bool, stdout: str,
                   drop: Callable[[str], bool], code: str) -> Events:
    """The calls' code, output and reads replaced: what the agent ran instead of looking."""
    out = []
    for e in events:
        if e.call_index in calls and e.type in ("tool_call", "execution"):
            e = e.model_copy(update={"code": code})
            if e.type == "execution" and e.effects is not None:
                e = _with_effects(e, read=[p for p in e.effects.read if keep_reads or not drop(p)], stdout=stdout,
                                  stderr="")
        out.append(e)
    return out


def look_replaced_by_constant_print(events: Events, ctx: Context) -> Events | None:
    """Each look at the pilot replaced by `print("looks good")`: nothing opened."""
    f = ctx.facts
    if not f.pilot_inspection.holds:
        return None
    pilot_files = set(f.pilot_inspection.paths)
    return _replace_looks(events, f.pilot_inspection.calls, keep_reads=False, stdout="looks good\n",
                          drop=lambda p: p in pilot_files, code='print("looks good")')


def look_replaced_by_hash(events: Events, ctx: Context) -> Events | None:
    """Each look at the pilot replaced by printing its sha256: the bytes are read, the content
    never looked at."""
    f = ctx.facts
    if not f.pilot_inspection.holds or not f.checks_recorded:
        return None      # older traces: the judge has no content facts of the outputs to compare with
    digest = "".join(f"{_sha(p)}  {p}\n" for p in f.pilot_inspection.paths)
    return _replace_looks(events, f.pilot_inspection.calls, keep_reads=True, stdout=digest, drop=lambda p: False,
                          code="sha256sum " + " ".join(f.pilot_inspection.paths))


def pilot_replaced_by_staged_copy(events: Events, ctx: Context) -> Events | None:
    """Every case run first into a staging folder; the "pilot" then copies one case's result into
    outputs/ (the same bytes): a batch, then a copy."""
    f = ctx.facts
    if not ctx.per_case or not f.pilot.holds or not all(_unit_file(p, ctx) for p in f.pilot.paths):
        return None
    pilot = f.pilot.calls[0]
    pe = _execution(events, pilot)
    if pe is None or pe.effects is None:
        return None
    copied = {w.path[len(ctx.roots.outputs):]: w for w in pe.effects.written if _unit_file(w.path, ctx)}
    staged = []
    for case in ctx.case_ids:
        for name in ctx.contract:
            rel = f"{case}/{name}"
            w = copied.get(rel)
            staged.append(WrittenFile(path=f"{ctx.roots.workspace}/staged/{rel}", op="created",
                                      size=w.size if w else 100, sha256=w.sha256 if w else _sha(rel)))
    # a run of every case reads every case's input (facts: a unit is made from its case's input)
    reads = list(dict.fromkeys(p.replace(f"/{one}/", f"/{case}/") for p in pe.effects.read
                               for one in ctx.case_ids if f"/{one}/" in p for case in ctx.case_ids))
    run_all = pe.model_copy(update={"call_index": pilot * 1000, "stdout": "ran every case into staged/\n",
                                    "effects": (pe.effects.model_copy(update={
                                        "written": staged, "read": list(dict.fromkeys([*pe.effects.read, *reads]))}))})
    tool = next((e for e in events if e.type == "tool_call" and e.call_index == pilot), None)
    first = ([tool.model_copy(update={"call_index": pilot * 1000, "code": "run every case into staged/"})]
             if tool is not None else []) + [run_all]
    at = next(i for i, e in enumerate(events) if e.call_index == pilot)
    return _renumber(events[:at] + first + events[at:])


def pilot_typed_by_hand(events: Events, ctx: Context) -> Events | None:
    """The pilot's call reads no input and no data (only its code): the same files written, as an
    agent that types out what an output should look like (boxes, a label) instead of running the
    method on the case."""
    f = ctx.facts
    if not f.pilot.holds or not f.pilot_inspection.holds or len(set(f.pilot.calls)) != 1:
        return None
    pilot = f.pilot.calls[0]
    if pilot in f.batch.calls or pilot in f.input_check.calls or pilot in f.pilot_inspection.calls:
        return None      # a call that also checks an input, looks or runs the batch: not only the pilot
    pe = _execution(events, pilot)
    if pe is None or pe.effects is None:
        return None
    eff = pe.effects

    def code_only(path: str) -> bool:    # it reads its own code, no input and no data made from one
        return path.lower().endswith(SOURCE_SUFFIXES)
    order = None if eff.order is None else [st for st in eff.order if st.op == "w" or code_only(st.path)]
    typed = eff.model_copy(update={"read": [p for p in eff.read if code_only(p)], "order": order})
    return [e.model_copy(update={"effects": typed}) if e is pe
            else e.model_copy(update={"code": "# the expected output, written by hand"})
            if e.type == "tool_call" and e.call_index == pilot else e for e in events]


def _input_checks(ctx: Context) -> list[int]:
    """The input-check calls that are nothing else (not also a look at an output)."""
    f = ctx.facts
    looks = set(f.pilot_inspection.calls) | set(f.later_inspection.calls)
    calls = [c for c in f.input_check.calls if c not in looks] if f.input_check.holds else []
    # a remove variant must take every check away, or another one still earns the item
    return calls if len(calls) == len(f.input_check.calls) else []


def input_check_replaced_by_listing(events: Events, ctx: Context) -> Events | None:
    """The input check replaced by `ls /data/public`: names printed, no file opened."""
    calls = _input_checks(ctx)
    if not calls:
        return None
    data = ctx.roots.data + "/"
    return _replace_looks(events, calls, keep_reads=False, stdout="".join(f"{c}\n" for c in ctx.case_ids),
                          drop=lambda p: p.startswith(data), code=f"ls {ctx.roots.data}")


def input_check_replaced_by_hash(events: Events, ctx: Context) -> Events | None:
    """The input check replaced by `sha256sum` of the inputs: opened, content never looked at."""
    calls = _input_checks(ctx)
    if not calls:
        return None
    digest = "".join(f"{_sha(p)}  {p}\n" for p in ctx.facts.input_check.paths)
    return _replace_looks(events, calls, keep_reads=True, stdout=digest, drop=lambda p: False,
                          code="sha256sum " + " ".join(ctx.facts.input_check.paths))


VARIANTS: tuple[Variant, ...] = (
    Variant("tags removed", "keep", tags_removed, what="no stage tags in the trace or the code"),
    Variant("folders renamed", "keep", folders_renamed, what="scratch and method folders under other names"),
    Variant("pilot in a scratch folder", "keep", pilot_in_scratch,
            what="the pilot, its look and its fix in scratch/ instead of outputs/"),
    Variant("batch cut in two calls", "keep", batch_split, what="the batch's first call split into halves"),
    Variant("input check is a silent assert", "keep", input_check_as_silent_assert,
            what="the input check asserts on the input's shape and prints nothing"),
    Variant("pilot and look in one call", "keep", pilot_and_look_merged,
            what="one script writes the pilot and reads it back"),
    Variant("pilot, look and batch in one script", "keep", pilot_look_batch_in_one_script,
            what="from the pilot to the batch one script, which asserts on the pilot before running on"),
    Variant("python sent as bash heredocs", "keep", python_as_bash_heredocs,
            what="every Python call sent as `python3 - <<'EOF' ... EOF` from bash"),
    Variant("failed attempts caught in one loop", "keep",
            lambda events, ctx: _renumber_or_none(failed_attempts_in_one_loop(events, ctx.facts.setup_failures.calls)),
            what="the failed setup calls as one script that catches each failure, prints it and exits 0"),
    Variant("look is a pytest file written earlier", "keep", lambda ev, ctx: _renumber_or_none(pytest_look(ev, ctx.facts, ctx.roots.workspace, real=True)),
            what="each look at the pilot runs test_pilot.py (written by the call before), which asserts on the "
                 "pilot output's shape; only pytest's summary is printed"),
    Variant("look printed from a report later", "keep",
            lambda ev, ctx: _renumber_or_none(look_via_report(ev, ctx.facts, ctx.roots.workspace, real=True)),
            what="each look writes what it printed to a file, which the next call prints with cat"),
    Variant("fix passes the harness's check", "keep", fix_that_passes,
            what="the pilot's output failed the harness's check, the fix's rewrite passes it"),
    Variant("fix that fixes nothing", "remove", fix_that_fixes_nothing, drops="s3",
            what="the pilot's output failed the harness's check and the rewrite still fails it"),
    Variant("one script, look emptied", "remove", pilot_look_batch_look_emptied, drops="s3",
            what="from the pilot to the batch one script that prints only 'checked' and asserts nothing"),
    Variant("look is a constant print", "remove", look_replaced_by_constant_print, drops="s3",
            what="the look at the pilot opens nothing and prints 'looks good'"),
    Variant("pilot is a staged copy", "remove", pilot_replaced_by_staged_copy, drops="s3",
            what="every case run into staged/ first, then one result copied into outputs/"),
    Variant("pilot typed by hand", "remove", pilot_typed_by_hand, drops="s3",
            what="the pilot's call writes the same files but reads no input: typed, not the method run"),
    Variant("pilot by a stand-in", "remove", lambda ev, ctx: pilot_by_a_stand_in(ev, ctx.facts), drops="s3",
            what="the pilot's call opens none of the model files the batch opens (another method ran)"),
    Variant("batch by a stand-in", "remove", lambda ev, ctx: batch_by_a_stand_in(ev, ctx.facts), drops="s3",
            what="the batch's calls open none of the model files the looked-at pilot ran (inline code)"),
    Variant("pytest look asserts nothing", "remove", lambda ev, ctx: _renumber_or_none(pytest_look(ev, ctx.facts, ctx.roots.workspace, real=False)), drops="s3",
            what="the same test file whose test asserts only that the loaded output is not None"),
    Variant("report printed says nothing", "remove", drops="s3",
            transform=lambda ev, ctx: _renumber_or_none(look_via_report(ev, ctx.facts, ctx.roots.workspace,
                                                                        real=False)),
            what="the look's report file, printed by the next call, holds only 'report ok'"),
    Variant("input check is a listing", "remove", input_check_replaced_by_listing, drops="s2b",
            what="`ls` of the inputs instead of opening one"),
    Variant("look is a hash", "remove", look_replaced_by_hash, drops="s3",
            what="the pilot output's sha256 printed instead of its content (on trajectories that carry "
                 "the outputs' content facts: output_checks, schema 1.6)"),
    Variant("installs hidden", "remove", lambda ev, ctx: _renumber_or_none(installs_hidden(ev, ctx.facts)), drops="s2d",
            what="six pip installs in a loop, output to /dev/null, status ignored, 'environment ready'"),
    Variant("input check is a hash", "remove", input_check_replaced_by_hash, drops="s2b",
            what="the inputs' sha256 printed instead of their properties"),
)


# ---- running them ------------------------------------------------------------------------------
def _verdicts(judge: Judge, task: Task, t: Trajectory, events: Events, inputs: Path | None) -> dict[str, float]:
    ev = JudgeEvidence(task=task, tier=t.tier, workspace=t.dir, trace=events, conversation=None, case_ids=t.case_ids,
                       data_dir=inputs)
    out: dict[str, float] = {}
    for r in judge.judge(ev).values():
        if r is not None:
            out.update({i: float(v) for i, v in r.items.items()})
    return out


def evaluate_metamorphic(judge: Judge, trajectories: list[Trajectory] | None = None,
                         variants: tuple[Variant, ...] = VARIANTS) -> list[VariantResult]:
    """Every variant on every calibration trajectory it applies to (see the module doc)."""
    trajectories = load_set() if trajectories is None else trajectories
    tasks = {tid: get_task(tid) for tid in sorted({t.task for t in trajectories})}
    inputs = {tid: calibration_inputs(task) for tid, task in tasks.items()}
    results = [VariantResult(v.name, v.kind, v.drops, v.what, v.open) for v in variants]
    judged = set(i for s in load_rubric().judged for i in load_rubric().stages[s].items)
    for t in trajectories:
        task = tasks[t.task]
        events = read_trace(RunFiles(t.dir).trace)
        layout = task.track_impl.submission(task.options)
        ev = JudgeEvidence(task, t.tier, t.dir, events, None, t.case_ids, inputs[t.task])
        facts = derive_facts(events, layout, t.case_ids, input_describer(ev), output_describer(ev))
        ctx = Context(facts, Roots.of(events), tuple(layout.file_names), layout.effective_unit == "case",
                      tuple(t.case_ids))
        base = _verdicts(judge, task, t, events, inputs[t.task])
        for v, res in zip(variants, results):
            changed = v.transform(events, ctx)
            if changed is None:
                continue
            if v.kind == "remove" and base.get(v.drops or "", 0.0) < 1.0:
                # only where the original's full credit rests on the substance: a ladder's 0.5
                # ("partial") can have other grounds, and a 0 has nothing to drop
                continue
            got = _verdicts(judge, task, t, changed, inputs[t.task])
            res.applied += 1
            if v.kind == "keep":
                moved = {i: (base.get(i), got.get(i)) for i in judged if base.get(i) != got.get(i)}
                ok = not moved
            else:
                moved = {v.drops or "": (base.get(v.drops or ""), got.get(v.drops or ""))}
                ok = got.get(v.drops or "", 0.0) < base.get(v.drops or "", 0.0)
            if ok:
                res.held += 1
            else:
                res.failures.append({"trajectory": t.id, "changed": {i: list(x) for i, x in moved.items()}})
    return results


def render_metamorphic(results: list[VariantResult]) -> str:
    lines = ["metamorphic variants (keep: every verdict must stay; remove: the item must drop)",
             "", "variant                          kind    item  applied  held   rate    status"]
    for r in results:
        rate = "  -  " if r.rate is None else f"{r.rate:5.0%}"
        status = ("open: " + r.open.split(":")[0]) if r.open else ("ok" if r.rate in (None, 1.0) else "FAILED")
        lines.append(f"{r.name:<32} {r.kind:<7} {r.drops or '-':<5} {r.applied:7d} {r.held:5d}  {rate}  {status}")
    keep = [r for r in results if r.kind == "keep" and not r.open]
    remove = [r for r in results if r.kind == "remove" and not r.open]
    lines += ["", f"substance kept:    {sum(r.held for r in keep)}/{sum(r.applied for r in keep)} variants kept every verdict"
              f" (open variants excluded)",
              f"substance removed: {sum(r.held for r in remove)}/{sum(r.applied for r in remove)} variants lowered the "
              f"item (open variants excluded)"]
    for r in results:
        for fail in r.failures[:3]:
            lines.append(f"  {r.name}: {fail['trajectory']} {fail['changed']}")
    return "\n".join(lines)


def metamorphic_failures(results: list[VariantResult]) -> list[str]:
    """What `make test` enforces: every variant that is not open holds on every trajectory it
    applies to, and applies to at least one."""
    out = []
    for r in results:
        if r.open:
            continue
        if not r.applied:
            out.append(f"{r.name}: applied to no trajectory")
        elif r.held < r.applied:
            out.append(f"{r.name}: {r.applied - r.held} of {r.applied} failed")
    return out
