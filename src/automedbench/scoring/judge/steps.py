"""One call read as the steps it took (setup, a look at a unit file it wrote, a unit write after it): a
verdict does not depend on how the work was cut into calls (docs/judge.md "Order inside a call")."""
from __future__ import annotations

from dataclasses import replace
from typing import Callable

from .calls import MAX_TEXT, CallFacts, FileStep, Write

CUT_MARK = "bytes cut by the harness ...]"     # sandbox/base.py's note where it cut a long output


def _cuts(c: CallFacts, is_unit_file: Callable[[str], bool]) -> list[int]:
    """Positions in `c.order` where a new step starts."""
    assert c.order is not None
    cuts: list[int] = []
    start, wrote_unit, looking = 0, False, False
    written_before: set[str] = set()      # unit files written by earlier steps of this call
    written_here: set[str] = set()
    units: dict[str, bool] = {}           # a path's answer, asked once per call
    for pos, (op, path, *_) in enumerate(c.order):
        unit = units.get(path)
        if unit is None:
            unit = units[path] = is_unit_file(path)
        if op == "w" and unit:                        # setup -> work, look -> work
            new_step = (not wrote_unit and not written_before and pos > start) or looking
        else:                                         # work -> look
            new_step = op in ("r", "b") and unit and wrote_unit and (path in written_here or path in written_before)
        if new_step:
            cuts.append(pos)
            start = pos
            written_before |= written_here
            written_here = set()
            looking = op != "w"
            wrote_unit = op == "w"
        elif op == "w" and unit:
            wrote_unit = True
        if op == "w" and unit:
            written_here.add(path)
    return cuts


def split_call(c: CallFacts, is_unit_file: Callable[[str], bool]) -> list[CallFacts]:
    """The call as its steps, in order (a call that cannot be cut stays one)."""
    if c.order is None or not c.order:
        return [c]
    placed = {st.path for st in c.order if st.op == "w"}
    if any(w.path not in placed for w in c.written):
        return [c]                        # a write the order does not place: read the call whole
    cuts = _cuts(c, is_unit_file)
    if not cuts:
        return [c]
    bounds = [0, *cuts, len(c.order)]
    last_write = {st.path: pos for pos, st in enumerate(c.order) if st.op == "w"}
    final = {w.path: w for w in c.written}
    output = _output_bytes(c)
    steps: list[CallFacts] = []
    held: set[str] = set()
    wrote_before: set[str] = set()
    for k in range(len(bounds) - 1):
        lo, hi = bounds[k], bounds[k + 1]
        events = c.order[lo:hi]
        written: list[Write] = []
        here: set[str] = set()
        for op, p, size, *_ in events:
            if op == "w" and p not in here:
                here.add(p)
                # the bytes are known only as the call left them: an earlier write has no hash,
                # and the size it had when it closed where the recorder saw that in time
                w = final[p]
                written.append(w if last_write[p] < hi else Write(p, w.op, size, None))
        read = [st.path for st in events if st.op == "r" or (st.op == "b" and st.path in wrote_before
                                                               and st.path not in here)]
        back = [st.path for st in events if st.op == "b" and st.path in here]
        text = _text_between(c, output, events[0] if k else None, c.order[hi] if hi < len(c.order) else None)
        last = k == len(bounds) - 2
        step = replace(c, written=written, read=list(dict.fromkeys(read)), read_back=list(dict.fromkeys(back)),
                       text=text, printed=bool(text.strip()), exit_code=c.exit_code if last else 0,
                       timed_out=c.timed_out if last else False,
                       bytes_in=c.bytes_in if k == 0 else 0, order=events, step=k, continues=not last,
                       held=set(held), units=set(), unit_writes=[], copies=[],
                       checks=[ch for ch in c.checks if _checked_in(ch.files, last_write, lo, hi, last)])
        steps.append(step)
        held |= set(step.read) | set(step.read_back)
        wrote_before |= here
    return steps


def _output_bytes(c: CallFacts) -> tuple[bytes, bytes] | None:
    """The call's output as bytes (the order counts bytes); None where the harness cut it."""
    return None if CUT_MARK in c.stdout or CUT_MARK in c.stderr else (c.stdout.encode(), c.stderr.encode())


def _text_between(c: CallFacts, output: tuple[bytes, bytes] | None, first: FileStep | None,
                  after: FileStep | None) -> str:
    """What the call printed between two of its steps, by the output offsets the harness recorded
    (docs/judge.md "Order inside a call"; output it cut, `output` None: the whole text)."""
    if output is None:
        return c.text
    out, err = output
    o0, e0 = (first.out, first.err) if first else (0, 0)
    o1, e1 = (after.out, after.err) if after else (len(out), len(err))
    return (out[o0:o1].decode("utf-8", "replace") + "\n" + err[e0:e1].decode("utf-8", "replace"))[:MAX_TEXT]


def _checked_in(files: dict[str, str | None], last_write: dict[str, int], lo: int, hi: int, last: bool) -> bool:
    """A unit's check goes with the step that last wrote one of its files (else the last step)."""
    at = [last_write[p] for p in files if p in last_write]
    return lo <= max(at) < hi if at else last


def before_first_look(c: CallFacts, is_unit_file: Callable[[str], bool]) -> tuple[str, list[str]] | None:
    """What a step printed, and opened, before its first unit file (docs/judge.md "Input check")."""
    if not any(is_unit_file(p) for p in c.read):
        return c.text, c.read
    output = _output_bytes(c) if c.order else None
    first = next((i for i, st in enumerate(c.order or ()) if st.op in ("r", "b") and is_unit_file(st.path)), None)
    if output is None or first is None or c.order is None:
        return None
    text = _text_between(c, output, c.order[0] if c.step else None, c.order[first])
    return text, list(dict.fromkeys(st.path for st in c.order[:first] if st.op == "r"))
