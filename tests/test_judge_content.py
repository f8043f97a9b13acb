"""Content facts (tracks/content_facts.py, docs/judge.md "Content facts"): what the harness
computes from a file, and whether a call's output states it. Real files on disk."""
import hashlib
import json

import nibabel as nib
import numpy as np
import pytest
from PIL import Image

from automedbench.runs.models import Effects, TraceEvent
from automedbench.scoring.judge.base import JudgeEvidence
from automedbench.tracks.content_facts import describe, looked_at, printed
from automedbench.scoring.judge.heuristic import HeuristicJudge
from automedbench.tasks import get_task


@pytest.fixture
def files(tmp_path):
    vol = tmp_path / "case_000" / "image.nii.gz"
    vol.parent.mkdir()
    img = nib.Nifti1Image(np.zeros((99, 117, 95), np.int16), np.diag([2.0, 2.0, 2.0, 1.0]))
    nib.save(img, str(vol))
    np.save(tmp_path / "input.npy", np.zeros((256, 200), np.float32))
    Image.new("RGB", (64, 48)).save(tmp_path / "image.png")
    (tmp_path / "labels.csv").write_text("case_id,label\n" + "".join(f"c{i},ct\n" for i in range(40)))
    (tmp_path / "info.json").write_text(json.dumps({"modality": "CT", "units": "HU", "pixel_spacing_mm": 0.9}))
    return tmp_path


def test_facts_computed_from_the_files(files):
    assert describe(files / "case_000" / "image.nii.gz").facts == {"shape": (99, 117, 95), "dtype": "int16",
                                                                  "spacing": (2.0, 2.0, 2.0)}
    assert describe(files / "input.npy").facts == {"shape": (256, 200), "dtype": "float32"}
    assert describe(files / "image.png").facts == {"size": (64, 48), "mode": "RGB"}
    assert describe(files / "labels.csv").facts == {"rows": 40, "columns": ("case_id", "label")}
    assert describe(files / "info.json").facts == {"keys": ("modality", "units", "pixel_spacing_mm"),
                                                   "values": ("0.9",)}
    boxes = files / "prediction.json"
    boxes.write_text(json.dumps({"boxes": [{"class": "marker", "score": 0.6934, "x1": 95, "y1": 64},
                                           {"class": "ring", "score": 0.3751, "x1": 14, "y1": 81}]}))
    assert describe(boxes).facts == {"keys": ("boxes", "class", "score", "x1", "y1"), "length": 2,
                                     "values": ("marker", "0.6934", "95", "64", "ring", "0.3751", "14", "81")}
    (files / "broken.nii.gz").write_bytes(b"not a volume")
    assert describe(files / "broken.nii.gz") is None and describe(files / "notes.txt") is None


@pytest.mark.parametrize("text, expected", [
    ("shape (99, 117, 95) dtype int16", ["shape", "dtype"]),
    ("shape: [ 99 117  95]", ["shape"]),
    ("99x117x95 voxels", ["shape"]),
    ("(95, 117, 99)", ["shape"]),                       # the other axis order (x, y, z vs z, y, x)
    ("spacing (np.float32(2.0), np.float32(2.0), np.float32(2.0))", ["spacing"]),
    ("dtype int16", ["dtype"]),
    ("99 117 95" * 0 + "a99b117c95", []),               # digits inside a word are not numbers
    ("1c5dcd99117950a1f  image.nii.gz", []),            # a sha256 holds no shape
    ("(99, 118, 95)", []),                              # a wrong shape is not a fact
    ("size 1234567 bytes", []),
])
def test_what_a_printout_states(files, text, expected):
    assert printed(text, describe(files / "case_000" / "image.nii.gz")) == expected


def test_a_look_needs_a_specific_fact(files):
    vol = describe(files / "case_000" / "image.nii.gz")
    assert looked_at("dtype int16", vol) == []                    # a dtype alone is a guess
    assert looked_at("shape (99, 117, 95) int16", vol) == ["shape", "dtype"]
    assert looked_at("input pt_000 size (64, 48) mode RGB", describe(files / "image.png")) == ["size", "mode"]
    assert looked_at("40 labelled examples", describe(files / "labels.csv")) == ["rows"]
    assert looked_at("columns ['case_id', 'label']", describe(files / "labels.csv")) == ["columns"]
    assert looked_at("{'modality': 'CT', 'units': 'HU'}", describe(files / "info.json")) == ["keys"]
    boxes = files / "prediction.json"
    boxes.write_text(json.dumps({"boxes": [{"class": "marker", "score": 0.6934, "x1": 95, "y1": 64}]}))
    # a detection output printed box by box: its keys and values are stated
    assert looked_at("{'class': 'marker', 'score': 0.6934, 'x1': 95, 'y1': 64}\n1 box",
                     describe(boxes)) == ["keys", "values"]
    assert looked_at(hashlib.sha256(boxes.read_bytes()).hexdigest(), describe(boxes)) == []
    assert looked_at("anything", None) == []


TASK = get_task("brain-lesion-seg")
PUB = "/data/public/case_000/image.nii.gz"


def _s2b(workspace, data_dir, **call) -> tuple[float, str]:
    events = [TraceEvent(type="tool_call", t=1, call_index=1, code=call.get("code", "print(img.shape)")),
              TraceEvent(type="execution", t=1, call_index=1, exit_code=call.get("rc", 0),
                         stdout=call.get("stdout", ""), effects=Effects(read=[PUB]))]
    v = HeuristicJudge().judge(JudgeEvidence(TASK, "lite", workspace, events, None, ["case_000"], data_dir))["s2"]
    return v.items["s2b"], v.rationale


def test_input_check_is_a_look_at_the_content(files, tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    assert _s2b(ws, files, stdout="shape (99, 117, 95) int16")[0] == 1
    # the inputs' sha256, a listing, a constant: opened and printed, never looked at
    value, why = _s2b(ws, files, code="sha256sum /data/public/case_000/image.nii.gz",
                      stdout="1c5dcd70638fe1a94f20ea505e788dda8f55c11d8be49093b1f81d873181cf60  " + PUB)
    assert value == 0, why
    assert _s2b(ws, files, stdout="input looks fine")[0] == 0
    # a silent check that ran on the content and passed (exit 0) is a look; one that failed is not
    assert _s2b(ws, files, code="img = nib.load(p)\nassert img.shape == (99, 117, 95)", stdout="")[0] == 1
    assert _s2b(ws, files, code="img = nib.load(p)\nassert img.shape == (1, 2, 3)", stdout="", rc=1)[0] == 0
    # without the inputs the judge cannot check content: printing counts, and the rationale says why
    value, why = _s2b(ws, None, stdout="1c5dcd70638f")
    assert value == 1 and "inputs were not available" in why


# ---- the pilot's output, as it was when looked at -------------------------------------------
CONTRACT = TASK.track_impl.submission(TASK.options).file_names
CASES = [f"case_{i:03d}" for i in range(6)]
OUT = "/workspace/outputs"


def _write_outputs(ws, cases, fill=0):
    written = []
    for c in cases:
        for name in CONTRACT:
            p = ws / "outputs" / c / name
            p.parent.mkdir(parents=True, exist_ok=True)
            m = np.full((99, 117, 95), fill, np.uint8)
            m[:, :, : CASES.index(c)] = 1 - fill   # each case its own mask: the same output for every
            nib.save(nib.Nifti1Image(m, np.eye(4)), str(p))   # case would be a problem of its own
            data = p.read_bytes()
            written.append({"path": f"{OUT}/{c}/{name}", "op": "created", "size": len(data),
                            "sha256": hashlib.sha256(data).hexdigest()})
    return written


def _s3(ws, look_stdout, look_code="print(m.shape)", rewrite_pilot=False):
    pilot = _write_outputs(ws, CASES[:1])
    batch = _write_outputs(ws, CASES, fill=1 if rewrite_pilot else 0)
    # the method reads each case's input before it writes that case (facts: a run reads its input)
    calls = [("python run.py case_000", pilot, ["/data/public/case_000/image.nii.gz"], "done"),
             (look_code, [], [f"{OUT}/case_000/{CONTRACT[0]}"], look_stdout),
             ("python run.py --all", batch, [f"/data/public/{c}/image.nii.gz" for c in CASES], "done 6")]
    events = []
    for i, (code, written, read, stdout) in enumerate(calls, 1):
        events += [TraceEvent(type="tool_call", t=i, call_index=i, code=code),
                   TraceEvent(type="execution", t=i, call_index=i, exit_code=0, stdout=stdout,
                              effects=Effects(written=written, read=read))]
    v = HeuristicJudge().judge(JudgeEvidence(TASK, "lite", ws, events, None, CASES, None))["s3"]
    return v.items["s3"], v.rationale


def test_a_look_at_the_pilot_output_is_judged_by_its_content(tmp_path):
    assert _s3(tmp_path / "a", "mask shape (99, 117, 95) values [0]")[0] == 1.0
    sha = hashlib.sha256((tmp_path / "a" / "outputs" / "case_000" / CONTRACT[0]).read_bytes()).hexdigest()
    value, why = _s3(tmp_path / "b", f"{sha}  outputs/case_000/{CONTRACT[0]}", look_code="sha256sum outputs/*/*")
    assert value == 0.5 and "inspection: no" in why, why          # opened and printed, never looked at
    assert _s3(tmp_path / "c", "", look_code="m = nib.load(p)\nassert m.shape == (99, 117, 95)")[0] == 1.0
    # the batch rewrote the pilot's file with other bytes: what was looked at is gone, so printing counts
    assert _s3(tmp_path / "d", "checked", rewrite_pilot=True)[0] == 1.0


def test_an_empty_outputs_length_is_stated_beside_what_it_counts(files):
    """An empty detection output's only fact is its length, 0 (held-out sealed-6): "0 boxes" or
    `{'boxes': []}` states it; a bare 0 or 1 printed somewhere does not."""
    empty = files / "empty.json"
    empty.write_text(json.dumps({"boxes": []}))
    facts = describe(empty)
    assert facts is not None and facts.facts["length"] == 0
    assert looked_at("case_005: 0 boxes, image 256x256", facts) == ["length"]
    assert looked_at("{'boxes': []}", facts) == ["length"]
    assert looked_at("boxes: 0", facts) == ["length"]
    assert looked_at("0 errors, exit 0", facts) == []
    assert looked_at("3 boxes", facts) == []


# ---- the input check stands apart from a look at an output (docs/judge.md "Input check") ----
INPUT_FACTS = "input shape (99, 117, 95) int16"


def _s2b_around_a_pilot(ws, data_dir, *between) -> tuple[float, str]:
    """A pilot of case_000, the given calls (code, read, stdout, order), then the batch: s2b."""
    pilot = _write_outputs(ws, CASES[:1])
    batch = _write_outputs(ws, CASES)
    calls = [("python run.py case_000", pilot, [PUB], "done", None), *((c, [], r, o, st) for c, r, o, st in between),
             ("python run.py --all", batch, [f"/data/public/{c}/image.nii.gz" for c in CASES], "done 6", None)]
    events = []
    for i, (code, written, read, stdout, order) in enumerate(calls, 1):
        events += [TraceEvent(type="tool_call", t=i, call_index=i, code=code),
                   TraceEvent(type="execution", t=i, call_index=i, exit_code=0, stdout=stdout,
                              effects=Effects(written=written, read=read, order=order))]
    v = HeuristicJudge().judge(JudgeEvidence(TASK, "lite", ws, events, None, CASES, data_dir))["s2"]
    return v.items["s2b"], v.rationale


def _step(op: str, path: str, out: int) -> dict:
    return {"op": op, "path": path, "out": out, "err": 0}


def test_an_input_opened_as_the_outputs_reference_is_no_input_check(files, tmp_path):
    """A look at the pilot that opens the input beside the output and prints it compares the
    output with its reference; only what a step printed before it first opened a unit output
    counts as a look at the input. The same facts printed by a call of their own, or by the
    look before it opened the output, do count. Where the recorder kept no order the two
    cannot be told apart: no credit."""
    mask = f"{OUT}/case_000/{CONTRACT[0]}"
    both = f"mask (99, 117, 95) [0 1]\n{INPUT_FACTS}\n"
    # the output opened first, the input's facts printed after it
    value, why = _s2b_around_a_pilot(tmp_path / "a", files, (
        "m = nib.load(mask); x = nib.load(src); print(m.shape, ...); print(x.shape, ...)", [mask, PUB], both,
        [_step("r", mask, 0), _step("r", PUB, 0)]))
    assert value == 0, why
    # the input opened first, yet nothing printed until the output was open too
    assert _s2b_around_a_pilot(tmp_path / "b", files, (
        "x = nib.load(src); m = nib.load(mask); print(...)", [PUB, mask], both,
        [_step("r", PUB, 0), _step("r", mask, 0)]))[0] == 0
    # the input's facts printed before the output was opened: a look at the input of its own
    input_first = f"{INPUT_FACTS}\nmask (99, 117, 95) [0 1]\n"
    value, why = _s2b_around_a_pilot(tmp_path / "c", files, (
        "x = nib.load(src); print(x.shape); m = nib.load(mask); print(m.shape)", [PUB, mask], input_first,
        [_step("r", PUB, 0), _step("r", mask, len(INPUT_FACTS) + 1)]))
    assert value == 1, why
    # a call of its own after the pilot, apart from the look
    assert _s2b_around_a_pilot(tmp_path / "d", files,
                               ("print(nib.load(src).shape)", [PUB], INPUT_FACTS, [_step("r", PUB, 0)]),
                               ("print(nib.load(mask).shape)", [mask], "mask (99, 117, 95)", [_step("r", mask, 0)]),
                               )[0] == 1
    # no order recorded: the look's print cannot be placed before or after it opened the output
    assert _s2b_around_a_pilot(tmp_path / "e", files, ("...", [mask, PUB], input_first, None))[0] == 0


def test_an_input_looked_at_through_a_copy_of_it_is_an_input_check(files, tmp_path):
    """An agent that caches an input in the workspace (np.savez of the volume) and prints its
    shape from the cache in a later call looked at the input: the copy stands for the inputs
    the step that wrote it had opened. Facts that are not the input's earn nothing."""
    ws = tmp_path / "ws"
    cache = "/workspace/state/input_case_000.npz"

    def run(stdout: str, cached_after_reading: bool = True) -> tuple[float, str]:
        order = [_step("r", PUB, 0), _step("w", cache, 0)] if cached_after_reading else \
            [_step("w", cache, 0), _step("r", PUB, 0)]
        cache_call = ("np.savez(cache, x=nib.load(src).get_fdata())", [PUB], "cached", order)
        events, written = [], [{"path": cache, "op": "created", "size": 10, "sha256": "0" * 64}]
        for i, (code, w_, read, out, od) in enumerate([(cache_call[0], written, cache_call[1], "cached", order),
                                                        ("print(np.load(cache)['x'].shape)", [], [cache], stdout,
                                                         [_step("r", cache, 0)])], 1):
            events += [TraceEvent(type="tool_call", t=i, call_index=i, code=code),
                       TraceEvent(type="execution", t=i, call_index=i, exit_code=0, stdout=out,
                                  effects=Effects(written=w_, read=read, order=od))]
        v = HeuristicJudge().judge(JudgeEvidence(TASK, "lite", ws, events, None, ["case_000"], files))["s2"]
        return v.items["s2b"], v.rationale

    value, why = run(INPUT_FACTS)
    assert value == 1 and "case_000/image.nii.gz" in why, why
    assert run("input shape (64, 64, 64) float32")[0] == 0          # not the input's facts
    # a file written before the input was opened holds nothing of it
    assert run(INPUT_FACTS, cached_after_reading=False)[0] == 0
