"""Looks and checks: whether a call that opened an output looked at its content, and the
harness's per-output checks by unit (docs/judge.md "Content facts", "Per-output checks")."""
from __future__ import annotations

from typing import Callable

from ...runs.models import OutputCheck
from ..experiments import Experimented
from ...tracks.content_facts import ContentFacts, looked_at
from .asserts import silent_check
from .calls import CallFacts, Fact, _parent
from .sources import ran_check

MAX_DESCRIBED = 8                   # files per call whose content facts are computed
# inside path of a workspace file and the sha256 it had when read -> its content facts, or None
# when the file now holds other bytes (or none): what was looked at can no longer be described
DescribeOutput = Callable[[str, "str | None"], "ContentFacts | None"]
Opened = list[tuple[CallFacts, list[str]]]   # calls with the output files each opened
COUNT_FACTS = {"rows", "length"}             # how many rows or items: a count, not the content


def recorded_facts(calls: list[CallFacts]) -> dict[tuple[str, str | None], ContentFacts]:
    """The content facts the harness recorded as each output was written (output_checks), by (path,
    sha256): what a look is compared with, even after the file was rewritten."""
    return {(path, ch.files.get(path)): ContentFacts(cf["kind"], {k: tuple(v) if isinstance(v, list) else v
                                                                  for k, v in cf["facts"].items()})
            for c in calls for ch in c.checks for path, cf in ch.facts.items()}


class Looks:
    """One walk of the calls in order: whether a call that opened workspace files looked at their
    content (docs/judge.md "Inspection"); each walk starts afresh, no bytes seen yet."""

    def __init__(self, describe_output: DescribeOutput | None, experimented: Experimented,
                 recorded: dict[tuple[str, str | None], ContentFacts], form: bool = False):
        self.describe_output = describe_output
        self.experimented = experimented
        self.recorded = recorded
        self.form = form      # a look at the form only (a form mutant killed) counts too
        self.shas: dict[str, str | None] = {}     # the bytes each path held, as the calls are walked

    def wrote(self, c: CallFacts) -> None:
        """Note the bytes each file `c` wrote now holds (its unit files and copies are among `written`)."""
        self.shas.update((w.path, w.sha256) for w in c.written)

    def describe(self, path: str) -> ContentFacts | None:
        sha = self.shas.get(path)
        recorded = self.recorded.get((path, sha))
        if recorded is not None or self.describe_output is None:
            return recorded
        return self.describe_output(path, sha)

    def _described(self, opened: list[str]) -> list[ContentFacts]:
        """The content facts of the files opened, as they were read (those still described)."""
        return [cf for p in opened[:MAX_DESCRIBED] if (cf := self.describe(p))]

    def looked_beyond_count(self, c: CallFacts, opened: list[str]) -> bool:
        """A printed look stating a content fact beyond a count of rows or items (docs/judge.md "Later inspection")."""
        return any(set(looked_at(c.text, cf)) - COUNT_FACTS for cf in self._described(opened))

    def looked(self, c: CallFacts, opened: list[str]) -> bool:
        """Decided by experiment where one was run; else printed content facts of what was opened, or a silent check."""
        by_experiment = self.experimented.verdict(c.index, c.step, opened, self.form)
        if by_experiment is not None:
            return by_experiment
        if self.describe_output is None and not self.recorded:
            printed = c.printed
        elif described := self._described(opened):
            printed = any(looked_at(c.text, cf) for cf in described)
        else:
            # the bytes looked at are gone: printing counts, except in a step of one script, whose text
            # is the whole script's and whose bytes then were never hashed (docs/judge.md "Order inside a call")
            printed = c.printed and not (c.step > 0 or c.continues)
        return printed or silent_check(c.code) or ran_check(c)


class Checks:
    """The harness's per-output checks by unit path, in call order (docs/judge.md "Per-output checks")."""

    def __init__(self, calls: list[CallFacts]):
        self.recorded = any(c.checks for c in calls)
        self.at: dict[str, list[tuple[int, OutputCheck]]] = {}     # unit path -> (call position, check)
        self.pos = {id(c): pos for pos, c in enumerate(calls)}   # steps of one call share its index
        for pos, c in enumerate(calls):
            for ch in c.checks:
                self.at.setdefault(ch.path, []).append((pos, ch))

    def _unit_of(self, path: str) -> str | None:
        """The checked unit a file belongs to: the file itself (a cohort file) or its folder."""
        if path in self.at:
            return path
        parent = _parent(path)
        return parent if parent in self.at else None

    def last_before(self, unit: str, pos: int) -> OutputCheck | None:
        """The unit's last check made by a call at or before position `pos`."""
        found = [ch for p, ch in self.at.get(unit, []) if p <= pos]
        return found[-1] if found else None

    def failing(self, c: CallFacts, opened: list[str]) -> bool:
        """Whether an output this call looked at failed the harness's check as it was then."""
        pos = self.pos[id(c)]
        then = [self.last_before(unit, pos) for path in opened if (unit := self._unit_of(path))]
        return any(ch is not None and not ch.passed for ch in then)

    def invalid_pilot(self, pilots: list[CallFacts], before: list[CallFacts], fixed: set[str]) -> Fact:
        """Pilot units whose last check before the batch failed, with the problem (a unit fixed
        inside the batch's own script, `fixed`, is not: its rewrite was never checked apart)."""
        if not self.recorded or not pilots or not before:
            return Fact(False)
        last = self.pos[id(before[-1])]
        units = dict.fromkeys(u for c in pilots for w in c.unit_writes
                              if (u := self._unit_of(w.path)) and u not in fixed)
        bad = [(u, ch) for u in units if (ch := self.last_before(u, last)) is not None and not ch.passed]
        calls = sorted({p for u, _ in bad for p, ch in self.at[u] if p <= last})
        return Fact(bool(bad), [before[p].index for p in calls if p < len(before)], [u for u, _ in bad],
                    "; ".join(f"{u}: {ch.problem}" for u, ch in bad)[:300])

    def fixes(self, calls: list[CallFacts], before: list[CallFacts], inspections: Opened, failed: Opened) -> Fact:
        """Pilot units fixed before the batch: re-written to pass their check, then looked at (docs/judge.md "Fix")."""
        if not failed:
            return Fact(False)
        first_fail = self.pos[id(failed[0][0])]
        last = self.pos[id(before[-1])] if before else -1
        looked_at = {(self.pos[id(c)], self._unit_of(p)) for c, ps in inspections for p in ps}
        fixes: list[tuple[int, str]] = []
        for unit, checks in self.at.items():
            for p, ch in checks:
                if first_fail <= p <= last and ch.passed and any(q >= p and u == unit for q, u in looked_at):
                    fixes.append((p, unit))
                    break
        # a rewrite by an earlier step of one script has no check of its own: the call's check of
        # the unit decides (docs/judge.md "A fix inside one script")
        for p in range(first_fail + 1, last + 1):
            c = calls[p]
            for w in c.unit_writes:
                rewritten = self._unit_of(w.path)
                if rewritten is None or (p, rewritten) in fixes or any(q == p for q, _ in self.at[rewritten]):
                    continue
                later = [ch for q, ch in self.at[rewritten] if q > p and calls[q].index == c.index]
                if later and later[0].passed and any(p <= q <= last and u == rewritten for q, u in looked_at):
                    fixes.append((p, rewritten))
        return Fact(bool(fixes), sorted({calls[p].index for p, _ in fixes}), sorted({u for _, u in fixes}),
                    "re-written, its check now passes, looked at again" if fixes else
                    "no pilot output was re-written into one that passes the harness's check and looked at again")
