"""The judge's calibration set and `automedbench judge-eval` (docs/judge.md).

The trajectories are not installed with the package: they live in the repository's
calibration/ folder (`$AUTOMEDBENCH_CALIBRATION`, else the checkout this source tree is in),
one subfolder per track named after the track (`calibration/tracks/<track>/`; a track may
declare its own folder instead: `calibration_dir`, tracks/base.py).
`<folder>/<agent>__<task>__<tier>/` holds what a judge reads of one run made by
calibration/generators/make_judge_calibration.py: trace.jsonl (with effects), plan/plan.md,
plan/plan.png and meta.json. `labels.yaml` holds the hand labels per agent and the floors. `evaluate(judge)`
runs a judge over every trajectory and compares its item verdicts with the labels: per item
n, accuracy, Cohen's kappa (linearly weighted for the S3 ladder), the confusion matrix and
each disagreement with the trajectory it came from.
"""
from __future__ import annotations

import fcntl
import json
import logging
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ... import yamlfile
from ...errors import UserError
from ...home import home
from ...run_files import RunFiles
from ...runs.trace import read_trace
from ...datasets import all_datasets, stage
from ...tasks import Task, get_task
from ...tracks import all_tracks
from ..rubric import Rubric, load_rubric
from ..judge.agreement import accuracy, confusion, weighted_kappa
from ..judge.base import Judge, JudgeEvidence

log = logging.getLogger(__name__)
PACKAGE = Path(__file__).parent
LABELS = PACKAGE / "labels.yaml"
# the held-out set (docs/judge.md "Held-out set"): trajectories written by someone who never
# read the judge, labels committed before the trajectories; its floors are the bar.
# The trajectories live beside the calibration set's (heldout_roots), the labels and floors here.
HELDOUT = PACKAGE / "heldout"
HELDOUT_LABELS = HELDOUT / "labels.yaml"
HELDOUT_FLOORS = HELDOUT / "floors.yaml"
# dev: looked at while the judge changed; sealed .. sealed-10: each measured once sealed, then
# looked at (issue 25's fixes for the classes they showed); the last part: written after those
# fixes, measured once, never tuned against.
# What each part is, in words, is floors.yaml's `parts` (shown by `judge-eval --heldout`).
HELDOUT_PARTS = ("dev", "sealed", "sealed-2", "sealed-3", "sealed-4", "sealed-5", "sealed-6", "sealed-7", "sealed-8", "sealed-9", "sealed-10", "sealed-11")
# where the trajectories are (module doc): a checkout's calibration/ folder, never installed
CALIBRATION_ENV = "AUTOMEDBENCH_CALIBRATION"
# <checkout>/src/automedbench/scoring/judge_eval -> <checkout>/calibration (.parent never fails)
CHECKOUT_CALIBRATION = PACKAGE.resolve().parent.parent.parent.parent / "calibration"


class CalibrationError(UserError):
    """The calibration set is malformed (a trajectory without labels, an unknown item)."""


class CalibrationMissing(CalibrationError):
    """The calibration trajectories are not where they are looked for (an installed package
    without the repository's calibration/ folder): says where, and how to point at them."""


@dataclass
class Trajectory:
    id: str
    agent: str
    task: str
    tier: str
    dir: Path
    case_ids: list[str]
    labels: dict[str, float]
    unlabelled: dict[str, str]
    adversarial: bool
    part: str = "calibration"       # held-out set: one of HELDOUT_PARTS


@dataclass
class ItemReport:
    item: str
    categories: list[float]
    weighted: bool
    n: int = 0                       # labelled trajectories the judge gave a verdict on
    abstained: int = 0               # labelled, but the judge left the item out
    unlabelled: int = 0
    accuracy: float | None = None
    kappa: float | None = None
    confusion: list[list[int]] = field(default_factory=list)   # rows = label, columns = verdict
    disagreements: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class EvalReport:
    judge: dict[str, Any]
    n_trajectories: int
    n_labels: int
    tracks: list[str]
    tiers: list[str]
    items: dict[str, ItemReport]
    adversarial_over: list[dict[str, Any]]
    errors: list[dict[str, str]]
    floors: dict[str, dict[str, float]]
    floor_failures: list[str]
    # per judged stage, over the pooled (label, verdict) pairs of its items: n, accuracy, kappa
    # (weighted for a ladder) — the calibration the leaderboard footer names
    stages: dict[str, dict[str, Any]] = field(default_factory=dict)
    # where api.judge_eval kept it as the judge's last measurement (not part of the JSON)
    saved_to: Path | None = field(default=None, compare=False)

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out.pop("saved_to", None)
        return out


def calibration_inputs(task: Task) -> Path | None:
    """The public inputs the task's calibration trajectories saw, so the judge can compute
    content facts (docs/judge.md "Content facts"): an embedded dataset is built once, offline,
    under <home>/calibration-data (its builders are deterministic: the bytes the trajectories
    were recorded on; `AUTOMEDBENCH_CALIBRATION_DATA` puts them elsewhere). An official dataset
    is not available here: None, and the judge says so."""
    info = all_datasets().get(task.dataset)
    if info is None or info.kind != "demo":
        return None
    root = Path(os.environ.get("AUTOMEDBENCH_CALIBRATION_DATA") or home() / "calibration-data")
    try:
        root.mkdir(parents=True, exist_ok=True)
        with open(root / ".lock", "a") as lock:     # test workers and two judge-evals build it once
            fcntl.flock(lock, fcntl.LOCK_EX)
            return stage(task.dataset, root, quiet=True).public
    except Exception as exc:   # a build that fails leaves the judge without inputs, never without a verdict
        log.warning("calibration inputs for %s could not be built: %s", task.dataset, exc)
        return None


def _labels(path: Path = LABELS) -> dict[str, Any]:
    return yamlfile.safe_load(path.read_text())


def calibration_root() -> Path:
    """The folder of the calibration trajectories: `$AUTOMEDBENCH_CALIBRATION`, else the
    calibration/ folder of the repository checkout this source tree is in (it is not part of
    the installed package). Each track's trajectories are in its `tracks/<track>/` subfolder."""
    env = os.environ.get(CALIBRATION_ENV)
    return Path(env).expanduser() if env else CHECKOUT_CALIBRATION


def _track_folder(name: str, declared: Path | None) -> Path:
    return declared if declared is not None else calibration_root() / "tracks" / name


def track_trajectory_dir(name: str) -> Path | None:
    """Where the calibration trajectories of the track registered as `name` go: the folder the
    track declares (`calibration_dir`, e.g. a plug-in track that ships its own), else
    `<calibration_root>/tracks/<name>/`. None for an unknown track."""
    track = all_tracks().get(name)
    return None if track is None else _track_folder(name, track.calibration_dir)


def calibration_missing() -> str | None:
    """Why the calibration trajectories cannot be read, naming where they were looked for and
    how to point at them; None when the folder is there (as in a checkout)."""
    root = calibration_root()
    if (root / "tracks").is_dir():
        return None
    where = (f"from {CALIBRATION_ENV}={os.environ[CALIBRATION_ENV]}" if os.environ.get(CALIBRATION_ENV)
             else f"{CALIBRATION_ENV} is not set: where a checkout has it, beside src/")
    return (f"the judge's calibration trajectories are not here: no folder {root / 'tracks'} ({where}). "
            "They are kept in the repository's calibration/ folder, not in the installed package: "
            f"clone the repository and set {CALIBRATION_ENV} to its calibration/ folder")


def trajectory_roots() -> list[Path]:
    """Every registered track's folder of calibration trajectories that exists (track_trajectory_dir)."""
    roots = (_track_folder(name, t.calibration_dir) for name, t in sorted(all_tracks().items()))
    return [r for r in roots if r.is_dir()]


def _roots_or_fail() -> list[Path]:
    """trajectory_roots(), or CalibrationMissing (where it looked, how to point at it) when the
    calibration folder is not there: a measurement on part of the set is never reported."""
    why = calibration_missing()
    if why is not None:
        raise CalibrationMissing(why)
    return trajectory_roots()


def heldout_roots() -> list[Path]:
    """Each track's held-out trajectories (`<track folder>/heldout/`); their labels and floors
    are the core's (HELDOUT_LABELS, HELDOUT_FLOORS), as for the calibration set."""
    return [r / "heldout" for r in _roots_or_fail() if (r / "heldout").is_dir()]


def load_set(root: Path | None = None, labels_path: Path = LABELS) -> list[Trajectory]:
    """The labelled trajectories under `root`, or under every track's calibration folder
    (CalibrationMissing when the calibration folder is not there: calibration_missing says why)."""
    raw = _labels(labels_path)
    agents = raw.get("agents") or {}
    rubric = load_rubric()
    known = {i for s in rubric.judged for i in rubric.stages[s].items}
    out = []
    roots = [root] if root is not None else _roots_or_fail()
    dirs = sorted((p for r in roots if r.is_dir() for p in r.iterdir() if (p / "meta.json").is_file()),
                  key=lambda p: p.name)
    for d in dirs:
        meta = json.loads((d / "meta.json").read_text())
        entry = agents.get(meta["agent"])
        if entry is None:
            raise CalibrationError(f"{d}: agent {meta['agent']!r} has no labels in {labels_path}")
        labels = {k: float(v) for k, v in (entry.get("labels") or {}).items()}
        unlabelled = dict(entry.get("unlabelled") or {})
        bad = (set(labels) | set(unlabelled)) - known
        if bad:
            raise CalibrationError(f"{labels_path}: {meta['agent']}: unknown rubric items {sorted(bad)}")
        na = {i for s in rubric.judged for i in rubric.stages[s].not_applicable_in(meta["tier"])}
        out.append(Trajectory(id=d.name, agent=meta["agent"], task=meta["task"], tier=meta["tier"], dir=d,
                              case_ids=list(meta.get("case_ids") or []),
                              labels={k: v for k, v in labels.items() if k not in na},
                              unlabelled={k: v for k, v in unlabelled.items() if k not in na},
                              adversarial=bool(entry.get("adversarial")),
                              part=str(entry.get("part") or "calibration")))
    return out


Pairs = dict[str, list[tuple[float, float]]]   # item -> (label, verdict) of every trajectory labelled and judged


def evaluate(judge: Judge, trajectories: list[Trajectory] | None = None, labels_path: Path = LABELS,
             floors_path: Path | None = None, floors_key: str = "floors") -> EvalReport:
    """Run `judge` over the labelled trajectories and compare its item verdicts with the hand
    labels: per item and per stage agreement, the adversarial trajectories it credits above
    their label, and the floors of the labels file it misses (docs/judge.md)."""
    trajectories = load_set(labels_path=labels_path) if trajectories is None else trajectories
    floors_path = floors_path or labels_path
    rubric = load_rubric()
    items = _item_reports(rubric)
    pairs: Pairs = {i: [] for i in items}
    over: list[dict[str, Any]] = []
    errors: list[dict[str, str]] = []
    tasks = {tid: get_task(tid) for tid in sorted({t.task for t in trajectories})}   # discovery is not cached
    inputs = {tid: calibration_inputs(task) for tid, task in tasks.items()}
    for t in trajectories:
        ev = JudgeEvidence(task=tasks[t.task], tier=t.tier, workspace=t.dir, trace=read_trace(RunFiles(t.dir).trace),
                           conversation=None, case_ids=t.case_ids, data_dir=inputs[t.task])
        given = _item_verdicts(judge, ev, rubric, t.id, errors)
        over += _tally(t, given, items, pairs)
    _agreement(items, pairs)
    floors = {k: {i: float(v) for i, v in (d or {}).items()}
              for k, d in (_labels(floors_path).get(floors_key) or {}).items()}
    failures = _floor_failures(items, floors)
    failures += [f"adversarial {o['trajectory']}: {o['item']} judged {o['verdict']} > label {o['label']}" for o in over]
    failures += [f"{e['trajectory']}: judge failed: {e['error']}" for e in errors]
    return EvalReport(
        judge={"backend": judge.backend, "model": judge.model, "version": judge.version},
        n_trajectories=len(trajectories), n_labels=sum(len(t.labels) for t in trajectories),
        tracks=sorted({task.track for task in tasks.values()}), tiers=sorted({t.tier for t in trajectories}),
        items=items, adversarial_over=over, errors=errors, floors=floors, floor_failures=failures,
        stages=_stage_agreement(rubric, pairs))


def heldout_part_names() -> dict[str, str]:
    """Each held-out part and what it is (floors.yaml `parts`): whether it was tuned against."""
    parts = _labels(HELDOUT_FLOORS).get("parts") or {}
    return {p: str(parts.get(p, "")) for p in HELDOUT_PARTS}


def evaluate_heldout(judge: Judge) -> dict[str, EvalReport]:
    """The judge on the held-out set, one report per part (HELDOUT_PARTS), each against its
    floors (docs/judge.md "Held-out set"). Each part is reported apart: the last one, never
    tuned against, measures the judge as it stands."""
    every = [t for root in heldout_roots() for t in load_set(root, HELDOUT_LABELS)]
    return {part: evaluate(judge, [t for t in every if t.part == part], HELDOUT_LABELS, HELDOUT_FLOORS,
                           floors_key=f"{part}_floors") for part in HELDOUT_PARTS}


def _item_reports(rubric: Rubric) -> dict[str, ItemReport]:
    """One empty report per item of a judged stage; a ladder's item is compared with a
    linearly weighted kappa over the ladder's values, any other over 0/1."""
    items: dict[str, ItemReport] = {}
    for s in rubric.judged:
        st = rubric.stages[s]
        for i in st.items:
            items[i] = ItemReport(i, list(st.allowed_values()), weighted=st.kind == "ladder")
    return items


def _item_verdicts(judge: Judge, ev: JudgeEvidence, rubric: Rubric, trajectory: str,
                   errors: list[dict[str, str]]) -> dict[str, tuple[float, str]]:
    """item -> (verdict, the stage's rationale) as `judge` gives them for one trajectory. A
    judge that fails on it is reported in `errors` and gives no verdict, never stops the run."""
    try:
        verdict = judge.judge(ev)
    except Exception as exc:   # a judge that fails on one trajectory is reported, not fatal
        errors.append({"trajectory": trajectory, "error": f"{type(exc).__name__}: {exc}"})
        verdict = {}
    given: dict[str, tuple[float, str]] = {}
    for s in rubric.judged:
        r = verdict.get(s)
        if r is not None:
            for i, v in r.items.items():
                given[i] = (float(v), r.rationale)
    return given


def _tally(t: Trajectory, given: dict[str, tuple[float, str]], items: dict[str, ItemReport],
           pairs: Pairs) -> list[dict[str, Any]]:
    """Compare one trajectory's verdicts with its labels: an item left unlabelled is counted, an
    item labelled but not judged is an abstention, a labelled and judged one is a pair (and a
    disagreement when they differ). Returns the items of an adversarial trajectory that the
    judge credited above their label."""
    over: list[dict[str, Any]] = []
    for i, rep in items.items():
        if i in t.unlabelled:
            rep.unlabelled += 1
        if i not in t.labels:
            continue
        if i not in given:
            rep.abstained += 1
            continue
        label, (value, why) = t.labels[i], given[i]
        pairs[i].append((label, value))
        if value != label:
            rep.disagreements.append({"trajectory": t.id, "label": label, "verdict": value,
                                      "rationale": why[:400]})
        if t.adversarial and value > label:
            over.append({"trajectory": t.id, "item": i, "label": label, "verdict": value})
    return over


def _agreement(items: dict[str, ItemReport], pairs: Pairs) -> None:
    """Each item's n, accuracy, kappa and confusion matrix over its (label, verdict) pairs."""
    for i, rep in items.items():
        lv = [a for a, _ in pairs[i]]
        jv = [b for _, b in pairs[i]]
        rep.n = len(lv)
        rep.accuracy = accuracy(lv, jv)
        rep.kappa = weighted_kappa(lv, jv, rep.categories, "linear" if rep.weighted else None)
        rep.confusion = confusion(lv, jv, rep.categories) if lv else []


def _stage_agreement(rubric: Rubric, pairs: Pairs) -> dict[str, dict[str, Any]]:
    """Per judged stage, the pairs of all its items pooled: n, accuracy and kappa (linearly
    weighted for a ladder)."""
    stage_cal: dict[str, dict[str, Any]] = {}
    for s in rubric.judged:
        st = rubric.stages[s]
        pooled = [p for i in st.items for p in pairs[i]]
        cats = list(st.allowed_values())
        stage_cal[s] = {"n": len(pooled), "accuracy": accuracy([a for a, _ in pooled], [b for _, b in pooled]),
                        "kappa": weighted_kappa([a for a, _ in pooled], [b for _, b in pooled], cats,
                                                "linear" if st.kind == "ladder" else None)}
    return stage_cal


def _floor_failures(items: dict[str, ItemReport], floors: dict[str, dict[str, float]]) -> list[str]:
    """The labels file's floors an item misses: kappa or accuracy below its floor, or not
    measured at all (no pair), fails."""
    failures = []
    for i, f in floors.get("min_kappa", {}).items():
        k = items[i].kappa
        if k is None and items[i].n and items[i].accuracy == 1.0:
            continue   # one category only, every verdict right: no chance agreement to beat
        if k is None or k < f:
            failures.append(f"{i}: kappa {k if k is None else round(k, 3)} < floor {f}")
    for i, f in floors.get("min_accuracy", {}).items():
        a = items[i].accuracy
        if a is None or a < f:
            failures.append(f"{i}: accuracy {a if a is None else round(a, 3)} < floor {f}")
    return failures


def _fmt(x: float | None) -> str:
    return "  -  " if x is None else f"{x:5.3f}"


def render_table(rep: EvalReport) -> str:
    """The plain-text table `judge-eval` prints (docs/judge.md pastes it)."""
    j = rep.judge
    lines = [f"judge {j['backend']}{' (' + j['model'] + ')' if j.get('model') else ''} v{j['version']}: "
             f"{rep.n_trajectories} trajectories, {rep.n_labels} labels, tracks {', '.join(rep.tracks)}, "
             f"tiers {', '.join(rep.tiers)}",
             "",
             "item    n  abst  unlab  accuracy  kappa   confusion (rows = label, cols = verdict)"]
    for i, r in rep.items.items():
        cats = "/".join(f"{c:g}" for c in r.categories)
        conf = " ".join("[" + " ".join(f"{v:2d}" for v in row) + "]" for row in r.confusion)
        lines.append(f"{i:<5} {r.n:4d} {r.abstained:5d} {r.unlabelled:6d}     {_fmt(r.accuracy)}  {_fmt(r.kappa)}"
                     f"{'w' if r.weighted else ' '}  {cats}: {conf}")
    lines += ["", "per stage (items pooled): " + "; ".join(
        f"{s} n {c['n']} accuracy {_fmt(c['accuracy']).strip()} kappa {_fmt(c['kappa']).strip()}"
        for s, c in rep.stages.items())]
    dis = [(i, d) for i, r in rep.items.items() for d in r.disagreements]
    lines += ["", f"disagreements: {len(dis)}"]
    lines += [f"  {i} {d['trajectory']}: label {d['label']:g}, judged {d['verdict']:g}" for i, d in dis]
    lines += ["", f"adversarial trajectories credited above their label: {len(rep.adversarial_over)}"]
    lines += [f"  {o['item']} {o['trajectory']}: label {o['label']:g}, judged {o['verdict']:g}" for o in rep.adversarial_over]
    if rep.errors:
        lines += ["", "judge errors:"] + [f"  {e['trajectory']}: {e['error']}" for e in rep.errors]
    lines += ["", "floors: " + ("all met" if not rep.floor_failures else "NOT MET")]
    lines += [f"  {f}" for f in rep.floor_failures]
    return "\n".join(lines)


def judge_label(judge: dict[str, Any]) -> str:
    """A judge's name as the leaderboard writes it (backend[:model] vVERSION), so a saved
    calibration can be matched to the runs it judged (docs/site.md "Leaderboard footer")."""
    model, version = judge.get("model"), judge.get("version")
    return str(judge.get("backend", "?")) + (f":{model}" if model else "") + (f" v{version}" if version else "")


def calibration_dir() -> Path:
    """Where `judge-eval --save` keeps each judge's last measurement and `report` looks for them."""
    return home() / "calibration"


def saved_path(judge: dict[str, Any]) -> Path:
    """The default file of one judge's last `judge-eval --save`: one file per judge name."""
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in judge_label(judge).replace(" ", "_"))
    return calibration_dir() / f"{safe}.json"
