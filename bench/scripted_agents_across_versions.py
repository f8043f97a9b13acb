"""The built-in scripted agents' judged scores on every offline demo task, compared across two
versions of the sources: the proof that a change to how the scripted methods reach the sandbox
(docs/tracks.md "Scripted methods") leaves what the judge saw, and so every score, where it was.

Each scripted agent that runs a track's method (reference, careless, pilot-no-inspect,
words-no-work) is run on every demo task in the real bwrap sandbox, network off, by each version
in its own process (its sources first on the path). Per run it records the stage scores and
items, the task score, the error codes and the end reason; the script then prints how many
runs agree on all of them, and every difference. Stage rationales are compared too and their
differences listed apart (they name call numbers and printed facts, which a change may move
without changing a score).

    .venv/bin/python bench/scripted_agents_across_versions.py --ref main        # main vs this tree
    .venv/bin/python bench/scripted_agents_across_versions.py --ref 7ee577e --keep /tmp/agents
    .venv/bin/python bench/scripted_agents_across_versions.py --ref A --new B   # two revisions

`--new` compares against another revision instead of this tree (a shared checkout may hold
others' unfinished edits; `--ref C^ --new C` isolates what commit C changed).
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
AGENTS = ("reference", "careless", "pilot-no-inspect", "words-no-work")
SCORED = ("stages", "task_score", "errors", "end_reason", "agentic")


def dump(data_root: Path, runs: Path, out: Path, only: list[str]) -> None:
    """Run every scripted agent on every demo task with the sources on the path; write JSON."""
    from automedbench import api
    from automedbench.api import ensure_dataset
    from automedbench.datasets import all_datasets
    from automedbench.tasks import discover

    found: dict[str, Any] = {}
    for task in sorted(discover().values(), key=lambda t: t.id):
        info = all_datasets().get(task.dataset)
        if info is None or info.kind != "demo" or (only and task.id not in only):
            continue
        ensure_dataset(task, data_root)
        for agent in AGENTS:
            try:
                r = api.run_one(task.id, "lite", agent, runs,
                                api.RunOptions(sandbox="bwrap", data_root=data_root, network=False))
            except Exception as e:   # noqa: BLE001 — a cell the version cannot run is a result too
                found[f"{task.id}/{agent}"] = {"refused": f"{type(e).__name__}: {e}"}
                continue
            run = json.loads((r.run_dir / "run.json").read_text())
            found[f"{task.id}/{agent}"] = {
                "stages": {s: {"score": v.score, "items": v.items} for s, v in r.stages.items()},
                "rationales": {s: v.rationale for s, v in r.stages.items()},
                "task_score": r.task.score, "agentic": r.agentic,
                "errors": sorted(e.code for e in r.errors), "end_reason": run.get("end_reason")}
            print(task.id, agent, r.task.score, r.agentic, flush=True)
    out.write_text(json.dumps(found, indent=1, sort_keys=True, default=str))


def compare(before: dict[str, Any], after: dict[str, Any]) -> int:
    differ = [k for k in sorted(set(before) ^ set(after))]
    same = 0
    worded = []
    for key in sorted(set(before) & set(after)):
        b, a = before[key], after[key]
        if any(b.get(f) != a.get(f) for f in (*SCORED, "refused")):
            differ.append(key)
            for f in (*SCORED, "refused"):
                if b.get(f) != a.get(f):
                    print(f"{key} {f}:\n  before {b.get(f)}\n  after  {a.get(f)}")
        else:
            same += 1
        for s in sorted(set(b.get("rationales", {})) | set(a.get("rationales", {}))):
            if b.get("rationales", {}).get(s) != a.get("rationales", {}).get(s):
                worded.append(f"{key} {s}:\n  before {b['rationales'].get(s)}\n  after  {a['rationales'].get(s)}")
    print(f"{len(set(before) | set(after))} task/agent runs: {same} with the same stage scores and items, "
          f"task score, agentic score, error codes and end reason; {len(differ)} differ; "
          f"{len(worded)} stage rationales worded differently")
    for line in worded:
        print("rationale:", line)
    return 1 if differ else 0


def _checkout(rev: str, dest: Path) -> Path:
    """The sources of `rev` (src/ and calibration/) under `dest`."""
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "src", "calibration"],
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    return dest


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ref", default="main", help="the git revision to compare this tree with")
    ap.add_argument("--keep", type=Path, help="keep datasets, runs and result files here (default: a temp dir)")
    ap.add_argument("--new", help="the git revision to compare with instead of this tree")
    ap.add_argument("--tasks", nargs="*", default=[], help="only these demo tasks (default: every one)")
    ap.add_argument("--dump", nargs=3, type=Path, metavar=("DATA", "RUNS", "OUT"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.dump:
        dump(*args.dump, only=args.tasks)
        return
    base = args.keep or Path(tempfile.mkdtemp(prefix="scripted-agents-"))
    old_src = _checkout(args.ref, base / "ref")
    new_src = _checkout(args.new, base / "new") if args.new else ROOT
    results = {}
    for name, root in (("before", old_src), ("after", new_src)):
        out = base / f"{name}.json"
        if name == "after" or not out.is_file():    # --keep: the reference's dump is not run again
            env = {**os.environ, "PYTHONPATH": str(root / "src")}
            subprocess.run([sys.executable, __file__, "--dump", str(base / "data"), str(base / f"runs-{name}"),
                            str(out), "--tasks", *args.tasks], env=env, check=True)
        found = json.loads(out.read_text())
        results[name] = {k: v for k, v in found.items() if not args.tasks or k.split("/")[0] in args.tasks}
    sys.exit(compare(results["before"], results["after"]))


if __name__ == "__main__":
    main()
