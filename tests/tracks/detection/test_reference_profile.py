"""The detection reference profile against the published reference's det2d_scorer (verbatim copy
in reference_eval_det2d/, MIT, commit cited there), on the demo's gold boxes and perturbed copies:
jittered and shifted boxes, dropped boxes, low-score false positives, boxes of a class with no
reference box, a deleted image."""
from __future__ import annotations

import importlib
import json
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

from automedbench.datasets import stage
from automedbench.scoring.task_score import score_workspace
from automedbench.tasks import get_task
from automedbench.tracks.detection import TRACK
from automedbench.tracks.detection.track import DetectionOptions

REFERENCE_DIR = Path(__file__).with_name("reference_eval_det2d")


@pytest.fixture(scope="module")
def det2d_scorer():
    sys.path.insert(0, str(REFERENCE_DIR))
    try:
        yield importlib.import_module("det2d_scorer")
    finally:
        sys.path.remove(str(REFERENCE_DIR))


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    return stage("xray-markers", tmp_path_factory.mktemp("det-ref"), n_cases=10, quiet=True)


def _perturb(outputs: Path, how: str, rng: np.random.Generator) -> None:
    dirs = sorted(outputs.iterdir())
    if how == "delete_image":
        shutil.rmtree(dirs[0])
        return
    for d in dirs:
        f = d / "prediction.json"
        boxes = json.loads(f.read_text())["boxes"]
        out = []
        for b in boxes:
            b = dict(b, score=float(b.get("score", 1.0)))
            if how == "jitter":
                dx, dy = rng.uniform(-4, 4, 2)
                b.update(x1=max(0.0, b["x1"] + dx), y1=max(0.0, b["y1"] + dy), x2=b["x2"] + dx, y2=b["y2"] + dy,
                         score=float(rng.uniform(0.1, 1.0)))
                b["x2"], b["y2"] = max(b["x2"], b["x1"] + 1), max(b["y2"], b["y1"] + 1)
            if how == "drop" and rng.random() < 0.4:
                continue
            out.append(b)
        if how == "false_positives":
            out.append({"class": "marker", "score": 0.05, "x1": 1.0, "y1": 1.0, "x2": 9.0, "y2": 9.0})
        if how == "ring_only_in_predictions":
            out = [dict(b, **{"class": "ring"}) if b["class"] == "marker" and rng.random() < 0.5 else b for b in out]
        f.write_text(json.dumps({"boxes": out}))


def _clamp_to_image(outputs: Path, dataset) -> None:
    for d in outputs.iterdir():
        ref = json.loads((dataset.private / d.name / "boxes.json").read_text())
        f = d / "prediction.json"
        boxes = json.loads(f.read_text())["boxes"]
        for b in boxes:
            b["x2"], b["y2"] = min(b["x2"], ref["width"]), min(b["y2"], ref["height"])
        f.write_text(json.dumps({"boxes": boxes}))


@pytest.mark.parametrize("how", ["gold", "jitter", "drop", "false_positives", "ring_only_in_predictions",
                                 "delete_image"])
def test_reference_profile_equals_the_reference_scorer(dataset, det2d_scorer, how, tmp_path):
    options = DetectionOptions(**get_task("xray-marker-det").track_options)
    outputs = tmp_path / "outputs"
    outputs.mkdir()
    TRACK.gold_submission(dataset.root, outputs, options)
    _perturb(outputs, how, np.random.default_rng(1))
    _clamp_to_image(outputs, dataset)
    cases = json.loads(dataset.manifest.read_text())["cases"]
    result, outcomes = score_workspace(TRACK, tmp_path, dataset.private, cases, options)
    assert all(o.record.status.value in ("ok", "missing") for o in outcomes), [o.record.reason for o in outcomes]
    ids = [c["case_id"] for c in cases]
    det = det2d_scorer.score_all(str(outputs), str(dataset.private), ids, iou_threshold=options.iou_threshold)
    theirs = round(det["mAP"], 4) if det["completion_rate"] >= 1.0 else 0.0   # eval_det2d/aggregate.py
    ref = result.profile_scores["reference"]
    assert ref.score == pytest.approx(theirs, abs=1e-12), (how, ref, det["mAP"])
    if how == "gold":
        assert ref.score == 1.0
