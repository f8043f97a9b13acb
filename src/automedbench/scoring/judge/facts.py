"""Workflow facts from what the agent's calls DID (exit codes, output, recorded effects), never a tag,
keyword or claim: docs/judge.md "Evidence: facts from effects, never words"; functions cite their part."""
from __future__ import annotations

import math
from functools import partial
from pathlib import Path
from dataclasses import dataclass, field, replace
from typing import Callable

from ...runs.models import TraceEvent
from ..experiments import Experimented, RunExperiments, real_path, with_aliases
from ...tracks.base import SubmissionLayout
from ...tracks.content_facts import ContentFacts, looked_at, same_kind
from .calls import CallFacts, Fact, Roots, Write, _name, _parent, collect_calls
from .steps import before_first_look, split_call
from .asserts import check_offsets, first_mention
from .inspections import _later_inspections, _method_output, _pilot_inspections, _unit_file, smoke_inspections
from .made_from import SOURCE_SUFFIXES, MadeFrom
from .attempts import own_fault, setup_facts
from .pilots import (MethodFiles, beside_the_batch, fix_reaching_the_batch, retuned_after_the_look, rival_outputs,
                     set_aside, unpiloted_change_failed)
from .sources import RanSources, ran_check
from .substitutes import runs_on_substitutes
from .looks import MAX_DESCRIBED, Checks, DescribeOutput, Looks, Opened, recorded_facts

# a file with one of these suffixes written under /workspace is a model checkpoint / weights file
WEIGHT_SUFFIXES = (".pt", ".pth", ".ckpt", ".safetensors", ".bin", ".onnx", ".h5", ".hdf5", ".npz", ".pkl",
                   ".joblib", ".pb", ".tflite", ".msgpack", ".gguf", ".caffemodel", ".params")
# a file with one of these suffixes is a method's source or parameters; it counts when opened later
METHOD_SUFFIXES = (".py", ".json", ".yaml", ".yml", ".toml", ".cfg", ".npy")
LARGE_FILE_BYTES = 1 << 20          # a file this large written outside outputs/ is a model file
DOWNLOAD_BYTES = 1 << 20            # this many bytes received in one call is a download
COHORT_UNKNOWN_N = 100              # cohort rows estimated in percent when the expected cases are unknown
DescribeInput = Callable[[str], "ContentFacts | None"]   # inside path of a public file -> its content facts


@dataclass
class WorkflowFacts:
    calls: list[CallFacts]
    effects_recorded: bool          # at least one execution carried effects
    calls_without_effects: list[int]
    unit: str
    n_expected: int
    pilot_max: int
    batch: Fact
    pilot: Fact
    pilot_inspection: Fact          # inspections of pilot outputs before the batch
    failed_inspection: Fact         # inspections that exited non-zero or looked at a failing output
    fix: Fact
    invalid_pilot: Fact             # pilot outputs whose last check before the batch failed
    checks_recorded: bool           # the trace carries the harness's per-output checks (schema 1.6)
    later_inspection: Fact          # output files opened by a call after they were written (any time)
    smoke_inspection: Fact          # before the batch, a smoke run's output looked at (inspections.py)
    input_check: Fact
    weights: Fact
    method_files: Fact
    runtime_confirmed: Fact
    method_ran: Fact                # the method (a file, a module or inline code) worked on a case before the batch
    environment: Fact
    setup_work: Fact
    setup_failures: Fact            # the setup calls with a failed environment attempt
    failed_attempts: int = 0        # how many attempts failed in them (s2d)
    # which looks the experiments decided and which fell back to these facts (looks.py)
    experimented: Experimented | None = None
    method_looked: Fact = field(default_factory=lambda: Fact(False))   # looks at pilot outputs before the batch, of any settings (s2e)
    # looks at a pilot output's form only (a form mutant killed, no content one): partial (S3)
    form_inspection: Fact = field(default_factory=lambda: Fact(False))
    # looks at pilot outputs of another method or settings than the batch submitted (outcome consistency)
    superseded_inspection: Fact = field(default_factory=lambda: Fact(False))
    # the submission gives one output for every case (tracks/same_output.py): what is wrong, or ""
    one_for_all: str = ""
    # method runs that loaded a module standing in for a missing package, and any call that did (substitutes.py)
    substitute: Fact = field(default_factory=lambda: Fact(False))
    substitute_opened: Fact = field(default_factory=lambda: Fact(False))

    @property
    def fixed_or_fine(self) -> bool:
        """What the looks before the batch showed was fine, or fixed, and no pilot output went into
        the batch failing the harness's check."""
        return (not self.failed_inspection.holds or self.fix.holds) and not self.invalid_pilot.holds

    @property
    def method_confirmed(self) -> bool:
        """s2e, "confirmed working": the method ran before the batch, a later call looked at what it
        produced (a pilot or a smoke output) and found it fine or fixed (docs/judge.md "s2e: confirmed by a look")."""
        ran = self.runtime_confirmed.holds or self.method_ran.holds
        looked = self.method_looked.holds or self.smoke_inspection.holds
        # "found fine (or fixed)": no failed look left unfixed, and not one output for every case
        return (ran and looked and (not self.failed_inspection.holds or self.fix.holds) and not self.one_for_all
                and not self.substitute.holds)


# dot-folders that tools (not the agent's method) write into: never a place the method ran
TOOL_FOLDERS = {".cache", ".config", ".local", ".ipynb_checkpoints", ".git", ".tmp", ".npm", ".keras",
                ".matplotlib", ".jupyter", ".ipython"}


def _scratch(path: str, roots: Roots) -> bool:
    """A workspace file outside outputs/ and plan/ that is not in a tool's folder: the method may
    run anywhere else, hidden folders (`.stage/`) included."""
    if not path.startswith(roots.workspace + "/") or path.startswith((roots.outputs, roots.plan)):
        return False
    return "/__pycache__/" not in path and not any(
        part in TOOL_FOLDERS for part in path[len(roots.workspace) + 1:].split("/"))


def _write_units(w: Write, layout: SubmissionLayout, roots: Roots, cases: set[str],
                 rows_of: dict[str, int], n_expected: int, parsed_rows: int | None = None) -> tuple[str, list[str]]:
    """(the copy key's unit part, the units this write covers) -- ([]: not a unit file)."""
    name = _name(w.path)
    if w.path.startswith(roots.outputs):
        rest = w.path[len(roots.outputs):]
        if "/" not in rest and name not in layout.file_names:
            return f"extra:{rest}", [w.path]    # a scratch `outputs/pilot.txt`: one unit of its own
        if layout.effective_unit == "case":
            return (rest.split("/", 1)[0], [rest.split("/", 1)[0]]) if "/" in rest else ("", [])
    elif not _scratch(w.path, roots) or name not in layout.file_names:
        return "", []
    elif layout.effective_unit == "case":
        case = _name(_parent(w.path))
        # a folder no case names, when the cases are known: a smoke run if an input fed it
        return (case, [case]) if case in cases else ("smoke" if cases else "", [])
    # a cohort file, anywhere: its rows as the harness's check parsed them, else estimated from its
    # size against the largest its name reaches in the run (docs/judge.md "Unit")
    if parsed_rows is not None:
        k = min(parsed_rows, max(1, n_expected))
    elif w.size and rows_of.get(name):
        k = max(1, round(n_expected * w.size / rows_of[name]))
    else:
        return "", []
    return ("cohort", [f"{name}#row{i}" for i in range(1, k + 1)]) if k > 0 else ("", [])


def _parsed_rows(c: CallFacts, w: Write) -> int | None:
    """A cohort table's data rows as the harness's check of the call parsed them (its content
    facts of these very bytes), or None: not checked, or not a table."""
    for ch in c.checks:
        cf = ch.facts.get(w.path)
        if cf and w.sha256 and ch.files.get(w.path) == w.sha256 and cf.get("kind") == "table":
            rows = cf.get("facts", {}).get("rows")
            return int(rows) if isinstance(rows, int) else None
    return None


def _assign_units(calls: list[CallFacts], layout: SubmissionLayout, n_expected: int, roots: Roots,
                  case_ids: list[str] | None) -> None:
    """Each call's method runs (units produced, wherever written) and copies (docs/judge.md)."""
    # with unknown cases only outputs/<case>/ folders name a case (a scratch folder cannot be told apart)
    cases = set(case_ids or [])
    biggest: dict[str, int] = {}   # cohort files: the largest size each file name reaches in the run
    for c in calls:
        for w in c.written:
            name = _name(w.path)
            if name in layout.file_names and w.size and (w.path.startswith(roots.outputs) or _scratch(w.path, roots)):
                biggest[name] = max(biggest.get(name, 0), w.size)
    first_run: dict[tuple[str, str, str], int] = {}    # (unit key, file name, sha256) -> call position
    # a file made from unit files alone (a copy, `tr -d '\\r' < out.csv > view.csv`) -> those files
    derived: dict[str, list[str]] = {}
    unit_files: set[str] = set()
    made_from = MadeFrom(calls, roots, case_ids)
    made_data: set[str] = set()       # data files the agent made (a phantom): a smoke run's input
    for pos, c in enumerate(calls):
        # opening a view made from unit files is opening them (docs/judge.md "Views of an output")
        c.read += list(dict.fromkeys(o for p in c.read for o in derived.get(p, ()) if o not in c.read))
        viewed = [p for p in c.read if p in unit_files]
        fed_at = made_from.feed(c)
        on_made = bool(made_data & {*c.read, *c.read_back, *c.held})
        made_data |= {w.path for w in c.written if not w.path.lower().endswith(SOURCE_SUFFIXES)
                      and _scratch(w.path, roots) and _name(w.path) not in layout.file_names}
        for w in c.written:
            derived.pop(w.path, None)
            key, units = _write_units(w, layout, roots, cases, biggest, n_expected, _parsed_rows(c, w))
            if key == "smoke" and (on_made or made_from.run_of(key, *fed_at(w.path), cohort=True)):
                c.smoke_writes.append(w)
            if not units:
                continue
            content = (key, _name(w.path), w.sha256 or "")
            if w.sha256 and first_run.get(content, pos) < pos:
                c.copies.append(w)          # the same bytes an earlier call produced: a copy, not a run
                continue
            if not made_from.run_of(key, *fed_at(w.path), cohort=key == "cohort" or key.startswith("extra:")):
                c.made_up.append(w)         # typed out, not made from the case's input: no run
                continue
            first_run.setdefault(content, pos)
            c.unit_writes.append(w)
            c.units |= set(units)
        made = {w.path for w in c.unit_writes}
        if viewed and not c.units:     # a view is a file of the same kind (a report .txt of a table is not)
            for w in c.written:
                same = [u for u in viewed if w.path not in made and same_kind(Path(real_path(w.path)), Path(u))]
                if same:
                    derived[w.path] = same
        unit_files |= made


def _model_file_kind(w: Write, roots: Roots) -> str | None:
    p = w.path
    if not _scratch(p, roots) or any(part.startswith(".") for part in p[len(roots.workspace) + 1:].split("/")):
        return None   # tool caches and dot-folders (~/.cache/matplotlib, .ipynb_checkpoints): not a model
    if p.lower().endswith(WEIGHT_SUFFIXES) or (w.size or 0) >= LARGE_FILE_BYTES:
        return "weights"
    if p.lower().endswith(METHOD_SUFFIXES):
        return "method"
    return None


def derive_facts(trace: list[TraceEvent], layout: SubmissionLayout, case_ids: list[str] | None = None,
                 describe_input: DescribeInput | None = None,
                 describe_output: DescribeOutput | None = None,
                 experiments: RunExperiments | None = None) -> WorkflowFacts:
    """The workflow facts of a trace; `describe_input`/`describe_output` give content facts of what
    the calls read (None: not available, then printing something counts: docs/judge.md "Inspection")."""
    roots = Roots.of(trace)
    contract = set(layout.file_names)
    experimented = Experimented(experiments)
    if experiments is not None:      # units by content: renamed unit files read under their alias
        trace = with_aliases(trace, experiments.renamed)
    # a call read as the steps it took (steps.py): the verdict does not depend on the cut
    is_unit = partial(_unit_file, contract=contract, roots=roots)
    calls = [step for c in collect_calls(trace, roots) for step in split_call(c, is_unit)]
    sources = RanSources(roots.workspace)
    for c in calls:
        sources.walk(c)
    unit = layout.effective_unit
    n = _expected_units(calls, unit, case_ids)
    _assign_units(calls, layout, n, roots, case_ids)
    sources.drop_methods(calls)
    copied_inputs = _drop_input_copies(calls)
    pilot_max = max(1, math.floor(layout.pilot_max_fraction * n))

    # each walk over the calls' looks starts afresh (looks.py); the recorded content facts are shared
    looks = partial(Looks, describe_output, experimented, recorded_facts(calls))
    batch_start = _batch_start(calls, pilot_max, n, looks(), contract, unit)
    before, batch = (calls, []) if batch_start is None else (calls[:batch_start], calls[batch_start:])
    checks = Checks(calls)
    # the method's outputs, wherever written, are never its weights or parameters
    unit_files = {p for c in calls for p in c.unit_paths}
    weights, method_files = _weights(calls, roots, unit_files), _method_files(calls, roots, unit_files)
    method = MethodFiles({*weights.paths, *method_files.paths}, sources.history, calls, batch)
    # pilots of the batch's own method, looks that could gate it (pilots.py)
    inspect = partial(_pilot_inspections, before, contract=contract, beside=beside_the_batch(batch))
    stand_ins = method.stand_ins([c for c in before if c.units])
    # s2e for a pilot of a method file of its own that the batch then replaced, read before
    # `set_aside` (docs/judge.md "s2e: confirmed by a look")
    own_file = [c for c in method.inline_versions(stand_ins) if method.of(c)]
    own_file_ran, own_file_looks = _runtime_confirmed(own_file, None), inspect(own_file, looks())
    set_aside(stand_ins)
    pilots = [c for c in before if c.units]
    # pilots of another method than the batch's (versions.py): their looks confirm nothing for s2e
    not_the_method = _only_their_outputs(method.another_methods_pilots(pilots), pilots)
    inspections = inspect(pilots, looks())
    unlooked = _unlooked_in_batch_call(pilots, inspections, batch)
    if unlooked:
        pilots = [c for c in pilots if c not in unlooked]
        inspections = inspect(pilots, looks())
    # looks at the pilots' form only (a form mutant killed, no content one: docs/judge.md); unless
    # an experiment found such a look, the form walk would be the content walk again: none
    looked = {id(c) for c, _ in inspections}
    form_only = experimented.recorded and any(e.looked and not e.inspected for e in experimented.by_call.values())
    form_looks = [x for x in inspect(pilots, looks(form=True)) if id(x[0]) not in looked] if form_only else []
    rivals = rival_outputs(batch, pilots)
    if rivals:           # a look at a rival method's output only is no look at the batch's (pilots.py)
        inspections, form_looks = (
            [(c, ps) for c, ps in ((c, [p for p in ps if p not in rivals]) for c, ps in found) if ps]
            for found in (inspections, form_looks))
    # looks at the content of the method's own pilot outputs confirm it worked (s2e) whatever the batch then ran (S3
    # charges a change); one at the form only passes an empty output: no confirmation (docs/judge.md "s2e: ...")
    method_looks = inspections + own_file_looks
    method_looked = _method_looked(method_looks, not_the_method)
    looked_before = inspections
    if experimented.decided_any([c.index for c, _ in inspections]):
        # by experiment: a look counts for the batch when the batch submitted what it inspected
        other = experimented.of_another_method([c.index for c, _ in inspections])
        inspections = [(c, ps) for c, ps in inspections if c.index not in other]
    elif retuned_after_the_look(calls, inspections, batch_start, pilots):
        inspections = []     # recorded facts: the looks were of another pipeline than the batch's (pilots.py)
    if inspections and unpiloted_change_failed(method, pilots):
        inspections = []     # the batch's own code, never piloted, made outputs that failed the check (pilots.py)
    superseded = [x for x in looked_before if x not in inspections]
    if superseded:       # the batch submitted other outputs: was the file it ran ever piloted? (pilots.py)
        passing = method.pilots_passing_the_batchs_file(pilots)
        method_looked = _method_looked(method_looks, not_the_method | _only_their_outputs(passing, pilots))
    failed = [(c, ps) for c, ps in inspections if (not c.ok and not own_fault(c.text)) or checks.failing(c, ps)]
    fix = fix_reaching_the_batch(_fix(calls, before, inspections, failed, checks), batch)
    setup_work, setup_failures, failed_attempts = setup_facts(calls)
    skip = unlooked + stand_ins
    tried = [c for c in before if c not in skip]
    stand_in = runs_on_substitutes(calls, batch)
    return WorkflowFacts(
        calls=calls, effects_recorded=any(c.has_effects for c in calls),
        calls_without_effects=[c.index for c in calls if not c.has_effects],
        unit=unit, n_expected=n, pilot_max=pilot_max,
        batch=_batch(calls, batch, n, unit),
        pilot=Fact(bool(pilots), [c.index for c in pilots], sorted({w.path for c in pilots for w in c.unit_writes}),
                   f"{len({u for c in pilots for u in c.units})} unit(s) before the batch (a pilot covers 1..{pilot_max})"
                   + (f"; set aside, run by another method than the batch's: calls {', '.join(f'#{c.index}' for c in stand_ins)}"
                      if stand_ins else "")),
        pilot_inspection=_opened_fact(inspections),
        form_inspection=_opened_fact(form_looks),
        superseded_inspection=_opened_fact(superseded),
        failed_inspection=_opened_fact(failed),
        fix=fix, invalid_pilot=checks.invalid_pilot(pilots, before, set(fix.paths)), checks_recorded=checks.recorded,
        # a look after the batch earns S3's partial credit at most: at the content or the form
        later_inspection=_opened_fact(_later_inspections(calls, looks(form=True), contract, pilot_max, copied_inputs)),
        smoke_inspection=_opened_fact(smoke_inspections(before, looks())),
        method_looked=method_looked,
        input_check=_input_check(before, describe_input, contract, experimented), weights=weights, method_files=method_files,
        runtime_confirmed=_runtime_confirmed(tried, method),
        method_ran=_either(_runtime_confirmed(tried, None), own_file_ran),
        environment=_environment(before + batch[:1], method.paths), substitute=stand_in[0], substitute_opened=stand_in[1],
        setup_work=setup_work, setup_failures=setup_failures, failed_attempts=failed_attempts,
        experimented=experimented)


# ---- the steps of derive_facts (docs/judge.md: the facts a judge reads) -------------------

def _method_looked(looks: Opened, not_the_method: set[str]) -> Fact:
    """Looks at the method's outputs before the batch (s2e), less those at outputs of a pilot of
    another method, which the fact names when they were all it had."""
    kept = _opened_fact([(c, mine) for c, ps in looks if (mine := [p for p in ps if p not in not_the_method])])
    dropped = [(c, [p for p in ps if p in not_the_method]) for c, ps in looks if set(ps) & not_the_method]
    if kept.holds or not dropped:
        return kept
    return replace(_opened_fact(dropped), holds=False,
                   note="only a pilot of another method was looked at: its method file is no version of the "
                        "batch's (docs/judge.md \"A pilot of another method\")")


def _only_their_outputs(some: list[CallFacts], pilots: list[CallFacts]) -> set[str]:
    """The unit files that only the pilots in `some` wrote (none of the other pilots)."""
    others = {p for c in pilots if c not in some for p in c.unit_paths}
    return {p for c in some for p in c.unit_paths} - others


def _either(a: Fact, b: Fact) -> Fact:
    if not b.holds:
        return a
    if not a.holds:
        return b
    return Fact(True, list(dict.fromkeys(a.calls + b.calls)), sorted(set(a.paths) | set(b.paths)), a.note)


def _drop_input_copies(calls: list[CallFacts]) -> set[str]:
    """Unit files holding the case's input, dropped (docs/judge.md "A copy of the input is not a run")."""
    copied: set[str] = set()
    for c in calls:
        mine = [ch for ch in c.checks if ch.copy_of_input]
        if not mine:
            continue
        copied |= {p for ch in mine for p in ch.files}
        c.unit_writes = [w for w in c.unit_writes if w.path not in copied]
        # a case stays a unit of the call when another of its writes was a run (the method's
        # output beside a copy of the input, both on the pilot case: held-out sealed-10)
        ran = {_name(_parent(w.path)) for w in c.unit_writes}
        c.units -= {ch.case_id for ch in mine if ch.case_id is not None} - ran
    return copied


def _expected_units(calls: list[CallFacts], unit: str, case_ids: list[str] | None) -> int:
    """How many units the outputs must cover: the task's cases, else the case folders written."""
    if case_ids:
        return len(case_ids)
    if unit == "case":      # the case folders of outputs/ written in
        return len({rest.split("/", 1)[0] for c in calls for w in c.output_writes
                    if "/" in (rest := w.path[len(c.roots.outputs):])}) or 1
    return COHORT_UNKNOWN_N


def _batch_start(calls: list[CallFacts], pilot_max: int, n: int, looks: Looks, contract: set[str],
                 unit: str) -> int | None:
    """The call after which the outputs cover more than a pilot (docs/judge.md "Batch", "Pilot size")."""
    covered: set[str] = set()
    for pos, c in enumerate(calls):
        covered |= c.units
        # a step that wrote a unit after reading the inputs of more cases than a pilot covers
        # was already running them all (every case handed to a pool at once): the batch
        began = covered | c.started if c.units and unit == "case" else covered
        if len(began) > pilot_max and len(covered) <= pilot_max:
            return pos
        if len(covered) > pilot_max:
            if len(covered) <= n // 2 and _looked_before_more(calls, pos, covered, looks, contract):
                pilot_max = len(covered)
                continue
            return pos
    return None


def _unlooked_in_batch_call(pilots: list[CallFacts], inspections: Opened, batch: list[CallFacts]) -> list[CallFacts]:
    """Pilot steps of the batch's own call that nothing looked at: a loop that writes each case
    and re-reads it is a batch, not a pilot (steps.py)."""
    if not batch:
        return []
    looked = {p for _, ps in inspections for p in ps}
    batch_call = batch[0].index
    return [c for c in pilots if c.index == batch_call and c.step > 0 and not set(c.unit_paths) & looked]


def _looked_before_more(calls: list[CallFacts], pos: int, units: set[str], looks: Looks,
                        contract: set[str]) -> bool:
    """Whether, after `calls[pos]` and before the next call that produced a unit, a call opened
    outputs of those units written so far and looked at their content."""
    written = {w.path for c in calls[: pos + 1] for w in c.unit_writes
               if _method_output(w.path, contract, c.roots)}
    for c in calls[: pos + 1]:
        looks.wrote(c)
    for c in calls[pos + 1:]:
        if c.units:
            return False
        opened = [p for p in c.read if p in written]
        if opened and looks.looked(c, opened):
            return True
        looks.wrote(c)
    return False


def _batch(calls: list[CallFacts], batch: list[CallFacts], n: int, unit: str) -> Fact:
    batch_calls = [c for c in batch if c.produced]
    return Fact(bool(batch_calls), [c.index for c in batch_calls],
                [w.path for c in batch_calls[:1] for w in c.unit_writes + c.output_writes][:4],
                f"outputs cover {len({u for c in calls for u in c.units})} of {n} {unit} units" if batch_calls
                else "no call wrote more than a pilot")


def _opened_fact(opened: Opened) -> Fact:
    return Fact(bool(opened), list(dict.fromkeys(c.index for c, _ in opened)), sorted({p for _, ps in opened for p in ps}))


def _fix(calls: list[CallFacts], before: list[CallFacts], inspections: Opened, failed: Opened,
         checks: Checks) -> Fact:
    """A fix: `Checks.fixes`; in older traces a pilot output re-written after a look (docs/judge.md "Fix")."""
    if checks.recorded:
        return checks.fixes(calls, before, inspections, failed)
    fixes: list[tuple[CallFacts, str]] = []
    if inspections:
        first_insp = calls.index(inspections[0][0])
        last_sha: dict[str, str | None] = {}
        # up to the first look only the bytes are noted (the inspecting call may have written the pilot: read back)
        for pos, c in enumerate(before):
            for w in c.unit_writes + c.copies + c.output_writes:
                if pos > first_insp and w.path in last_sha and (w.sha256 is None or w.sha256 != last_sha[w.path]):
                    fixes.append((c, w.path))
                last_sha[w.path] = w.sha256
    return Fact(bool(fixes), sorted({c.index for c, _ in fixes}), sorted({p for _, p in fixes}))


def _silent_input_check(c: CallFacts, contract: set[str], looks: bool) -> bool:
    """A silent check on the inputs, before the code names an output (docs/judge.md "Order inside a
    call"); `looks`: the step also opened a unit output, whose check a later assert may be."""
    found = check_offsets(c.code)
    if not found:
        return ran_check(c) and not looks     # a check script it wrote earlier and ran now (sources.py)
    if not c.continues and not looks:
        return True
    first = first_mention(c.code, ["outputs", *sorted(contract)])
    return first is None or found[0] < first


def _looked_at_inputs(text: str, inputs: list[str], describe_input: DescribeInput | None,
                      seen: dict[str, ContentFacts | None], silent: Callable[[], bool]) -> tuple[list[str], str] | None:
    """The inputs a step's `text` states content facts of (or a silent check ran on), and why."""
    if describe_input is None:
        return (inputs[:8], "printed (the inputs were not available to check content)") if text.strip() else None
    described = False
    for p in inputs[:MAX_DESCRIBED]:
        if p not in seen:
            seen[p] = describe_input(p)
        if seen[p] is None:
            continue
        described = True
        facts = looked_at(text, seen[p])
        if facts:
            return [p], f"printed {', '.join(facts)} of {p}"
    if described and silent():
        return inputs[:8], "a silent check (assert on a property) ran and passed"
    if not described and text.strip():
        return inputs[:8], "printed (no describer reads these inputs' kind)"
    return None


def _inputs_in(paths: list[str], c: CallFacts, kept: dict[str, list[str]]) -> list[str]:
    """The public inputs that `paths` are, or hold (a file of the agent's `kept`)."""
    return list(dict.fromkeys(q for p in paths for q in ([p] if p in c.public_reads else kept.get(p, ()))))


def _keep_inputs(c: CallFacts, public: list[str], contract: set[str], kept: dict[str, list[str]]) -> None:
    """Data files a step wrote after opening inputs: copies of them (docs/judge.md "Input check")."""
    bearing = [p for p in c.read if p in c.public_reads or p in kept]
    for w in c.written:
        p = w.path
        if (p.lower().endswith(SOURCE_SUFFIXES) or "/." in p or p.startswith(c.roots.data + "/")
                or _unit_file(p, contract, c.roots)):
            continue
        if c.order is not None:
            at = next((i for i, st in enumerate(c.order) if st.op == "w" and st.path == p), None)
            read = {st.path for st in c.order[:at]} if at is not None else set()
            if not any(q in read or q in c.held for q in bearing):
                continue
        kept[p] = public[:8]


def _input_check(before: list[CallFacts], describe_input: DescribeInput | None, contract: set[str],
                 experimented: Experimented) -> Fact:
    """Calls before the batch that looked at the inputs they opened (docs/judge.md "Input check", "Experiments")."""
    checks: list[tuple[CallFacts, list[str], str]] = []
    seen: dict[str, ContentFacts | None] = {}
    kept: dict[str, list[str]] = {}      # a file of the agent's holding inputs -> those inputs
    for c in before:
        public = _inputs_in(c.read, c, kept)
        if not public or c.produced:
            continue
        _keep_inputs(c, public, contract, kept)
        if not c.ok:
            continue
        exp = experimented.input_verdict(c.index, c.step)
        if exp is not None:
            if exp.looked:
                checks.append((c, c.public_reads[:8], exp.summary("altered inputs")))
            continue
        # an input opened as an output's reference is no input check: only what the step printed
        # before it first opened a unit output counts (docs/judge.md "Input check")
        is_unit = partial(_unit_file, contract=contract, roots=c.roots)
        apart = before_first_look(c, is_unit)
        if apart is None:
            continue
        text, opened = apart
        inputs = _inputs_in(opened, c, kept)
        if not inputs:
            continue
        looks = any(is_unit(p) for p in c.read)
        found = _looked_at_inputs(text, inputs, describe_input, seen, partial(_silent_input_check, c, contract, looks))
        if found is not None:
            checks.append((c, *found))
    return Fact(bool(checks), [c.index for c, _, _ in checks], sorted({p for _, ps, _ in checks for p in ps})[:8],
                "; ".join(dict.fromkeys(why for _, _, why in checks))[:300])


def _loaded_to_produce(calls: list[CallFacts], path: str, after: int) -> list[int]:
    """Calls after position `after` that opened `path` (or whose script still held it, opened by
    an earlier step of the same call) and produced a unit of work."""
    return [c.index for c in calls[after + 1:] if (path in c.read or path in c.held) and c.units]


def _weights(calls: list[CallFacts], roots: Roots, unit_files: set[str]) -> Fact:
    """Weight files a later call loaded to produce outputs (docs/judge.md "Weights obtained")."""
    used: dict[str, list[int]] = {}
    writers: set[int] = set()
    for pos, c in enumerate(calls):
        for w in c.written:
            if w.path in unit_files or _model_file_kind(w, roots) != "weights":
                continue
            loaders = _loaded_to_produce(calls, w.path, pos)
            if loaders:
                used.setdefault(w.path, []).extend(loaders)
                writers.add(c.index)
    downloads = [c for c in calls if c.bytes_in >= DOWNLOAD_BYTES]
    note = "loaded by call(s) " + ", ".join(f"#{i}" for i in sorted({i for v in used.values() for i in v})) \
        if used else "no weights file was loaded by a call that produced outputs"
    if downloads:
        note += f"; {len(downloads)} call(s) received >= {DOWNLOAD_BYTES} bytes"
    return Fact(bool(used), sorted(writers), sorted(used), note)


def _method_files(calls: list[CallFacts], roots: Roots, unit_files: set[str]) -> Fact:
    """Method source files written, then opened by a later call that produced outputs."""
    first_written: dict[str, int] = {}
    for pos, c in enumerate(calls):
        for w in c.written:
            if w.path not in unit_files and _model_file_kind(w, roots) == "method":
                first_written.setdefault(w.path, pos)
    used = [p for p, pos in first_written.items() if _loaded_to_produce(calls, p, pos)]
    return Fact(bool(used), sorted({calls[first_written[p]].index for p in used}), sorted(used),
                "written, then loaded by a later call that produced outputs" if used else "")


def _worked(c: CallFacts) -> bool:
    """A method run worked: a unit it wrote passed the harness's check; without checks, it exited 0 or
    failed only in looking at what it produced (docs/judge.md "Runtime confirmed")."""
    if c.checks:
        return any(ch.passed for ch in c.checks)
    return c.ok or (not c.timed_out and bool(set(c.read_back) & set(c.unit_paths)))


def _runtime_confirmed(tried: list[CallFacts], method: MethodFiles | None) -> Fact:
    """Of the steps `tried` before the batch, those that loaded the model (`method`'s files; None: any method)
    and produced a unit that worked (docs/judge.md "Runtime confirmed"; "Order inside a call")."""
    confirmers = [c for c in tried if (method is None or method.of(c))
                  and ((c.units and _worked(c)) or (c.smoke_writes and c.ok))]
    calls = list(dict.fromkeys(c.index for c in confirmers))
    if method is None:
        return Fact(bool(confirmers), calls, sorted({w.path for c in confirmers for w in c.unit_writes + c.smoke_writes})[:4],
                    "the method ran on a case (or part of one) before the batch and its output passed")
    return Fact(bool(confirmers), calls, sorted(method.opened_by(confirmers)))


def _environment(upto: list[CallFacts], model_paths: set[str]) -> Fact:
    """Up to the batch's first call, successful calls that read the inputs or the model."""
    env = [c for c in upto if c.ok and (c.public_reads or any(p in model_paths for p in c.read))]
    return Fact(bool(env), [c.index for c in env][:8], sorted({p for c in env[:1] for p in c.read})[:4])

