"""Looks at the pilot's outputs before the batch, and at any output after it was written
(docs/judge.md "Units, pilot, batch": inspection, later inspection)."""
from __future__ import annotations

from .calls import CallFacts, Roots, _name, _parent
from .looks import Opened, Looks


def _unit_file(path: str, contract: set[str], roots: Roots) -> bool:
    """A file of a unit of work: in outputs/, or named as the contract names its files anywhere
    in the workspace (a pilot in a scratch folder)."""
    return path.startswith(roots.outputs) or (_name(path) in contract and path.startswith(roots.workspace + "/"))


def _method_output(path: str, contract: set[str], roots: Roots) -> bool:
    """A file the method produced: one the contract names, or a file directly in outputs/ (a
    unit of its own); another file in a case folder (a copy of the input, a picture) is not."""
    return _name(path) in contract or _parent(path) == roots.outputs.rstrip("/")


def _pilot_inspections(before: list[CallFacts], pilots: list[CallFacts], looks: Looks, contract: set[str],
                       beside: frozenset[int] = frozenset()) -> Opened:
    """Calls before the batch that looked at a pilot output or showed a report of it (docs/judge.md "Inspection")."""
    if not pilots:
        return []
    # the method's outputs, the files the contract names: another file put in a case folder (a
    # copy of the input, a picture) is not what the pilot produced
    pilot_paths = {w.path for c in pilots for w in c.unit_writes if _method_output(w.path, contract, c.roots)}
    pilot_content = {(_name(w.path), w.sha256) for c in pilots for w in c.unit_writes if w.sha256}
    inspections: Opened = []
    reports: dict[str, tuple[CallFacts, list[str]]] = {}   # a file written from pilot outputs -> (writer, outputs)
    first = before.index(pilots[0])
    for c in before[:first]:
        looks.wrote(c)
    for pos, c in enumerate(before[first:]):
        if c.index in beside:      # a look beside the batch's background job gates nothing
            looks.wrote(c)
            continue
        # a later call's reads of the pilot's files, as they were before this call wrote ...
        prior = [p for p in c.read if p in pilot_paths] if pos else []
        seen = bool(prior) and looks.looked(c, prior)
        looks.wrote(c)
        # a copy of a pilot output (into outputs/, say) shows the pilot's bytes too
        pilot_paths |= {w.path for w in c.copies if (_name(w.path), w.sha256) in pilot_content}
        # ... and this call's reads of pilot files it wrote itself, after writing them (read_back)
        back = [p for p in c.read_back if p in pilot_paths and p not in prior]
        if seen or (back and looks.looked(c, back)):
            inspections.append((c, prior + back))
            continue
        # a look printed later: this call opened pilot outputs, produced nothing and wrote a report
        # (a JSON, a log) that a later call printed with the facts of those outputs (docs/judge.md)
        writers = [reports[r] for r in c.read if r in reports]
        shown = list(dict.fromkeys(p for _, ps in writers for p in ps))
        if shown and looks.looked(c, shown):
            # both are the inspection: the writer opened the outputs (its exit code says whether
            # its check passed), this call showed what it found
            for w, ps in {id(w): (w, ps) for w, ps in writers}.values():
                inspections.append((w, ps))
            inspections.append((c, shown))
        elif (prior or back) and not c.units:
            made = [w.path for w in c.written] + _opened_after_units(before[first + pos - 1] if pos else None, c)
            reports.update({p: (c, prior + back) for p in made if not _unit_file(p, contract, c.roots)})
    return inspections


def _opened_after_units(prev: CallFacts | None, c: CallFacts) -> list[str]:
    """Files the step before `c` (of the same call) opened for writing after its last unit
    write: a shell opens `look.py > report.txt` before the look reads anything, so the report's
    write falls in the pilot's step; the method's own log, opened before, does not count."""
    if prev is None or prev.index != c.index or prev.order is None:
        return []
    units = {w.path for w in prev.unit_writes}
    last = max((i for i, st in enumerate(prev.order) if st.op == "w" and st.path in units), default=None)
    return [] if last is None else [st.path for st in prev.order[last + 1:] if st.op == "w"]


def _later_inspections(calls: list[CallFacts], looks: Looks, contract: set[str], pilot_max: int,
                       copied_inputs: set[str]) -> Opened:
    """Output files opened and looked at after they were written (docs/judge.md "Later inspection")."""
    written_in: dict[str, int] = {}        # path -> index of the call that first wrote it
    call_units: dict[int, set[str]] = {}   # a call's units over all its steps
    for c in calls:
        call_units.setdefault(c.index, set()).update(c.units)
    later: Opened = []
    for c in calls:
        prior = [p for p in dict.fromkeys(c.output_reads + c.read) if written_in.get(p, c.index) < c.index]
        seen = bool(prior) and looks.looked(c, prior)
        # a call that wrote more than a pilot re-reading its own files is the batch script at work:
        # a look only beyond a count (docs/judge.md "Later inspection")
        own = [p for p in dict.fromkeys(c.read_back + c.read) if written_in.get(p) == c.index and p not in prior]
        looks.wrote(c)
        # what a stand-in method wrote (pilots.py) is no output of the batch's method to look
        # at; the method's later write of the same path is
        not_made = {w.path for w in c.made_up} if c.stand_in else set()
        for path in [w.path for w in c.output_writes] + c.unit_paths:
            if _method_output(path, contract, c.roots) and path not in copied_inputs and path not in not_made:
                written_in.setdefault(path, c.index)
        if len(call_units[c.index]) <= pilot_max:
            back = [p for p in dict.fromkeys(own + c.read_back) if p in written_in and p not in prior]
            shown = bool(back) and looks.looked(c, back)
        else:     # the batch's script: what an earlier step wrote, shown beyond a count
            back = own
            shown = bool(own) and looks.looked_beyond_count(c, own)
        if seen or shown:
            later.append((c, prior + back))
    return later


def smoke_inspections(before: list[CallFacts], looks: Looks) -> Opened:
    """Before the batch, a smoke run's output looked at after it was written (docs/judge.md "A smoke run")."""
    smoke: set[str] = set()
    found: Opened = []
    for c in before:
        prior = [p for p in c.read if p in smoke]
        seen = bool(prior) and looks.looked(c, prior)
        looks.wrote(c)
        mine = {w.path for w in c.smoke_writes}
        back = [p for p in c.read_back if p in mine]
        opened = prior + back
        # a printing step that opened smoke outputs whose bytes are gone looked too (docs/judge.md "A smoke run")
        if seen or (back and looks.looked(c, back)) or (opened and c.printed and not any(map(looks.describe, opened))):
            found.append((c, opened))
        smoke |= mine
    return found
