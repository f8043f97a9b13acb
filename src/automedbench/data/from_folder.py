"""Stage your own data from a plain folder (docs/your-task.md).

    stage_from_folder("my-data", Path("~/my-folder"), task) -> FolderStageResult

The task (its track and track_options) says what a case must hold. How the folder maps onto
`public/<case_id>/` and `private/<case_id>/` is one of the track's folder layouts (its
`folder_layouts` capability, tracks/base.py; each track's in docs/your-task.md section 2). The
first layout whose `detect` recognises the folder stages it, unless `layout=` names one; a
folder no layout recognises is refused with what each layout expects and its one-line fix. A
layout of a release that ships splits (its `splits` says which) stages the one `split=` names
(`--split`, read as `StagingFolder.split`), else its default; any other layout refuses `split=`.
Every track accepts the generic layout:

    DIR/<case_id>/public/...     what the agent sees (the task's input_files)
    DIR/<case_id>/private/...    the references, named as the track reads them
    DIR/cases.csv                optional: case_id + extra manifest fields per case

Every case is validated: its public inputs must exist and its references must load with the
track's own `load_reference` (the loader scoring uses). A case the folder lacks a part of is
skipped with a reason; a case that is present but broken is refused, naming it. The build
goes to a temporary sibling folder and is renamed into place at the end, so a failure leaves
nothing behind. A layout places the user's files through `StagingFolder.place`: a copy, or a
hard link with `link=True` (a copy where the file system refuses one, said so); the manifest
hashes every file either way (docs/your-task.md "Large data: --link").
"""
from __future__ import annotations

import csv
import hashlib
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Protocol

from pydantic import ValidationError

from ..errors import first_field_error
from . import (
    DatasetError,
    DatasetPaths,
    dataset_paths,
    link_or_copy,
    swap_into_place,
    verify_manifest,
    write_manifest,
)
from .manifest import Manifest

PROVENANCE_SOURCE = "folder"


@dataclass
class FolderCases:
    """What a folder layout produced in the staging folder."""
    cases: list[dict[str, Any]] = field(default_factory=list)   # manifest entries (case_id + metadata)
    skipped: dict[str, str] = field(default_factory=dict)        # case_id -> why
    notes: list[str] = field(default_factory=list)               # what the folder held but was not staged, and why
    facts: dict[str, Any] = field(default_factory=dict)          # layout facts for the manifest's provenance


@dataclass(frozen=True)
class StagingFolder(DatasetPaths):
    """The temporary dataset folder a layout writes into, and how it places the user's files."""
    link: bool = False
    tally: dict[str, int] = field(default_factory=dict)   # "hardlink"/"copy" -> files, "bytes:<how>" -> bytes
    split: str | None = None   # --split: which of a release's splits to stage (layouts with `splits`)

    def place(self, src: Path, dst: Path) -> None:
        """Put the user's file `src` at `dst`: a hard link with --link (a copy where the file
        system refuses one), else a copy."""
        how = link_or_copy(src, dst, link=self.link)
        self.tally[how] = self.tally.get(how, 0) + 1
        self.tally[f"bytes:{how}"] = self.tally.get(f"bytes:{how}", 0) + dst.stat().st_size


class LayoutStager(Protocol):
    def __call__(self, src: Path, dest: StagingFolder, options: Any) -> FolderCases: ...


@dataclass(frozen=True)
class FolderLayout:
    """One folder layout a track stages (docs/your-task.md section 2): `--layout NAME` forces it."""
    name: str                          # --layout value
    expects: str                       # the tree in one line, e.g. "images/<case> + labels/<case>"
    detect: Callable[[Path], bool]     # does this folder look like it? (cheap: names only)
    stage: LayoutStager
    splits: str = ""                   # what --split chooses in this layout, with its default; "" = takes none


def _megabytes(n: int) -> str:
    return f"{n / 1e6:.1f} MB"


@dataclass
class FolderStageResult:
    paths: DatasetPaths
    staged: list[str]
    skipped: dict[str, str]
    layout: str = ""
    notes: list[str] = field(default_factory=list)
    tally: dict[str, int] = field(default_factory=dict)
    total_bytes: int = 0

    def summary(self) -> str:
        """'4 cases staged, 1 skipped: <the track's reason> (case_05)'."""
        text = f"{len(self.staged)} case{'s' if len(self.staged) != 1 else ''} staged"
        if self.skipped:
            reasons: dict[str, list[str]] = {}
            for case, why in self.skipped.items():
                reasons.setdefault(why, []).append(case)
            text += f", {len(self.skipped)} skipped: " + "; ".join(
                f"{why} ({', '.join(ids[:5])}{' …' if len(ids) > 5 else ''})" for why, ids in reasons.items())
        return text

    def disk_lines(self, link: bool) -> list[str]:
        """How the data got there and what disk it takes (copies double a large set: say so)."""
        linked, copied = self.tally.get("hardlink", 0), self.tally.get("copy", 0)
        written = self.total_bytes - self.tally.get("bytes:hardlink", 0)
        lines = [f"layout {self.layout!r}: {_megabytes(self.total_bytes)} in {self.paths.root}"]
        if linked:
            lines.append(f"{linked} file(s) hard-linked to your folder (no second copy; edit them there and "
                         f"`data verify` reports the change); {_megabytes(written)} written")
        if copied:
            lines.append(f"{copied} file(s) copied ({_megabytes(self.tally.get('bytes:copy', 0))} of extra disk)"
                         + ("; hard links failed (the data root is on another file system than the folder?)"
                            if link else "; --link stages by hard link without a second copy"))
        return lines + self.notes


def stage_summary(manifest: dict[str, Any]) -> str:
    """'N cases staged[, M skipped: why (ids)]' for any staged dataset, from its manifest (a
    stager that skips cases records them as `provenance.skipped`: {case_id: why})."""
    skipped: Any = (manifest.get("provenance") or {}).get("skipped") or {}
    if isinstance(skipped, list):   # [{case_id, reason}] as the official stagers record it
        skipped = {str(s.get("case_id")): str(s.get("reason", "unknown")) for s in skipped if isinstance(s, dict)}
    cases = [c["case_id"] for c in manifest.get("cases", [])]
    return FolderStageResult(DatasetPaths(Path(".")), cases, skipped if isinstance(skipped, dict) else {}).summary()


def read_case_table(path: Path) -> dict[str, dict[str, str]]:
    """case_id -> row of a CSV with a `case_id` column (values stay strings; empty cells dropped)."""
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        if not reader.fieldnames or "case_id" not in reader.fieldnames:
            raise DatasetError(f"{path}: needs a header row with a `case_id` column")
        return {row["case_id"].strip(): {k: v.strip() for k, v in row.items() if k != "case_id" and v and v.strip()}
                for row in reader if row.get("case_id", "").strip()}


def _typed(value: str) -> Any:
    low = value.lower()
    if low in ("true", "false"):
        return low == "true"
    for cast in (int, float):
        try:
            return cast(value)
        except ValueError:
            pass
    return value


def generic_from_folder(src: Path, dest: StagingFolder, options: Any) -> FolderCases:
    """DIR/<case_id>/{public,private}/ (+ optional DIR/cases.csv), copied as they are."""
    table = read_case_table(src / "cases.csv") if (src / "cases.csv").is_file() else {}
    out = FolderCases()
    for case_dir in sorted(p for p in src.iterdir() if p.is_dir() and not p.name.startswith(".")):
        cid = case_dir.name
        if not (case_dir / "public").is_dir():
            out.skipped[cid] = "no public/ folder"
            continue
        if not (case_dir / "private").is_dir():
            out.skipped[cid] = "no private/ folder (no reference)"
            continue
        for side in ("public", "private"):
            for f in sorted((case_dir / side).rglob("*")):
                if f.is_file():
                    dest.place(f, getattr(dest, side) / cid / f.relative_to(case_dir / side))
        out.cases.append({"case_id": cid, **{k: _typed(v) for k, v in table.get(cid, {}).items()}})
    return out


def _looks_generic(src: Path) -> bool:
    return any((p / "public").is_dir() for p in src.iterdir() if p.is_dir())


GENERIC_LAYOUT = FolderLayout(
    "generic", "<case_id>/public/ + <case_id>/private/ (+ cases.csv)", _looks_generic, generic_from_folder)


def _words(text: str) -> list[str]:
    """Lower-case runs of letters and of digits: "test_Normal2-x" -> [test, normal, 2, x]."""
    return re.findall(r"[a-z]+|[0-9]+", text.casefold())


def label_giveaway(case_ids: list[str], labels: list[str]) -> str:
    """A warning when case ids contain a label name as whole words (`test_normal_00` holds
    `normal`, `abnormal_3` does not): the agent sees the case ids, so it could read the answer
    from them (docs/your-task.md section 2); "" when none does."""
    hits: dict[str, str] = {}
    for cid in case_ids:
        words = _words(cid)
        for label in labels:
            lw = _words(label)
            if lw and any(words[i:i + len(lw)] == lw for i in range(len(words) - len(lw) + 1)):
                hits.setdefault(cid, label)
                break
    if not hits:
        return ""
    shown = ", ".join(f"{cid} ({label})" for cid, label in list(hits.items())[:5])
    return (f"warning: {len(hits)} of {len(case_ids)} case id(s) contain a label name: {shown}"
            f"{' …' if len(hits) > 5 else ''}; the agent sees case ids (folder names), so it can read the "
            "answer from them; fix: rename the files before staging (e.g. to a hash or a number)")


def hashed_case_ids(case_ids: list[str]) -> dict[str, str]:
    """`--rename-cases`: each case id -> `case_<first 10 hex digits of its SHA-256>`, stable across
    stagings of the same folder and free of the original name (docs/your-task.md section 2)."""
    renamed = {cid: "case_" + hashlib.sha256(cid.encode()).hexdigest()[:10] for cid in case_ids}
    if len(set(renamed.values())) != len(renamed):      # 40 bits: a clash is a refusal, never a merge
        raise DatasetError("--rename-cases: two case ids hash to the same name; stage without --rename-cases")
    return renamed


def _rename_cases(built: "StagingFolder", found: FolderCases) -> dict[str, str]:
    """Move each staged case's public and private folders to its hashed id; the manifest keeps
    the original ids (harness-side: the agent sees only public/) so results can be traced back."""
    renamed = hashed_case_ids([c["case_id"] for c in found.cases])
    for case in found.cases:
        old, new = case["case_id"], renamed[case["case_id"]]
        for side in (built.public, built.private):
            if (side / old).exists():
                (side / old).rename(side / new)
        case["case_id"] = new
    found.skipped = {renamed.get(c, c): why for c, why in found.skipped.items()}
    return {new: old for old, new in renamed.items()}


def choose_layout(src: Path, layouts: list[FolderLayout], track: str, forced: str | None) -> FolderLayout:
    """The layout `--layout` names, else the first that recognises `src`; else a refusal saying
    what each layout expects."""
    by_name = {lay.name: lay for lay in layouts}
    if forced:
        if forced not in by_name:
            raise DatasetError(f"--layout {forced}: track {track!r} has no such layout; it has "
                               f"{', '.join(by_name)} (docs/your-task.md section 2)")
        return by_name[forced]
    for lay in layouts:
        if lay.detect(src):
            return lay
    raise DatasetError(f"--from-folder {src}: no {track} layout recognises this folder; expected one of: "
                       + "; ".join(f"{lay.name}: {lay.expects}" for lay in layouts)
                       + " (docs/your-task.md section 2; `--layout NAME` forces one and names what is missing)")


def _validate(task: Any, paths: DatasetPaths, cases: list[dict[str, Any]]) -> None:
    """Every case: the task's input files are present, the references load with the track's loader."""
    track = task.track_impl
    for case in cases:
        cid = case["case_id"]
        missing = [f for f in task.input_files if not (paths.public / cid / f).is_file()]
        if missing:
            raise DatasetError(f"case {cid!r}: public/{cid}/ has no {', '.join(missing)} "
                               f"(the task's input_files); refused")
        try:
            track.load_reference(paths.private / cid, case, task.options)
        except Exception as exc:   # the track's own loader says why the reference is unusable
            raise DatasetError(f"case {cid!r}: its reference does not load for track {task.track!r}: "
                               f"{type(exc).__name__}: {exc}; refused") from None


def stage_from_folder(name: str, src: Path | str, task: Any, root: Path | str | None = None, *,
                      force: bool = False, layout: str | None = None, link: bool = False,
                      split: str | None = None, rename_cases: bool = False) -> FolderStageResult:
    """Build dataset `name` under the data root from the folder `src` for `task` (module doc)."""
    src = Path(src).expanduser()
    if not src.is_dir():
        raise DatasetError(f"--from-folder {src}: not a folder")
    if task.dataset != name:
        raise DatasetError(f"task {task.id!r} uses dataset {task.dataset!r}, not {name!r}: stage it as "
                           f"{task.dataset!r} or change the task's `dataset:`")
    chosen = choose_layout(src, task.track_impl.folder_layouts(), task.track, layout)
    if split is not None and not chosen.splits:
        raise DatasetError(f"--split {split}: layout {chosen.name!r} has no splits to choose from "
                           f"({chosen.expects}); drop --split (docs/your-task.md section 2)")
    paths = dataset_paths(name, root)
    if paths.root.exists() and not force:
        raise DatasetError(f"{name} already exists at {paths.root}; pass --force to rebuild it")
    made_root = not paths.root.parent.exists()
    paths.root.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{name}.tmp-", dir=paths.root.parent))
    try:
        built = StagingFolder(tmp, link=link, split=split)
        built.public.mkdir()
        built.private.mkdir()
        found = chosen.stage(src, built, task.options)   # the track's layout (tracks/base.py folder_layouts)
        if not found.cases:
            why = "; ".join(f"{c}: {w}" for c, w in list(found.skipped.items())[:3])
            raise DatasetError(f"--from-folder {src}: no usable case in layout {chosen.name!r} ({chosen.expects})"
                               + (f": {why}" if why else "") + "; see docs/your-task.md section 2")
        original_ids = _rename_cases(built, found) if rename_cases else {}
        _validate(task, built, found.cases)
        warning = label_giveaway([c["case_id"] for c in found.cases], task.track_impl.label_names(task.options))
        if warning:
            found.notes.insert(0, warning + " or stage with --rename-cases")
        write_manifest(built, dataset=name, description=f"{task.title} (staged from a folder)", cases=found.cases,
                       provenance={"source": PROVENANCE_SOURCE, "folder": str(src.resolve()), "task": task.id,
                                   "track": task.track, "layout": chosen.name, "link": link,
                                   "skipped": found.skipped, "notes": found.notes,
                                   **({"split": split} if split else {}),
                                   **({"original_case_ids": original_ids} if rename_cases else {}), **found.facts})
        total = sum(f.stat().st_size for f in tmp.rglob("*") if f.is_file())
        swap_into_place(tmp, paths.root)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        if made_root:
            try:
                paths.root.parent.rmdir()   # only when empty
            except OSError:
                pass
        raise
    return FolderStageResult(paths, [c["case_id"] for c in found.cases], found.skipped, chosen.name,
                             found.notes, dict(built.tally), total)


def verify_dataset(name: str, root: Path | str | None = None, *,
                   load_task: Callable[[str], Any] | None = None) -> list[str]:
    """Problems with a staged dataset (empty list = fine): files that no longer match the
    manifest, cases without their folders, and (for a folder-staged one, when `load_task`
    finds a task by id: the caller's tasks.get_task, as data/ sits below the tasks) references
    that no longer load for the task it was staged for."""
    paths = dataset_paths(name, root)
    if not paths.is_staged():
        raise DatasetError(f"{name} is not staged under {paths.root}")
    manifest = paths.load_manifest()
    try:
        Manifest.model_validate(manifest)
    except ValidationError as exc:
        return [f"manifest.json: {first_field_error(exc)} (schemas/manifest.schema.json)"]
    problems = [f"{rel}: missing or changed since staging" for rel in verify_manifest(paths)]
    for case in manifest.get("cases", []):
        for side in ("public", "private"):
            if not (getattr(paths, side) / case["case_id"]).is_dir():
                problems.append(f"case {case['case_id']!r}: no {side}/{case['case_id']}/ folder")
    prov = manifest.get("provenance") or {}
    if prov.get("source") == PROVENANCE_SOURCE and prov.get("task") and not problems and load_task is not None:
        try:
            _validate(load_task(prov["task"]), paths, manifest["cases"])
        except DatasetError as exc:
            problems.append(str(exc))
        except Exception as exc:   # the task is gone or renamed: say so, not a crash
            problems.append(f"task {prov['task']!r} it was staged for cannot be loaded: {exc}")
    return problems
