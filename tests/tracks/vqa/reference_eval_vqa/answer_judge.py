"""Stub (not the reference's file): vqa_scorer.py imports these two names for its optional LLM
judge, which the cross-check never turns on (answer_judge=None). The real module needs the
network client `requests` and is not copied."""
AnswerJudge = None


def judge_agreement_rate(per_question):
    raise AssertionError("the LLM judge is never used by the cross-check")
