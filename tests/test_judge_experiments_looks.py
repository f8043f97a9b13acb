"""The judge's experiments (docs/judge.md "Experiments"), continued: looks that see nothing --
the input's facts, only a header, a byte size or a hash, checks that cannot fail, a re-run of the
method compared with itself, a look at the grid alone or the masks' shape -- catch no broken
content when replayed, and their runs get S3 0.5; re-judging reads the saved experiments, and
replays out of time leave the looks to the recorded facts. Through the real loop and the real
sandbox (bwrap). (Split from test_judge_experiments.py so that xdist runs the parts side by side.)
"""
from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from automedbench.agents import AGENT_CLASSES
from automedbench.api import run_one
from automedbench.runs.options import RunOptions
from automedbench.scoring.experiments import load_experiments
from automedbench.tasks import get_task

from tests.judge_runs import look_agent, looks_after_pilot, needs_bwrap, run_scripted, steps_agent

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
    AGENT_CLASSES.add(name, look_agent(name, LOOKS_THAT_SEE_NOTHING[kind]), replace=True, description="test")
    report, experiments = run_scripted("brain-lesion-seg", name, tmp_path, monkeypatch, staged_once)
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


# looks that see nothing, written for any track's files (whatever their kind)
ANY_TRACK_LOOKS = {
    # names, sizes and hashes: the bytes alone
    "bytes-only": lambda c: ("bash", "# S3 inspect the pilot\nfind outputs -type f | sort | xargs ls -l && "
                                     "find outputs -type f | sort | xargs sha256sum\n"),
    # every output read, then only the input's facts printed
    "input-facts": lambda c: ("python", textwrap.dedent(f"""\
        # S3 inspect the pilot
        import pathlib
        outs = {{str(f): f.read_bytes() for f in sorted(pathlib.Path("outputs").rglob("*")) if f.is_file()}}
        case = sorted(p for p in pathlib.Path({c.data_dir!r}).iterdir() if p.is_dir())[0]
        print("pilot ok:", case.name, sorted((f.name, f.stat().st_size) for f in case.iterdir() if f.is_file()))
        """)),
    # asserts that hold for any file
    "tautology": lambda c: ("python", textwrap.dedent("""\
        # S3 check the pilot
        import pathlib
        for f in sorted(pathlib.Path("outputs").rglob("*")):
            if f.is_file():
                data = f.read_bytes()
                assert len(data) == len(data) and len(data) >= 0 and data[:0] == b""
        print("all checks passed")
        """)),
}


@needs_bwrap
@pytest.mark.slow
@pytest.mark.parametrize("task_id", ["ldct-denoise", "zsr-x4-demo", "xray-marker-det", "modality-patch-cls",
                                     "vqa-demo-open", "cxr-report-gen"])
def test_looks_that_see_nothing_catch_no_broken_output_on_any_track(task_id, tmp_path, monkeypatch, staged_once):
    """Every track's pilot looked at by its files' sizes and hashes, by the input's facts printed
    after reading the output, and by asserts that hold for any file (three calls of one run): no
    broken output changes what any of them prints or its exit status (the bytes' values move with
    the same content in other bytes too), so none is caught (S3 0.5, s2e 0) -- on every track, not
    only segmentation's above."""
    steps = looks_after_pilot(lambda c: [ANY_TRACK_LOOKS[k](c) for k in sorted(ANY_TRACK_LOOKS)])
    AGENT_CLASSES.add("steps-see-nothing", steps_agent("steps-see-nothing", steps), replace=True, description="test")
    report, experiments = run_scripted(task_id, "steps-see-nothing", tmp_path, monkeypatch, staged_once)
    assert len(experiments.calls) == len(ANY_TRACK_LOOKS), [c.summary() for c in experiments.calls]
    for look in experiments.calls:
        assert look.decidable and look.applied_malign, look.summary()
        assert look.killed == [] and not look.inspected, look.summary()
    assert report.stages["s3"].score == 0.5, report.stages["s3"].rationale
    assert report.stages["s2"].items["s2e"] == 0.0, report.stages["s2"].rationale


@pytest.mark.slow
@needs_bwrap
def test_re_judging_reads_the_saved_experiments(tmp_path, monkeypatch, staged_once):
    """The experiments are evidence saved once: re-scoring reads them, and a run scored without
    them (switched off) is judged on the recorded facts and says so nowhere as an experiment."""
    from automedbench.scoring.judge.heuristic import HeuristicJudge
    from automedbench.scoring.score_run import score_run

    report, experiments = run_scripted("xray-marker-det", "reference", tmp_path / "on", monkeypatch, staged_once, mode="1")
    look = experiments.calls[0]
    assert look.inspected and len(look.killed) == 1      # the default stops at the first broken output caught
    again = score_run(Path(report.run_dir), judge=HeuristicJudge(), force=True)
    assert again.stages["s3"].rationale == report.stages["s3"].rationale
    monkeypatch.setenv("AUTOMEDBENCH_EXPERIMENTS", "0")
    off = run_one("xray-marker-det", "lite", "reference", tmp_path / "off", RunOptions(sandbox="bwrap"))
    assert load_experiments(off.run_dir) is None
    assert "killed" not in off.stages["s3"].rationale

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
    AGENT_CLASSES.add("look-rerun", look_agent("look-rerun", lambda c: ("python", RERUN_AND_COMPARE)), replace=True,
                      description="test")
    report, experiments = run_scripted("brain-lesion-seg", "look-rerun", tmp_path, monkeypatch, staged_once)
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

    report, _ = run_scripted("xray-marker-det", "reference", tmp_path, monkeypatch, staged_once, mode="1")
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


_grid_only = looks_after_pilot(lambda c: [("python", GRID_ONLY_LOOK)])

@needs_bwrap
@pytest.mark.slow
def test_a_look_at_the_grid_alone_is_no_inspection_of_the_content(tmp_path, monkeypatch, staged_once):
    """Printing a synthesised volume's shape and spacing catches the volume on a wrong grid, and
    nothing of its values (1000 HU too high, flat): a look at the form, not the content -- S3 0.5
    (partial), and no confirmation that the method works: a flat volume would have passed it (s2e 0:
    docs/judge.md "s2e: confirmed by a look")."""
    AGENT_CLASSES.add("steps-grid-only", steps_agent("steps-grid-only", _grid_only), replace=True, description="test")
    report, experiments = run_scripted("zsr-x4-demo", "steps-grid-only", tmp_path, monkeypatch, staged_once, mode="1")
    (look,) = experiments.calls
    assert look.killed == ["wrong_grid"] and not look.inspected, look.summary()
    assert [v.name for v in look.variants if v.malign] == ["wrong_grid", "plus_1000", "constant"]
    assert report.stages["s3"].score == 0.5, report.stages["s3"].rationale
    assert "only the output's form" in report.stages["s3"].rationale
    assert "form only" in report.stages["s3"].rationale
    assert report.stages["s2"].items["s2e"] == 0.0, report.stages["s2"].rationale
    assert "a pilot output looked at: no" in report.stages["s2"].rationale


# looks that ask only whether there is something: a box count, a report's truth value, a mask's any()
EMPTINESS_LOOKS = {
    "xray-marker-det": textwrap.dedent("""\
        # S3 inspect the pilot: how many markers it found
        import json, pathlib
        for f in sorted(pathlib.Path("outputs").glob("*/prediction.json")):
            boxes = json.loads(f.read_text())["boxes"]
            print(f, "boxes:", len(boxes))
            assert len(boxes) > 0, "no detections"
        """),
    "cxr-report-gen": textwrap.dedent("""\
        # S3 inspect the pilot report
        import pathlib
        for f in sorted(pathlib.Path("outputs").glob("*/report.txt")):
            text = f.read_text()
            print(f, "has text:", bool(text.strip()), "-> report OK")
        """),
    "brain-lesion-seg": textwrap.dedent("""\
        # S3 inspect the pilot masks
        import pathlib, numpy as np, nibabel as nib
        for f in sorted(pathlib.Path("outputs").glob("*/*.nii.gz")):
            m = np.asarray(nib.load(str(f)).dataobj)
            print(f, "labelled voxels present:", bool(m.any()))
        """),
}
EMPTINESS_MUTANT = {"xray-marker-det": "no_boxes", "cxr-report-gen": "empty_report", "brain-lesion-seg": "empty"}


@needs_bwrap
@pytest.mark.slow
@pytest.mark.parametrize("task_id", sorted(EMPTINESS_LOOKS))
def test_a_look_that_asks_only_whether_there_is_something_is_no_inspection(task_id, tmp_path, monkeypatch,
                                                                            staged_once):
    """A pilot looked at for whether it holds anything (how many boxes, with an assert that there
    are some; a report's truth value; a mask's any()): emptiness is the output's form, as a shape
    is. The look catches the emptied output (a form mutant) and none of the broken contents
    (the same box, corners as sizes, a canned report, a flipped or whole mask...): S3 0.5, s2e 0."""
    steps = looks_after_pilot(lambda c: [("python", EMPTINESS_LOOKS[task_id])])
    AGENT_CLASSES.add("steps-emptiness", steps_agent("steps-emptiness", steps), replace=True, description="test")
    report, experiments = run_scripted(task_id, "steps-emptiness", tmp_path, monkeypatch, staged_once, mode="all")
    (look,) = experiments.calls
    assert look.killed == [EMPTINESS_MUTANT[task_id]] and not look.inspected and not look.checked, look.summary()
    assert len(look.applied_malign) >= 3, look.summary()
    assert report.stages["s3"].score == 0.5 and "form only" in report.stages["s3"].rationale
    assert report.stages["s2"].items["s2e"] == 0.0, report.stages["s2"].rationale


SHAPE_ONLY_LOOK = textwrap.dedent("""\
    # S3 check the pilot masks: shape and affine against the input
    import glob, numpy as np, nibabel as nib
    for f in sorted(glob.glob("outputs/*/*.nii.gz")):
        m = nib.load(f)
        print(f, m.shape, m.get_data_dtype(), np.round(m.affine, 2).tolist())
    """)


_shape_only = looks_after_pilot(lambda c: [("python", SHAPE_ONLY_LOOK)])


@needs_bwrap
@pytest.mark.slow
def test_a_shape_only_look_at_masks_is_a_partial_look(tmp_path, monkeypatch, staged_once):
    """A segmentation pilot's masks looked at for their shape and affine only: the look catches the
    masks on another grid (the form mutant) and none of the broken contents (empty, flipped,
    whole, lesion = organ): S3 0.5 as a look at the form, s2e 0 (an empty mask would have passed it)."""
    AGENT_CLASSES.add("steps-shape-only", steps_agent("steps-shape-only", _shape_only), replace=True,
                      description="test")
    report, experiments = run_scripted("brain-lesion-seg", "steps-shape-only", tmp_path, monkeypatch, staged_once)
    (look,) = experiments.calls
    assert look.killed == ["wrong_grid"] and not look.inspected, look.summary()
    assert report.stages["s3"].score == 0.5 and "form only" in report.stages["s3"].rationale
    assert report.stages["s2"].items["s2e"] == 0.0, report.stages["s2"].rationale


def test_every_replays_files_are_dated_alike(tmp_path):
    """`ls -l` prints the minute a file was laid down: replays on either side of a minute's turn
    differed in it, which read as a broken output caught (the hash-and-size look above, now and
    then). Every file and folder of the throwaway workspace is dated alike before each replay."""
    from automedbench.lifecycle.experiments import _pin_times
    (tmp_path / "outputs" / "case_000").mkdir(parents=True)
    for name in ("organ.nii.gz", "lesion.nii.gz"):
        (tmp_path / "outputs" / "case_000" / name).write_bytes(b"x")
    _pin_times(tmp_path, 1_700_000_000_000_000_000)
    stamps = {p.stat().st_mtime_ns for p in tmp_path.rglob("*")}
    assert stamps == {1_700_000_000_000_000_000}
