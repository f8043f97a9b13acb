"""The embedded VQA demo data and the scripted methods that answer it (run as real processes on
the public folder only)."""
from __future__ import annotations

import json
import subprocess
import sys
from importlib import resources

import numpy as np
import pytest
from PIL import Image

from automedbench.data import DatasetPaths, verify_manifest
from automedbench.data import DatasetInfo
from automedbench.tracks.vqa import TRACK
from automedbench.tracks.vqa.data.demo import TYPE_MIX, build_vqa_demo_open
from .helpers import score_outputs

METHOD = resources.files("automedbench.tracks.vqa.methods").joinpath("vqa_rules.py")


def test_layout_manifest_and_question_files(demo_open, demo_mcq):
    for paths, mcq in ((demo_open, False), (demo_mcq, True)):
        manifest = json.loads(paths.manifest.read_text())
        assert verify_manifest(paths) == []
        assert {c["question_type"] for c in manifest["cases"]} == set(TYPE_MIX)
        assert "simulated" in manifest["description"].lower()
        for case in manifest["cases"]:
            q = json.loads((paths.public / case["case_id"] / "question.json").read_text())
            ref = json.loads((paths.private / case["case_id"] / "answer.json").read_text())
            assert q["question_id"] == case["case_id"] and q["question_type"] == case["question_type"]
            assert "answer" not in q and "label" not in q           # nothing private leaks to public
            img = np.asarray(Image.open(paths.public / case["case_id"] / q["images"][0]))
            assert img.dtype == np.uint8 and max(img.shape[:2]) <= 256
            assert bool(q.get("options")) is mcq
            if mcq:
                assert ref["label"] in q["options"] and q["options"][ref["label"]] == ref["answer"]
                assert len(set(q["options"].values())) == len(q["options"])
            if case["question_type"] == "count":
                assert ref["answer"] == str(case["n_lesions"]) or mcq
            if case["question_type"] == "finding" and not mcq:
                assert ref["answer"] == ("yes" if case["n_lesions"] else "no")


def test_same_seed_gives_identical_files_and_default_is_at_least_100(tmp_path):
    digests = []
    for run in ("a", "b"):
        paths = DatasetPaths(tmp_path / run)
        paths.root.mkdir()
        manifest = build_vqa_demo_open(paths, n_cases=8, seed=11)
        digests.append([c["files"] for c in manifest["cases"]])
    assert [{k.split("/", 1)[1]: v for k, v in f.items()} for f in digests[0]] == \
           [{k.split("/", 1)[1]: v for k, v in f.items()} for f in digests[1]]
    import inspect
    assert inspect.signature(build_vqa_demo_open).parameters["n_cases"].default >= 100
    infos = {d.name: d for d in TRACK.datasets()}
    assert isinstance(infos["vqa-demo-open"], DatasetInfo) and infos["vqa-demo-mcq"].kind == "demo"


def _run_method(paths: DatasetPaths, out, careless: bool = False):
    args = [sys.executable, str(METHOD), str(paths.public), str(out)] + (["--careless"] if careless else [])
    done = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("which", ["demo_open", "demo_mcq"])
def test_reference_answerer_solves_most_questions_from_public_data_only(which, request, tmp_path):
    paths = request.getfixturevalue(which)
    _run_method(paths, tmp_path / "out")
    agg, records = score_outputs(paths, tmp_path / "out")
    assert agg.metrics["completion"] == 1.0 and agg.metrics["n_placeholder"] == 0
    assert agg.score >= 0.8, agg.metrics
    assert agg.score >= TRACK.default_bands({}).good
    # count and finding questions are solved by an explicit rule: all right
    assert agg.metrics["by_type.count"] == 1.0 and agg.metrics["by_type.finding"] == 1.0
    answer = json.loads(next((tmp_path / "out").glob("*/answer.json")).read_text())
    assert answer["raw_model_output"] and answer["model_name"] == "rule-based-vqa-1"


def test_careless_answerer_is_caught_by_the_placeholder_flag(demo_open, tmp_path):
    _run_method(demo_open, tmp_path / "out", careless=True)
    agg, records = score_outputs(demo_open, tmp_path / "out")
    flagged = [r for r in records.values() if r.score and r.score.extra.get("placeholder")]
    assert flagged and agg.metrics["n_placeholder"] == len(flagged)
    assert all(r.score.metrics["score"] == 0.0 for r in flagged)
    assert agg.score < 0.6 and agg.metrics["by_type.modality"] == 0.0


def test_scripted_reference_code_runs_in_a_workspace(demo_mcq, tmp_path):
    """Every step the scripted reference sends through execute_code, run as a real process in a
    workspace (cwd) that sees only the public data; then the outputs score like the method."""
    methods = TRACK.scripted_methods(TRACK.parse_options({"mode": "mcq"}))
    assert len(methods.plan_steps()) >= 4
    ws = tmp_path / "ws"
    (ws / "outputs").mkdir(parents=True)
    data = str(demo_mcq.public)
    steps = [methods.setup_code(data), methods.pilot_code(data), methods.inspect_code(data),
             methods.batch_code(data, careless=False), methods.verify_code(data)]
    logs = []
    for code in steps:
        done = subprocess.run([sys.executable, "-c", code], cwd=ws, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        logs.append(done.stdout)
    assert "mode" in logs[0] and "pilot answer looks valid" in logs[2]
    n = len(json.loads(demo_mcq.manifest.read_text())["cases"])
    assert f"{n} of {n} answers valid" in logs[4]
    agg, _ = score_outputs(demo_mcq, ws / "outputs")
    assert agg.score >= 0.8
    assert '"careless": true' in methods.batch_code(data, careless=True)
