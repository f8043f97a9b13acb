"""What the facts rule out: ceilings an LLM judge's verdict cannot exceed, each lowered item
named with the fact that was missing (docs/judge.md "An LLM judge bounded by facts": the table)."""
from __future__ import annotations

from ...run_files import WorkspaceNames
from ...runs.models import ItemEvidence, StageResult
from ..rubric import Rubric
from .base import JudgeEvidence
from .facts import WorkflowFacts
from .heuristic import workflow_facts

Ceiling = tuple[float, str]       # the highest value the facts allow, and why


def ceilings(ev: JudgeEvidence) -> dict[str, Ceiling]:
    """item -> (ceiling, why) for every item the facts bound."""
    out: dict[str, Ceiling] = {}
    for item, name in (("s1a", WorkspaceNames.PLAN_MD), ("s1e", WorkspaceNames.PLAN_PNG)):
        if not (ev.workspace / name).is_file():
            out[item] = (0.0, f"no {name} in the workspace")
    f = workflow_facts(ev)
    if f.effects_recorded:
        out.update(_effect_ceilings(f))
    return out


def _effect_ceilings(f: WorkflowFacts) -> dict[str, Ceiling]:
    out: dict[str, Ceiling] = {}
    if not (f.weights.holds or f.method_files.holds):
        out["s2a"] = (0.0, "no weights or method file was loaded by a call that produced outputs")
    if f.substitute.holds:
        out["s2a"] = (0.0, f"the method ran on {f.substitute.note} ({f.substitute.cite()})")
    if f.substitute_opened.holds:
        out["s2c"] = (0.0, f"a call imported {f.substitute_opened.note} ({f.substitute_opened.cite()})")
    if not f.input_check.holds:
        out["s2b"] = (0.0, "no call opened an input and looked at its content before the batch")
    if not f.method_confirmed:
        out["s2e"] = (0.0, "no output the method produced before the batch was looked at and found fine (or fixed)")
    fixed_or_fine = f.fixed_or_fine
    if f.pilot.holds and f.batch.holds and f.pilot_inspection.holds and fixed_or_fine and not f.one_for_all:
        return out
    if f.pilot.holds or f.later_inspection.holds:
        why = ("a pilot output failed the harness's check and went into the batch: " + f.invalid_pilot.note
               if f.invalid_pilot.holds else f"a problem left in the submission: {f.one_for_all}" if f.one_for_all else
               "a problem the inspection found was not fixed (re-written to pass and looked at again)"
               if f.pilot_inspection.holds and f.batch.holds else
               "no batch after the pilot" if f.pilot_inspection.holds else
               "no call looked at a pilot output before the batch")
        out["s3"] = (0.5, why)
    else:
        out["s3"] = (0.0, "no pilot and no call looked at an output after writing it")
    return out


def bound(verdicts: dict[str, StageResult | None], ev: JudgeEvidence, rubric: Rubric) -> dict[str, StageResult | None]:
    """The verdicts with every item above its ceiling lowered to it (and said so)."""
    limits = ceilings(ev)
    out: dict[str, StageResult | None] = {}
    for stage, result in verdicts.items():
        if result is None:
            out[stage] = None
            continue
        items, notes, evidence = dict(result.items), [], dict(result.evidence or {})
        for item, value in result.items.items():
            if item in limits and value > limits[item][0]:
                ceiling, why = limits[item]
                items[item] = ceiling
                notes.append(f"{item} {value:g} -> {ceiling:g} ({why})")
                evidence[item] = ItemEvidence(why=f"bounded by facts: {why}")
        if not notes:
            out[stage] = result
            continue
        out[stage] = result.model_copy(update={
            "items": items, "score": rubric.stages[stage].score(items), "evidence": evidence,
            "rationale": result.rationale + " [bounded by facts: " + "; ".join(notes) + "]"})
    return out
