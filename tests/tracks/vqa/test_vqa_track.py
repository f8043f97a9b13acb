"""The VQA track against real demo data on disk: gold / empty / bad inputs / placeholders / MCQ
parsing / the LLM answer judge over a loopback OpenAI-compatible server / aggregate metrics."""
from __future__ import annotations

import json
import os
import re

import pytest
from tests.llm.fake_openai import FakeOpenAI, completion, error
from .helpers import score_outputs, write_answer

from automedbench.tracks.base import CaseStatus, ScoringContext
from automedbench.tracks.registry import get_track
from automedbench.tracks.vqa import TRACK


def _cases(paths):
    return json.loads(paths.manifest.read_text())["cases"]


def _ref(paths, qid):
    return json.loads((paths.private / qid / "answer.json").read_text())


def test_registered_and_satisfies_the_protocol():
    assert get_track("vqa") is TRACK
    layout = TRACK.submission(TRACK.parse_options({"mode": "mcq"}))
    assert layout.kind == "per_case" and layout.file_names == ["answer.json"]
    text = layout.contract("/ws")
    for field in ("question_id", "predicted_label", "predicted_answer", "raw_model_output", "model_name"):
        assert field in text
    bands = TRACK.default_bands(TRACK.parse_options({}))
    assert (bands.metric, bands.good, bands.okay) == ("score", 0.40, 0.25)


@pytest.mark.parametrize("which", ["demo_open", "demo_mcq"])
def test_gold_scores_one_and_empty_scores_zero(which, request, tmp_path):
    paths = request.getfixturevalue(which)
    TRACK.gold_submission(paths.root, tmp_path / "gold", {})
    agg, records = score_outputs(paths, tmp_path / "gold")
    assert agg.score == pytest.approx(1.0, abs=1e-9)
    assert all(r.status == CaseStatus.OK for r in records.values())
    empty, records = score_outputs(paths, tmp_path / "nothing")
    assert empty.score == 0.0 and empty.metrics["completion"] == 0.0
    assert {r.status for r in records.values()} == {CaseStatus.MISSING}


def test_bad_inputs_score_zero_with_a_reason_and_spare_the_rest(demo_open, tmp_path):
    out = tmp_path / "out"
    TRACK.gold_submission(demo_open.root, out, {})
    ids = [c["case_id"] for c in _cases(demo_open)]
    bad = {}
    (out / ids[0] / "answer.json").write_text('{"question_id": "' + ids[0] + '", "predicted_answer": ')
    bad[ids[0]] = "malformed JSON"
    write_answer(out, ids[1], question_id=ids[2], predicted_answer="yes")
    bad[ids[1]] = "does not match the case"
    (out / ids[2] / "answer.json").write_bytes(os.urandom(2048) + b"\xff\xfe")
    bad[ids[2]] = "not UTF-8"
    (out / ids[3] / "answer.json").write_text(json.dumps({"question_id": ids[3], "predicted_answer": "x" * 70_000,
                                                          "raw_model_output": "", "model_name": "m"}))
    bad[ids[3]] = "larger than"
    (out / ids[4] / "answer.json").unlink()
    os.symlink(demo_open.private / ids[4] / "answer.json", out / ids[4] / "answer.json")
    bad[ids[4]] = "symlink"
    (out / ids[5] / "answer.json").write_text("[1, 2, 3]")
    bad[ids[5]] = "expected a JSON object"
    write_answer(out, ids[6], predicted_answer=3)
    bad[ids[6]] = "must be a string"
    (out / ids[7] / "answer.json").write_text(json.dumps({"question_id": ids[7], "predicted_answer": "yes"}))
    bad[ids[7]] = "missing field"
    agg, records = score_outputs(demo_open, out)
    for qid, why in bad.items():
        assert records[qid].status == CaseStatus.INVALID, qid
        assert why in records[qid].reason and "\n" not in records[qid].reason
    good = [r for q, r in records.items() if q not in bad]
    assert all(r.status == CaseStatus.OK and r.score.metrics["score"] == 1.0 for r in good)
    assert agg.score == pytest.approx(len(good) / len(ids))


def test_placeholders_are_flagged_and_score_zero(demo_open, tmp_path):
    out = tmp_path / "out"
    TRACK.gold_submission(demo_open.root, out, {})
    ids = [c["case_id"] for c in _cases(demo_open)]
    write_answer(out, ids[0], predicted_answer="Unknown")
    write_answer(out, ids[1], predicted_answer="n/a")
    write_answer(out, ids[2], predicted_answer=_ref(demo_open, ids[2])["answer"], raw_model_output="  ")
    agg, records = score_outputs(demo_open, out)
    for qid in ids[:3]:
        rec = records[qid]
        assert rec.status == CaseStatus.OK                       # well-formed, but not an answer
        assert rec.score.metrics["score"] == 0.0 and rec.score.metrics["placeholder"] == 1.0
        assert rec.score.extra["placeholder"] is True and rec.score.extra["flags"] == ["placeholder"]
    assert "raw_model_output is empty" in records[ids[2]].score.extra["reason"]
    assert agg.metrics["n_placeholder"] == 3.0
    assert agg.metrics["placeholder_rate"] == pytest.approx(3 / len(ids))
    check = TRACK.check_case(__import__("automedbench.tracks.base", fromlist=["SubmittedCase"]).SubmittedCase(
        ids[0], dir=out / ids[0]), {"mcq": False}, TRACK.parse_options({}))
    assert check.valid and check.non_trivial is False


def test_mcq_labels_are_parsed_from_text(demo_mcq, tmp_path):
    out = tmp_path / "out"
    ids = [c["case_id"] for c in _cases(demo_mcq)]
    refs = {q: _ref(demo_mcq, q) for q in ids}
    a, b, c, d, e = ids[:5]
    write_answer(out, a, predicted_label=f"The answer is ({refs[a]['label']}).")
    write_answer(out, b, predicted_label=None, predicted_answer=refs[b]["options"][refs[b]["label"]])
    wrong = next(k for k in refs[c]["options"] if k != refs[c]["label"])
    write_answer(out, c, predicted_label=wrong, predicted_answer=refs[c]["answer"])
    write_answer(out, d, predicted_label="(A) or (B)", predicted_answer="")
    write_answer(out, e, predicted_answer="B")                   # no predicted_label field at all
    (out / e / "answer.json").write_text(json.dumps({k: v for k, v in json.loads(
        (out / e / "answer.json").read_text()).items() if k != "predicted_label"}))
    agg, records = score_outputs(demo_mcq, out)
    assert records[a].score.metrics["score"] == 1.0 and records[a].score.extra["label_rule"] == "statement"
    assert records[b].score.metrics["score"] == 1.0 and records[b].score.extra["label_rule"] == "option_text"
    assert records[c].score.metrics["score"] == 0.0            # the label field wins over the text
    assert records[d].score.metrics["score"] == 0.0 and "ambiguous" in records[d].score.extra["label_rule"]
    assert records[e].status == CaseStatus.INVALID and "predicted_label" in records[e].reason
    assert agg.metrics["mcq_accuracy"] == pytest.approx(2 / len(ids))


def test_aggregate_breaks_down_by_question_type_and_excludes_reference_errors(demo_open, tmp_path):
    out = tmp_path / "out"
    TRACK.gold_submission(demo_open.root, out, {})
    cases = _cases(demo_open)
    count_q = [c["case_id"] for c in cases if c["question_type"] == "count"]
    for qid in count_q:
        write_answer(out, qid, predicted_answer="17")
    agg, _ = score_outputs(demo_open, out)
    types = {c["question_type"] for c in cases}
    assert {f"by_type.{t}" for t in types} <= set(agg.metrics)
    assert agg.metrics["by_type.count"] == 0.0
    assert all(agg.metrics[f"by_type.{t}"] == 1.0 for t in types - {"count"})
    assert agg.score == pytest.approx(1 - len(count_q) / len(cases))
    assert agg.metrics["judged_score"] is None and "no LLM answer judge" in agg.notes["judged_score"]


def test_an_unreadable_reference_is_left_out(demo_open, tmp_path):
    import shutil
    broken = tmp_path / "ds"
    shutil.copytree(demo_open.root, broken)
    from automedbench.data import DatasetPaths
    paths = DatasetPaths(broken)
    qid = _cases(paths)[0]["case_id"]
    (paths.private / qid / "answer.json").write_text("{not json")
    TRACK.gold_submission(demo_open.root, tmp_path / "gold", {})
    agg, records = score_outputs(paths, tmp_path / "gold")
    assert records[qid].status == CaseStatus.REFERENCE_ERROR
    assert agg.score == pytest.approx(1.0) and agg.metrics["n_questions"] == len(records) - 1


def test_the_cores_llm_answer_judge_is_reported_beside_the_score(demo_open, tmp_path):
    """The core's LLMAnswerJudge over a loopback OpenAI-compatible server: verdicts beside the
    deterministic score, agreement, coverage; unjudgeable = null, never 0; verdicts cached."""
    from tests.llm.scripted_llm import agent_config

    from automedbench.llm.answer_judge import LLMAnswerJudge

    out = tmp_path / "out"
    TRACK.gold_submission(demo_open.root, out, {})
    refs = {c["case_id"]: _ref(demo_open, c["case_id"]) for c in _cases(demo_open)}
    n = len(refs)
    phase = {"first": True}

    def reply(request):
        """'no' references: unparseable (then 0.5 once asked again); numbers: 0; else 1."""
        text = request["body"]["messages"][1]["content"]
        ref = re.search(r"REFERENCE: (.*)\n", text).group(1)
        if ref == "no":
            return completion(content="I think it is right" if phase["first"] else '{"score": 0.5}')
        return completion(content='{"score": 0}' if ref.isdigit() else '{"score": 1}')

    srv = FakeOpenAI().start()
    srv.default = reply
    try:
        judge = LLMAnswerJudge(agent_config(srv.url, retry={"max_retries": 0}), cache_dir=tmp_path / "cache",
                               retries=0)
        context = ScoringContext(answer_judge=judge)
        agg, records = score_outputs(demo_open, out, context=context)
        no_q = [q for q, r in refs.items() if r["answer"] == "no"]
        num_q = [q for q, r in refs.items() if r["answer"].isdigit()]
        assert no_q and num_q
        assert all(records[q].score.metrics["judged"] is None for q in no_q)   # null, never 0
        assert all(records[q].score.metrics["judged"] == 0.0 for q in num_q)
        assert agg.score == pytest.approx(1.0)                          # the judge never changes the score
        judged_n = n - len(no_q)
        assert agg.metrics["judged_score"] == pytest.approx((judged_n - len(num_q)) / judged_n)
        assert agg.metrics["judge_coverage"] == pytest.approx(judged_n / n)
        assert agg.metrics["judge_agreement"] == pytest.approx((judged_n - len(num_q)) / judged_n)
        # beside the score, never one of its components (docs/scoring.md#task-score)
        assert agg.components == ["deterministic"] and "could not be judged" in agg.notes["judged_score"]
        # re-scoring: cached verdicts are not asked again; the unjudged ones are
        before, phase["first"] = len(srv.requests), False
        agg2, records2 = score_outputs(demo_open, out, context=context)
        assert len(srv.requests) - before == len({refs[q]["question"] for q in no_q})
        assert all(records2[q].score.metrics["judged"] == 0.5 for q in no_q)
        assert agg2.metrics["judge_coverage"] == 1.0
        # an unanswered question counts 0 in the judged score and is not in coverage / agreement
        gone = next(q for q, r in refs.items() if r["answer"] == "yes")
        (out / gone / "answer.json").unlink()
        (out / gone).rmdir()
        agg_m, _ = score_outputs(demo_open, out, context=context)
        agreeing = agg2.metrics["judge_agreement"] * n                  # every answer judged in agg2
        assert agg_m.metrics["judge_coverage"] == 1.0
        assert agg_m.metrics["judge_agreement"] == pytest.approx((agreeing - 1) / (n - 1))
        assert agg_m.metrics["judged_score"] == pytest.approx(agg2.metrics["judged_score"] - 1 / n)
        TRACK.gold_submission(demo_open.root, out, {})
        # the provider goes down: a fresh cache judges nothing (null), the score is unchanged
        srv.default = error(503, "down")
        fresh = LLMAnswerJudge(agent_config(srv.url, retry={"max_retries": 0}), cache_dir=tmp_path / "c2", retries=0)
        agg4, _ = score_outputs(demo_open, out, context=ScoringContext(answer_judge=fresh))
        assert agg4.score == pytest.approx(1.0) and agg4.metrics["judged_score"] is None
        assert "judged no question" in agg4.notes["judged_score"]
    finally:
        srv.stop()


def test_a_judge_that_raises_or_answers_off_grid_is_unjudged_not_zero(demo_open, tmp_path):
    out = tmp_path / "out"
    TRACK.gold_submission(demo_open.root, out, {})

    def broken(question, reference, prediction):
        if reference == "yes":
            raise RuntimeError("judge crashed")
        return 0.7 if reference == "no" else True                        # neither is a verdict

    agg, records = score_outputs(demo_open, out, context=ScoringContext(answer_judge=broken))
    assert all(r.score.metrics["judged"] is None for r in records.values())
    assert agg.score == pytest.approx(1.0) and agg.metrics["judged_score"] is None
