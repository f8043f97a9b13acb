"""One call read as the steps it took (docs/judge.md "Order inside a call").

A verdict must not depend on how the work was cut into calls: a script that checks an input,
pilots one case, looks at it and runs the batch did what four calls do. With the recorder's
`order` (effects.order, schema 1.7) a call is cut into steps, each judged as a call would be:

- setup:  everything before the call's first write of a unit file (the contract's file names,
          wherever written, or a file in outputs/) is a step of its own: the inputs it read
          and the method files it wrote come before any output;
- look:   when the call's code holds a check that could stop it (`gated`: an `assert` on
          something other than a constant, run as a statement of the script), a read of a unit
          file the call wrote starts a step, and the next unit write after it starts another. Without such a check
          a read-back inside a script cannot have decided anything before the rest ran (nobody
          read what it printed until the call ended), so it stays part of the work around it.

A step keeps the call's printed text and code (the output cannot be cut by time); every step
but the last ran on, so it exited 0; the last has the call's exit code. A step holds what the
earlier steps of its call opened (`held`: the script still has the model it loaded). The
harness's check of a unit goes with the step that last wrote it. A call without an order, or
with writes the order does not place, is one step, as before schema 1.7.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Callable

import ast
import re

from .calls import CallFacts, Write

# a bash call that feeds a script to Python: python3 - <<'EOF' ... EOF
_HEREDOC = re.compile(r"python3?\s+-\s*<<-?\s*['\"]?(\w+)['\"]?[^\n]*\n(.*?)\n\s*\1\s*$", re.DOTALL | re.MULTILINE)
_ASSERT_LINE = re.compile(r"^\s*assert\s+(?!(?:True|1|\(\s*True\s*\))\s*(?:,|#|$))", re.MULTILINE)


def gated(code: str) -> bool:
    """Whether the script holds a check that could stop it: an `assert` on something other than
    a constant that runs as a statement of the script (in its body, a loop, a branch, or a
    function the script calls), not one inside a string or an uncalled function. Python is
    read as its syntax tree; a bash call's Python heredocs likewise; anything else by lines."""
    trees = [t for t in (_parse(code), *(_parse(m.group(2)) for m in _HEREDOC.finditer(code))) if t is not None]
    if not trees:
        return bool(_ASSERT_LINE.search(code))
    return any(_runs_assert(t, _called(t)) for t in trees)


def _parse(code: str) -> ast.Module | None:
    try:
        return ast.parse(code)
    except (SyntaxError, ValueError):
        return None


def _called(tree: ast.Module) -> set[str]:
    return {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}


def _runs_assert(node: ast.AST, called: set[str]) -> bool:
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.ClassDef) or (isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
                                               and child.name not in called):
            continue
        if isinstance(child, ast.Assert) and not isinstance(child.test, ast.Constant):
            return True
        if _runs_assert(child, called):
            return True
    return False


def split_calls(calls: list[CallFacts], is_unit_file: Callable[[str], bool]) -> list[CallFacts]:
    """Every call as its steps, in order (a call that cannot be cut stays one)."""
    out: list[CallFacts] = []
    for c in calls:
        out.extend(split_call(c, is_unit_file))
    return out


def _cuts(c: CallFacts, is_unit_file: Callable[[str], bool]) -> list[int]:
    """Positions in `c.order` where a new step starts."""
    assert c.order is not None
    can_stop = gated(c.code)
    cuts: list[int] = []
    start, wrote_unit, looking = 0, False, False
    written_before: set[str] = set()      # unit files written by earlier steps of this call
    written_here: set[str] = set()
    for pos, (op, path, _) in enumerate(c.order):
        unit = is_unit_file(path)
        new_step = False
        if op == "w" and unit:
            if not wrote_unit and not written_before and pos > start:
                new_step = True                       # setup -> work
            elif looking:
                new_step = True                       # look -> work
        elif op in ("r", "b") and unit and can_stop and wrote_unit and (path in written_here or path in written_before):
            new_step = True                           # work -> look
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
    if c.order is None or not c.order:
        return [c]
    placed = {p for op, p, _ in c.order if op == "w"}
    if any(w.path not in placed for w in c.written):
        return [c]                        # a write the order does not place: read the call whole
    cuts = _cuts(c, is_unit_file)
    if not cuts:
        return [c]
    bounds = [0, *cuts, len(c.order)]
    last_write = {p: pos for pos, (op, p, _) in enumerate(c.order) if op == "w"}
    final = {w.path: w for w in c.written}
    steps: list[CallFacts] = []
    held: set[str] = set()
    wrote_before: set[str] = set()
    for k in range(len(bounds) - 1):
        lo, hi = bounds[k], bounds[k + 1]
        events = c.order[lo:hi]
        written: list[Write] = []
        here: set[str] = set()
        for op, p, size in events:
            if op == "w" and p not in here:
                here.add(p)
                # the bytes are known only as the call left them: an earlier write has no hash,
                # and the size it had when it closed where the recorder saw that in time
                w = final[p]
                written.append(w if last_write[p] < hi else Write(p, w.op, size, None))
        read = [p for op, p, _ in events if op == "r" or (op == "b" and p in wrote_before and p not in here)]
        back = [p for op, p, _ in events if op == "b" and p in here]
        last = k == len(bounds) - 2
        step = replace(c, written=written, read=list(dict.fromkeys(read)), read_back=list(dict.fromkeys(back)),
                       exit_code=c.exit_code if last else 0, timed_out=c.timed_out if last else False,
                       bytes_in=c.bytes_in if k == 0 else 0, order=events, step=k, continues=not last,
                       held=set(held), units=set(), unit_writes=[], copies=[],
                       checks=[ch for ch in c.checks if _checked_in(ch.files, last_write, lo, hi, last)])
        step.__dict__.pop("unit_paths", None)
        steps.append(step)
        held |= set(step.read) | set(step.read_back)
        wrote_before |= here
    return steps


def _checked_in(files: dict[str, str | None], last_write: dict[str, int], lo: int, hi: int, last: bool) -> bool:
    """A unit's check goes with the step that last wrote one of its files (else the last step)."""
    at = [last_write[p] for p in files if p in last_write]
    return lo <= max(at) < hi if at else last
