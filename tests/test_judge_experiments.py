"""The judge's experiments (docs/judge.md "Experiments"): a look is decided by the broken outputs
it catches when it is replayed, not by what it printed.

Through the real loop and the real sandbox (bwrap): the built-in reference agent's look catches
every malign mutant of its track; looks that print only the input's facts, only a header, a
byte size or a hash, and checks that cannot fail, catch none, and their runs get S3 0.5 (a pilot
nobody looked at). The comparison and the mutants are also tested on their own, on real files.
"""
from __future__ import annotations

import gzip
import json
import os
import shutil
import textwrap
from pathlib import Path

import nibabel as nib
import numpy as np
import pytest

from automedbench.agents import AGENT_CLASSES
from automedbench.agents.base import AgentContext, AgentOutcome, ToolBox
from automedbench.agents.scripted import ReferenceAgent, _methods
from automedbench.api import run_one
from automedbench.runs.blobs import BlobStore, WorkspaceState
from automedbench.runs.options import RunOptions
from automedbench.scoring.experiments import Comparison, Replay, load_experiments, tokens
from automedbench.tasks import get_task
from automedbench.tracks.content_facts import same_content
from automedbench.tracks.mutants import BENIGN

needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None,
                                 reason="bubblewrap not installed (make sysdeps installs it)")


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

class LookAgent(ReferenceAgent):
    """The reference workflow with its look at the pilot replaced by another (`LOOK`, a function
    of the agent's context giving (language, code))."""

    look = staticmethod(lambda context: ("python", "print('no look')"))

    def run(self, system_prompt: str, context: AgentContext, tools: ToolBox) -> AgentOutcome:
        methods = _methods(context)
        self.call(tools, "python", "# S1 plan\nimport pathlib\npathlib.Path('plan').mkdir(exist_ok=True)\n"
                                   "pathlib.Path('plan/plan.md').write_text('1. load\\n2. run method.py\\n3. save')\n")
        self.call(tools, "python", methods.setup_code(context.data_dir))
        self.call(tools, "python", methods.pilot_code(context.data_dir))
        self.call(tools, *self.look(context))
        self.call(tools, "python", methods.batch_code(context.data_dir, careless=False))
        self.submit(tools)
        return AgentOutcome("submitted")


def _look_agent(name: str, look) -> type:
    return type("Look_" + name.replace("-", "_"), (LookAgent,), {"name": name, "look": staticmethod(look)})


def _run(task_id: str, agent: str, tmp_path: Path, monkeypatch, staged_once, mode: str = "all"):
    monkeypatch.setenv("AUTOMEDBENCH_EXPERIMENTS", mode)
    staged_once(get_task(task_id).dataset, os.environ["AUTOMEDBENCH_DATA"])
    report = run_one(task_id, "lite", agent, tmp_path, RunOptions(sandbox="bwrap"))
    assert report.run.end_reason == "submitted", report.run
    experiments = load_experiments(report.run_dir)
    assert experiments is not None and experiments.error is None, experiments
    return report, experiments


@needs_bwrap
@pytest.mark.slow
@pytest.mark.parametrize("task_id", ["brain-lesion-seg", "brain-tissue-seg", "ldct-denoise", "mri-sr", "zsr-x4-demo",
                                     "xray-marker-det", "modality-patch-cls", "vqa-demo-open", "vqa-demo-mcq",
                                     "cxr-report-gen"])
def test_the_reference_look_catches_every_broken_output(task_id, tmp_path, monkeypatch, staged_once):
    report, experiments = _run(task_id, "reference", tmp_path, monkeypatch, staged_once)
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


LOOKS_THAT_SEE_NOTHING = {
    # prints the input's facts after loading the output
    "input-facts": lambda c: ("python", textwrap.dedent(f"""\
        # S3 inspect the pilot
        import pathlib, nibabel as nib
        case = sorted(p for p in pathlib.Path({c.data_dir!r}).iterdir() if p.is_dir())[0]
        out = nib.load(f"outputs/{{case.name}}/organ.nii.gz")
        src = nib.load(str(case / {c.input_files[0]!r}))
        print("pilot ok:", case.name, "shape", src.shape, "spacing", src.header.get_zooms())
        """)),
    # the header only: shape, type, spacing, affine
    "header-only": lambda c: ("python", textwrap.dedent("""\
        # S3 inspect the pilot
        import pathlib, nibabel as nib
        for f in sorted(pathlib.Path("outputs").glob("*/*.nii.gz")):
            print(f, nib.load(str(f)).header)
        """)),
    # byte sizes and hashes
    "hash-and-size": lambda c: ("bash", "# S3 inspect the pilot\nls -l outputs/*/ && sha256sum outputs/*/*.nii.gz\n"),
    # a check that never runs: its asserts sit in a function nobody calls
    "never-runs": lambda c: ("python", textwrap.dedent("""\
        # S3 check the pilot
        import pathlib, numpy as np, nibabel as nib
        def check(f):
            m = np.asarray(nib.load(str(f)).dataobj)
            assert m.any() and m.shape == (99, 117, 95), f
        files = sorted(pathlib.Path("outputs").glob("*/*.nii.gz"))
        print(len(files), "files to check")
        """)),
    # the look iterates a generator already exhausted: it prints nothing of any file
    "exhausted-generator": lambda c: ("python", textwrap.dedent("""\
        # S3 inspect the pilot
        import pathlib, numpy as np, nibabel as nib
        files = (f for f in pathlib.Path("outputs").glob("*/*.nii.gz"))
        names = [f.name for f in files]
        for f in files:
            print(f, np.asarray(nib.load(str(f)).dataobj).sum())
        print("inspected", len(names), "files")
        """)),
    # asserts that hold for any file
    "tautology": lambda c: ("python", textwrap.dedent("""\
        # S3 check the pilot
        import pathlib, numpy as np, nibabel as nib
        for f in sorted(pathlib.Path("outputs").glob("*/*.nii.gz")):
            m = np.asarray(nib.load(str(f)).dataobj)
            assert m.shape == m.shape and m.size >= 0 and np.count_nonzero(m) <= m.size
            assert m.ndim == len(m.shape)
        print("all checks passed")
        """)),
}


@needs_bwrap
@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(LOOKS_THAT_SEE_NOTHING))
def test_looks_that_see_nothing_catch_no_broken_output(kind, tmp_path, monkeypatch, staged_once):
    name = f"look-{kind}"
    AGENT_CLASSES.add(name, _look_agent(name, LOOKS_THAT_SEE_NOTHING[kind]), replace=True, description="test")
    report, experiments = _run("brain-lesion-seg", name, tmp_path, monkeypatch, staged_once)
    assert report.stages["s3"].score == 0.5, report.stages["s3"].rationale
    if kind in ("never-runs", "exhausted-generator"):
        assert experiments.calls == []       # it opened no output: nothing to replay, no look
        return
    (look, *_) = experiments.calls
    assert look.decidable, look.why
    assert not look.inspected and not look.checked
    if kind == "header-only":
        # a NIfTI header states the grid: it catches the masks on another grid (the form mutant)
        # and none of the broken contents -- a look at the form, S3's partial 0.5 (docs/judge.md)
        assert look.killed == ["wrong_grid"], look.summary()
        assert "form only" in report.stages["s3"].rationale
        return
    assert look.killed == []
    assert f"call #{look.call_index} killed 0 of" in report.stages["s3"].rationale


@pytest.mark.slow
@needs_bwrap
def test_re_judging_reads_the_saved_experiments(tmp_path, monkeypatch, staged_once):
    """The experiments are evidence saved once: re-scoring reads them, and a run scored without
    them (switched off) is judged on the recorded facts and says so nowhere as an experiment."""
    from automedbench.scoring.judge.heuristic import HeuristicJudge
    from automedbench.scoring.score_run import score_run

    report, experiments = _run("xray-marker-det", "reference", tmp_path / "on", monkeypatch, staged_once, mode="1")
    look = experiments.calls[0]
    assert look.inspected and len(look.killed) == 1      # the default stops at the first broken output caught
    again = score_run(Path(report.run_dir), judge=HeuristicJudge(), force=True)
    assert again.stages["s3"].rationale == report.stages["s3"].rationale
    monkeypatch.setenv("AUTOMEDBENCH_EXPERIMENTS", "0")
    off = run_one("xray-marker-det", "lite", "reference", tmp_path / "off", RunOptions(sandbox="bwrap"))
    assert load_experiments(off.run_dir) is None
    assert "killed" not in off.stages["s3"].rationale


# ---- outcome consistency and plausibility (docs/judge.md "Outcome consistency", "Plausibility") ----

def _steps_agent(name: str, steps) -> type:
    """A scripted agent whose calls are `steps(context, methods)`: (language, code) pairs."""

    class StepsAgent(ReferenceAgent):
        def run(self, system_prompt: str, context: AgentContext, tools: ToolBox) -> AgentOutcome:
            for language, code in steps(context, _methods(context)):
                self.call(tools, language, code)
            self.submit(tools)
            return AgentOutcome("submitted")

    return type("Steps_" + name.replace("-", "_"), (StepsAgent,), {"name": name})


PLAN = ("python", "# S1 plan\nimport pathlib\npathlib.Path('plan').mkdir(exist_ok=True)\n"
                  "pathlib.Path('plan/plan.md').write_text('1. load\\n2. run method.py\\n3. save')\n")
DILATE_LESIONS = textwrap.dedent("""\
    # S4 post-processing: grow every lesion mask by one voxel
    import pathlib, numpy as np, nibabel as nib
    from scipy import ndimage
    for f in sorted(pathlib.Path("outputs").glob("*/lesion.nii.gz")):
        img = nib.load(str(f)); m = np.asarray(img.dataobj) > 0
        nib.save(nib.Nifti1Image(ndimage.binary_dilation(m, iterations=2).astype(np.uint8), img.affine), str(f))
    """)
LESION_IS_ORGAN = textwrap.dedent("""\
    # (bug) the lesion file written from the organ mask
    import pathlib, shutil
    for case in sorted(pathlib.Path("outputs").iterdir()):
        shutil.copyfile(case / "organ.nii.gz", case / "lesion.nii.gz")
    """)


def _retuned(c, m):
    return [PLAN, ("python", m.setup_code(c.data_dir)), ("python", m.pilot_code(c.data_dir)),
            ("python", m.inspect_code(c.data_dir)), ("python", m.batch_code(c.data_dir, careless=False)),
            ("python", DILATE_LESIONS)]


def _problem_left(c, m):
    return [PLAN, ("python", m.setup_code(c.data_dir)), ("python", m.pilot_code(c.data_dir)),
            ("python", LESION_IS_ORGAN), ("python", m.inspect_code(c.data_dir)),
            ("python", m.batch_code(c.data_dir, careless=False)), ("python", LESION_IS_ORGAN)]


def _problem_fixed(c, m):
    return [PLAN, ("python", m.setup_code(c.data_dir)), ("python", m.pilot_code(c.data_dir)),
            ("python", LESION_IS_ORGAN), ("python", m.inspect_code(c.data_dir)),
            ("python", m.pilot_code(c.data_dir)), ("python", m.inspect_code(c.data_dir)),
            ("python", m.batch_code(c.data_dir, careless=False))]


@needs_bwrap
@pytest.mark.slow
@pytest.mark.parametrize("kind, steps, s3, why", [
    ("retuned", _retuned, 0.5, "is not what was submitted"),
    ("problem-left", _problem_left, 0.5, "failed the harness's own check"),
    ("problem-fixed", _problem_fixed, 1.0, "a failed inspection was followed by a fix"),
])
def test_the_batch_must_submit_what_was_inspected_and_fixed(kind, steps, s3, why, tmp_path, monkeypatch, staged_once):
    """A batch that submits another answer for the piloted case than the one inspected ran another
    method (S3 0.5); a plausibility problem the look showed and the batch kept caps S3 at 0.5; the
    same problem fixed and looked at again before the batch earns 1."""
    name = f"steps-{kind}"
    AGENT_CLASSES.add(name, _steps_agent(name, steps), replace=True, description="test")
    report, experiments = _run("brain-lesion-seg", name, tmp_path, monkeypatch, staged_once, mode="1")
    assert any(c.inspected for c in experiments.calls), [c.summary() for c in experiments.calls]
    assert report.stages["s3"].score == s3, report.stages["s3"].rationale
    assert why in report.stages["s3"].rationale
    last_look = max(c.call_index for c in experiments.calls if c.inspected)
    assert bool(experiments.batch_differs(last_look)) == (kind == "retuned"), experiments.consistency


# ---- S1 and S2 from the task's own words and from what ran (issue 41, item 4) -------------------

def _inline(c, m):
    """The reference method of ldct-denoise, run as code inline in each call, never from a file;
    its plan quotes the task's own method in other spelling ("total variation", no hyphen)."""
    from importlib import resources
    source = resources.files("automedbench.tracks.enhancement.methods").joinpath("enhance_classical.py").read_text()
    run = textwrap.dedent("""\
        import pathlib
        ns = {{"__name__": "inline_method"}}
        exec(compile(SOURCE, "<inline>", "exec"), ns)
        cases = sorted(p for p in pathlib.Path({data!r}).iterdir() if p.is_dir()){sel}
        for case in cases:
            out = pathlib.Path("outputs") / case.name
            out.mkdir(parents=True, exist_ok=True)
            ns["main"](["inline", str(case), str(out)])
        print(len(cases), "case(s) done")
        """)
    plan = ("# Plan\n\n1. Load input.npy and info.json of one case; print shape and HU percentiles.\n"
            "2. Total variation denoising (Chambolle) of every slice, weight 0.05, back to HU.\n"
            "3. Pilot case_000, look at its output, then run every case into outputs/.\n")
    return [("python", f"import pathlib\npathlib.Path('plan').mkdir(exist_ok=True)\n"
                       f"pathlib.Path('plan/plan.md').write_text({plan!r})\n"),
            ("python", m.setup_code(c.data_dir)),
            ("python", f"SOURCE = {source!r}\n" + run.format(data=c.data_dir, sel="[:1]")),
            ("python", m.inspect_code(c.data_dir)),
            ("python", f"SOURCE = {source!r}\n" + run.format(data=c.data_dir, sel=""))]


@needs_bwrap
@pytest.mark.slow
def test_a_method_run_inline_earns_what_the_same_method_from_a_file_earns(tmp_path, monkeypatch, staged_once):
    AGENT_CLASSES.add("steps-inline", _steps_agent("steps-inline", _inline), replace=True, description="test")
    inline, _ = _run("ldct-denoise", "steps-inline", tmp_path / "inline", monkeypatch, staged_once, mode="1")
    from_file, _ = _run("ldct-denoise", "reference", tmp_path / "file", monkeypatch, staged_once, mode="1")
    for item in ("s2a", "s2e"):
        assert inline.stages["s2"].items[item] == from_file.stages["s2"].items[item] == 1.0, \
            inline.stages["s2"].rationale
    assert inline.stages["s1"].items["s1b"] == 1.0, inline.stages["s1"].rationale
    assert inline.stages["s3"].score == 1.0, inline.stages["s3"].rationale


def _scratch_pilot(c, m):
    """ldct-denoise's method piloted into a scratch file of another name, looked at there, then
    every case run into outputs/ (the pilot case's output the same array)."""
    pilot = textwrap.dedent(f"""\
        # S3 pilot one case into scratch/, under a name of my own
        import pathlib, shutil, subprocess, sys, tempfile
        case = sorted(p for p in pathlib.Path({c.data_dir!r}).iterdir() if p.is_dir())[0]
        tmp = tempfile.mkdtemp()
        subprocess.run([sys.executable, "enhance_classical.py", str(case), tmp], check=True)
        pathlib.Path("scratch").mkdir(exist_ok=True)
        shutil.move(f"{{tmp}}/enhanced.npy", "scratch/first_case_denoised.npy")
        """)
    look = textwrap.dedent(f"""\
        # S3 look at the pilot against its input
        import json, pathlib, numpy as np
        case = sorted(p for p in pathlib.Path({c.data_dir!r}).iterdir() if p.is_dir())[0]
        y = np.load("scratch/first_case_denoised.npy"); x = np.load(case / "input.npy")
        print("pilot", y.shape, "p1/p99", np.percentile(y, [1, 99]).round(1), "input p1/p99", np.percentile(x, [1, 99]).round(1))
        """)
    return [PLAN, ("python", m.setup_code(c.data_dir)), ("python", pilot), ("python", look),
            ("python", m.batch_code(c.data_dir, careless=False))]


@needs_bwrap
@pytest.mark.slow
def test_a_pilot_under_another_name_is_a_unit_by_its_content(tmp_path, monkeypatch, staged_once):
    """Issue 41 item 3: a file written before the batch whose decoded content is what was submitted
    for a case is a pilot of that case wherever it lies and whatever its name; its look is decided
    by experiment with the track's mutants applied to it."""
    AGENT_CLASSES.add("steps-scratch-pilot", _steps_agent("steps-scratch-pilot", _scratch_pilot), replace=True,
                      description="test")
    report, experiments = _run("ldct-denoise", "steps-scratch-pilot", tmp_path, monkeypatch, staged_once, mode="1")
    assert experiments.renamed == {"/workspace/scratch/first_case_denoised.npy":
                                   "/workspace/scratch/first_case_denoised.npy.as/case_000/enhanced.npy"}
    look = experiments.calls[0]
    assert look.mutated == ["/workspace/scratch/first_case_denoised.npy"] and look.inspected, look.summary()
    assert report.stages["s3"].score == 1.0, report.stages["s3"].rationale
    assert report.stages["s2"].items["s2e"] == 1.0, report.stages["s2"].rationale


# ---- input checks (s2b) by experiment ---------------------------------------------------------------

def _input_look(kind: str):
    def steps(c, m):
        setup = m.setup_code(c.data_dir)             # writes the method, prints the input's facts
        if kind == "hash-and-size":                   # the method written, the input only hashed
            setup = (f"# S2 setup: install the method\nimport pathlib\nfor name, text in {m.method_files()!r}.items():\n"
                     "    pathlib.Path(name).write_text(text)\n") + textwrap.dedent(f"""\
                import hashlib
                first = sorted(p for p in pathlib.Path({c.data_dir!r}).iterdir() if p.is_dir())[0] / {c.input_files[0]!r}
                print("input", first.name, first.stat().st_size, "bytes", hashlib.sha256(first.read_bytes()).hexdigest())
                """)
        look = textwrap.dedent("""\
            # S3 look at the pilot's masks (reads no input)
            import pathlib, numpy as np, nibabel as nib
            for f in sorted(pathlib.Path("outputs").glob("*/*.nii.gz")):
                m = np.asarray(nib.load(str(f)).dataobj)
                print(f, "voxels", int((m > 0).sum()), "centre", np.argwhere(m > 0).mean(axis=0).round(1))
            """)
        return [PLAN, ("python", setup), ("python", m.pilot_code(c.data_dir)), ("python", look),
                ("python", m.batch_code(c.data_dir, careless=False))]
    return steps


@needs_bwrap
@pytest.mark.slow
@pytest.mark.parametrize("kind, s2b", [("facts", 1.0), ("hash-and-size", 0.0)])
def test_an_input_check_is_decided_by_the_altered_inputs_it_catches(kind, s2b, tmp_path, monkeypatch, staged_once):
    """s2b by experiment: the setup call is replayed with the input it read on another grid and in
    other units; printing its shape, spacing and percentiles catches that, its size and hash do not
    (a re-compressed input moves them too)."""
    name = f"steps-input-{kind}"
    AGENT_CLASSES.add(name, _steps_agent(name, _input_look(kind)), replace=True, description="test")
    report, experiments = _run("brain-lesion-seg", name, tmp_path, monkeypatch, staged_once)
    (check,) = experiments.inputs
    assert check.decidable, check.why
    assert bool(check.killed) == (s2b == 1.0), check.summary("altered inputs")
    assert report.stages["s2"].items["s2b"] == s2b, report.stages["s2"].rationale


RERUN_AND_COMPARE = textwrap.dedent("""\
    # S3 verify the pilot: run the method again and compare
    import pathlib, subprocess, sys, tempfile, numpy as np, nibabel as nib
    case = sorted(p for p in pathlib.Path("/data/public").iterdir() if p.is_dir())[0]
    tmp = tempfile.mkdtemp()
    subprocess.run([sys.executable, "method.py", str(case / "image.nii.gz"), tmp], check=True, capture_output=True)
    for name in ("organ.nii.gz", "lesion.nii.gz"):
        a = np.asarray(nib.load(f"outputs/{case.name}/{name}").dataobj)
        b = np.asarray(nib.load(f"{tmp}/{name}").dataobj)
        assert np.array_equal(a, b), name
    print("pilot reproduced")
    """)


@needs_bwrap
@pytest.mark.slow
def test_a_look_that_re_runs_the_method_and_compares_is_no_inspection(tmp_path, monkeypatch, staged_once):
    """It catches every broken output (any change differs from a re-run), yet judges nothing about
    plausibility: the effects show it read the method's own files, so it is no look (S3 0.5)."""
    AGENT_CLASSES.add("look-rerun", _look_agent("look-rerun", lambda c: ("python", RERUN_AND_COMPARE)), replace=True,
                      description="test")
    report, experiments = _run("brain-lesion-seg", "look-rerun", tmp_path, monkeypatch, staged_once)
    (look, *_) = experiments.calls
    assert look.decidable and look.killed and "/workspace/method.py" in look.method_files, look.summary()
    assert not look.inspected
    assert report.stages["s3"].score == 0.5, report.stages["s3"].rationale
    assert "re-ran the method" in report.stages["s3"].rationale


@pytest.mark.slow
@needs_bwrap
def test_experiments_out_of_time_leave_the_looks_to_the_recorded_facts(tmp_path, monkeypatch, staged_once):
    """The replays of a run have a time budget; a call they could not finish in it is undecided and
    the judge falls back to its recorded facts for it, saying so."""
    from automedbench.lifecycle.experiments import run_experiments
    from automedbench.scoring.judge.heuristic import HeuristicJudge
    from automedbench.scoring.score_run import score_run

    report, _ = _run("xray-marker-det", "reference", tmp_path, monkeypatch, staged_once, mode="1")
    task = get_task("xray-marker-det")
    late = run_experiments(report.run_dir, task, "bwrap", Path(os.environ["AUTOMEDBENCH_DATA"]) / task.dataset / "public",
                           budget_s=0)
    assert late.error is None and late.calls and all(not c.decidable and "time budget" in c.why for c in late.calls)
    rescored = score_run(Path(report.run_dir), judge=HeuristicJudge(), force=True)
    assert "decided on recorded facts (the experiments' time budget ran out" in rescored.stages["s3"].rationale


# ---- what a kill means: the content, not the form; and a cohort that ignores its inputs ---------

GRID_ONLY_LOOK = textwrap.dedent("""\
    # S3 inspect the pilot: its grid
    import pathlib, nibabel as nib
    for f in sorted(pathlib.Path("outputs").glob("*/sct.nii.gz")):
        img = nib.load(str(f))
        print(f, "shape", img.shape, "spacing", img.header.get_zooms())
    """)


def _grid_only(c, m):
    return [PLAN, ("python", m.setup_code(c.data_dir)), ("python", m.pilot_code(c.data_dir)),
            ("python", GRID_ONLY_LOOK), ("python", m.batch_code(c.data_dir, careless=False))]


def _same_for_all(c, m):
    copy_first = textwrap.dedent("""\
        # S4 every case gets the first case's masks
        import pathlib, shutil
        cases = sorted(p for p in pathlib.Path("outputs").iterdir() if p.is_dir())
        for case in cases[1:]:
            for f in cases[0].iterdir():
                shutil.copyfile(f, case / f.name)
        """)
    return [PLAN, ("python", m.setup_code(c.data_dir)), ("python", m.pilot_code(c.data_dir)),
            ("python", m.inspect_code(c.data_dir)), ("python", m.batch_code(c.data_dir, careless=False)),
            ("python", copy_first)]


@needs_bwrap
@pytest.mark.slow
def test_a_look_at_the_grid_alone_is_no_inspection_of_the_content(tmp_path, monkeypatch, staged_once):
    """Printing a synthesised volume's shape and spacing catches the volume on a wrong grid, and
    nothing of its values (1000 HU too high, flat): a look at the form, not the content -- S3 0.5
    (partial), while the method's output was looked at and found fine (s2e 1: docs/judge.md
    "s2e: confirmed by a look")."""
    AGENT_CLASSES.add("steps-grid-only", _steps_agent("steps-grid-only", _grid_only), replace=True, description="test")
    report, experiments = _run("zsr-x4-demo", "steps-grid-only", tmp_path, monkeypatch, staged_once, mode="1")
    (look,) = experiments.calls
    assert look.killed == ["wrong_grid"] and not look.inspected, look.summary()
    assert [v.name for v in look.variants if v.malign] == ["wrong_grid", "plus_1000", "constant"]
    assert report.stages["s3"].score == 0.5, report.stages["s3"].rationale
    assert "only the output's form" in report.stages["s3"].rationale
    assert "form only" in report.stages["s3"].rationale
    assert report.stages["s2"].items["s2e"] == 1.0, report.stages["s2"].rationale


SHAPE_ONLY_LOOK = textwrap.dedent("""\
    # S3 check the pilot masks: shape and affine against the input
    import glob, numpy as np, nibabel as nib
    for f in sorted(glob.glob("outputs/*/*.nii.gz")):
        m = nib.load(f)
        print(f, m.shape, m.get_data_dtype(), np.round(m.affine, 2).tolist())
    """)


def _shape_only(c, m):
    return [PLAN, ("python", m.setup_code(c.data_dir)), ("python", m.pilot_code(c.data_dir)),
            ("python", SHAPE_ONLY_LOOK), ("python", m.batch_code(c.data_dir, careless=False))]


@needs_bwrap
@pytest.mark.slow
def test_a_shape_only_look_at_masks_is_a_partial_look(tmp_path, monkeypatch, staged_once):
    """A segmentation pilot's masks looked at for their shape and affine only: the look catches the
    masks on another grid (the form mutant) and none of the broken contents (empty, flipped,
    whole, lesion = organ): S3 0.5 as a look at the form, s2e 1 (looked at and found fine)."""
    AGENT_CLASSES.add("steps-shape-only", _steps_agent("steps-shape-only", _shape_only), replace=True,
                      description="test")
    report, experiments = _run("brain-lesion-seg", "steps-shape-only", tmp_path, monkeypatch, staged_once)
    (look,) = experiments.calls
    assert look.killed == ["wrong_grid"] and not look.inspected, look.summary()
    assert report.stages["s3"].score == 0.5 and "form only" in report.stages["s3"].rationale
    assert report.stages["s2"].items["s2e"] == 1.0, report.stages["s2"].rationale


def _view_look(c, m):
    look = textwrap.dedent("""\
        # S3 read the pilot's rows back through a cleaned copy
        mkdir -p scratch && tr -d '\\r' < outputs/predictions.csv > scratch/pilot.csv
        cat scratch/pilot.csv
        echo "rows $(tail -n +2 scratch/pilot.csv | wc -l)"
        tail -n +2 scratch/pilot.csv | cut -d, -f2 | sort | uniq -c
        """)
    return [PLAN, ("python", m.setup_code(c.data_dir)), ("python", m.pilot_code(c.data_dir)),
            ("bash", look), ("python", m.batch_code(c.data_dir, careless=False))]


@needs_bwrap
@pytest.mark.slow
def test_a_look_through_a_cleaned_copy_of_the_pilot_is_a_look_at_it(tmp_path, monkeypatch, staged_once):
    """A classification pilot's table copied with its line ends stripped, then printed and counted
    with shell tools: opening the view opens the pilot's table (docs/judge.md "Views of an
    output"), so the pilot was inspected and the method confirmed (S3 1, s2e 1)."""
    AGENT_CLASSES.add("steps-view-look", _steps_agent("steps-view-look", _view_look), replace=True,
                      description="test")
    report, _ = _run("modality-patch-cls", "steps-view-look", tmp_path, monkeypatch, staged_once, mode="1")
    assert report.stages["s3"].score == 1.0, report.stages["s3"].rationale
    assert report.stages["s2"].items["s2e"] == 1.0, report.stages["s2"].rationale


@needs_bwrap
@pytest.mark.slow
def test_one_output_for_every_case_is_a_problem_left_in_place(tmp_path, monkeypatch, staged_once):
    """The pilot was looked at honestly, then every case was given the first case's masks: the
    submission does not depend on its inputs, which needs no reference to see -- S3 0.5."""
    AGENT_CLASSES.add("steps-same-for-all", _steps_agent("steps-same-for-all", _same_for_all), replace=True,
                      description="test")
    report, _ = _run("brain-lesion-seg", "steps-same-for-all", tmp_path, monkeypatch, staged_once, mode="1")
    assert report.stages["s3"].score == 0.5, report.stages["s3"].rationale
    assert "the same organ.nii.gz, lesion.nii.gz" in report.stages["s3"].rationale


def _question_look(kind: str):
    def steps(c, m):
        first = f"sorted(p for p in pathlib.Path({c.data_dir!r}).iterdir() if p.is_dir())[0] / 'question.json'"
        show = ("q = json.loads(f.read_text())\nprint(q['question_id'], q['question'], sorted(q), q.get('options'))"
                if kind == "fields" else "print(f.name, len(f.read_bytes()), 'bytes')")
        setup = f"# S2 look at one question\nimport json, pathlib\nf = {first}\n{show}\n"
        return [PLAN, ("python", m.setup_code(c.data_dir).split("\n# ")[0]), ("python", setup),
                ("python", m.pilot_code(c.data_dir)), ("python", m.inspect_code(c.data_dir)),
                ("python", m.batch_code(c.data_dir, careless=False))]
    return steps


@needs_bwrap
@pytest.mark.slow
@pytest.mark.parametrize("kind, caught", [("fields", True), ("size", False)])
def test_a_look_at_a_json_input_is_decided_by_the_altered_documents_it_catches(kind, caught, tmp_path, monkeypatch,
                                                                              staged_once):
    """A JSON input (a VQA question) is altered too: halved (its options, its images) and its
    values changed (numbers x2 + 100, strings reversed). Printing the question's fields catches
    that; printing the file's size catches nothing."""
    name = f"steps-question-{kind}"
    AGENT_CLASSES.add(name, _steps_agent(name, _question_look(kind)), replace=True, description="test")
    report, experiments = _run("vqa-demo-mcq", name, tmp_path, monkeypatch, staged_once)
    looks = [e for e in experiments.inputs if any(p.endswith("question.json") for p in e.mutated)
             and not any(p.endswith(".png") for p in e.mutated)]
    assert looks and all(e.decidable for e in looks), [e.summary("altered inputs") for e in experiments.inputs]
    assert any(e.looked for e in looks) == caught, [e.summary("altered inputs") for e in looks]


def _other_script_for_the_batch(c, m):
    """ldct-denoise: the planned method file piloted and looked at, then the batch run by another
    file of the method with a stronger weight (a variant written after the look)."""
    from importlib import resources
    source = resources.files("automedbench.tracks.enhancement.methods").joinpath("enhance_classical.py").read_text()
    variant = source.replace("weight=0.05", "weight=0.2")
    assert variant != source
    write = ("python", f"# S4 a faster variant for the batch\nimport pathlib\n"
                       f"pathlib.Path('enhance_fast.py').write_text({variant!r})\n")
    batch = ("bash", f"# S4 every case with the variant\nfor d in {c.data_dir}/*/; do n=$(basename $d); "
                     f"mkdir -p outputs/$n && python enhance_fast.py $d outputs/$n; done\n")
    return [PLAN, ("python", m.setup_code(c.data_dir)), ("python", m.pilot_code(c.data_dir)),
            ("python", m.inspect_code(c.data_dir)), write, batch]


@needs_bwrap
@pytest.mark.slow
def test_a_pilot_whose_method_file_the_batch_replaced_confirms_the_method_not_the_batch(tmp_path, monkeypatch,
                                                                                      staged_once):
    """The piloted method file was looked at and found fine, then the batch ran another file of
    the method with another setting: an earlier version was piloted, and the batch's output of the
    piloted case is not what was inspected (S3 0.5: docs/judge.md "Outcome consistency"), while
    the method it ran was confirmed working (s2e 1: "s2e: confirmed by a look")."""
    AGENT_CLASSES.add("steps-other-script", _steps_agent("steps-other-script", _other_script_for_the_batch),
                      replace=True, description="test")
    report, _ = _run("ldct-denoise", "steps-other-script", tmp_path, monkeypatch, staged_once, mode="1")
    assert report.stages["s3"].score == 0.5, report.stages["s3"].rationale
    assert "is not what was submitted" in report.stages["s3"].rationale
    assert report.stages["s2"].items["s2e"] == 1.0, report.stages["s2"].rationale


SHAPE_AFTER_THE_BATCH = textwrap.dedent("""\
    # S5 check every output: shape, finite, float
    import glob, numpy as np
    for f in sorted(glob.glob("outputs/*/*.npy")):
        a = np.load(f)
        print(f, a.shape, a.dtype, bool(np.isfinite(a).all()))
    """)


def _batch_then_shapes(c, m):
    return [PLAN, ("python", m.setup_code(c.data_dir)), ("python", m.batch_code(c.data_dir, careless=False)),
            ("python", SHAPE_AFTER_THE_BATCH)]


@needs_bwrap
@pytest.mark.slow
def test_a_look_at_the_form_after_the_batch_is_partial_validation(tmp_path, monkeypatch, staged_once):
    """No pilot; after the batch every enhanced image's shape, dtype and finiteness printed: the
    look catches the image on another grid (enhancement's form mutant) and none of its broken
    values -- outputs looked at after they were written, S3 0.5 (docs/judge.md "S3 Validate")."""
    AGENT_CLASSES.add("steps-batch-then-shapes", _steps_agent("steps-batch-then-shapes", _batch_then_shapes),
                      replace=True, description="test")
    report, experiments = _run("ldct-denoise", "steps-batch-then-shapes", tmp_path, monkeypatch, staged_once)
    look = experiments.calls[-1]
    assert "wrong_grid" in look.killed and not look.inspected, look.summary()
    assert report.stages["s3"].score == 0.5, report.stages["s3"].rationale
    assert "no pilot; outputs were opened" in report.stages["s3"].rationale
