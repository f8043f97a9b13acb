"""The judge's experiments (docs/judge.md "Experiments", "Outcome consistency", "Plausibility"),
continued: the batch must submit what was inspected and fixed; a method run inline, a pilot under
another name, a look through a cleaned copy, one output for every case, a pilot whose method file
the batch replaced, a look at the form after the batch; input checks (s2b) decided by the altered
inputs they catch. Through the real loop and the real sandbox (bwrap). (Split from
test_judge_experiments.py so that xdist runs the parts side by side.)
"""
from __future__ import annotations

import textwrap

import pytest

from automedbench.agents import AGENT_CLASSES

from tests.judge_runs import PLAN, needs_bwrap, run_scripted, steps_agent

# ---- outcome consistency and plausibility (docs/judge.md "Outcome consistency", "Plausibility") ----
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
    AGENT_CLASSES.add(name, steps_agent(name, steps), replace=True, description="test")
    report, experiments = run_scripted("brain-lesion-seg", name, tmp_path, monkeypatch, staged_once, mode="1")
    assert any(c.inspected for c in experiments.calls), [c.summary() for c in experiments.calls]
    assert report.stages["s3"].score == s3, report.stages["s3"].rationale
    assert why in report.stages["s3"].rationale
    last_look = max(c.call_index for c in experiments.calls if c.inspected)
    assert bool(experiments.batch_differs(last_look)) == (kind == "retuned"), experiments.consistency
    # the retuned batch's look is named, and its code says the batch ran something else (never
    # "its output was not inspected": docs/faults.md "S3's codes")
    superseded = "superseded look: yes (calls #" in report.stages["s3"].rationale
    assert superseded == (kind == "retuned"), report.stages["s3"].rationale
    assert ("PILOT_SUPERSEDED" in {e.code for e in report.errors}) == (kind == "retuned"), report.errors

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
    AGENT_CLASSES.add("steps-inline", steps_agent("steps-inline", _inline), replace=True, description="test")
    inline, _ = run_scripted("ldct-denoise", "steps-inline", tmp_path / "inline", monkeypatch, staged_once, mode="1")
    from_file, _ = run_scripted("ldct-denoise", "reference", tmp_path / "file", monkeypatch, staged_once, mode="1")
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
    AGENT_CLASSES.add("steps-scratch-pilot", steps_agent("steps-scratch-pilot", _scratch_pilot), replace=True,
                      description="test")
    report, experiments = run_scripted("ldct-denoise", "steps-scratch-pilot", tmp_path, monkeypatch, staged_once, mode="1")
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
    AGENT_CLASSES.add(name, steps_agent(name, _input_look(kind)), replace=True, description="test")
    report, experiments = run_scripted("brain-lesion-seg", name, tmp_path, monkeypatch, staged_once)
    (check,) = experiments.inputs
    assert check.decidable, check.why
    assert bool(check.killed) == (s2b == 1.0), check.summary("altered inputs")
    assert report.stages["s2"].items["s2b"] == s2b, report.stages["s2"].rationale

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
    AGENT_CLASSES.add("steps-view-look", steps_agent("steps-view-look", _view_look), replace=True,
                      description="test")
    report, _ = run_scripted("modality-patch-cls", "steps-view-look", tmp_path, monkeypatch, staged_once, mode="1")
    assert report.stages["s3"].score == 1.0, report.stages["s3"].rationale
    assert report.stages["s2"].items["s2e"] == 1.0, report.stages["s2"].rationale


@needs_bwrap
@pytest.mark.slow
def test_one_output_for_every_case_is_a_problem_left_in_place(tmp_path, monkeypatch, staged_once):
    """The pilot was looked at honestly, then every case was given the first case's masks: the
    submission does not depend on its inputs, which needs no reference to see -- S3 0.5."""
    AGENT_CLASSES.add("steps-same-for-all", steps_agent("steps-same-for-all", _same_for_all), replace=True,
                      description="test")
    report, _ = run_scripted("brain-lesion-seg", "steps-same-for-all", tmp_path, monkeypatch, staged_once, mode="1")
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
    AGENT_CLASSES.add(name, steps_agent(name, _question_look(kind)), replace=True, description="test")
    report, experiments = run_scripted("vqa-demo-mcq", name, tmp_path, monkeypatch, staged_once)
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
    AGENT_CLASSES.add("steps-other-script", steps_agent("steps-other-script", _other_script_for_the_batch),
                      replace=True, description="test")
    report, _ = run_scripted("ldct-denoise", "steps-other-script", tmp_path, monkeypatch, staged_once, mode="1")
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
    AGENT_CLASSES.add("steps-batch-then-shapes", steps_agent("steps-batch-then-shapes", _batch_then_shapes),
                      replace=True, description="test")
    report, experiments = run_scripted("ldct-denoise", "steps-batch-then-shapes", tmp_path, monkeypatch, staged_once)
    look = experiments.calls[-1]
    assert "wrong_grid" in look.killed and not look.inspected, look.summary()
    assert report.stages["s3"].score == 0.5, report.stages["s3"].rationale
    assert "no pilot; outputs were opened" in report.stages["s3"].rationale
