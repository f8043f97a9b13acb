"""Which case inputs a written file was made from: a unit file no input of its case fed is typed out, no
run (docs/judge.md "Units, pilot, batch": "A method run reads its input")."""
from __future__ import annotations

from typing import Callable, Iterable

from .calls import CallFacts, Roots

# code and notes the agent writes: never data made from an input, whatever it read before
SOURCE_SUFFIXES = (".py", ".sh", ".md", ".txt", ".ipynb", ".yaml", ".yml", ".toml", ".cfg", ".r", ".jl", ".log")
_NONE: frozenset[str] = frozenset()


class MadeFrom:
    """The cases each step was fed, in call order (`feed` every step, then ask `fed`)."""

    def __init__(self, calls: list[CallFacts], roots: Roots, case_ids: list[str] | None) -> None:
        self.roots = roots
        self.cases = set(case_ids or [])
        data = roots.data + "/"
        # do the public inputs name cases in their paths (case folders, case-named files)?
        self.per_case = bool(self.cases) and any(self._cases_in(p) for c in calls for p in c.read if p.startswith(data))
        # a run in which no call was seen opening any input (a backend whose recorder saw no
        # reads of the dataset) gives no evidence of what was read: every step is taken as fed
        self.reads_seen = any(p.startswith(data) for c in calls for p in c.read)
        self.derived: dict[str, set[str]] = {}      # workspace file -> the cases it was made from
        self.any_derived: set[str] = set()           # workspace files made from some input
        self._data_feeds: dict[str, frozenset[str]] = {}   # a public input -> the cases it feeds (fixed)

    def _cases_in(self, path: str) -> set[str]:
        return {part for part in path.split("/") if part in self.cases}

    def _feeds(self, path: str) -> tuple[bool, frozenset[str] | set[str]]:
        """Whether reading `path` feeds a step input, and which cases (read only: callers copy)."""
        if path.startswith(self.roots.data + "/"):
            cases = self._data_feeds.get(path)
            if cases is None:   # a public input feeds the same cases all run long: worked out once
                cases = self._data_feeds[path] = frozenset(self._cases_in(path) if self.per_case else self.cases)
            return True, cases
        if path in self.any_derived:
            return True, self.derived.get(path, _NONE)
        return False, _NONE

    def _fed_by(self, paths: Iterable[str], fed_any: bool, fed: set[str]) -> tuple[bool, set[str]]:
        """`fed_any` and `fed` (changed in place) with what reading `paths` feeds added."""
        for p in paths:
            a, cs = self._feeds(p)
            fed_any = fed_any or a
            fed |= cs
        return fed_any, fed

    def feed(self, c: CallFacts) -> Callable[[str], tuple[bool, set[str]]]:
        """For step `c`: what each file it wrote was fed (any input, which cases), from what it
        and its call's earlier steps had read before the write (the recorder's order; the whole
        step where there is none). Remembers the data files it made from inputs."""
        if not c.reads_complete or not self.reads_seen:
            return lambda path: (True, set(self.cases))
        fed_any, fed = self._fed_by(c.held, False, set())
        whole_any, whole = self._fed_by(c.read, fed_any, set(fed))
        # the cases this step itself began on (a pool of workers reads every case's input
        # before the first one's output is looked at): facts.py's batch start
        data = self.roots.data + "/"
        c.started = {case for p in c.read if p.startswith(data) for case in self._feeds(p)[1]} \
            if self.per_case else set()
        at_write: dict[str, tuple[bool, set[str]]] = {}
        if c.order is not None:
            for op, path, *_ in c.order:
                if op == "r":
                    fed_any, fed = self._fed_by((path,), fed_any, fed)
                elif op == "w":
                    at_write[path] = (fed_any, set(fed))

        def fed_at(path: str) -> tuple[bool, set[str]]:
            return at_write.get(path, (whole_any, whole))
        for w in c.written:
            made_any, made = fed_at(w.path)
            if made_any and not w.path.lower().endswith(SOURCE_SUFFIXES):
                self.any_derived.add(w.path)
                self.derived.setdefault(w.path, set()).update(made)
        return fed_at

    def run_of(self, unit_key: str, fed_any: bool, fed: set[str], cohort: bool) -> bool:
        """Whether a write of unit `unit_key` (a case id; for cohort files any) by a step fed
        `fed` is a method run."""
        if not fed_any:
            return False
        if not self.per_case:
            return True
        return bool(fed) if cohort else unit_key in fed
