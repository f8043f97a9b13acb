"""Per-case pictures (docs/site.md "Pictures of outputs"): every built-in track draws its demo
task's gold submission; the core picks at most a dozen cases (worst and best) and places the
files beside the report; PNGs decode, HTML cards escape the agent's text."""
from __future__ import annotations

import io
import json

import numpy as np
import pytest
from PIL import Image

from automedbench.api import ensure_dataset
from automedbench.runs.models import CaseResult
from automedbench.scoring.pictures import MAX_CASES, pick_cases, pick_invalid, write_pictures
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
                    assert im.format == "PNG" and 50 < im.width < 1200 and im.height < 600
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


def _gold_workspace(task_id, data_root, staged_once, tmp_path):
    task = discover()[task_id]
    staged_once(task.dataset, data_root)
    paths = ensure_dataset(task, data_root)
    ws = tmp_path / "ws"
    (ws / "outputs").mkdir(parents=True)
    task.track_impl.gold_submission(paths.root, ws / "outputs", task.options)
    cases = [{k: v for k, v in c.items() if k != "files"} for c in paths.load_manifest()["cases"]]
    return task, paths, ws, cases


def _spoil(task, ws, cases):
    """Make the first case's output fail its check: every per-case file emptied, or the cohort
    row given a label the task does not have."""
    first = str(cases[0]["case_id"])
    layout = task.track_impl.submission(task.options)
    if layout.kind == "cohort":
        (f,) = layout.files
        path = ws / "outputs" / f.name
        lines = path.read_text().splitlines()
        row = next(i for i, line in enumerate(lines) if line.startswith(first + ","))
        lines[row] = first + ",no-such-label"
        path.write_text("\n".join(lines) + "\n")
    else:
        for f in (ws / "outputs" / first).iterdir():
            f.write_bytes(b"")
    return first


@pytest.mark.parametrize("task_id", TASKS)
def test_a_case_that_failed_its_check_is_drawn_with_its_reason(task_id, data_root, staged_once, tmp_path):
    # docs/site.md "Pictures of outputs": invalid cases are drawn too (input and reference at
    # least), the reason in the caption
    task, paths, ws, cases = _gold_workspace(task_id, data_root, staged_once, tmp_path)
    first = _spoil(task, ws, cases)
    result, _ = score_workspace(task.track_impl, ws, paths.private, cases, task.options)
    bad = next(c for c in result.per_case if c.case_id == first)
    assert bad.status == "invalid" and bad.reason
    index = write_pictures(task.track_impl, result.per_case, cases, ws, paths.public, paths.private,
                           task.options, tmp_path / "report")
    entry = next(e for e in index if e["case_id"] == first)
    assert entry["valid"] is False
    captions = " ".join(f["caption"] for f in entry["files"])
    assert "not scored: " + bad.reason in captions
    assert all(e["valid"] for e in index if e["case_id"] != first)


def test_detection_draws_the_boxes_as_written_of_an_invalid_case(data_root, staged_once, tmp_path):
    # the careless agent's (x, y, w, h) boxes: seen on the image, beside the reference
    task, paths, ws, cases = _gold_workspace("xray-marker-det", data_root, staged_once, tmp_path)
    case = next(c for c in sorted((ws / "outputs").iterdir())
                if json.loads((c / "prediction.json").read_text())["boxes"])
    pred = json.loads((case / "prediction.json").read_text())
    for b in pred["boxes"]:
        b["x2"], b["y2"] = b["x2"] - b["x1"], b["y2"] - b["y1"]       # width and height instead of corners
    (case / "prediction.json").write_text(json.dumps(pred))
    result, _ = score_workspace(task.track_impl, ws, paths.private, cases, task.options)
    index = write_pictures(task.track_impl, result.per_case, cases, ws, paths.public, paths.private,
                           task.options, tmp_path / "report")
    entry = next(e for e in index if e["case_id"] == case.name)
    cap = entry["files"][0]["caption"]
    assert f"{len(pred['boxes'])} box" in cap and "as written" in cap and "looks like (x, y, w, h)" in cap
    with Image.open(tmp_path / "report" / "pictures" / entry["dir"] / "boxes.png") as im:
        assert im.width >= 512                                           # a 256 px image drawn at twice its size
        px = np.asarray(im.convert("RGB")).reshape(-1, 3)
    assert (px == (230, 40, 220)).all(axis=1).sum() > 50 and (px == (22, 200, 60)).all(axis=1).sum() > 20


def test_invalid_cases_picked_one_per_reason_first():
    cases = [CaseResult(case_id=f"a{i}", valid=False, status="invalid", reason=f"box 0: x2={i} lies outside")
             for i in range(5)]
    cases += [CaseResult(case_id="b0", valid=False, status="invalid", reason="malformed JSON"),
              CaseResult(case_id="m0", valid=False, status="missing", reason="no output folder"),
              CaseResult(case_id="ok", valid=True, metrics={"dice": 1.0})]
    assert pick_invalid(cases) == ["a0", "b0", "a1", "a2", "a3", "a4"]      # numbers aside, one per reason first
    assert pick_invalid(cases, limit=2) == ["a0", "b0"]


def test_low_dose_ct_is_drawn_in_the_tasks_hu_windows(data_root, staged_once, tmp_path):
    # ldct-denoise's task.yaml: soft tissue (L40 W400) and brain (L40 W80); no percentile window
    task, paths, ws, cases = _gold_workspace("ldct-denoise", data_root, staged_once, tmp_path)
    result, _ = score_workspace(task.track_impl, ws, paths.private, cases, task.options)
    index = write_pictures(task.track_impl, result.per_case, cases, ws, paths.public, paths.private,
                           task.options, tmp_path / "report")
    caps = [f["caption"] for f in index[0]["files"]]
    assert len(caps) == 2 and "soft tissue window (level 40, width 400)" in caps[0] \
        and "brain window (level 40, width 80)" in caps[1] and "percentile" not in " ".join(caps)


def test_a_display_window_maps_hounsfield_units_as_stated():
    from automedbench.tracks.pictures import restoration_panels
    ref = np.array([[-1000.0, 0.0, 40.0, 80.0, 1000.0]] * 5)
    pics = restoration_panels(None, ref, ref, {}, windows=[("brain", 40, 80)])
    with Image.open(io.BytesIO(pics[0].data)) as im:
        tile = im.convert("L")
        # the reference panel (second) of a 5-wide image scaled to 256 px: sample each column's centre
        x0 = 4 + 256 + 4
        grey = [tile.getpixel((x0 + int((i + 0.5) * 256 / 5), 4 + 10)) for i in range(5)]
    assert grey[0] == 0 and grey[1] == 0 and abs(grey[2] - 127) <= 1 and grey[3] == 255 and grey[4] == 255
