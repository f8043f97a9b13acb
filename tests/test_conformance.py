"""The track contract, checked for EVERY registered task (built-in and plug-in tracks alike).

For each task whose dataset can be built offline: its gold submission earns 1.0; an empty
workspace scores 0 with SUBMITTED_NOTHING; a corrupt output fails that case with a reason; a
symlink is refused. A new track gets these tests for free (docs/tracks.md)."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from automedbench.api import ensure_dataset
from automedbench.datasets import all_datasets
from automedbench.runs.layout import RunFiles, RunMeta, write_json_atomic
from automedbench.runs.models import RunInfo
from automedbench.scoring.score_run import score_run
from automedbench.scoring.task_score import score_workspace
from automedbench.tasks import discover

TASKS = sorted(discover().values(), key=lambda t: t.id)


def _offline(task) -> bool:
    info = all_datasets().get(task.dataset)
    return info is not None and info.kind == "demo"


@pytest.fixture(scope="module")
def data_root(tmp_path_factory):
    return tmp_path_factory.mktemp("conformance-data")


def _dataset(task, data_root, staged_once):
    if not _offline(task):
        pytest.skip(f"{task.id}: dataset {task.dataset!r} is official (staged from a local copy); "
                    "its stager has its own offline test")
    staged_once(task.dataset, data_root)   # built once per test run (tests/conftest.py)
    return ensure_dataset(task, data_root)


def _cases(paths):
    return [{k: v for k, v in c.items() if k != "files"} for c in paths.load_manifest()["cases"]]


def _gold(task, paths, ws: Path) -> Path:
    outputs = ws / "outputs"
    outputs.mkdir(parents=True, exist_ok=True)
    task.track_impl.gold_submission(paths.root, outputs, task.options)
    return outputs


def _score(task, paths, ws):
    return score_workspace(task.track_impl, ws, paths.private, _cases(paths), task.options)[0]


def _first_output(task, outputs: Path, case_id: str) -> Path:
    layout = task.submission
    return outputs / case_id / layout.files[0].name if layout.kind == "per_case" else outputs / layout.files[0].name


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.id)
def test_gold_submission_earns_full_score(task, data_root, staged_once, tmp_path):
    paths = _dataset(task, data_root, staged_once)
    _gold(task, paths, tmp_path / "ws")
    result = _score(task, paths, tmp_path / "ws")
    bad = [(c.case_id, c.reason) for c in result.per_case if c.status != "ok"]
    assert not bad, bad
    # a track whose metric has a ceiling below 1 on a verbatim copy declares how far (base.py)
    assert result.score == pytest.approx(1.0, abs=task.track_impl.gold_tolerance)
    assert result.completion_rate == 1.0 and result.format_valid


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.id)
def test_empty_submission_scores_zero_with_submitted_nothing(task, data_root, staged_once, tmp_path):
    paths = _dataset(task, data_root, staged_once)
    run_dir = tmp_path / "run"
    files = RunFiles(run_dir)
    files.workspace.mkdir(parents=True)
    info = RunInfo(run_id="conformance", agent="none", task=task.id, track=task.track, tier="lite",
                   started_at="2026-01-01T00:00:00+00:00", submitted=True, end_reason="submitted", sandbox="bwrap")
    write_json_atomic(files.meta, RunMeta(run=info, dataset=task.dataset, dataset_root=str(paths.root),
                                          case_ids=[c["case_id"] for c in _cases(paths)]))
    files.trace.write_text("")
    report = score_run(run_dir)
    assert report.task.score == 0 and report.rating == "F"
    assert report.stages["s4"].score == 0 and report.stages["s5"].score == 0
    assert "SUBMITTED_NOTHING" in {e.code for e in report.errors}
    assert all(c.status == "missing" for c in report.task.per_case)


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.id)
def test_corrupt_output_fails_with_a_reason(task, data_root, staged_once, tmp_path):
    paths = _dataset(task, data_root, staged_once)
    outputs = _gold(task, paths, tmp_path / "ws")
    first = _cases(paths)[0]["case_id"]
    target = _first_output(task, outputs, first)
    target.write_bytes(b"\x00\xff garbage \x89PNG not what was asked" * 10)
    result = _score(task, paths, tmp_path / "ws")
    case = next(c for c in result.per_case if c.case_id == first)
    assert case.status == "invalid" and case.reason.strip(), case
    assert result.score < 1.0 and not result.format_valid


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.id)
def test_symlinked_output_is_refused(task, data_root, staged_once, tmp_path):
    paths = _dataset(task, data_root, staged_once)
    outputs = _gold(task, paths, tmp_path / "ws")
    first = _cases(paths)[0]["case_id"]
    target = _first_output(task, outputs, first)
    elsewhere = tmp_path / "elsewhere" / target.name
    elsewhere.parent.mkdir()
    shutil.move(target, elsewhere)
    os.symlink(elsewhere, target)
    result = _score(task, paths, tmp_path / "ws")
    case = next(c for c in result.per_case if c.case_id == first)
    assert case.status == "invalid" and "symlink" in case.reason


def test_every_registered_track_gives_every_task_an_output_contract():
    from automedbench.tracks import all_tracks
    tracks = all_tracks()
    assert {"segmentation", "toy-threshold"} <= set(tracks)
    for name, track in tracks.items():
        for task in (t for t in TASKS if t.track == name):
            layout = track.submission(task.options)
            assert layout.files and layout.contract("/workspace").strip()


def test_a_plugin_that_is_not_a_track_is_skipped_with_a_warning(tmp_path, monkeypatch, caplog):
    """The registry validates what an entry point loads: a broken third-party plug-in is left
    out with a warning naming it, and the harness keeps working with the other tracks."""
    from automedbench.tracks import TRACKS, all_tracks
    (tmp_path / "not_a_track_pkg.py").write_text("TRACK = object()\n")
    info = tmp_path / "not_a_track_pkg-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: not-a-track-pkg\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[automedbench.tracks]\nbroken = not_a_track_pkg:TRACK\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    TRACKS.reload()
    try:
        with caplog.at_level("WARNING"):
            tracks = all_tracks()
        assert "segmentation" in tracks and "broken" not in tracks
        assert not any(type(t).__module__ == "not_a_track_pkg" for t in tracks.values())
        assert any("broken" in r.getMessage() and "not a Track" in r.getMessage() for r in caplog.records)
    finally:
        TRACKS.reload()
