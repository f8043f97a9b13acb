"""The judge's experiments (docs/judge.md "Experiments"): a look is decided by the broken outputs
it catches when it is replayed, not by what it printed.

Here: the comparison and the mutants on their own, on real files, and the built-in reference
agent's look through the real loop and the real sandbox (bwrap), which catches every malign mutant
of its track. Looks that see nothing (only the input's facts, a header, a byte size or a hash,
checks that cannot fail: S3 0.5) are in test_judge_experiments_looks.py; what the batch submits
against what was inspected, input checks and other workflows in
test_judge_experiments_consistency.py (three files so that xdist runs them side by side:
docs/testing.md "Parallel by default").
"""
from __future__ import annotations

import gzip
import json
from pathlib import Path

import nibabel as nib
import numpy as np
import pytest

from automedbench.runs.blobs import BlobStore, WorkspaceState
from automedbench.scoring.experiments import Comparison, Replay, load_experiments, tokens
from automedbench.tasks import get_task
from automedbench.tracks.content_facts import same_content
from automedbench.tracks.mutants import BENIGN

from tests.judge_runs import needs_bwrap

# ---- the comparison: values printed, not lines ---------------------------------------------------

def _cmp(recorded: str, control: str, benign: list[str]) -> Comparison:
    cmp = Comparison(1, Replay(exit_code=0, stdout=recorded), [], [])
    cmp.same_content("control", Replay(exit_code=0, stdout=control), benign=False)
    for text in benign:
        cmp.same_content("re_encoded", Replay(exit_code=0, stdout=text))
    return cmp


def test_values_not_lines_re_indented_json_is_the_same_output():
    doc = {"boxes": [{"x1": 10, "y1": 12, "x2": 30, "y2": 40}]}
    control = json.dumps(doc)
    cmp = _cmp(control, control, [json.dumps(doc, indent=3)])
    assert not cmp.malign("same", "", Replay(exit_code=0, stdout=json.dumps(doc, indent=1)))
    assert cmp.malign("moved", "", Replay(exit_code=0, stdout=control.replace("30", "130")))


def test_a_kill_is_judged_again_when_a_later_benign_replay_moves_the_value():
    """The second benign mutant runs only once a broken output seems caught: a value it moves
    (a byte size) no longer counts, and the kill goes."""
    cmp = _cmp("size 4021 voxels 812", "size 4021 voxels 812", ["size 4021 voxels 812"])
    assert cmp.malign("empty", "", Replay(exit_code=0, stdout="size 310 voxels 812"))
    cmp.same_content("padded", Replay(exit_code=0, stdout="size 12213 voxels 812"))
    assert not cmp.killed_any and cmp.result().killed == []


def test_a_timing_that_differs_from_the_recorded_run_is_volatile():
    cmp = _cmp("foreground 812 took 0.53 s", "foreground 812 took 0.61 s", [])
    assert cmp.decidable
    assert not cmp.malign("slower", "", Replay(exit_code=0, stdout="foreground 812 took 0.77 s"))
    assert cmp.malign("empty", "", Replay(exit_code=0, stdout="foreground 0 took 0.58 s"))


def test_what_a_benign_mutant_changes_never_kills():
    """A hash or a byte size changes with the bytes: the benign re-encoding changes it too."""
    cmp = _cmp("sha 1c5dcd99 size 4021", "sha 1c5dcd99 size 4021", ["sha 77ab0e12 size 3990"])
    assert not cmp.malign("empty", "", Replay(exit_code=0, stdout="sha 0000aa11 size 310"))


def test_a_reordering_counts_only_where_no_benign_run_reordered():
    counts = "1 500 2 300 3 200"
    shifted = "1 200 2 500 3 300"           # the same numbers, paired with other labels
    assert _cmp(counts, counts, [counts]).malign("labels_shifted", "", Replay(exit_code=0, stdout=shifted))
    rows = "a X b Y"
    reordering = _cmp(rows, rows, ["b Y a X"])   # the benign mutant reversed the rows
    assert not reordering.malign("rows", "", Replay(exit_code=0, stdout="b Y a X"))


def test_a_new_warning_line_or_a_failure_kills():
    cmp = _cmp("ok", "ok", ["ok"])
    assert cmp.malign("warn", "", Replay(exit_code=0, stdout="ok\nWARNING empty mask"))
    cmp.malign("fails", "", Replay(exit_code=1, stdout="ok", stderr="AssertionError"))
    assert cmp.result().checked and cmp.result().inspected


def test_a_control_that_does_not_reproduce_leaves_the_call_undecided():
    cmp = Comparison(1, Replay(exit_code=1, stdout="x"), [], [])
    cmp.same_content("control", Replay(exit_code=0, stdout="x"), benign=False)
    assert not cmp.decidable and "exited 0, the recorded call 1" in cmp.result().why
    flaky = _cmp("a 1 b 2 c 3 d 4", "q 9 r 8 s 7 t 6", [])
    assert not flaky.decidable


def test_a_benign_mutant_that_changes_the_exit_status_leaves_the_call_undecided():
    cmp = _cmp("ok", "ok", [])
    cmp.same_content("re_encoded", Replay(exit_code=1, stdout="ok"))
    assert not cmp.decidable and "in other bytes (re_encoded), it exited 1" in cmp.result().why


def test_tokens_read_numbers_whatever_their_notation():
    assert tokens("shape (99, 117, 95)") == tokens("shape [ 99 117  95]") == ["shape", "99", "117", "95"]
    assert tokens("sha 1c5dcd99 took 0.53s") == ["sha", "1c5dcd99", "took", "0.53", "s"]
    assert tokens("1.50 1.5 1.5e0") == ["1.5", "1.5", "1.5"]


# ---- the mutants, on real files ----------------------------------------------------------------

def _volume(path: Path, data: np.ndarray) -> Path:
    nib.save(nib.Nifti1Image(data, np.diag([1.0, 1.0, 2.0, 1.0])), str(path))
    return path


def test_benign_re_encodings_keep_the_content_and_change_the_bytes(tmp_path):
    rng = np.random.default_rng(0)
    files = {
        "organ.nii.gz": _volume(tmp_path / "organ.nii.gz", (rng.random((6, 5, 4)) > 0.5).astype(np.uint8)),
        "enhanced.npy": tmp_path / "enhanced.npy",
        "prediction.json": tmp_path / "prediction.json",
        "predictions.csv": tmp_path / "predictions.csv",
        "report.txt": tmp_path / "report.txt",
    }
    np.save(files["enhanced.npy"], rng.normal(size=(8, 9)).astype(np.float32))
    files["prediction.json"].write_text(json.dumps({"boxes": [{"x1": 1, "y1": 2, "x2": 3, "y2": 4},
                                                              {"x1": 5, "y1": 6, "x2": 7, "y2": 8}]}))
    files["predictions.csv"].write_text("patient_id,label\nc1,CT\nc2,MR\n")
    files["report.txt"].write_text("FINDINGS: clear.\nIMPRESSION: normal.")
    before = {n: p.read_bytes() for n, p in files.items()}
    copies = {n: tmp_path / f"orig_{n}" for n in files}
    for n in files:
        copies[n].write_bytes(before[n])
    for benign in BENIGN:
        for n in files:
            files[n].write_bytes(before[n])
        _same_content_other_bytes(benign, files, before, copies)


def _same_content_other_bytes(benign, files, before, copies):
    assert benign.apply(files)
    for n, p in files.items():
        assert p.read_bytes() != before[n], (benign.name, n)
    assert same_content(files["organ.nii.gz"], copies["organ.nii.gz"])
    assert np.array_equal(np.load(files["enhanced.npy"]), np.load(copies["enhanced.npy"]))
    assert gzip.decompress(files["organ.nii.gz"].read_bytes()) == gzip.decompress(before["organ.nii.gz"])
    boxes = json.loads(files["prediction.json"].read_text())["boxes"]
    def key(b):
        return json.dumps(b, sort_keys=True)
    assert sorted(map(key, boxes)) == sorted(map(key, json.loads(before["prediction.json"])["boxes"]))
    import csv as csvmod
    rows = sorted(map(tuple, csvmod.reader(files["predictions.csv"].read_text().splitlines())))
    assert rows == sorted(map(tuple, csvmod.reader(before["predictions.csv"].decode().splitlines())))
    assert files["report.txt"].read_text().split() == before["report.txt"].decode().split()


@pytest.mark.slow
@pytest.mark.parametrize("task_id", ["brain-lesion-seg", "ldct-denoise", "zsr-x4-demo", "xray-marker-det",
                                     "modality-patch-cls", "vqa-demo-open", "cxr-report-gen", "brain-tissue-seg"])
def test_every_malign_mutant_changes_a_valid_output(task_id, tmp_path, staged_once):
    """Each track's mutants change a valid output (the gold one) into another one."""
    task = get_task(task_id)
    track, options = task.track_impl, task.options
    out = tmp_path / "outputs"
    out.mkdir()
    track.gold_submission(staged_once(task.dataset, tmp_path / "data").root, out, options)
    layout = track.submission(options)
    unit = out / layout.files[0].name if layout.kind == "cohort" else sorted(p for p in out.iterdir() if p.is_dir())[0]
    originals = {p.name: p.read_bytes() for p in ([unit] if unit.is_file() else sorted(unit.iterdir()))}
    for m in track.mutants(options):
        work = tmp_path / m.name
        work.mkdir()
        files = {n: work / n for n in originals}
        for n, data in originals.items():
            files[n].write_bytes(data)
        assert m.malign
        assert m.apply(files), f"{task_id}: mutant {m.name} changed nothing in the gold output"
        assert any(files[n].read_bytes() != originals[n] for n in originals), m.name


# ---- the workspace as it stood before a call ---------------------------------------------------

def test_a_call_is_replayed_on_the_files_as_it_read_them(tmp_path):
    ws, blobs = tmp_path / "ws", tmp_path / "blobs"
    (ws / "outputs" / "case_000").mkdir(parents=True)
    store = BlobStore(blobs, ws, "/workspace")
    pilot = ws / "outputs" / "case_000" / "organ.nii.gz"

    def write(text: bytes) -> dict:
        pilot.write_bytes(text)
        import hashlib
        return {"written": [{"path": "/workspace/outputs/case_000/organ.nii.gz", "op": "modified",
                             "size": len(text), "sha256": hashlib.sha256(text).hexdigest()}]}

    first, fixed = write(b"first version"), write(b"fixed version")
    # the store keeps what each call left: call 1's bytes are gone from the workspace by now
    assert store.keep(fixed) == 1
    pilot.write_bytes(b"first version")
    assert store.keep(first) == 1
    before_fix = WorkspaceState.before([(1, first), (3, fixed)], 2)
    dest = tmp_path / "copy"
    assert before_fix.materialise(store, dest) == []
    assert (dest / "outputs" / "case_000" / "organ.nii.gz").read_bytes() == b"first version"
    # a file whose bytes changed after the recorder hashed them is not kept
    stale = {"written": [{**first["written"][0], "sha256": "0" * 64}]}
    assert store.keep(stale) == 0
    assert WorkspaceState.before([(1, stale)], 2).materialise(store, tmp_path / "c2") == \
        ["/workspace/outputs/case_000/organ.nii.gz"]


# ---- through the real loop and sandbox ----------------------------------------------------------

@needs_bwrap
@pytest.mark.slow
@pytest.mark.parametrize("task_id", ["brain-lesion-seg", "brain-tissue-seg", "ldct-denoise", "mri-sr", "zsr-x4-demo",
                                     "xray-marker-det", "modality-patch-cls", "vqa-demo-open", "vqa-demo-mcq",
                                     "cxr-report-gen"])
def test_the_reference_look_catches_every_broken_output(task_id, reference_run_once):
    """The reference agent's run (every malign mutant replayed), made once per test run and also
    read by test_plausibility_relations.py."""
    run_dir, report = reference_run_once(task_id)
    assert report.run.end_reason == "submitted", report.run
    experiments = load_experiments(run_dir)
    assert experiments is not None and experiments.error is None, experiments
    (look, *_) = experiments.calls
    # a mutant that cannot apply to this pilot (one class for all on a one-case pilot) is not counted
    malign = [v for v in look.variants if v.malign and v.applied]
    assert look.decidable, look.why
    assert malign and all(v.changed for v in malign), [(v.name, v.changed) for v in malign]
    assert report.stages["s3"].score == 1.0
    assert f"call #{look.call_index} killed {len(malign)} of {len(malign)}" in report.stages["s3"].rationale
    # its input check (the setup's print of one input's facts) catches an input on another grid
    # (the image tracks' setups print size and mode, not intensities: an inverted image passes)
    (check,) = experiments.inputs
    assert check.decidable and "input_resliced" in check.killed, check.summary("altered inputs")
    assert report.stages["s2"].items["s2b"] == 1.0 and "altered inputs" in report.stages["s2"].rationale
