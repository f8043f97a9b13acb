"""RunRecord, the one reader of a run folder (docs/run_record.md "Reading a run folder"), on a
folder a real run made (the reference agent, the local backend, the tiny lesion set), and on
copies of it damaged as a killed or corrupted run leaves them: each the documented outcome."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from automedbench import api
from automedbench.runs.layout import RunFiles
from automedbench.runs.models import DetailReport
from automedbench.runs.record import RunFileError, RunRecord
from automedbench.runs.sweep import read_end_reason
from automedbench.runs.trace import infra_error_message, slowest_execution
from tests.helpers import tiny_lesion_dataset


@pytest.fixture(scope="module")
def real_run(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("record")
    tiny_lesion_dataset(root / "data" / "mni-brain-lesion", n_cases=3)
    return api.run_one("brain-lesion-seg", "lite", "reference", root / "runs",
                       api.RunOptions(sandbox="local", data_root=root / "data", network=False)).run_dir


@pytest.fixture
def copy(real_run, tmp_path) -> Path:
    """A copy of the real run's folder this test may damage."""
    return Path(shutil.copytree(real_run, tmp_path / "run", symlinks=True))


def test_a_real_run_reads_whole(real_run):
    rec = RunRecord.open(real_run)
    files = RunFiles(real_run)
    assert rec.meta is not None and rec.meta.run.agent == "reference" and rec.meta.run.task == "brain-lesion-seg"
    report = rec.report
    assert report is not None and report.run_dir == real_run
    assert report.model_dump() == DetailReport.model_validate_json(files.report.read_text()).model_dump()
    assert report.run.run_id == rec.meta.run.run_id and report.run.end_reason == "submitted"
    assert rec.judge is not None and set(rec.judge.stages) >= {"s1", "s2", "s3"}
    assert rec.conversation is not None and rec.conversation.messages
    kinds = [e.type for e in rec.trace]
    assert kinds[0] == "run_start" and kinds[-1] == "run_end" and "execution" in kinds
    assert len(rec.trace_lines) == len(rec.trace) == len(files.trace.read_text().splitlines())
    assert rec.trace_skipped == 0
    assert rec.experiments is not None and "calls" in rec.experiments
    assert rec.workspace == files.workspace and rec.blobs == files.blobs


def test_each_file_is_read_once_on_first_use(copy):
    rec = RunRecord.open(copy)
    RunFiles(copy).report.unlink()          # nothing was read yet: the report is now absent
    assert rec.report is None
    meta = rec.meta
    RunFiles(copy).meta.write_text("{")     # read already: the record keeps what it read
    assert rec.meta is meta
    with pytest.raises(RunFileError, match="invalid JSON"):
        _ = RunRecord.open(copy).meta    # a new record reads again, and finds the damage


def test_a_corrupt_run_json_is_a_clear_error_every_time(copy):
    RunFiles(copy).meta.write_text('{"run": {"run_id": ', encoding="utf-8")
    rec = RunRecord.open(copy)
    with pytest.raises(RunFileError) as first:
        _ = rec.meta
    assert str(first.value).startswith(f"{RunFiles(copy).meta}: invalid JSON")
    assert first.value.path == RunFiles(copy).meta and "\n" not in str(first.value)
    with pytest.raises(RunFileError) as again:
        _ = rec.meta
    assert again.value is first.value
    assert rec.report is not None and rec.trace     # the other files still read


def test_a_run_json_of_another_schema_names_the_field(copy):
    meta = json.loads(RunFiles(copy).meta.read_text())
    meta["case_ids"] = "case_000"
    RunFiles(copy).meta.write_text(json.dumps(meta))
    with pytest.raises(RunFileError, match="schema error at case_ids"):
        _ = RunRecord.open(copy).meta


def test_a_missing_report_is_none_and_its_readers_say_so(copy):
    RunFiles(copy).report.unlink()
    RunFiles(copy).judge.unlink()
    rec = RunRecord.open(copy)
    assert rec.report is None and rec.judge is None
    assert rec.meta is not None   # an unscored run is still a run


def test_binary_and_null_files_are_errors_not_absences(copy):
    RunFiles(copy).report.write_bytes(b"\xff\xfe\x00garbage")
    RunFiles(copy).judge.write_text("null")
    rec = RunRecord.open(copy)
    with pytest.raises(RunFileError, match="not UTF-8"):
        _ = rec.report
    with pytest.raises(RunFileError, match="schema error"):
        _ = rec.judge


def test_a_truncated_trace_keeps_every_whole_line(copy):
    trace = RunFiles(copy).trace
    whole = trace.read_text().splitlines()
    raw = trace.read_bytes()
    trace.write_bytes(raw[: len(raw) - len(whole[-1]) // 2 - 1])   # killed halfway through the last line
    rec = RunRecord.open(copy)
    assert [e.type for e in rec.trace] == [json.loads(line)["type"] for line in whole[:-1]]
    assert rec.trace_skipped == 1
    assert infra_error_message(copy) == ""
    assert slowest_execution([copy]).startswith("reference brain-lesion-seg/lite")


def test_a_trace_line_of_another_schema_is_shown_raw_and_skipped_typed(copy):
    with RunFiles(copy).trace.open("a") as fh:
        fh.write(json.dumps({"type": "hologram", "t": 1.0}) + "\n")
    rec = RunRecord.open(copy)
    assert rec.trace_lines[-1] == {"type": "hologram", "t": 1.0}
    assert len(rec.trace) == len(rec.trace_lines) - 1 and rec.trace_skipped == 1


def test_no_trace_is_an_empty_log(copy):
    RunFiles(copy).trace.unlink()
    rec = RunRecord.open(copy)
    assert rec.trace == [] and rec.trace_lines == [] and rec.trace_skipped == 0


def test_a_path_that_is_no_folder_is_refused(tmp_path):
    with pytest.raises(RunFileError, match="not a run directory"):
        RunRecord.open(tmp_path / "nowhere")
    (tmp_path / "file").write_text("x")
    with pytest.raises(RunFileError, match="not a run directory"):
        RunRecord.open(tmp_path / "file")
    empty = RunRecord.open(tmp_path)       # a folder with nothing in it: every file absent
    assert (empty.meta, empty.report, empty.judge, empty.conversation, empty.experiments) == (None,) * 5


def test_a_sweep_tells_finished_from_partial_cells_through_the_record(copy):
    assert read_end_reason(copy) == (True, "submitted")
    report = json.loads(RunFiles(copy).report.read_text())
    report["from_a_newer_harness"] = 1            # another schema: finished, kept, end from run.json
    RunFiles(copy).report.write_text(json.dumps(report))
    assert read_end_reason(copy) == (True, "submitted")
    RunFiles(copy).report.write_text(json.dumps(report)[:40])    # a torn write: no report
    assert read_end_reason(copy) == (False, None)
    RunFiles(copy).report.unlink()
    assert read_end_reason(copy) == (False, None)
