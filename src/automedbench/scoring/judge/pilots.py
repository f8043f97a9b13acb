"""Which pilot runs, looks and fixes gate the batch, and which only look like validation: each is a
bullet of docs/judge.md "Units, pilot, batch" (a stand-in pilot, a look beside the batch, ...)."""
from __future__ import annotations

import ast
import functools
import re
from collections.abc import Mapping, Sequence

from .asserts import parse_python
from .calls import CallFacts, Fact, _name, _parent
from .versions import same_method, versions_of

# a shell job sent to the background: a command line ending in `&` (not `&&`, `2>&1`, and never
# Python's `a & b`, which cannot end a line)
_BACKGROUND = re.compile(r"[^&>|<\s]\s*&[ \t]*$", re.MULTILINE)


class MethodFiles:
    """The model files (weights, the method's source or parameters), the texts the agent wrote each
    with (sources.py) and the batch's method runs: which pilots ran the batch's method."""

    def __init__(self, paths: set[str], texts: Mapping[str, Sequence[str]], calls: list[CallFacts],
                 batch: list[CallFacts]) -> None:
        self.paths, self.texts, self.calls = paths, texts, calls
        self.batch_runs = [c for c in batch if c.units]
        self.batch_files = self.opened_by(self.batch_runs)

    def of(self, c: CallFacts) -> set[str]:
        """The model files a step opened, or its call held."""
        return self.paths & {*c.read, *c.held}

    def opened_by(self, calls: list[CallFacts]) -> set[str]:
        return {p for c in calls for p in self.of(c)}

    @functools.cached_property
    def derived(self) -> set[tuple[str, str]]:
        """(source, made): a step that opened a method file and wrote another made it from the first."""
        return {(p, w.path) for c in self.calls for p in self.of(c) for w in c.written}

    def version(self, piloted: str, ran: str) -> bool:
        return versions_of(piloted, ran, self.texts, self.derived)

    def stand_ins(self, pilots: list[CallFacts]) -> list[CallFacts]:
        """Pilot steps that ran another method than the batch, or the mirror (docs/judge.md "Pilot"; `set_aside`)."""
        if self.batch_files:
            # a pilot that ran no method file (inline code) piloted something else; one whose method
            # file the batch replaced piloted an earlier version (S3 charges it: docs/judge.md "Pilot")
            return [c for c in pilots if not self.of(c)]
        if self.batch_runs and all(c.reads_complete for c in self.batch_runs):
            # the batch ran inline code that opened none of the model files its pilots ran: the
            # batch's method is the stand-in, and a pilot of the planned method piloted another one
            return [c for c in pilots if self.of(c)]
        return []      # neither side's method has a file the judge can see: nothing to compare

    def inline_versions(self, stand_ins: list[CallFacts]) -> list[CallFacts]:
        """Of the pilots of a method file whose batch ran inline code (the mirror), those the batch's code
        is a version of, or whose text is unknown: only they confirm the batch's method for s2e."""
        def kept(c: CallFacts) -> bool:
            known = [t for p in self.of(c) for t in self.texts.get(p, ())]
            return not known or any(same_method(t, b.code) for t in known for b in self.batch_runs)
        return [c for c in stand_ins if kept(c)]

    def another_methods_pilots(self, pilots: list[CallFacts]) -> list[CallFacts]:
        """Pilots of another method than the batch's (versions.py; docs/judge.md "A pilot of another method")."""
        if not self.batch_files:
            return []
        return [c for c in pilots if (mine := self.of(c)) and not mine & self.batch_files
                and not any(self.version(p, b) for p in mine for b in self.batch_files)]

    def pilots_passing_the_batchs_file(self, pilots: list[CallFacts]) -> list[CallFacts]:
        """Pilots that passed over an existing method file the batch ran, no version of their own method
        or code (docs/judge.md "Units, pilot, batch": "A pilot that passed over the batch's file")."""
        first_written: dict[str, int] = {}
        for pos, c in enumerate(self.calls):
            for w in c.written:
                first_written.setdefault(w.path, pos)

        def passed(c: CallFacts, pos: int) -> bool:
            mine = self.of(c)
            return any(first_written.get(b, pos) < pos and not any(self.version(p, b) for p in mine)
                       and not any(same_method(c.code, t) for t in self.texts.get(b, ())) for b in self.batch_files - mine)
        return [c for c in pilots if self.of(c) and passed(c, self.calls.index(c))]


def set_aside(stand_ins: list[CallFacts]) -> None:
    """What stand-in pilots wrote is no output of the batch's method: neither a pilot nor a
    look's object (like typed units: made_from.py)."""
    for c in stand_ins:
        c.made_up += c.unit_writes
        c.unit_writes, c.units, c.stand_in = [], set(), True


def beside_the_batch(batch: list[CallFacts]) -> frozenset[int]:
    """The batch's first call, when its code starts a background job: its looks ran beside the
    batch (an empty set otherwise)."""
    return frozenset({batch[0].index}) if batch and _BACKGROUND.search(batch[0].code) else frozenset()


def fix_reaching_the_batch(fix: Fact, batch: list[CallFacts]) -> Fact:
    """The fix, unless the batch's checked outputs fail the harness's check."""
    if not fix.holds:
        return fix
    failing = [ch for c in batch for ch in c.checks if not ch.passed]
    if not failing:
        return fix
    return Fact(False, note=f"the pilot's file was re-written, but the batch's outputs fail the harness's check "
                            f"({failing[0].problem}): the method was not fixed"[:300])


@functools.lru_cache(maxsize=1024)     # cleared per run by heuristic.clear_caches
def script_settings(code: str) -> Mapping[str, str]:
    """The method parameters a script sets to a constant: `method.THRESHOLD = 0.3` (a module's
    attribute) or `MIN_SIZE = 400` (a capitalised name)."""
    tree = parse_python(code)
    if tree is None:
        return {}
    out: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, ast.Constant):
            t = node.targets[0]
            if (isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name)) or \
                    (isinstance(t, ast.Name) and t.id.isupper()):
                out[ast.unparse(t)] = repr(node.value.value)
    return out


def retuned_after_the_look(calls: list[CallFacts], inspections: list[tuple[CallFacts, list[str]]],
                           batch_start: int | None, pilots: Sequence[CallFacts] = ()) -> list[str]:
    """What the batch ran otherwise than the looked-at pilot (docs/judge.md "A pipeline re-tuned after the look")."""
    if batch_start is None or not inspections:
        return []
    first = calls[batch_start]
    before = {k: v for c in calls[:batch_start] if c.index != first.index for k, v in script_settings(c.code).items()}
    batch = script_settings(first.code)
    changed = [f"{k} = {v}" for k, v in batch.items() if before.get(k) != v and ("." in k or k in before)]
    read = {name for c in calls for m in _ENV_READ.finditer(c.code) for name in m.groups() if name}
    batch_env = {k: v for c in calls[batch_start:] if c.index == first.index for k, v in _env_settings(c.code).items()}
    switched = [f"{k}={v} (environment, set for the pilot only)" for c in pilots
                for k, v in _env_settings(c.code).items() if k in read and batch_env.get(k) != v]
    # ... when it changed what the method made (`N=1` choosing the pilot's cases changes nothing)
    if switched and (_rerun_differs(calls[batch_start:], pilots) or _fails_after_passing(calls[batch_start:], pilots)):
        changed += switched
    return list(dict.fromkeys(changed))


def unpiloted_change_failed(method: MethodFiles, pilots: list[CallFacts]) -> bool:
    """The batch's method runs opened none of its pilots' model files (a near copy of the piloted one
    instead) and made outputs that failed the harness's check where every pilot's had passed
    (docs/judge.md "Unpiloted code whose outputs fail")."""
    piloted = method.opened_by(pilots)
    return bool(piloted) and not piloted & method.batch_files and _fails_after_passing(method.batch_runs, pilots)


def _fails_after_passing(batch: list[CallFacts], pilots: Sequence[CallFacts]) -> bool:
    """Every check of a pilot's output passed, and a check of the batch's outputs failed."""
    pilot_checks = [ch for c in pilots for ch in c.checks]
    return bool(pilot_checks) and all(ch.passed for ch in pilot_checks) and any(
        not ch.passed for c in batch for ch in c.checks)


def _case_file(path: str) -> tuple[str, str]:
    """(the folder a unit file is in: its case, the file's name): one case's file, wherever written."""
    return _name(_parent(path)), _name(path)


def _batch_bytes(batch: list[CallFacts]) -> dict[tuple[str, str], set[str]]:
    """The bytes (sha256) the batch wrote for each case's file."""
    out: dict[tuple[str, str], set[str]] = {}
    for c in batch:
        for w in c.unit_writes + c.copies:
            if w.sha256:
                out.setdefault(_case_file(w.path), set()).add(w.sha256)
    return out


def _rerun_differs(batch: list[CallFacts], pilots: Sequence[CallFacts]) -> bool:
    """Whether the batch re-wrote a piloted case's file with other bytes than the pilot's (per-case
    files only: a cohort file grows with the batch whatever the pipeline)."""
    piloted = {_case_file(w.path): w.sha256 for c in pilots for w in c.unit_writes
               if w.sha256 and _name(_parent(w.path)) in c.units}
    return any(key in piloted and shas - {piloted[key]} for key, shas in _batch_bytes(batch).items())


# an environment variable set by a script: os.environ["X"] = "v", os.environ.setdefault("X", "v"),
# `export X=v`, or `X=v cmd` at the start of a shell line
_ENV_SET = re.compile(r"""os\.environ\[\s*['"](\w+)['"]\s*\]\s*=\s*['"]?([^'"\s)]*)|"""
                      r"""os\.environ\.setdefault\(\s*['"](\w+)['"]\s*,\s*['"]?([^'"\s)]*)|"""
                      r"""^\s*(?:export\s+([A-Z][A-Z0-9_]*)=([^\s$()`'"]*)|([A-Z][A-Z0-9_]*)=([^\s$()`'"]+)\s+(?=[\w./]))""",
                      re.MULTILINE)
# ... and read by one: os.environ.get("X"), os.getenv("X"), os.environ["X"] (not assigned), $X
_ENV_READ = re.compile(r"""(?:environ\.get|getenv)\(\s*['"](\w+)['"]|environ\[\s*['"](\w+)['"]\s*\](?!\s*=[^=])|"""
                       r"""\$\{?([A-Z][A-Z0-9_]*)""")


def _env_settings(code: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for m in _ENV_SET.finditer(code):
        g = m.groups()
        name, value = next((g[i], g[i + 1]) for i in (0, 2, 4, 6) if g[i])
        out[name] = value
    return out


def rival_outputs(batch: list[CallFacts], pilots: list[CallFacts]) -> set[str]:
    """Pilot files of a rival method on the pilot case (docs/judge.md "A rival's output looked at")."""
    written = _batch_bytes(batch)
    by_path: dict[str, set[str | None]] = {}
    for c in pilots:
        for w in c.unit_writes:
            by_path.setdefault(w.path, set()).add(w.sha256)
    rivals: set[str] = set()
    for key, shas in written.items():
        paths = {p: s for p, s in by_path.items() if _case_file(p) == key}
        if any(s & shas for s in paths.values()):
            rivals |= {p for p, s in paths.items() if not s & shas}
    return rivals
