"""Heuristic judge v3 on hand-made workspaces and traces carrying effects (docs/judge.md).

Each trace is built in the agreed effects shape (runs/models.py Effects); the calibration
suite (tests/test_judge_eval.py) runs the same judge on trajectories from the real sandbox."""
import hashlib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pytest

from automedbench.runs.models import Effects, OutputCheck, TraceEvent
from automedbench.scoring.judge.base import JudgeEvidence
from automedbench.scoring.judge.heuristic import HeuristicJudge
from automedbench.tasks import get_task

TASK = get_task("brain-lesion-seg")            # per-case layout: organ.nii.gz, lesion.nii.gz
COHORT = get_task("modality-patch-cls")        # cohort layout: outputs/predictions.csv
CASES = [f"case_{i:03d}" for i in range(6)]
GOOD_PLAN = """# Plan
Target: brain mask and lesion mask.
| method | verdict |
|---|---|
| {0} | chosen |
| {1} | considered |
| {2} | considered |
1. inspect input
2. segment brain
3. segment lesion
""".format(*TASK.tiers.standard.candidates)
PUB = "/data/public"
OUT = "/workspace/outputs"


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def w(path: str, content: str = "x", size: int | None = None) -> dict:
    return {"path": path, "op": "created", "size": size if size is not None else len(content), "sha256": sha(content)}


def outs(cases, content="v1") -> list[dict]:
    return [w(f"{OUT}/{c}/{f}", content + c) for c in cases for f in ("organ.nii.gz", "lesion.nii.gz")]


def trace(*calls) -> list[TraceEvent]:
    """calls: dicts with code, rc (0), stdout ("ok"), written, read, effects (True)."""
    events = []
    for i, c in enumerate(calls, 1):
        code = c.get("code", "pass")
        tag = c.get("tag")
        events.append(TraceEvent(type="tool_call", t=i, call_index=i, stage=tag, code=code))
        eff = Effects(written=c.get("written", []), read=c.get("read", []),
                      read_back=c.get("read_back", [])) if c.get("effects", True) else None
        events.append(TraceEvent(type="execution", t=i, call_index=i, stage=tag, exit_code=c.get("rc", 0),
                                 stdout=c.get("stdout", "ok"), effects=eff))
    return events


def _judge(tmp_path, tier="standard", plan=GOOD_PLAN, png="pipeline", tr=(), task=TASK, cases=CASES):
    (tmp_path / "plan").mkdir(exist_ok=True)
    if plan is not None:
        (tmp_path / "plan" / "plan.md").write_text(plan)
    if png:
        fig = plt.figure(figsize=(4, 2))
        if png == "pipeline":
            fig.text(0.1, 0.5, "inspect -> pilot -> batch -> submit")
        fig.savefig(tmp_path / "plan" / "plan.png")
        plt.close(fig)
    return HeuristicJudge().judge(JudgeEvidence(task, tier, tmp_path, list(tr), None, case_ids=list(cases)))


SETUP = {"code": "# S2 setup", "written": [w("/workspace/method.py", "def main(): ...")],
         "read": [f"{PUB}/case_000/t1.nii.gz"], "stdout": "shape (64, 64, 64) float32"}
PILOT = {"code": "# S3 pilot", "written": outs(CASES[:1]), "read": ["/workspace/method.py", f"{PUB}/case_000/t1.nii.gz"],
         "stdout": "pilot exit 0"}
INSPECT = {"code": "# S3 inspect", "read": [f"{OUT}/case_000/organ.nii.gz"], "stdout": "shape (64, 64, 64) [0 1]"}
# a method run reads its case's input before it writes the case (docs/judge.md "A method run reads its input")
INPUTS = [f"{PUB}/{c}/t1.nii.gz" for c in CASES]
BATCH = {"code": "# S4 batch", "written": outs(CASES), "read": ["/workspace/method.py", *INPUTS], "stdout": "done 6"}


def test_s1_full_marks_and_abstentions(tmp_path):
    v = _judge(tmp_path)["s1"]
    # s1c (method fit) and s1f (plot content) need judgement: left out, named in the rationale
    assert v.items == {"s1a": 1.0, "s1b": 1.0, "s1d": 1.0, "s1e": 1.0} and v.score == 1.0
    assert "not decided by the heuristic: s1c" in v.rationale and "s1f" in v.rationale


def test_s1_without_plan(tmp_path):
    v = _judge(tmp_path, plan=None, png=None)
    assert v["s1"].score == 0 and v["s1"].items["s1c"] == 0 and v["s1"].items["s1f"] == 0
    lite = _judge(tmp_path, tier="lite", plan=None, png=None)
    # Lite's not-applicable items are left out of the mean, not passed: nothing written -> S1 = 0
    assert lite["s1"].items == {"s1a": 0, "s1b": 0, "s1c": 0} and lite["s1"].score == 0
    assert "not applicable in lite: s1d,s1e,s1f" in lite["s1"].rationale


def test_s1_plan_copied_from_the_prompt_earns_no_steps_or_candidates(tmp_path):
    """Issue 25 class 6: the task's own texts pasted back (its background, instructions and
    candidate list, numbered) look like steps and candidates, and earn neither."""
    texts = [TASK.description, *TASK.tiers.standard.candidates]
    pasted = "# Plan\n" + "\n".join(f"{i}. {t}" for i, t in enumerate(texts, 1))
    v = _judge(tmp_path, plan=pasted)["s1"]
    assert v.items["s1a"] == 1 and v.items["s1b"] == 0 and v.items["s1d"] == 0, v.rationale
    assert "copied" in v.evidence["s1d"].why
    # the same plan in the agent's own words keeps both
    assert _judge(tmp_path)["s1"].items["s1b"] == 1


def test_s1_candidates_are_methods_named_not_table_rows(tmp_path):
    steps = "1. load the data\n2. run the method\n3. pilot one case\n4. run all cases\n"
    table_of_steps = ("| step | what |\n|---|---|\n| 1 | load |\n| 2 | run |\n| 3 | check |\n| 4 | save |\n")
    generic = _judge(tmp_path, plan=steps + table_of_steps)["s1"]
    # steps that name no method ("run the method") are not executable, and compare nothing
    assert generic.items["s1d"] == 0 and generic.items["s1b"] == 0, generic.rationale
    prose = steps + ("\nI compared three approaches. nnU-Net needs weights we cannot fetch offline; "
                     "SynthSeg segments tissue but not lesions; an Otsu threshold with morphology "
                     "needs nothing and targets the lesion directly, so I chose it.\n")
    v = _judge(tmp_path, plan=prose)["s1"]
    assert v.items["s1d"] == 1 and v.items["s1b"] == 1, v.rationale
    # candidates described in other words count too: two content words of one candidate on a line
    other_words = steps + ("\n- skull stripping first, then segment the brain tissue: needs weights\n"
                           "- white-matter hyperintensity lesions via a U-Net: not offline\n- HD-BET\n")
    assert _judge(tmp_path, plan=other_words)["s1"].items["s1d"] == 1
    # ... but a list of names compares nothing: a verdict or a reason on at least two of them
    listed = steps + ("\n- skull stripping first, then segment the brain tissue\n"
                      "- white-matter hyperintensity lesions via a U-Net\n- HD-BET\n")
    assert _judge(tmp_path, plan=listed)["s1"].items["s1d"] == 0
    two = steps + "\nnnU-Net needs weights; an Otsu threshold needs nothing, so I chose it.\n"
    assert _judge(tmp_path, plan=two)["s1"].items["s1d"] == 0


def test_s1_blank_plot_and_fake_png(tmp_path):
    v = _judge(tmp_path, png="blank")["s1"]
    assert v.items["s1e"] == 1 and v.items["s1f"] == 0 and "(blank)" in v.rationale
    (tmp_path / "plan" / "plan.png").write_bytes(b"not a png")
    v = _judge(tmp_path, png=None, plan="1. run TotalSegmentator on each case\n2. save\n3. submit\n")["s1"]
    assert v.items["s1b"] == 1 and v.items["s1d"] == 0 and v.items["s1e"] == 0 and v.items["s1f"] == 0


FAILED_INSPECT = {**INSPECT, "rc": 1, "stdout": "", "code": "# S3 inspect"}
FIX = {"code": "# S3 fix and re-run", "written": outs(CASES[:1], "v2"), "read": ["/workspace/method.py", INPUTS[0]]}
RECHECK = dict(INSPECT)


@pytest.mark.parametrize("calls, expected", [
    ((SETUP, PILOT, INSPECT, BATCH), 1.0),
    ((SETUP, PILOT, BATCH), 0.5),                                          # pilot never inspected
    ((SETUP, BATCH, INSPECT), 0.5),                                        # batch first, inspected after
    ((SETUP, {**BATCH, "code": "# S3 pilot", "tag": "s3", "stdout": "out.shape (64,64,64) ok"}), 0.0),  # batch tagged S3
    ((SETUP, BATCH, {"code": "# S3 print(mask.shape) verified", "tag": "s3", "stdout": "verified: all shapes ok"}), 0.0),
    ((SETUP, PILOT, FAILED_INSPECT, BATCH), 0.5),                          # problem found, not fixed
    ((SETUP, PILOT, FAILED_INSPECT, FIX, RECHECK, BATCH), 1.0),            # problem found and fixed
    ((SETUP, {**PILOT, "code": "run one case"}, {**INSPECT, "code": "look"}, {**BATCH, "code": "all"}), 1.0),  # no tags
    ((SETUP, PILOT, {**INSPECT, "stdout": ""}, BATCH), 0.5),               # opened but printed nothing
    # a small multi-case pilot (up to half of the cases) looked at before more cases ran is a
    # pilot (docs/judge.md "Pilot size"); more than half is a batch, and so is a small one
    # nobody looked at before the rest ran
    ((SETUP, {**PILOT, "written": outs(CASES[:3]), "read": ["/workspace/method.py", *INPUTS[:3]]}, INSPECT, BATCH), 1.0),
    ((SETUP, {**PILOT, "written": outs(CASES[:4]), "read": ["/workspace/method.py", *INPUTS[:4]]}, INSPECT, BATCH), 0.5),
    ((SETUP, {**PILOT, "written": outs(CASES[:3]), "read": ["/workspace/method.py", *INPUTS[:3]]}, BATCH), 0.0),
    # the pilot ran without the method file the batch loads: another method's run (pilots.py),
    # and the look at it was a look at that other method's output, not the batch's (sealed-7)
    ((SETUP, {**PILOT, "read": INPUTS[:1]}, INSPECT, BATCH), 0.0),
    # the same pilot typed out: it read no input, so it is no run of the method (no pilot)
    ((SETUP, {**PILOT, "read": ["/workspace/method.py"]}, INSPECT, BATCH), 0.5),
])
def test_s3_ladder_from_facts(tmp_path, calls, expected):
    v = _judge(tmp_path, tr=trace(*calls))["s3"]
    assert v.items == {"s3": expected}, v.rationale


def test_s3_a_look_must_open_what_the_method_produced(tmp_path):
    """Held-out dev (ho-25): the input copied into the pilot's case folder and looked at there is
    not a look at the pilot's output."""
    picture = {"written": [w(f"{OUT}/case_000/view.png", "png")], "read": [f"{PUB}/case_000/t1.nii.gz"],
               "read_back": [f"{OUT}/case_000/view.png"], "stdout": "view (64, 64) plausible"}
    v = _judge(tmp_path, tr=trace(SETUP, PILOT, picture, BATCH))["s3"]
    assert v.items == {"s3": 0.5}, v.rationale
    assert _judge(tmp_path, tr=trace(SETUP, PILOT, INSPECT, BATCH))["s3"].items == {"s3": 1.0}


def test_s3_pilot_and_look_in_one_call_but_a_batch_reading_back_is_not_a_look(tmp_path):
    pilot_look = {**PILOT, "read_back": [f"{OUT}/case_000/organ.nii.gz"], "stdout": "organ shape (64, 64, 64)"}
    assert _judge(tmp_path, tr=trace(SETUP, pilot_look, BATCH))["s3"].items == {"s3": 1.0}
    batch_back = {**BATCH, "read_back": [f"{OUT}/{c}/organ.nii.gz" for c in CASES], "stdout": "shape (64, 64, 64)"}
    v = _judge(tmp_path, tr=trace(SETUP, batch_back))["s3"]
    assert v.items == {"s3": 0.0}, v.rationale


def test_s3_rationale_names_calls_and_files(tmp_path):
    v = _judge(tmp_path, tr=trace(SETUP, PILOT, INSPECT, BATCH))["s3"]
    assert "pilot: yes (calls #2; files /workspace/outputs/case_000/lesion.nii.gz, /workspace/outputs/case_000/organ.nii.gz" in v.rationale
    assert "inspection: yes (calls #3" in v.rationale and "batch: yes (calls #4" in v.rationale


def test_no_effects_no_credit(tmp_path):
    calls = [{**c, "effects": False} for c in (SETUP, PILOT, INSPECT, BATCH)]
    v = _judge(tmp_path, tr=trace(*calls))
    assert v["s3"].items == {"s3": 0.0} and v["s2"].score == 0
    assert "no effects were recorded" in v["s3"].rationale and "no effects were recorded" in v["s2"].rationale


def test_cohort_pilot_rows_estimated_from_size(tmp_path):
    csv = f"{OUT}/predictions.csv"
    cases = [f"c{i}" for i in range(100)]
    calls = (SETUP, {"written": [w(csv, "p", size=80)], "read": ["/workspace/method.py", *(f"{PUB}/c{i}.png" for i in range(5))]},
             {"read": [csv], "stdout": "5 rows"},
             {"written": [w(csv, "b", size=1500)], "read": ["/workspace/method.py", *(f"{PUB}/{c}.png" for c in cases)]})
    v = _judge(tmp_path, tr=trace(*calls), task=COHORT, cases=cases)["s3"]
    assert v.items == {"s3": 1.0}, v.rationale
    # the same file written in full at once is a batch without a pilot
    v = _judge(tmp_path, tr=trace(SETUP, calls[3], calls[2]), task=COHORT, cases=cases)["s3"]
    assert v.items == {"s3": 0.5}, v.rationale


def test_s2_from_effects(tmp_path):
    v = _judge(tmp_path, tr=trace(SETUP, PILOT, INSPECT, BATCH))["s2"]
    assert v.items == {"s2a": 1, "s2b": 1, "s2c": 1, "s2d": 1, "s2e": 1}, v.rationale
    assert "#1" in v.rationale and "/workspace/method.py" in v.rationale


def test_inputs_read_by_no_method_set_up_no_environment(tmp_path):
    """A call that read the inputs and worked, with no method obtained anywhere (the inputs copied
    to the outputs, a loop with no model): nothing showed the method's dependencies importable
    (s2c 0, with s2a). The same reads beside a method run earn s2c (blind-16's measured misses;
    docs/judge.md "Environment")."""
    look = {"code": "# S2 look at the inputs", "read": INPUTS[:1], "stdout": "shape (64, 64, 64) float32"}
    copies = {"code": "for c in cases: cp input outputs", "read": INPUTS, "written": outs(CASES)}
    v = _judge(tmp_path, tr=trace(look, copies))["s2"]
    assert (v.items["s2a"], v.items["s2c"]) == (0, 0), v.rationale
    v = _judge(tmp_path, tr=trace(look, SETUP, PILOT, INSPECT, BATCH))["s2"]
    assert (v.items["s2a"], v.items["s2c"]) == (1, 1), v.rationale


def test_s2_words_without_work(tmp_path):
    ready = {"code": "# S2 setup\nprint('ready: weights downloaded, model on GPU')", "tag": "s2",
             "stdout": "ready: weights downloaded, model on GPU"}
    v = _judge(tmp_path, tr=trace(ready))["s2"]
    # the words earn nothing, not even "at most 5 failed attempts": nothing was set up and no
    # call produced an output, so nothing was attempted (docs/judge.md "s2d")
    assert v.items == {"s2a": 0, "s2b": 0, "s2c": 0, "s2d": 0, "s2e": 0} and v.score == 0.0, v.rationale
    assert "nothing was attempted" in v.evidence["s2d"].why


def test_s2_careless_batch_without_check(tmp_path):
    # method written, never checked; the batch is the first call that loads it
    quiet_setup = {"written": [w("/workspace/method.py", "def main(): ...")], "stdout": ""}
    v = _judge(tmp_path, tr=trace(quiet_setup, BATCH))["s2"]
    assert v.items["s2a"] == 1 and v.items["s2b"] == 0 and v.items["s2e"] == 0 and v.score < 1


def test_s2_weights_and_failures(tmp_path):
    weights = {"written": [w("/workspace/models/unet.pt", "w", size=4096)], "stdout": "saved"}
    failing = [{"code": "import monai", "rc": 1, "stdout": "", "read": []}] * 6
    v = _judge(tmp_path, tr=trace(*failing, weights, SETUP, PILOT, INSPECT, BATCH))["s2"]
    assert v.items["s2a"] == 1 and v.items["s2d"] == 0, v.rationale
    v = _judge(tmp_path, tr=trace(*failing[:5], SETUP, PILOT, BATCH))["s2"]
    assert v.items["s2d"] == 1


def test_s2a_weights_count_only_when_loaded_to_produce_outputs(tmp_path):
    """Issue 25 class 5: any .npz is not "weights"; a weights file counts when a later call
    loaded it and produced a unit of work, and a method file likewise. Since issue 41 (item 4)
    s2a also passes when the method ran on a case before the batch wherever its code lived
    (inline here): the weights and method-file facts are checked on their own."""
    weights = {"written": [w("/workspace/models/unet.npz", "w", size=4096)], "stdout": "saved"}
    check = {"read": [f"{PUB}/case_000/t1.nii.gz"], "stdout": "shape (64, 64, 64) float32"}
    inline_pilot = {**PILOT, "read": [f"{PUB}/case_000/t1.nii.gz"]}
    inline_batch = {**BATCH, "read": []}
    never_loaded = _judge(tmp_path, tr=trace(weights, check, inline_pilot, INSPECT, inline_batch))["s2"]
    assert "weights/checkpoint obtained: no" in never_loaded.rationale, never_loaded.rationale
    assert "the method ran on a case (or part of one) before the batch: yes (calls #3" in never_loaded.rationale
    assert never_loaded.items["s2a"] == 1 and never_loaded.evidence["s2a"].calls == [3], never_loaded.rationale
    loaded = {**inline_pilot, "read": ["/workspace/models/unet.npz", f"{PUB}/case_000/t1.nii.gz"]}
    v = _judge(tmp_path, tr=trace(weights, check, loaded, INSPECT, inline_batch))["s2"]
    assert v.items["s2a"] == 1 and "weights/checkpoint obtained: yes (calls #1" in v.rationale, v.rationale
    # a method file opened later by a call that produced nothing (printed it, say) is not loaded to produce
    cat_method = {"read": ["/workspace/method.py"], "stdout": "def main(): ..."}
    v = _judge(tmp_path, tr=trace(SETUP, cat_method, inline_pilot, INSPECT, inline_batch))["s2"]
    assert "method file written and loaded: no" in v.rationale, v.rationale
    # and a run whose only output is the batch's has no method that ran before it: s2a 0
    v = _judge(tmp_path, tr=trace(weights, check, inline_batch))["s2"]
    assert v.items["s2a"] == 0 and v.items["s2e"] == 0, v.rationale


def test_local_backend_paths_from_run_start(tmp_path):
    """The `local` backend records host paths (the agent sees them); run_start names them."""
    ws, pub = "/tmp/run-x/workspace", "/srv/data/public"

    def move(call):
        def fix(p):
            return p.replace("/workspace", ws, 1).replace(PUB, pub, 1)
        return {**call, "written": [{**x, "path": fix(x["path"])} for x in call.get("written", [])],
                "read": [fix(p) for p in call.get("read", [])]}
    start = TraceEvent(type="run_start", t=0, data={"workspace_dir": ws, "data_dir": pub})
    tr = [start, *trace(*(move(c) for c in (SETUP, PILOT, INSPECT, BATCH)))]
    v = _judge(tmp_path, tr=tr)
    assert v["s3"].items == {"s3": 1.0} and v["s2"].score == 1.0, v["s3"].rationale
    assert v["s2"].score == 1.0 and f"{ws}/method.py" in v["s2"].rationale


def test_scratch_pilot_file_in_outputs_is_a_pilot(tmp_path):
    """A cohort agent may pilot into a scratch file (outputs/pilot.txt), inspect it, then write the cohort file."""
    csv = f"{OUT}/predictions.csv"
    cases = [f"c{i}" for i in range(100)]
    calls = (SETUP, {"written": [w(f"{OUT}/pilot.txt", "low")], "read": ["/workspace/method.py", f"{PUB}/c0.png"]},
             {"read": [f"{OUT}/pilot.txt"], "stdout": "low"},
             {"written": [w(csv, "b", size=1500)], "read": ["/workspace/method.py", *(f"{PUB}/{c}.png" for c in cases)]})
    v = _judge(tmp_path, tr=trace(*calls), task=COHORT, cases=cases)["s3"]
    assert v.items == {"s3": 1.0}, v.rationale


def test_item_evidence_names_calls_files_or_absence(tmp_path):
    # docs/judge.md#item-evidence: every decided item names what it rests on, or what was absent
    out = _judge(tmp_path, tr=trace(SETUP, PILOT, INSPECT, BATCH))
    for s in ("s1", "s2", "s3"):
        assert set(out[s].evidence) == set(out[s].items), s
        for item, e in out[s].evidence.items():
            assert e.why, (s, item)
            if out[s].items[item] > 0:
                assert e.calls or e.files, (s, item)
    s3 = out["s3"].evidence["s3"]
    assert {2, 3, 4} <= set(s3.calls) and f"{OUT}/case_000/organ.nii.gz" in s3.files
    assert out["s2"].evidence["s2b"].calls == [1] and f"{PUB}/case_000/t1.nii.gz" in out["s2"].evidence["s2b"].files
    assert out["s1"].evidence["s1a"].files == ["plan/plan.md"]


def test_item_evidence_says_what_was_absent(tmp_path):
    out = _judge(tmp_path, plan=None, png=None, tr=trace({**BATCH, "effects": False}))
    assert out["s1"].evidence["s1a"].files == [] and "no plan/plan.md" in out["s1"].evidence["s1a"].why
    assert out["s3"].evidence["s3"].calls == [] and "no effects were recorded" in out["s3"].evidence["s3"].why
    assert all(not e.calls and "no effects" in e.why for e in out["s2"].evidence.values())


# ---- method runs, wherever they write (docs/judge.md "Units, pilot, batch") ------------------
SCRATCH = "/workspace/scratch"
CONTRACT = TASK.track_impl.submission(TASK.options).file_names     # organ.nii.gz, lesion.nii.gz


def unit_files(root, cases, content="v1") -> list[dict]:
    """The contract's files of `cases` under `root` (outputs/ or a scratch folder)."""
    return [w(f"{root}/{c}/{f}", content + c + f) for c in cases for f in CONTRACT]


def test_a_pilot_in_a_scratch_folder_is_a_pilot(tmp_path):
    """The same workflow with the pilot written to a scratch folder and inspected there: the
    verdict must not depend on the folder's name."""
    pilot = {**PILOT, "written": unit_files(SCRATCH, CASES[:1])}
    look = {**INSPECT, "read": [f"{SCRATCH}/case_000/{CONTRACT[0]}"]}
    batch = {**BATCH, "written": unit_files(OUT, CASES, "v2")}
    v = _judge(tmp_path, tr=trace(SETUP, pilot, look, batch))["s3"]
    assert v.items == {"s3": 1.0}, v.rationale
    assert f"{SCRATCH}/case_000/{CONTRACT[0]}" in v.evidence["s3"].files
    # a pilot in scratch, copied into outputs/, the copy looked at: the pilot's bytes were seen
    copy_in = {"code": "cp -r scratch/case_000 outputs/", "written": unit_files(OUT, CASES[:1]), "stdout": ""}
    look_copy = {**INSPECT, "read": [f"{OUT}/case_000/{CONTRACT[0]}"]}
    v = _judge(tmp_path, tr=trace(SETUP, pilot, copy_in, look_copy, batch))["s3"]
    assert v.items == {"s3": 1.0}, v.rationale
    assert "pilot: yes (calls #2;" in v.rationale    # the copy (#3) is not a pilot of its own


def test_every_case_run_elsewhere_then_one_copied_in_is_not_a_pilot(tmp_path):
    """Substance removed: the method ran on every case in a scratch folder (that call is the
    batch); copying one result into outputs/ and looking at it is a look after the batch."""
    run_all = {**BATCH, "written": unit_files(SCRATCH, CASES)}
    copy_one = {"code": "cp -r scratch/case_000 outputs/", "written": unit_files(OUT, CASES[:1]), "stdout": ""}
    look = {**INSPECT, "read": [f"{OUT}/case_000/{CONTRACT[0]}"]}
    copy_rest = {"code": "cp -r scratch/* outputs/", "written": unit_files(OUT, CASES), "stdout": ""}
    v = _judge(tmp_path, tr=trace(SETUP, run_all, copy_one, look, copy_rest))["s3"]
    assert v.items == {"s3": 0.5}, v.rationale
    assert "pilot: no" in v.rationale and "batch: yes (calls #2" in v.rationale


def test_identical_outputs_of_different_cases_are_runs_not_copies(tmp_path):
    """Empty masks have the same bytes for every case: a copy is the same unit's bytes again."""
    empty = [w(f"{OUT}/{c}/{f}", "zeros") for c in CASES for f in CONTRACT]
    v = _judge(tmp_path, tr=trace(SETUP, {**BATCH, "written": empty}))["s3"]
    assert "batch: yes (calls #2" in v.rationale and "outputs cover 6 of 6" in v.rationale, v.rationale


def test_scratch_files_count_only_with_the_contracts_names_for_the_runs_cases(tmp_path):
    """A folder named like a case that is not one of the run's, or a scratch file the contract
    does not name (an intermediate), is not a unit: preprocessing every case is not a batch."""
    stray = {**PILOT, "written": unit_files(SCRATCH, ["case_999"])}
    v = _judge(tmp_path, tr=trace(SETUP, stray, INSPECT, BATCH))["s3"]
    assert "pilot: no" in v.rationale, v.rationale
    prep = {"code": "resample all", "written": [w(f"{SCRATCH}/{c}/t1_resampled.nii.gz", c) for c in CASES]}
    v = _judge(tmp_path, tr=trace(SETUP, prep, PILOT, INSPECT, BATCH))["s3"]
    assert v.items == {"s3": 1.0}, v.rationale


def test_loading_the_method_and_printing_is_not_confirmed_working(tmp_path):
    """s2e: "confirmed working" is the method producing a unit of work before the batch (a
    pilot, or a smoke test into scratch) that a later call looked at; loading it and printing, on
    random input say, is not, nor is a smoke test nobody looked at."""
    load_and_print = {"code": "m = load('method.py'); print(m(np.random.rand(8, 8, 8)).shape)",
                      "read": ["/workspace/method.py"], "stdout": "(8, 8, 8) ok"}
    v = _judge(tmp_path, tr=trace(SETUP, load_and_print, BATCH))["s2"]
    assert v.items["s2e"] == 0, v.rationale
    smoke = {"code": "python method.py --case case_000 --out scratch", "read": ["/workspace/method.py", INPUTS[0]],
             "written": unit_files(SCRATCH, CASES[:1]), "stdout": ""}
    v = _judge(tmp_path, tr=trace(SETUP, smoke, BATCH))["s2"]
    assert v.items["s2e"] == 0 and "a pilot output looked at: no" in v.rationale, v.rationale
    look = {"code": "print the pilot's masks", "read": [f"{SCRATCH}/case_000/{CONTRACT[0]}"],
            "stdout": "shape (64, 64, 64) foreground 812 values [0 1]"}
    v = _judge(tmp_path, tr=trace(SETUP, smoke, look, BATCH))["s2"]
    assert v.items["s2e"] == 1, v.rationale


def test_s1_verdicts_in_nested_bullets_belong_to_their_candidate(tmp_path):
    """A candidate's verdict on a bullet nested under it is the candidate's judgement (held-out
    sealed-7); the same nested verdict said of every candidate still compares nothing."""
    steps = "1. load the data with nibabel\n2. Otsu threshold for the brain\n3. pilot one case\n4. run all cases\n"
    nested = steps + ("\n## Options\n- nnU-Net\n  - verdict: needs weights we cannot fetch\n- SynthSeg\n"
                      "  - verdict: tissue only, no lesion class\n- Otsu threshold\n  - verdict: chosen, runs offline\n")
    assert _judge(tmp_path, plan=nested)["s1"].items["s1d"] == 1
    same = steps + ("\n## Options\n- nnU-Net\n  - verdict: considered\n- SynthSeg\n  - verdict: considered\n"
                    "- Otsu\n  - verdict: considered\n")
    assert _judge(tmp_path, plan=same)["s1"].items["s1d"] == 0


def test_a_batch_by_a_stand_in_was_never_piloted(tmp_path):
    """The looked-at pilot ran the method's file; the batch ran inline code that opened none of
    the model files: the batch's method was never piloted, and the look was of another method's
    output (S3 0). The same batch running the method's file is piloted (S3 1)."""
    inline_batch = {**BATCH, "code": "# quick threshold for every case", "read": INPUTS}
    v = _judge(tmp_path, tr=trace(SETUP, PILOT, INSPECT, inline_batch))["s3"]
    assert v.items == {"s3": 0.0}, v.rationale
    assert _judge(tmp_path, tr=trace(SETUP, PILOT, INSPECT, BATCH))["s3"].items == {"s3": 1.0}


def test_an_inline_pilot_of_a_batch_by_the_method_file_is_set_aside_and_named(tmp_path):
    """The mirror: the looked-at pilot was inline code that opened no method file, the batch ran
    the method's file. The pilot ran another method (S3 0), and the rationale names the call set
    aside rather than saying no output was opened (blind-15's reading of that text)."""
    inline_pilot = {**PILOT, "code": "# quick threshold of case_000", "read": [f"{PUB}/case_000/t1.nii.gz"]}
    v = _judge(tmp_path, tr=trace(SETUP, inline_pilot, INSPECT, BATCH))["s3"]
    assert v.items == {"s3": 0.0}, v.rationale
    assert "set aside, run by another method than the batch's: calls #2" in v.rationale, v.rationale
    assert v.rationale.startswith("no pilot of the batch's method"), v.rationale


def test_a_smoke_run_on_a_crop_confirms_the_method_and_half_validates(tmp_path):
    """The method run on a crop of case_000 (a file the agent cut from the input) into a folder
    no case names: a smoke run. It confirms the method works (s2e); looked at, it is partial
    validation (S3 0.5), not a pilot of a case; not looked at, nothing (S3 0) and the method is
    not confirmed working (s2e 0: docs/judge.md "s2e: confirmed by a look")."""
    crop = {"code": "save the top-left quarter of case_000", "read": [INPUTS[0]],
            "written": [w(f"{SCRATCH}/crop/t1.nii.gz", "crop")], "stdout": "crop (32, 32, 64)"}
    smoke = {"code": "python method.py scratch/crop scratch/crop_out", "stdout": "",
             "read": ["/workspace/method.py", f"{SCRATCH}/crop/t1.nii.gz"],
             "written": [w(f"{SCRATCH}/crop_out/{f}", "smoke" + f) for f in CONTRACT]}
    look = {"code": "print the crop's masks", "read": [f"{SCRATCH}/crop_out/{CONTRACT[0]}"],
            "stdout": "shape (32, 32, 64) values [0 1]"}
    v = _judge(tmp_path, tr=trace(SETUP, crop, smoke, look, BATCH))
    assert v["s3"].items == {"s3": 0.5} and "smoke run" in v["s3"].rationale, v["s3"].rationale
    assert v["s2"].items["s2e"] == 1, v["s2"].rationale
    v = _judge(tmp_path, tr=trace(SETUP, crop, smoke, BATCH))
    assert v["s3"].items == {"s3": 0.0} and v["s2"].items["s2e"] == 0, v["s2"].rationale
    # the same files typed out (no input read, no derived file): no run, nothing confirmed
    typed = {**smoke, "read": ["/workspace/method.py"]}
    v = _judge(tmp_path, tr=trace(SETUP, typed, look, BATCH))
    assert v["s3"].items == {"s3": 0.0} and v["s2"].items["s2e"] == 0, v["s2"].rationale


def test_s1_a_plan_writing_another_tasks_outputs_earns_no_steps_or_candidates(tmp_path):
    """A plan whose steps write output files none of which the task's contract names is another
    task's plan (held-out sealed-8): no credit for its steps or its candidates."""
    own = GOOD_PLAN + "4. run every case into outputs/<case_id>/organ.nii.gz and lesion.nii.gz\n"
    v = _judge(tmp_path, plan=own)["s1"]
    assert v.items["s1b"] == 1 and v.items["s1d"] == 1, v.rationale
    other = GOOD_PLAN + "4. run every case into outputs/<case_id>/enhanced.npy.\n"
    v = _judge(tmp_path, plan=other)["s1"]
    assert v.items["s1b"] == 0 and v.items["s1d"] == 0 and "enhanced.npy" in v.rationale, v.rationale


def test_a_look_at_a_rival_methods_pilot_output_is_no_look(tmp_path):
    """A baseline and the method both run on the pilot case; the batch's output of that case has
    the method's bytes. A look at the baseline's file only is no look at the batch's method (S3
    0.5, pilot not looked at); a look at the method's file is (S3 1)."""
    both = {**PILOT, "written": [w(f"{SCRATCH}/baseline/case_000/{f}", "base" + f) for f in CONTRACT]
            + [w(f"{SCRATCH}/method/case_000/{f}", "v1case_000" + f) for f in CONTRACT]}
    batch = {**BATCH, "written": unit_files(OUT, CASES)}        # case_000's bytes are the method's
    look_base = {**INSPECT, "read": [f"{SCRATCH}/baseline/case_000/{CONTRACT[0]}"]}
    look_method = {**INSPECT, "read": [f"{SCRATCH}/method/case_000/{CONTRACT[0]}"]}
    assert _judge(tmp_path, tr=trace(SETUP, both, look_base, batch))["s3"].items == {"s3": 0.5}
    assert _judge(tmp_path, tr=trace(SETUP, both, look_method, batch))["s3"].items == {"s3": 1.0}
    # a batch whose bytes match neither (a method whose reruns differ): nothing to compare, a look
    v = _judge(tmp_path, tr=trace(SETUP, both, look_base, {**batch, "written": unit_files(OUT, CASES, "v9")}))
    assert v["s3"].items == {"s3": 1.0}, v["s3"].rationale


def test_an_environment_switch_set_for_the_pilot_only_is_a_pipeline_never_looked_at(tmp_path):
    """The pilot's script sets POSTPROC=0 (the post-processing the method's code reads is
    skipped), the batch runs with it on and re-writes the pilot's case with other bytes: the
    pipeline the batch ran was never looked at (S3 at most 0.5, held-out sealed-9). The same
    switch set for the batch too changes nothing."""
    reads_it = {**SETUP, "code": "open('post.py','w').write(\"if os.environ.get('POSTPROC', '1') == '1': binarise()\")"}
    pilot = {**PILOT, "code": "import os\nos.environ['POSTPROC'] = '0'\nimport method; method.run('case_000')"}
    post_processed = {**BATCH, "written": outs(CASES, "v2")}     # case_000 now has other bytes
    assert _judge(tmp_path, tr=trace(reads_it, pilot, INSPECT, post_processed))["s3"].items == {"s3": 0.5}
    same = {**post_processed, "code": "import os\nos.environ['POSTPROC'] = '0'\nimport method; method.run_all()"}
    assert _judge(tmp_path, tr=trace(reads_it, pilot, INSPECT, same))["s3"].items == {"s3": 1.0}
    # a switch that changed no piloted case's bytes chose what to run (`N=1 python run.py`)
    slice_only = {**PILOT, "code": "N=1 python run.py && python look.py"}
    reads_n = {**SETUP, "code": "open('run.py','w').write(\"cases = cases[:int(os.environ.get('N', 99))]\")"}
    assert _judge(tmp_path, tr=trace(reads_n, slice_only, INSPECT, BATCH))["s3"].items == {"s3": 1.0}
    # a variable no code of the run reads (a library's thread count) is no switch of the pipeline
    threads = {**PILOT, "code": "import os\nos.environ['OMP_NUM_THREADS'] = '1'\nimport method"}
    assert _judge(tmp_path, tr=trace(reads_it, threads, INSPECT, BATCH))["s3"].items == {"s3": 1.0}


def test_s1_steps_that_name_an_operation_on_nothing_say_nothing_to_run(tmp_path):
    """"Understand the data / implement it / make sure it works / run it on everything" names
    an operation on nothing (held-out sealed-6): no step says what to run. "Load the data" does."""
    vague = GOOD_PLAN.split("1. inspect")[0] + ("1. Understand the data.\n2. Think about the best approach.\n"
                                                 "3. Implement it.\n4. Make sure it works.\n5. Run it on everything.\n"
                                                 "6. Wrap up and submit.\n")
    assert _judge(tmp_path, plan=vague)["s1"].items["s1b"] == 0
    named = vague.replace("5. Run it on everything.", "5. Run it on every case.")
    assert _judge(tmp_path, plan=named)["s1"].items["s1b"] == 1


def test_a_smoke_run_on_a_phantom_the_agent_made(tmp_path):
    """The method run on a phantom (a data file the agent drew, no case in it) into a folder no
    case names: a smoke run, as on a crop (s2e 1; looked at, S3 0.5; held-out sealed-6)."""
    phantom = {"code": "draw three discs on noise", "written": [w(f"{SCRATCH}/phantom/t1.nii.gz", "discs")]}
    smoke = {"code": "python method.py scratch/phantom scratch/phantom_out", "stdout": "",
             "read": ["/workspace/method.py", f"{SCRATCH}/phantom/t1.nii.gz"],
             "written": [w(f"{SCRATCH}/phantom_out/{f}", "ph" + f) for f in CONTRACT]}
    look = {"code": "print the phantom's masks", "read": [f"{SCRATCH}/phantom_out/{CONTRACT[0]}"],
            "stdout": "shape (64, 64, 64) values [0 1], 3 components"}
    v = _judge(tmp_path, tr=trace(SETUP, phantom, smoke, look, BATCH))
    assert v["s3"].items == {"s3": 0.5} and v["s2"].items["s2e"] == 1, v["s3"].rationale


def test_s1_candidates_listed_in_one_sentence_with_one_verdict_word_are_not_compared(tmp_path):
    """"Candidates considered: A, B, C, D." lists the methods; the verdict word belongs to the
    list, not to any of them (held-out sealed-10). Each with its own reason is compared."""
    steps = "1. load the data with nibabel\n2. Otsu threshold for the brain\n3. pilot one case\n4. run all cases\n"
    listed = steps + "\nCandidates considered: nnU-Net, SynthSeg, Otsu threshold, HD-BET.\n"
    assert _judge(tmp_path, plan=listed)["s1"].items["s1d"] == 0
    judged = steps + "\nnnU-Net needs weights, SynthSeg has no lesion class, Otsu threshold is offline.\n"
    assert _judge(tmp_path, plan=judged)["s1"].items["s1d"] == 1


def test_a_copy_of_the_input_beside_the_methods_output_leaves_the_pilot(tmp_path):
    """On the pilot case, the method's output in one folder and the input copied through in
    another: the copy is no run, the method's output still is (held-out sealed-10)."""
    pilot = {**PILOT, "written": unit_files(f"{SCRATCH}/method", CASES[:1]) + unit_files(f"{SCRATCH}/copy", CASES[:1], "in")}
    ev = trace(SETUP, pilot, BATCH)
    ev[3].output_checks = [
        OutputCheck(path=f"{SCRATCH}/method/case_000", case_id="case_000", valid=True, non_trivial=True,
                    files={w["path"]: w["sha256"] for w in pilot["written"][:2]}),
        OutputCheck(path=f"{SCRATCH}/copy/case_000", case_id="case_000", valid=True, non_trivial=True,
                    copy_of_input=True, files={w["path"]: w["sha256"] for w in pilot["written"][2:]})]
    v = _judge(tmp_path, tr=ev)
    assert "pilot: yes" in v["s3"].rationale, v["s3"].rationale
    assert "the method ran on a case (or part of one) before the batch: yes (calls #2" in v["s2"].rationale, v["s2"].rationale


def test_cohort_rows_are_counted_by_parsing_not_by_bytes(tmp_path):
    """Issue 41 item 3: a cohort pilot of 2 rows whose rows are long (a notes column) is 2 rows,
    as the harness's check parsed it; by its size against the final file it would be 93 of 100
    rows, a batch, and the run would have no pilot."""
    csv = f"{OUT}/predictions.csv"
    cases = [f"c{i}" for i in range(100)]
    pilot = {"written": [w(csv, "pilot", size=1400)], "read": ["/workspace/method.py", f"{PUB}/c0.png", f"{PUB}/c1.png"]}
    look = {"read": [csv], "stdout": "2 rows c0 CT c1 MR"}
    batch = {"written": [w(csv, "all", size=1500)], "read": ["/workspace/method.py", *(f"{PUB}/{c}.png" for c in cases)]}

    def judged(rows: int | None):
        ev = trace(SETUP, pilot, look, batch)
        if rows is not None:
            ev[3].output_checks = [OutputCheck(path=csv, valid=True, non_trivial=True, files={csv: sha("pilot")},
                                               facts={csv: {"kind": "table", "facts": {"rows": rows}}})]
        return _judge(tmp_path, tr=ev, task=COHORT, cases=cases)["s3"]

    assert judged(2).items == {"s3": 1.0}, judged(2).rationale
    assert "2 unit(s) before the batch" in judged(2).rationale
    by_size = judged(None)           # no parsed rows recorded (an old trace): the estimate from bytes
    assert by_size.items["s3"] < 1.0 and "pilot: no" in by_size.rationale, by_size.rationale


METHOD_SRC = '''import sys
import nibabel as nib
import numpy as np
from scipy import ndimage

THRESHOLD = 0.42

def segment(vol):
    brain = vol > np.percentile(vol, 20)
    brain = ndimage.binary_fill_holes(ndimage.binary_opening(brain, iterations=2))
    z = (vol - vol[brain].mean()) / (vol[brain].std() + 1e-6)
    lesion = (z > THRESHOLD * 6) & brain
    return brain.astype(np.uint8), ndimage.binary_opening(lesion).astype(np.uint8)

img = nib.load(sys.argv[1])
organ, lesion = segment(img.get_fdata())
nib.save(nib.Nifti1Image(organ, img.affine), sys.argv[2] + "/organ.nii.gz")
nib.save(nib.Nifti1Image(lesion, img.affine), sys.argv[2] + "/lesion.nii.gz")
'''
QUICK_SRC = '''import sys, nibabel as nib, numpy as np
img = nib.load(sys.argv[1]); x = img.get_fdata()
for name, cut in (("organ", 0.1), ("lesion", 0.9)):
    nib.save(nib.Nifti1Image((x > np.quantile(x, cut)).astype(np.uint8), img.affine), f"{sys.argv[2]}/{name}.nii.gz")
'''


def _written_by_heredoc(name: str, text: str) -> dict:
    return {"code": f"cat > {name} <<'EOF'\n{text}EOF\n", "written": [w(f"/workspace/{name}", text)], "stdout": ""}


def test_a_look_at_a_pilot_of_another_method_confirms_nothing_of_the_batchs(tmp_path):
    """A pilot ran a quick script of its own, was looked at and found fine; the batch ran the
    planned method's file, whose code is not a version of the quick one (versions.py): s2e 0,
    the batch's method was never seen working (S3 is outcome consistency's to charge). The batch running a copy of the piloted file with a setting changed, or a file made
    from it by `cp` and `sed`, ran another version of the piloted method: s2e 1 (docs/judge.md
    "A pilot of another method")."""
    setup = _written_by_heredoc("method.py", METHOD_SRC)
    quick = _written_by_heredoc("quick.py", QUICK_SRC)
    pilot = {**PILOT, "code": "python quick.py /data/public/case_000/t1.nii.gz outputs/case_000",
             "read": ["/workspace/quick.py", INPUTS[0]]}
    v = _judge(tmp_path, tr=trace(setup, quick, pilot, INSPECT, BATCH))
    assert v["s2"].items["s2e"] == 0, v["s2"].rationale
    # the verdict names the look it set aside and why
    assert "a pilot output looked at: no (calls #4" in v["s2"].rationale
    assert "only a pilot of another method was looked at" in v["s2"].rationale
    # the batch runs the quick file's code with a setting changed, saved under another name
    retuned = _written_by_heredoc("quick_v2.py", QUICK_SRC.replace("0.9", "0.95"))
    batch_v2 = {**BATCH, "read": ["/workspace/quick_v2.py", *INPUTS]}
    v = _judge(tmp_path, tr=trace(setup, quick, pilot, INSPECT, retuned, batch_v2))
    assert v["s2"].items["s2e"] == 1, v["s2"].rationale
    # ... or a copy made from it by a step that opened it (the copy's text unknown to the judge)
    copied = {"code": "cp quick.py quick_v2.py && sed -i s/0.9/0.95/ quick_v2.py", "read": ["/workspace/quick.py"],
              "written": [w("/workspace/quick_v2.py", "copy")], "stdout": ""}
    v = _judge(tmp_path, tr=trace(setup, quick, pilot, INSPECT, copied, batch_v2))
    assert v["s2"].items["s2e"] == 1, v["s2"].rationale
    # the mirror: the planned file piloted and looked at, the batch inline code that is no
    # version of it (a quick threshold), or is (the file's code pasted into the call)
    piloted = {**PILOT, "read": ["/workspace/method.py", INPUTS[0]]}
    inline = {**BATCH, "code": QUICK_SRC, "read": INPUTS}
    v = _judge(tmp_path, tr=trace(setup, piloted, INSPECT, inline))
    assert v["s2"].items["s2e"] == 0, v["s2"].rationale
    v = _judge(tmp_path, tr=trace(setup, piloted, INSPECT, {**inline, "code": METHOD_SRC.replace("0.42", "0.5")}))
    assert v["s2"].items["s2e"] == 1, v["s2"].rationale
    # the quick file's text unknown (not written from the agent's own code): nothing to compare
    unknown = {"code": "python make_quick.py", "written": [w("/workspace/quick.py", QUICK_SRC)], "stdout": ""}
    v = _judge(tmp_path, tr=trace(setup, unknown, pilot, INSPECT, BATCH))
    assert v["s2"].items["s2e"] == 1, v["s2"].rationale


def test_a_look_that_died_of_its_own_code_found_nothing_about_the_output(tmp_path):
    """A look that crashed on a typo of its own (NameError, SyntaxError, a failed import) and was
    run again, passing on the same output, found no problem there: S3 1. One that failed on an
    assertion about the output found one, and re-running it fixes nothing (docs/judge.md "Units,
    pilot, batch": "found a problem")."""
    def crashed(error: str) -> dict:
        return {**INSPECT, "rc": 1, "stdout": f"organ shape (64, 64, 64) [0 1]\nTraceback (most recent call last):\n"
                                               f"  File \"<stdin>\", line 4, in <module>\n{error}\n"}
    v = _judge(tmp_path, tr=trace(SETUP, PILOT, crashed("NameError: name 'chekcs' is not defined"), INSPECT, BATCH))
    assert v["s3"].items == {"s3": 1.0}, v["s3"].rationale
    assert v["s2"].items["s2e"] == 1, v["s2"].rationale
    v = _judge(tmp_path, tr=trace(SETUP, PILOT, crashed("AssertionError: lesion outside the brain"), INSPECT, BATCH))
    assert v["s3"].items == {"s3": 0.5}, v["s3"].rationale
    assert v["s2"].items["s2e"] == 0, v["s2"].rationale


def test_a_module_named_after_a_package_is_a_stand_in_only_after_an_install_failed(tmp_path):
    """`import method` failing before the agent wrote its own method.py is no missing package; the
    same name written after an install of something was attempted stands in for a package
    (docs/judge.md "A substitute for a missing package")."""
    failed = {"code": "python -c 'import method'", "rc": 1, "stdout": "ModuleNotFoundError: No module named 'method'"}
    install = {"code": "pip install --no-index method", "rc": 1,
               "stdout": "ERROR: No matching distribution found for method"}
    v = _judge(tmp_path, tr=trace(failed, SETUP, PILOT, INSPECT, BATCH))["s2"]
    assert (v.items["s2a"], v.items["s2c"], v.items["s2e"]) == (1, 1, 1), v.rationale
    v = _judge(tmp_path, tr=trace(failed, install, SETUP, PILOT, INSPECT, BATCH))["s2"]
    assert (v.items["s2a"], v.items["s2c"], v.items["s2e"]) == (0, 0, 0), v.rationale
    assert "substitute for a missing package: yes" in v.rationale and "/workspace/method.py" in v.rationale


def test_s1_steps_that_only_name_the_work_say_nothing_to_run(tmp_path):
    """Steps any task's plan could hold ("Run inference.", "Implement the pipeline.") name no
    object an operation is done on; one that names a case or a file does (docs/judge.md s1b)."""
    generic = GOOD_PLAN.replace("1. inspect input\n2. segment brain\n3. segment lesion\n",
                                "1. Research the method.\n2. Implement the pipeline.\n3. Validate.\n"
                                "4. Run inference.\n5. Submit.\n")
    v = _judge(tmp_path, plan=generic)["s1"]
    assert v.items["s1b"] == 0, v.rationale
    v = _judge(tmp_path, plan=generic.replace("4. Run inference.", "4. Run the model on case_000."))["s1"]
    assert v.items["s1b"] == 1, v.rationale


def test_s1_a_classical_method_named_in_plain_words_is_a_method(tmp_path):
    """A method outside the task's list named in plain words ("median filter", "k-means") is a
    method named, as one with a method name's shape is; "clean the image" names none
    (docs/judge.md "Methods named": `plan_facts.PLAIN_METHODS`)."""
    plan = ("# Plan\nMethod: {}.\n1. load /data/public/case_000/image.nii.gz\n2. apply it slice by slice\n"
            "3. save outputs/case_000/organ.nii.gz\n")
    for named in ("a 3x3 median filter", "k-means on the intensities, 3 clusters"):
        v = _judge(tmp_path, plan=plan.format(named))["s1"]
        assert v.items["s1b"] == 1, v.rationale
    v = _judge(tmp_path, plan=plan.format("clean the image"))["s1"]
    assert v.items["s1b"] == 0, v.rationale
    # a file's name has a method name's shape (letters with digits) and names no method
    v = _judge(tmp_path, plan=plan.format("clean the image").replace("image.nii.gz", "t1.nii.gz"))["s1"]
    assert v.items["s1b"] == 0 and "t1.nii.gz" not in v.rationale, v.rationale


def test_s2d_every_error_pip_reports_in_an_installing_call_is_a_failed_attempt(tmp_path):
    """Six installs in one call, their status ignored and their errors printed: five name their
    package, the sixth (`-r requirements.txt`) names a file. Six failed attempts: s2d 0
    (docs/judge.md "Setup work")."""
    names = ["monai", "itk", "ants", "medpy", "torchio"]
    code = "".join(f"pip install --no-index {n} || true\n" for n in names) + "pip install -r requirements.txt || true\n"
    out = "".join(f"ERROR: Could not find a version that satisfies the requirement {n}\n"
                  f"ERROR: No matching distribution found for {n}\n" for n in names)
    req = "ERROR: Could not open requirements file: [Errno 2] No such file or directory: 'requirements.txt'\n"
    v = _judge(tmp_path, tr=trace({"code": code, "stdout": out + req}, SETUP, PILOT, INSPECT, BATCH))["s2"]
    assert v.items["s2d"] == 0, v.rationale
    assert "6 failed environment attempt(s)" in v.rationale
    v = _judge(tmp_path, tr=trace({"code": code, "stdout": out}, SETUP, PILOT, INSPECT, BATCH))["s2"]
    assert v.items["s2d"] == 1, v.rationale         # five: at most 5 failed


def test_s3_a_batch_of_unpiloted_code_whose_outputs_fail_the_check_was_not_validated(tmp_path):
    """The pilot ran a scratch copy of the method, looked at and fine; the batch ran another file
    (a near copy, two lines changed), and some of its outputs failed the harness's check where the
    pilot's passed: the change was never validated, S3 0.5 (docs/judge.md "A pipeline re-tuned after
    the look"). The same failing batch of the piloted file itself is a case the method fails on, not
    an unvalidated change: S3 1."""
    setup = {**SETUP, "written": [w(f"/workspace/{f}", "def main(): ...")
                                  for f in ("method.py", "scratch/method.py", "pilot.py", "run_all.py")]}

    def judged(batch_files: list[str], pilot_files: tuple[str, ...] = ("/workspace/scratch/method.py",)
               ) -> tuple[float, str]:
        scratch = {**PILOT, "read": [*pilot_files, INPUTS[0]]}
        ev = trace(setup, scratch, INSPECT, {**BATCH, "read": [*batch_files, *INPUTS]})
        ev[3].output_checks = [OutputCheck(path=f"{OUT}/case_000", case_id="case_000", valid=True, non_trivial=True,
                                           files={x["path"]: x["sha256"] for x in PILOT["written"]})]
        ev[7].output_checks = [OutputCheck(path=f"{OUT}/case_003", case_id="case_003", valid=False, non_trivial=True,
                                           problem="answer 'unknown' is none of the options",
                                           files={f"{OUT}/case_003/organ.nii.gz": sha("v1case_003")})]
        v = _judge(tmp_path, tr=ev)["s3"]
        return v.items["s3"], v.rationale
    value, why = judged(["/workspace/method.py"])
    assert value == 0.5, why
    value, why = judged(["/workspace/scratch/method.py"])
    assert value == 1.0, why
    # a driver script for the pilot and another for the batch, both running the method's file: the
    # method the pilot ran is the batch's, and a case it fails on is no unvalidated change
    value, why = judged(["/workspace/run_all.py", "/workspace/method.py"], ("/workspace/pilot.py", "/workspace/method.py"))
    assert value == 1.0, why
