"""Metamorphic variants that merge a run's calls into one script (docs/judge.md "Metamorphic
variants", "Order inside a call").

From the first call that wrote a unit of work (the pilot) to the batch's first call, every
call is merged into one execution, as an agent that writes one script for "pilot, look, run
the rest" would. The merged call's `order` lists each original call's steps in turn: its
reads, then its writes, then what it read back (the recorder's own order where the original
has one).

  keep    the same calls as one script (with one assert on the pilot's output, which a script
          that runs on would hold): the same work, every verdict stays;
  remove  the same script whose pilot and look print nothing about the pilot's content
          ("checked") and assert nothing: the look is gone, s3 must drop.
"""
from __future__ import annotations

import re

from ...runs.models import OrderStep, TraceEvent, WrittenFile

Events = list[TraceEvent]
GATE_LINE = "assert pilot.shape == expected.shape, (pilot.shape, expected.shape)\n"


def _order_of(e: TraceEvent, written_before: set[str], out: int, err: int) -> list[OrderStep]:
    """One original call's steps, placed after `out`/`err` bytes of the merged output: the
    recorder's order where it has one, else its reads (a read of a file written earlier in the
    merged script is a read-back), its writes, its read-backs, each at the call's start."""
    eff = e.effects
    assert eff is not None
    if eff.order is not None:
        return [st.model_copy(update={"op": "b" if st.op == "r" and st.path in written_before else st.op,
                                      "out": st.out + out, "err": st.err + err}) for st in eff.order]
    steps = [OrderStep(op="b" if p in written_before else "r", path=p, out=out, err=err) for p in eff.read]
    steps += [OrderStep(op="w", path=w.path, size=w.size, out=out, err=err) for w in eff.written]
    steps += [OrderStep(op="b", path=p, out=out, err=err) for p in eff.read_back]
    return steps


def merge_calls(events: Events, first: int, last: int, *, gated: bool, mute: frozenset[int] = frozenset()
                ) -> Events | None:
    """Calls `first`..`last` as one execution (None when one of them has no effects, or one
    before the last failed); the calls in `mute` print only "checked"."""
    group = [e for e in events if e.call_index is not None and first <= e.call_index <= last]
    execs = [e for e in group if e.type == "execution"]
    if len(execs) < 2 or any(e.effects is None for e in execs):
        return None
    if any(e.exit_code != 0 for e in execs[:-1]):
        return None     # a script does not run on past a step that failed: not the same work
    written: dict[str, WrittenFile] = {}
    read: list[str] = []
    order: list[OrderStep] = []
    stdout = [("checked\n" if e.call_index in mute else e.stdout or "") for e in execs]
    stderr = [("" if e.call_index in mute else e.stderr or "") for e in execs]
    for n, e in enumerate(execs):
        assert e.effects is not None
        order += _order_of(e, set(written), len("".join(stdout[:n]).encode()), len("".join(stderr[:n]).encode()))
        read += [p for p in e.effects.read if p not in written]
        for w in e.effects.written:
            written[w.path] = w
    back = list(dict.fromkeys(st.path for st in order if st.op == "b"))
    code = "\n".join(e.code or "" for e in group if e.type == "tool_call")
    # checked: one assert that could stop the script; unchecked: none at all (its looks print)
    code = code + "\n" + GATE_LINE if gated else "\n".join(
        line for line in code.splitlines() if not re.match(r"\s*assert\b", line))
    last_exec = execs[-1]
    assert last_exec.effects is not None
    merged_effects = last_exec.effects.model_copy(update={
        "written": list(written.values()), "read": list(dict.fromkeys(read)), "read_back": back,
        "order": order})
    merged = last_exec.model_copy(update={
        "call_index": first, "effects": merged_effects, "code": code,
        "stdout": "".join(stdout), "stderr": "".join(stderr),
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


def failed_attempts_in_one_loop(events: Events, failed: list[int]) -> Events | None:
    """Consecutive failed setup calls as one script that tries each in turn, catches the error,
    prints it and exits 0 (a loop over candidate imports): the same failed attempts."""
    if len(failed) < 2 or failed != list(range(failed[0], failed[-1] + 1)):
        return None
    execs = [e for e in events if e.type == "execution" and e.call_index in failed]
    if len(execs) != len(failed) or any(e.effects is None or e.exit_code == 0 for e in execs):
        return None
    tried = "".join(f"attempt {n}: {(e.stderr or e.stdout or '').strip().splitlines()[-1:] or ['failed']}\n"
                    for n, e in enumerate(execs, 1))
    code = ("for attempt in ATTEMPTS:\n    try:\n        attempt()\n    except Exception as e:\n"
            "        print('attempt failed:', repr(e))\n")
    first = execs[0]
    assert first.effects is not None
    effects = first.effects.model_copy(update={
        "read": list(dict.fromkeys(p for e in execs if e.effects for p in e.effects.read)), "order": None})
    merged = first.model_copy(update={"exit_code": 0, "stdout": tried, "stderr": "", "code": code,
                                      "effects": effects})
    out: Events = []
    for e in events:
        if e.call_index not in failed:
            out.append(e)
        elif e.call_index == failed[0]:
            out.append(merged if e.type == "execution" else e.model_copy(update={"code": code}))
    return out
