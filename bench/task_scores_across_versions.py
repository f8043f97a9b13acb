"""Task scores of every offline demo task under five submissions, compared across two versions
of the sources: the proof that a change to the scoring seam leaves the numbers where they were.

Submissions per task: the gold one; gold without the first case; gold with the second case's
first output corrupted; gold without every other case; nothing. Each version is scored in its
own process (its sources first on the path); the script then reports how many task scores are
bitwise equal, the largest difference of a score and of a named aggregate metric, and any
change of case status, metric names or components.

    .venv/bin/python bench/task_scores_across_versions.py --ref main        # main vs this tree
    .venv/bin/python bench/task_scores_across_versions.py --ref 394f069 --keep /tmp/scores
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
VARIANTS = ("gold", "drop_first", "corrupt_second", "drop_half", "empty")


def _damage(outputs: Path, layout: Any, ids: list[str], variant: str) -> None:
    if layout.kind == "per_case":
        if variant == "drop_first":
            shutil.rmtree(outputs / ids[0])
        elif variant == "drop_half":
            for cid in ids[::2]:
                shutil.rmtree(outputs / cid)
        elif variant == "corrupt_second":
            (outputs / ids[1] / layout.files[0].name).write_bytes(b"\x00garbage")
        return
    if variant not in ("drop_first", "drop_half", "corrupt_second"):
        return
    cohort = outputs / layout.files[0].name
    header, *rows = cohort.read_text().splitlines()
    first = lambda row: row.split(",")[0]  # noqa: E731 — the key column
    if variant == "drop_first":
        rows = [r for r in rows if first(r) != ids[0]]
    elif variant == "drop_half":
        rows = [r for r in rows if first(r) not in set(ids[::2])]
    else:
        rows = [f"{first(r)},???" if first(r) == ids[1] else r for r in rows]
    cohort.write_text("\n".join([header, *rows]) + "\n")


def dump(data_root: Path, work: Path, out: Path) -> None:
    """Score every demo task's submissions with the sources on the path; write JSON."""
    from automedbench.api import ensure_dataset
    try:
        from automedbench.datasets import all_datasets
    except ImportError:   # a revision from before the catalog moved out of data/registry.py
        from automedbench.data.registry import all_datasets  # type: ignore[no-redef]
    from automedbench.scoring.task_score import score_workspace
    from automedbench.tasks import discover

    found: dict[str, Any] = {}
    for task in sorted(discover().values(), key=lambda t: t.id):
        info = all_datasets().get(task.dataset)
        if info is None or info.kind != "demo":
            continue
        paths = ensure_dataset(task, data_root)
        cases = [{k: v for k, v in c.items() if k != "files"} for c in paths.load_manifest()["cases"]]
        ids = [str(c["case_id"]) for c in cases]
        for variant in VARIANTS:
            ws = work / task.id / variant
            shutil.rmtree(ws, ignore_errors=True)
            (ws / "outputs").mkdir(parents=True)
            if variant != "empty":
                task.track_impl.gold_submission(paths.root, ws / "outputs", task.options)
            _damage(ws / "outputs", task.submission, ids, variant)
            result, _ = score_workspace(task.track_impl, ws, paths.private, cases, task.options, workers=1)
            found[f"{task.id}/{variant}"] = {
                "score": result.score, "completion": result.completion_rate, "metrics": result.aggregate_metrics,
                "components": result.components, "status": [c.status for c in result.per_case]}
    out.write_text(json.dumps(found, indent=1, sort_keys=True, default=str))


def compare(before: dict[str, Any], after: dict[str, Any]) -> int:
    changed = sorted(set(before) ^ set(after))
    bitwise = max_score = max_metric = 0.0
    for key in sorted(set(before) & set(after)):
        b, a = before[key], after[key]
        bitwise += b["score"] == a["score"]
        max_score = max(max_score, abs(b["score"] - a["score"]))
        if any(b[f] != a[f] for f in ("completion", "components", "status")) or set(b["metrics"]) != set(a["metrics"]):
            changed.append(key)
        for name, value in b["metrics"].items():
            other = a["metrics"].get(name)
            if isinstance(value, float) and isinstance(other, float):
                max_metric = max(max_metric, abs(value - other))
            elif value != other:
                changed.append(f"{key}: {name}")
    print(f"{len(before)} task/submission pairs: {int(bitwise)} task scores bitwise equal; largest score "
          f"difference {max_score:.3g}, largest aggregate-metric difference {max_metric:.3g}")
    for item in changed:
        print("changed:", item)
    return 1 if changed or max_score > 1e-12 or max_metric > 1e-12 else 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ref", default="main", help="the git revision to compare this tree with")
    ap.add_argument("--keep", type=Path, help="keep datasets and score files here (default: a temp dir)")
    ap.add_argument("--dump", nargs=3, type=Path, metavar=("DATA", "WORK", "OUT"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.dump:
        dump(*args.dump)
        return
    base = args.keep or Path(tempfile.mkdtemp(prefix="task-scores-"))
    old_src = base / "ref"
    shutil.rmtree(old_src, ignore_errors=True)
    old_src.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.ref, "src", "tests/toy_track"],
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(old_src)], input=archive, check=True)
    results = {}
    for name, root in (("before", old_src), ("after", ROOT)):
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root / "src"), str(root / "tests" / "toy_track")])}
        out = base / f"{name}.json"
        subprocess.run([sys.executable, __file__, "--dump", str(base / "data"), str(base / f"ws-{name}"), str(out)],
                       env=env, check=True)
        results[name] = json.loads(out.read_text())
    sys.exit(compare(results["before"], results["after"]))


if __name__ == "__main__":
    main()
