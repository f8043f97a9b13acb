"""Which pilot runs, looks and fixes gate the batch: work before the batch that looks like
validation without gating it -- a stand-in pilot (and its mirror), a look beside the batch, a
pipeline re-tuned after the look, a pilot of another method, a rival's output looked at, a fix
that stops at the pilot. Each is a bullet of docs/judge.md "Units, pilot, batch"."""
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


def models_of(c: CallFacts, model_paths: set[str]) -> set[str]:
    """The model files (weights, the method's source or parameters) a step opened, or its call held."""
    return model_paths & {*c.read, *c.held}


def _opened_by(calls: list[CallFacts], model_paths: set[str]) -> set[str]:
    """The model files the calls opened."""
    return {p for c in calls for p in models_of(c, model_paths)}


def stand_in_pilots(batch: list[CallFacts], pilots: list[CallFacts], model_paths: set[str]) -> list[CallFacts]:
    """Pilot steps that ran another method than the batch, or the mirror (docs/judge.md "Pilot"; `set_aside`)."""
    batch = [c for c in batch if c.units]
    if _opened_by(batch, model_paths):
        # a pilot that ran no method file (inline code) piloted something else; one whose method
        # file the batch replaced piloted an earlier version (S3 charges it: docs/judge.md "Pilot")
        return [c for c in pilots if not models_of(c, model_paths)]
    if batch and all(c.reads_complete for c in batch):
        # the batch ran inline code that opened none of the model files its pilots ran: the
        # batch's method is the stand-in, and a pilot of the planned method piloted another one
        return [c for c in pilots if models_of(c, model_paths)]
    return []      # neither side's method has a file the judge can see: nothing to compare


def pilots_of_another_method(calls: list[CallFacts], batch: list[CallFacts], pilots: list[CallFacts],
                             model_paths: set[str], texts: Mapping[str, Sequence[str]]) -> list[CallFacts]:
    """Pilots of another method than the batch's (versions.py; docs/judge.md "A pilot of another method")."""
    batch_models = _opened_by([c for c in batch if c.units], model_paths)
    if not batch_models:
        return []
    # (source, made): a step that opened a method file and wrote another made it from the first
    derived = {(p, w.path) for c in calls for p in models_of(c, model_paths) for w in c.written}
    return [c for c in pilots if (mine := models_of(c, model_paths)) and not mine & batch_models
            and not any(versions_of(p, b, texts, derived) for p in mine for b in batch_models)]


def pilots_passing_the_batchs_file(calls: list[CallFacts], batch: list[CallFacts], pilots: list[CallFacts],
                                   model_paths: set[str], texts: Mapping[str, Sequence[str]]) -> list[CallFacts]:
    """Pilots that left out a method file the batch ran, which already existed when they ran and is
    no version of their method nor of their own code: where the batch then submitted other outputs
    than those looked at, they piloted another method (docs/judge.md "A pilot of another method")."""
    batch_models = _opened_by([c for c in batch if c.units], model_paths)
    first_written: dict[str, int] = {}
    for pos, c in enumerate(calls):
        for w in c.written:
            first_written.setdefault(w.path, pos)
    derived = {(p, w.path) for c in calls for p in models_of(c, model_paths) for w in c.written}

    def passed(c: CallFacts, pos: int) -> bool:
        mine = models_of(c, model_paths)
        return any(first_written.get(b, pos) < pos and not any(versions_of(p, b, texts, derived) for p in mine)
                   and not any(same_method(c.code, t) for t in texts.get(b, ())) for b in batch_models - mine)
    return [c for c in pilots if models_of(c, model_paths) and passed(c, calls.index(c))]


def inline_versions(stand_ins: list[CallFacts], batch: list[CallFacts], model_paths: set[str],
                    texts: Mapping[str, Sequence[str]]) -> list[CallFacts]:
    """Of the pilots of a method file whose batch ran inline code (the mirror), those the batch's code
    is a version of, or whose text is unknown: only they confirm the batch's method for s2e."""
    batch_code = [c.code for c in batch if c.units]
    def kept(c: CallFacts) -> bool:
        known = [t for p in models_of(c, model_paths) for t in texts.get(p, ())]
        return not known or any(same_method(t, code) for t in known for code in batch_code)
    return [c for c in stand_ins if kept(c)]


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


@functools.lru_cache(maxsize=1024)
def _settings(code: str) -> Mapping[str, str]:
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
    before = {k: v for c in calls[:batch_start] if c.index != first.index for k, v in _settings(c.code).items()}
    batch = _settings(first.code)
    changed = [f"{k} = {v}" for k, v in batch.items() if before.get(k) != v and ("." in k or k in before)]
    read = {name for c in calls for m in _ENV_READ.finditer(c.code) for name in m.groups() if name}
    batch_env = {k: v for c in calls[batch_start:] if c.index == first.index for k, v in _env_settings(c.code).items()}
    switched = [f"{k}={v} (environment, set for the pilot only)" for c in pilots
                for k, v in _env_settings(c.code).items() if k in read and batch_env.get(k) != v]
    # ... when it changed what the method made (`N=1` choosing the pilot's cases changes nothing)
    if switched and (_rerun_differs(calls[batch_start:], pilots) or _fails_after_passing(calls[batch_start:], pilots)):
        changed += switched
    return list(dict.fromkeys(changed))


def unpiloted_change_failed(batch: list[CallFacts], pilots: Sequence[CallFacts], model_paths: set[str]) -> bool:
    """The batch ran other model files than its pilots (another file, a version of the piloted one
    included) and its outputs failed the harness's check where every pilot's had passed: the
    change was never validated (docs/judge.md "A pipeline re-tuned after the look")."""
    return (_opened_by([c for c in batch if c.units], model_paths) != _opened_by(list(pilots), model_paths)
            and _fails_after_passing(batch, pilots))


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


def clear_settings() -> None:
    """Forget the cached settings of scripts read so far (heuristic.clear_caches)."""
    _settings.cache_clear()
