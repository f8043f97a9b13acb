"""Metamorphic variants that merge a run's calls into one script (docs/judge.md "Metamorphic
variants", "Order inside a call").

From the first call that wrote a unit of work (the pilot) to the batch's first call, every
call is merged into one execution, as an agent that writes one script for "pilot, look, run
the rest" would. The merged call's `order` lists each original call's steps in turn: its
reads, then its writes, then what it read back (the recorder's own order where the original
has one).

  keep    the script asserts on the pilot's output before running on (`assert` on a property
          of the data, which could stop it): the same work, every verdict stays;
  remove  the script only prints its look and runs on: nobody read the look before the batch
          ran, so the pilot was not validated: s3 must drop.
"""
from __future__ import annotations

import re

from ....runs.models import TraceEvent, WrittenFile

Events = list[TraceEvent]
GATE_LINE = "assert pilot.shape == expected.shape, (pilot.shape, expected.shape)\n"


def _order_of(e: TraceEvent, written_before: set[str]) -> list[list[str | int]]:
    """One original call's steps: the recorder's order where it has one, else its reads (a read
    of a file written earlier in the merged script is a read-back), its writes, its read-backs."""
    eff = e.effects
    assert eff is not None
    if eff.order is not None:
        return [["b" if s[0] == "r" and s[1] in written_before else s[0], *s[1:]] for s in eff.order]
    steps: list[list[str | int]] = [["b" if p in written_before else "r", p] for p in eff.read]
    steps += [["w", w.path] if w.size is None else ["w", w.path, w.size] for w in eff.written]
    steps += [["b", p] for p in eff.read_back]
    return steps


def merge_calls(events: Events, first: int, last: int, *, gated: bool) -> Events | None:
    """Calls `first`..`last` as one execution (None when one of them has no effects, or one
    before the last failed)."""
    group = [e for e in events if e.call_index is not None and first <= e.call_index <= last]
    execs = [e for e in group if e.type == "execution"]
    if len(execs) < 2 or any(e.effects is None for e in execs):
        return None
    if any(e.exit_code != 0 for e in execs[:-1]):
        return None     # a script does not run on past a step that failed: not the same work
    written: dict[str, WrittenFile] = {}
    read: list[str] = []
    order: list[list[str | int]] = []
    for e in execs:
        assert e.effects is not None
        order += _order_of(e, set(written))
        read += [p for p in e.effects.read if p not in written]
        for w in e.effects.written:
            written[w.path] = w
    back = list(dict.fromkeys(str(s[1]) for s in order if s[0] == "b"))
    code = "\n".join(e.code or "" for e in group if e.type == "tool_call")
    # checked: one assert that could stop the script; unchecked: none at all (its looks print)
    code = code + "\n" + GATE_LINE if gated else "\n".join(
        line for line in code.splitlines() if not re.match(r"\s*assert\b", line))
    last_exec = execs[-1]
    assert last_exec.effects is not None
    merged_effects = last_exec.effects.model_copy(update={
        "written": list(written.values()), "read": list(dict.fromkeys(read)), "read_back": back,
        "order": [tuple(s) for s in order]})
    merged = last_exec.model_copy(update={
        "call_index": first, "effects": merged_effects, "code": code,
        "stdout": "".join(e.stdout or "" for e in execs), "stderr": "".join(e.stderr or "" for e in execs),
        "output_checks": [ch for e in execs for ch in (e.output_checks or [])] or None})
    call = next(e for e in group if e.type == "tool_call")
    call = call.model_copy(update={"code": code, "stage": None})
    out: Events = []
    for e in events:
        if e.call_index is None or not first <= e.call_index <= last:
            out.append(e)
        elif e is group[0]:
            out += [call, merged] if e.type == "tool_call" else [merged]
    return out
