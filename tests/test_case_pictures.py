"""Per-case pictures (docs/site.md "Pictures of outputs"): every built-in track draws its demo
task's gold submission; the core picks at most a dozen cases (worst and best) and places the
files beside the report; PNGs decode, HTML cards escape the agent's text."""
from __future__ import annotations

import io
import json

import pytest
from PIL import Image

from automedbench.api import ensure_dataset
from automedbench.runs.models import CaseResult
from automedbench.scoring.pictures import MAX_CASES, pick_cases, write_pictures
from automedbench.scoring.task_score import score_workspace
from automedbench.tasks import discover

# one demo task per track (datasets build offline)
TASKS = ["brain-lesion-seg", "xray-marker-det", "ldct-denoise", "zsr-x4-demo", "vqa-demo-open",
         "cxr-report-gen", "modality-patch-cls"]


@pytest.fixture(scope="module")
def data_root(tmp_path_factory):
    return tmp_path_factory.mktemp("pictures-data")


@pytest.mark.parametrize("task_id", TASKS)
def test_each_track_draws_its_cases(task_id, data_root, staged_once, tmp_path):
    task = discover()[task_id]
    staged_once(task.dataset, data_root)   # built once per test run (tests/conftest.py)
    paths = ensure_dataset(task, data_root)
    ws = tmp_path / "ws"
    (ws / "outputs").mkdir(parents=True)
    task.track_impl.gold_submission(paths.root, ws / "outputs", task.options)
    cases = [{k: v for k, v in c.items() if k != "files"} for c in paths.load_manifest()["cases"]]
    result, _ = score_workspace(task.track_impl, ws, paths.private, cases, task.options)
    index = write_pictures(task.track_impl, result.per_case, cases, ws, paths.public, paths.private,
                           task.options, tmp_path / "report")
    assert 0 < len(index) <= MAX_CASES
    assert json.loads((tmp_path / "report" / "pictures" / "index.json").read_text()) == index
    for entry in index:
        for f in entry["files"]:
            data = (tmp_path / "report" / "pictures" / entry["dir"] / f["name"]).read_bytes()
            assert 0 < len(data) < 400_000 and f["caption"]
            if f["media_type"] == "image/png":
                with Image.open(io.BytesIO(data)) as im:
                    assert im.format == "PNG" and 50 < im.width < 1200 and im.height < 400
            else:
                assert data.startswith(b"<!doctype html>") and b"<script" not in data.lower()


def test_the_dozen_shown_are_the_worst_and_the_best():
    cases = [CaseResult(case_id=f"c{i:02d}", valid=True, metrics={"dice": i / 30}) for i in range(30)]
    cases.append(CaseResult(case_id="bad", valid=False, reason="missing"))
    chosen = [cid for cid, _ in pick_cases(cases, "dice")]
    assert chosen == [f"c{i:02d}" for i in (0, 1, 2, 3, 4, 5, 24, 25, 26, 27, 28, 29)]
    assert [cid for cid, _ in pick_cases(cases[:3], "dice")] == ["c00", "c01", "c02"]


def test_a_report_card_escapes_the_agents_text(data_root, staged_once, tmp_path):
    task = discover()["cxr-report-gen"]
    staged_once(task.dataset, data_root)
    paths = ensure_dataset(task, data_root)
    ws = tmp_path / "ws"
    (ws / "outputs").mkdir(parents=True)
    task.track_impl.gold_submission(paths.root, ws / "outputs", task.options)
    first = sorted(p for p in (ws / "outputs").iterdir())[0]
    out_file = next(first.iterdir())
    out_file.write_text("FINDINGS: <script>alert(1)</script> right pleural effusion.\n", encoding="utf-8")
    cases = [{k: v for k, v in c.items() if k != "files"} for c in paths.load_manifest()["cases"]]
    result, _ = score_workspace(task.track_impl, ws, paths.private, cases, task.options)
    index = write_pictures(task.track_impl, result.per_case, cases, ws, paths.public, paths.private,
                           task.options, tmp_path / "r")
    html = (tmp_path / "r" / "pictures" / first.name / "report.html").read_text()
    assert first.name in {e["case_id"] for e in index}
    assert "&lt;script&gt;" in html and "<script>" not in html and "missing" in html
