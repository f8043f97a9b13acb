from __future__ import annotations

import json

from automedbench.report import collect_reports


def test_collects_nested_run_dirs_and_records_run_dirs(tmp_path, make_report, make_run):
    a = make_run(tmp_path / "sweep1", make_report("r1"))
    b = make_run(tmp_path / "sweep2" / "deeper", make_report("r2", agent="agent-b"))
    reps = collect_reports([tmp_path])
    assert sorted(r.run.run_id for r in reps) == ["r1", "r2"]
    assert reps.warnings == []
    assert reps.run_dirs == {"r1": a, "r2": b}


def test_accepts_run_dir_and_report_file(tmp_path, make_report, make_run):
    a = make_run(tmp_path, make_report("r1"))
    b = make_run(tmp_path, make_report("r2"))
    reps = collect_reports([a, b / "detail_report.json"])
    assert [r.run.run_id for r in reps] == ["r1", "r2"]


def test_corrupt_and_invalid_reports_are_skipped_with_warning(tmp_path, make_report, make_run):
    make_run(tmp_path, make_report("good"))
    bad = tmp_path / "corrupt"
    bad.mkdir()
    (bad / "detail_report.json").write_text('{"run": {"run_id": "x", ', encoding="utf-8")
    wrong = tmp_path / "schema"
    wrong.mkdir()
    d = make_report("s").model_dump(mode="json")
    d["overall"] = "very good"
    (wrong / "detail_report.json").write_text(json.dumps(d), encoding="utf-8")
    binary = tmp_path / "binary"
    binary.mkdir()
    (binary / "detail_report.json").write_bytes(b"\xff\xfe\x00garbage")

    reps = collect_reports([tmp_path])
    assert [r.run.run_id for r in reps] == ["good"]
    assert len(reps.warnings) == 3
    joined = "\n".join(reps.warnings)
    assert "corrupt" in joined and "invalid JSON" in joined
    assert "schema" in joined and "overall" in joined
    assert "binary" in joined


def test_duplicate_run_ids_are_deduplicated(tmp_path, make_report, make_run):
    make_run(tmp_path, make_report("same", agent="first"), name="a")
    make_run(tmp_path, make_report("same", agent="second"), name="b")
    reps = collect_reports([tmp_path])
    assert len(reps) == 1 and reps[0].run.agent == "first"
    assert any("duplicate run_id" in w for w in reps.warnings)


def test_same_file_through_two_paths_is_read_once_silently(tmp_path, make_report, make_run):
    d = make_run(tmp_path, make_report("r1"))
    reps = collect_reports([tmp_path, d, d / "detail_report.json"])
    assert len(reps) == 1 and reps.warnings == []


def test_missing_paths_and_empty_dirs_warn_not_crash(tmp_path):
    (tmp_path / "empty").mkdir()
    reps = collect_reports([tmp_path / "nope", tmp_path / "empty"])
    assert list(reps) == []
    assert len(reps.warnings) == 2


def test_report_inside_agent_workspace_is_not_collected(tmp_path, make_report, make_run):
    run = make_run(tmp_path, make_report("real"))
    forged = run / "workspace" / "fake"
    forged.mkdir(parents=True)
    (forged / "detail_report.json").write_text(
        make_report("forged", agent="cheater").model_dump_json(), encoding="utf-8")
    reps = collect_reports([tmp_path])
    assert [r.run.run_id for r in reps] == ["real"]
