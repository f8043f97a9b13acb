"""Heuristic judge v3 for S1..S3, offline and deterministic: S1 from the plan files, S2 and S3 from the
workflow facts (facts.py); docs/judge.md "The rules (heuristic judge v3)"."""
from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path, PurePosixPath

from ...run_files import WorkspaceNames as W
from ...runs.models import ItemEvidence, StageResult
from ...tasks import Task
from ..rubric import load_rubric
from .base import JUDGES, JudgeBase, JudgeEvidence
from ...tracks.content_facts import ContentFacts, describe
from .plan_facts import (model_method_names, COPIED_SHARE, MIN_JUDGED, MIN_METHODS, another_tasks_outputs, copied_share, executable,
                         methods_judged, methods_named, prompt_shingles, step_lines, stem_words, task_texts)
from .asserts import parse_python
from .facts import DescribeInput, DescribeOutput, Fact, Roots, WorkflowFacts, derive_facts
from .pilots import script_settings
from ...tracks.same_output import one_output_for_all
# a plot with fewer distinct colours than this (after subsampling) shows nothing
BLANK_PLOT_COLOURS = 2
MIN_PLOT_WH = (200, 100)
MAX_SETUP_FAILURES = 5   # rubric s2d: "at most 5 failed environment attempts"


@lru_cache(maxsize=1)
def _rubric_words() -> set[str]:
    """The words of the rubric's items: a step line made of them echoes it."""
    return stem_words(" ".join(text for st in load_rubric().stages.values() for text in st.items.values()))


def _png_facts(path: Path) -> tuple[tuple[int, int] | None, int | None]:
    """(width, height) of a real PNG or None, and the number of distinct colours (None when it
    cannot be decoded). Decoded once per file version (path, size, mtime)."""
    try:
        st = path.stat()
    except OSError:
        return None, None
    return _decoded_png_facts(str(path), st.st_size, st.st_mtime_ns)


@lru_cache(maxsize=256)
def _decoded_png_facts(path: str, _size: int, _mtime_ns: int) -> tuple[tuple[int, int] | None, int | None]:
    try:
        from PIL import Image
        with Image.open(path) as im:
            if im.format != "PNG":
                return None, None
            size = im.size
            small = im.convert("RGB").resize((min(size[0], 256), min(size[1], 256)))
            colours = small.getcolors(maxcolors=1 << 16)
            return size, (len(colours) if colours is not None else 1 << 16)
    except Exception:   # not an image, truncated, unreadable: the plot does not exist as an image
        return None, None


def clear_caches() -> None:
    """Forget the parsed scripts, settings and plot facts kept between judgements (a benchmark
    judging many distinct runs must not reuse one run's readings for the next)."""
    parse_python.cache_clear()
    script_settings.cache_clear()
    _decoded_png_facts.cache_clear()


def input_describer(ev: JudgeEvidence) -> DescribeInput | None:
    """Content facts of a public input by the path the agent saw, read from the run's public
    folder on the host (None when the judge has no inputs: an old run, a moved dataset)."""
    if ev.data_dir is None or not ev.data_dir.is_dir():
        return None
    data_root, top = Roots.of(ev.trace).data, ev.data_dir.resolve()

    def describe_input(inside: str) -> ContentFacts | None:
        rel = PurePosixPath(inside[len(data_root) + 1:]) if inside.startswith(data_root + "/") else None
        if rel is None or ".." in rel.parts:
            return None
        host = (top / rel).resolve()
        return describe(host) if host.is_relative_to(top) and host.is_file() else None
    return describe_input


HASH_MAX_BYTES = 256 << 20    # a workspace file larger than this is not re-hashed (as the recorder's cap)


def output_describer(ev: JudgeEvidence) -> DescribeOutput:
    """Content facts of a workspace file as a call read it, if it still holds those bytes (docs/judge.md
    "Content facts"); symbolic links and paths outside the workspace are never followed."""
    ws_inside, top = Roots.of(ev.trace).workspace, ev.workspace.resolve()

    @lru_cache(maxsize=None)     # each file is hashed once per judging
    def sha256(host: Path) -> str | None:
        try:
            if host.stat().st_size > HASH_MAX_BYTES:
                return None
            with open(host, "rb") as fh:
                return hashlib.file_digest(fh, "sha256").hexdigest()
        except OSError:
            return None

    def describe_output(inside: str, sha: str | None) -> ContentFacts | None:
        if not inside.startswith(ws_inside + "/"):
            return None
        rel = PurePosixPath(inside[len(ws_inside) + 1:])
        host = top / rel
        if ".." in rel.parts or host.is_symlink() or not host.is_file() or not host.resolve().is_relative_to(top):
            return None
        if sha is None or sha256(host) != sha:
            return None             # other bytes now (or unknown then): what was read is gone
        return describe(host)
    return describe_output


_TASK_SHINGLES: dict[int, tuple[Task, set[tuple[str, ...]]]] = {}


def _task_shingles(task: Task) -> set[tuple[str, ...]]:
    """The task texts' shingles, once per task object (kept with it, so an id is never reused)."""
    hit = _TASK_SHINGLES.get(id(task))
    if hit is None or hit[0] is not task:
        if len(_TASK_SHINGLES) > 256:
            _TASK_SHINGLES.clear()
        hit = _TASK_SHINGLES[id(task)] = (task, prompt_shingles(task_texts(task.snapshot())))
    return hit[1]


NO_EFFECTS = ("no effects were recorded for this run's calls (an old trace, or a sandbox that cannot observe "
              "them): no credit from code, tags or printed words")


def _evidence(why: str, *facts: Fact) -> ItemEvidence:
    """An item's evidence: the calls and files of the facts it rests on (docs/judge.md#item-evidence)."""
    calls = sorted({c for f in facts for c in f.calls})
    files = list(dict.fromkeys(p for f in facts for p in f.paths))
    return ItemEvidence(calls=calls, files=files, why=why)


def _why(label: str, fact: Fact) -> str:
    return f"{label}: {'yes' if fact.holds else 'no'} ({fact.cite()}{'; ' + fact.note if fact.note else ''})"


def workflow_facts(ev: JudgeEvidence) -> WorkflowFacts:
    """The facts every judge reads (the heuristic's verdicts, the LLM judge's ceilings), decided by experiment
    where recorded, and whether the submission gives one output for every case (tracks/same_output.py)."""
    layout = ev.task.track_impl.submission(ev.task.options)
    facts = derive_facts(ev.trace, layout, ev.case_ids, input_describer(ev), output_describer(ev), ev.experiments)
    if facts.batch.holds and ev.case_ids:
        facts.one_for_all = one_output_for_all(ev.workspace / W.OUTPUTS, layout, ev.case_ids)
    return facts


@JUDGES.register("heuristic")
class HeuristicJudge(JudgeBase):
    """Offline and deterministic: S1 from the plan files, S2 and S3 from the observed workflow facts."""

    backend = "heuristic"
    model = None
    version = "3"

    def judge(self, ev: JudgeEvidence) -> dict[str, StageResult | None]:
        facts = workflow_facts(ev)
        return {"s1": self._s1(ev), "s2": self._s2(facts), "s3": self._s3(facts)}

    # ---- S1 Plan ---------------------------------------------------------------------
    def _s1(self, ev: JudgeEvidence) -> StageResult:
        rubric = load_rubric().stages["s1"]
        plan_md = ev.workspace / W.PLAN_MD
        text = plan_md.read_text(errors="replace") if plan_md.is_file() else ""
        has_plan = bool(text.strip())
        # the methods the task itself names: the candidates, and in Lite the tier's own model
        candidates = list(ev.task.tiers.standard.candidates)
        if ev.tier == "lite" and ev.task.tiers.lite.model:
            candidates += model_method_names(ev.task.tiers.lite.model)
        mentioned = methods_named(text, candidates)
        lines = step_lines(text, _rubric_words(), mentioned)
        steps = len(lines) if executable(lines, mentioned) else 0
        prompt = [ev.conversation.system_prompt] if ev.conversation is not None else []
        copied = copied_share(text, prompt, _task_shingles(ev.task))
        # a plan whose steps write another task's output files is another task's plan
        foreign = another_tasks_outputs(text, ev.task.track_impl.submission(ev.task.options).file_names)
        own = copied < COPIED_SHARE and not foreign
        size, colours = _png_facts(ev.workspace / W.PLAN_PNG)
        blank = colours is not None and colours < BLANK_PLOT_COLOURS
        items: dict[str, float] = {
            "s1a": float(has_plan),
            # steps that name no method at all ("run the model") cannot be executed
            "s1b": float(has_plan and own and steps >= 3 and bool(mentioned)),
            # compared: at least 3 methods named, at least 2 of them with a verdict or a reason
            "s1d": float(has_plan and own and len(mentioned) >= MIN_METHODS
                         and len(methods_judged(text, mentioned)) >= MIN_JUDGED),
            "s1e": float(size is not None),
        }
        abstained = []
        if not has_plan:
            items["s1c"] = 0.0
        else:
            abstained.append("s1c (method fit needs judgement)")
        if size is None or blank or size[0] < MIN_PLOT_WH[0] or size[1] < MIN_PLOT_WH[1]:
            items["s1f"] = 0.0
        else:
            abstained.append("s1f (plot content needs judgement)")
        na = rubric.not_applicable_in(ev.tier)
        for item in na:   # not asked in this tier: left out of the mean, never passed
            items.pop(item, None)
        abstained = [a for a in abstained if a.split()[0] not in na]
        png = ("missing/not a PNG" if size is None else f"{size[0]}x{size[1]}, {colours} colour(s)"
               + (" (blank)" if blank else ""))
        copy_note = f"{copied:.0%} of its 5-word runs are the prompt's" + (
            f"; its {W.OUTPUTS}/ files {foreign[:3]} are none of this task's (another task's plan: no credit for "
            "steps or candidates)" if foreign else "" if own else " (copied: no credit for steps or candidates)")
        why = (f"{W.PLAN_MD} {'present' if has_plan else 'missing'}; {steps} step lines (structure only); "
               f"methods named {mentioned}; {copy_note}; {W.PLAN_PNG} {png}"
               + (f"; not decided by the heuristic: {', '.join(abstained)}" if abstained else "")
               + (f"; not applicable in {ev.tier}: {','.join(na)}" if na else ""))
        plan_files = [W.PLAN_MD] if has_plan else []
        png_files = [W.PLAN_PNG] if size is not None else []
        plan_state = f"{W.PLAN_MD} present" if has_plan else f"no {W.PLAN_MD} (absent or empty)"
        evidence = {
            "s1a": ItemEvidence(files=plan_files, why=plan_state),
            "s1b": ItemEvidence(files=plan_files, why=f"{plan_state}; {steps} step line(s), 3 needed, and a "
                                f"method named ({len(mentioned)}); {copy_note}"),
            "s1c": ItemEvidence(files=plan_files, why=plan_state if not has_plan else
                                "not decided: method fit needs judgement"),
            "s1d": ItemEvidence(files=plan_files, why=f"{plan_state}; methods named {mentioned} "
                                f"({MIN_METHODS} needed, in a table or in prose); {copy_note}"),
            "s1e": ItemEvidence(files=png_files, why=f"{W.PLAN_PNG} {png}"),
            "s1f": ItemEvidence(files=png_files, why=f"{W.PLAN_PNG} {png}" if "s1f" in items else
                                "not decided: plot content needs judgement"),
        }
        return StageResult(score=rubric.score(items), items=items, rationale=why,
                           evidence={i: e for i, e in evidence.items() if i in items})

    # ---- S2 Setup ----------------------------------------------------------------------
    def _s2(self, f: WorkflowFacts) -> StageResult:
        rubric = load_rubric().stages["s2"]
        if not f.effects_recorded:
            items = {i: 0.0 for i in rubric.items}
            absent = ItemEvidence(why=NO_EFFECTS)
            return StageResult(score=0.0, items=items, rationale="S2: " + NO_EFFECTS,
                               evidence={i: absent for i in items})
        n_fail = f.failed_attempts
        did_work = f.environment.holds or any(c.produced for c in f.calls)
        # obtained: weights or a method file loaded, or the method ran, inline too (docs/judge.md s2a); s2c needs it
        obtained = f.weights.holds or f.method_files.holds or f.method_ran.holds
        # a method run on a stand-in for a missing package is not the method set up, an import of one
        # sets up nothing (docs/judge.md "A substitute for a missing package")
        said = [(w, x) for w, x in (("the method ran on", f.substitute), ("a call imported", f.substitute_opened)) if x.holds]
        real, stand_in = not f.substitute.holds, [x for _, x in said]
        on_it = "".join(f"; {_why(w + ' a substitute for a missing package', x)}" for w, x in said)
        items = {
            "s2a": float(obtained and real),
            "s2b": float(f.input_check.holds),
            "s2c": float(f.environment.holds and obtained and not f.substitute_opened.holds),
            # the wording, literally (none tried is none failed), for a run that did some work: doing
            # nothing earns nothing (docs/judge.md "S2 Setup": s2d)
            "s2d": float(n_fail <= MAX_SETUP_FAILURES and did_work),
            # confirmed working by a look (docs/judge.md "s2e: confirmed by a look")
            "s2e": float(f.method_confirmed),
        }
        weights = _why("weights/checkpoint obtained", f.weights)
        method_file = _why("method file written and loaded", f.method_files)
        inputs = _why("input opened and its content looked at before the batch", f.input_check)
        env = _why("a call up to the batch's first read the inputs or the model and succeeded", f.environment) + (
            "" if obtained else "; no method was obtained (s2a), so none of its dependencies was shown importable")
        why = "; ".join([f"s2a {weights} / {method_file}", f"s2b {inputs}", f"s2c {env}",
                         f"s2d {n_fail} failed environment attempt(s) ({f.setup_failures.cite()}) in "
                         f"{len(f.setup_work.calls)} setup call(s) before the first output", _s2e_why(f)])
        if stand_in:
            why += ("; s2a, s2c, s2e 0" if not real else "; s2c 0") + on_it
        if f.calls_without_effects:
            why += f"; calls without effects (not counted): {f.calls_without_effects[:8]}"
        evidence = {
            "s2a": _evidence(f"{weights}; {method_file}; {_why('the method ran on a case before the batch', f.method_ran)}"
                             + on_it, f.weights, f.method_files, f.method_ran, *stand_in),
            "s2b": _evidence(inputs, f.input_check),
            "s2c": _evidence(env + on_it, f.environment, *stand_in),
            "s2d": _evidence(f"{n_fail} failed environment attempt(s) in {len(f.setup_work.calls)} setup call(s) "
                             "before the first output"
                             + ("" if f.environment.holds else "; no environment was set up")
                             + ("" if did_work else " and no call produced an output: nothing was attempted"),
                             f.setup_failures if f.setup_failures.calls else f.environment),
            "s2e": _evidence(_s2e_why(f), f.runtime_confirmed, f.method_ran, f.method_looked,
                             f.smoke_inspection),
        }
        return StageResult(score=rubric.score(items), items=items, rationale=why, evidence=evidence)

    # ---- S3 Validate -----------------------------------------------------------------
    def _s3(self, f: WorkflowFacts) -> StageResult:
        rubric = load_rubric().stages["s3"]
        if not f.effects_recorded:
            return StageResult(score=0.0, items={"s3": 0.0}, rationale="S3: " + NO_EFFECTS,
                               evidence={"s3": ItemEvidence(why=NO_EFFECTS)})
        inspected = f.pilot_inspection.holds
        fixed_or_fine = f.fixed_or_fine
        if f.pilot.holds and f.batch.holds and inspected and fixed_or_fine and f.one_for_all:
            value, why = 0.5, f"a pilot was inspected, but the submission shows a problem left in place: {f.one_for_all}"
        elif f.pilot.holds and f.batch.holds and inspected and fixed_or_fine:
            value, why = 1.0, "a pilot ran before the batch, its output was opened and printed"
            if f.failed_inspection.holds:
                why += ", a failed inspection was followed by a fix"
        elif f.pilot.holds and inspected and f.invalid_pilot.holds:
            value, why = 0.5, ("the pilot's output failed the harness's own check and went into the batch "
                               f"unchanged ({f.invalid_pilot.note})")
        elif f.pilot.holds and inspected and not fixed_or_fine:
            value, why = 0.5, ("the pilot's inspection found a problem and no pilot output was re-written into "
                               "one that passes and looked at again (no fix)")
        elif f.pilot.holds and not f.batch.holds and inspected:
            value, why = 0.5, "a pilot was inspected but no batch followed"
        elif f.pilot.holds and f.form_inspection.holds:
            value, why = 0.5, ("a pilot ran before the batch and a later call looked at its output's form only "
                               "(its grid, shape or keys), not its content: partial validation")
        elif f.pilot.holds and f.superseded_inspection.holds:
            value, why = 0.5, ("a pilot ran before the batch and was looked at (call "
                               + ", ".join(f"#{c}" for c in f.superseded_inspection.calls) + "), "
                               "but the batch ran another method or other settings and did not submit what the "
                               "look saw (outcome consistency)")
        elif f.pilot.holds:
            value, why = 0.5, "a pilot ran before the batch but no later call opened its output"
        elif f.later_inspection.holds:
            value, why = 0.5, "no pilot; outputs were opened and printed after they were written"
        elif f.smoke_inspection.holds:
            value, why = 0.5, ("no case was piloted; a smoke run of the method (on part of a case, in a folder "
                               "no case names) was looked at before the batch")
        else:
            value, why = 0.0, ("no pilot of the batch's method and no call opened one of its outputs after writing it"
                               if f.batch.holds else "no pilot, no batch")
        superseded = [_why("superseded look", f.superseded_inspection)] if f.superseded_inspection.holds else []
        parts = [why, _why("pilot", f.pilot), _why("inspection", f.pilot_inspection), *superseded,
                 _why("failed inspection", f.failed_inspection), _why("fix", f.fix),
                 _why("pilot output failing the harness's check", f.invalid_pilot), _why("batch", f.batch),
                 _why("outputs opened later", f.later_inspection), _why("smoke run looked at", f.smoke_inspection),
                 f"unit {f.unit}, {f.n_expected} expected, a pilot covers at most {f.pilot_max}"]
        if f.experimented is not None:
            looks = {c for x in (f.pilot_inspection, f.later_inspection, f.smoke_inspection) for c in x.calls}
            parts += f.experimented.notes(looks | set(f.experimented.decided) | set(f.experimented.fallback))
        held = [x for x in (f.pilot, f.pilot_inspection, f.superseded_inspection, f.failed_inspection, f.fix,
                            f.invalid_pilot, f.batch, f.later_inspection, f.smoke_inspection) if x.holds]
        return StageResult(score=rubric.score({"s3": value}), items={"s3": value}, rationale="; ".join(parts),
                           evidence={"s3": _evidence(why, *held)})


def _s2e_why(f: WorkflowFacts) -> str:
    ran = _why("the method ran on a case (or part of one) before the batch", f.method_ran)
    looked = _why("a pilot output looked at", f.method_looked) + " / " + _why("a smoke output looked at",
                                                                               f.smoke_inspection)
    broken = ("; what the look showed was broken and not fixed" if f.failed_inspection.holds and not f.fix.holds
              else f"; a problem left in the submission: {f.one_for_all}" if f.one_for_all else
              f"; the method ran on {f.substitute.note} ({f.substitute.cite()})" if f.substitute.holds else "")
    return f"s2e {ran}; {looked}{broken}"
