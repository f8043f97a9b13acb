"""The VQA reference profile (tracks/vqa/reference_profile.py) against the published reference's
own scorer (verbatim copy in reference_eval_vqa/, MIT, commit cited there), on the demo runs and
on perturbed copies of them. docs/scoring-profiles.md says what differs and why."""
from __future__ import annotations

import csv
import importlib
import json
import random
import shutil
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest

from automedbench.data import DatasetPaths
from automedbench.scoring.task_score import score_workspace
from automedbench.tracks.vqa import TRACK
from automedbench.tracks.vqa.data.demo import build_vqa_demo_mcq, build_vqa_demo_open

REFERENCE_DIR = Path(__file__).with_name("reference_eval_vqa")
METHOD = resources.files("automedbench.tracks.vqa.methods").joinpath("vqa_rules.py")


@pytest.fixture(scope="module")
def reference_scorer():
    sys.path.insert(0, str(REFERENCE_DIR))
    try:
        yield importlib.import_module("vqa_scorer")
    finally:
        sys.path.remove(str(REFERENCE_DIR))


def _demo(root: Path, builder) -> DatasetPaths:
    paths = DatasetPaths(root)
    root.mkdir(parents=True)
    builder(paths, n_cases=40, seed=5)
    return paths


@pytest.fixture(scope="module")
def demo_runs(tmp_path_factory):
    """(dataset, outputs folder) for the scripted answerer on both demos."""
    runs = []
    for name, builder in (("open", build_vqa_demo_open), ("mcq", build_vqa_demo_mcq)):
        base = tmp_path_factory.mktemp(f"vqa-ref-{name}")
        paths = _demo(base / "data", builder)
        out = base / "ws" / "outputs"
        done = subprocess.run([sys.executable, str(METHOD), str(paths.public), str(out)],
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        runs.append((paths, out))
    return runs


def _reference_number(scorer, paths: DatasetPaths, outputs: Path, tmp: Path) -> float:
    """The reference's score_all over the same files: its ground_truth.csv layout written from our
    private answers; its answer modes are per task, so open and MCQ questions are scored in two
    calls and combined by count (the reference's accuracy is a mean over questions either way)."""
    cases = json.loads(paths.manifest.read_text())["cases"]
    gt_dir = tmp / "gt"
    gt_dir.mkdir(parents=True, exist_ok=True)
    rows, groups = [], {"open_ended": [], "multiple_choice": []}
    for case in cases:
        ref = json.loads((paths.private / case["case_id"] / "answer.json").read_text())
        rows.append({"question_id": case["case_id"], "answer": ref["answer"], "answer_label": ref.get("label") or ""})
        groups["multiple_choice" if ref.get("label") else "open_ended"].append(case["case_id"])
    with open(gt_dir / "ground_truth.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["question_id", "answer", "answer_label"])
        w.writeheader()
        w.writerows(rows)
    total = 0.0
    for mode, qids in groups.items():
        if qids:
            result = scorer.score_all(str(outputs), str(gt_dir), str(paths.public), qids, answer_mode=mode)
            total += result["accuracy"] * len(qids)
    return total / len(cases)


def _perturb(outputs: Path, seed: int) -> None:
    """Wrong, hedged, padded, deleted and placeholder answers, as an agent might write them."""
    rng = random.Random(seed)
    for d in sorted(outputs.iterdir()):
        roll = rng.random()
        f = d / "answer.json"
        a = json.loads(f.read_text())
        if roll < 0.1:
            shutil.rmtree(d)
            continue
        if roll < 0.2:
            a["predicted_answer"] = "yes and no"
        elif roll < 0.3:
            a["predicted_answer"] = f"The answer is {a['predicted_answer']}."
        elif roll < 0.4:
            a["raw_model_output"] = "heuristic: guess"
        elif roll < 0.5:
            a["predicted_label"] = rng.choice(["A", "B", "C", "D", "b", "(C)", "none"])
        elif roll < 0.6:
            a["predicted_answer"] = "two"
        f.write_text(json.dumps(a))


@pytest.mark.parametrize("perturb_seed", [None, 1, 2, 3])
def test_reference_profile_equals_the_reference_scorer(demo_runs, reference_scorer, perturb_seed, tmp_path):
    for i, (paths, outputs) in enumerate(demo_runs):
        ws = tmp_path / f"ws{i}"
        shutil.copytree(outputs, ws / "outputs")
        if perturb_seed is not None:
            _perturb(ws / "outputs", perturb_seed)
        cases = json.loads(paths.manifest.read_text())["cases"]
        result, _ = score_workspace(TRACK, ws, paths.private, cases, TRACK.parse_options({}))
        ours = result.profile_scores["reference"].score
        theirs = _reference_number(reference_scorer, paths, ws / "outputs", tmp_path / f"ref{i}")
        # the reference rounds its accuracy to 4 places
        assert ours == pytest.approx(theirs, abs=1e-4 + 1e-9), (perturb_seed, i)
        assert result.profile_scores["ours"].score == result.score


def test_the_reference_profile_has_a_definition_and_a_different_rule(demo_runs, tmp_path):
    paths, outputs = demo_runs[0]
    shutil.copytree(outputs, tmp_path / "outputs")
    for d in (tmp_path / "outputs").iterdir():      # answers padded the way an LLM writes them
        a = json.loads((d / "answer.json").read_text())
        a["predicted_answer"] = f"{a['predicted_answer']}, as seen on the image."
        (d / "answer.json").write_text(json.dumps(a))
    cases = json.loads(paths.manifest.read_text())["cases"]
    result, _ = score_workspace(TRACK, tmp_path, paths.private, cases, TRACK.parse_options({}))
    ref = result.profile_scores["reference"]
    assert ref.definition.startswith("reference VQA") and ref.score is not None
    assert ref.score < result.score        # its strict whole-answer yes/no rule and 0.5*EM
