"""The published reference's VQA task score (docs/scoring-profiles.md, VQA row), reproduced.

Reference: AutoMedBench/AutoMedBench, branch eval_vqa, eval_vqa/vqa_scorer.py `score_all` with
answer_normalizer.py / answer_metrics.py / answer_utils.py / format_checker.py (MIT licence).
Per question, over all expected questions (missing or invalid = 0):
  MCQ   1 when `predicted_label` (upper-cased; else the first standalone A-E in it) equals the
        reference label; no parsing of the answer text.
  open  yes/no gold (after its normalisation): 1 when the whole normalised prediction equals it;
        otherwise 0.5 * EM + 0.5 * token-F1 against the ONE gold string (no alternatives).
  Its placeholder rule: a non-empty answer with an empty raw_model_output, or a raw output that
  is "unknown"/"n/a"/"na"/"none"/"null" or starts with "heuristic:", "fallback:", ... scores 0.
Its normalisation: lower case, ASCII punctuation removed, whitespace collapsed, a whole answer in
its yes/no map -> yes/no, number words (0-12) and a few abbreviations mapped token by token.
"""
from __future__ import annotations

import re
import string
from collections import Counter
from typing import Any

from ..base import CaseRecord, CaseStatus
from ..profile import ProfileScore

DEFINITION = ("reference VQA: mean over expected questions of MCQ label match, yes/no exact match, "
              "else 0.5*EM + 0.5*token-F1 against one gold string")

_ABBREVIATIONS = {
    "r": "right", "l": "left", "bil": "bilateral", "bilat": "bilateral",
    "ivc": "inferior vena cava", "svc": "superior vena cava", "lv": "left ventricle",
    "rv": "right ventricle", "la": "left atrium", "ra": "right atrium",
    "lad": "left anterior descending", "mca": "middle cerebral artery",
    "ica": "internal carotid artery", "pca": "posterior cerebral artery",
    "aca": "anterior cerebral artery", "pe": "pulmonary embolism", "dvt": "deep vein thrombosis",
    "chf": "congestive heart failure", "cad": "coronary artery disease", "gi": "gastrointestinal",
    "gu": "genitourinary", "cns": "central nervous system"}
_YES_NO = {"yes": "yes", "y": "yes", "yeah": "yes", "yep": "yes", "true": "yes", "present": "yes",
           "positive": "yes", "no": "no", "n": "no", "nope": "no", "false": "no", "absent": "no",
           "negative": "no"}
_NUMBERS = {"zero": "0", "none": "0", "one": "1", "single": "1", "two": "2", "three": "3", "four": "4",
            "five": "5", "six": "6", "seven": "7", "eight": "8", "nine": "9", "ten": "10",
            "eleven": "11", "twelve": "12"}
_PUNCT = str.maketrans("", "", string.punctuation)
_LABELS = ("A", "B", "C", "D", "E")
_PLACEHOLDER_PREFIXES = ("heuristic:", "fallback:", "placeholder:", "mock:", "dummy:", "stub:")
_PLACEHOLDER_WHOLE = {"unknown", "n/a", "na", "none", "null"}


def normalise(text: Any) -> str:
    t = re.sub(r"\s+", " ", str(text or "").lower().translate(_PUNCT)).strip()
    if t in _YES_NO:
        return _YES_NO[t]
    return " ".join(_ABBREVIATIONS.get(w, w) for w in (_NUMBERS.get(w, w) for w in t.split()))


def _em_f1(pred: str, gold: str) -> tuple[float, float]:
    p, g = normalise(pred), normalise(gold)
    if not p or not g:
        return 0.0, 0.0
    pt, gt = p.split(), g.split()
    overlap = sum((Counter(pt) & Counter(gt)).values())
    f1 = 0.0 if overlap == 0 else 2 * (overlap / len(pt)) * (overlap / len(gt)) / (overlap / len(pt) + overlap / len(gt))
    return float(p == g), f1


def _label(value: Any) -> str | None:
    if value is None:
        return None
    text = str(value).strip().upper()
    if text in _LABELS:
        return text
    m = re.search(r"\b([A-E])\b", text)
    return m.group(1) if m else None


def _placeholder(raw: Any, answer: Any) -> bool:
    r = raw.strip() if isinstance(raw, str) else ""
    a = answer.strip() if isinstance(answer, str) else ""
    if not r and not a:
        return False
    if not r:
        return True
    low = r.lower()
    return low in _PLACEHOLDER_WHOLE or low.startswith(_PLACEHOLDER_PREFIXES)


def question_score(prediction: dict[str, Any] | None, reference: dict[str, Any]) -> float:
    if prediction is None:
        return 0.0
    if _placeholder(prediction.get("raw_model_output"), prediction.get("predicted_answer")):
        return 0.0
    if reference.get("label"):
        label = _label(prediction.get("predicted_label"))
        return float(label is not None and label == str(reference["label"]).strip().upper())
    answer = str(prediction.get("predicted_answer") or "").strip()
    if not answer:
        return 0.0
    gold = str(reference.get("answer") or "").strip()
    if normalise(gold) in ("yes", "no"):
        return float(normalise(answer) == normalise(gold))
    em, f1 = _em_f1(answer, gold)
    return 0.5 * em + 0.5 * f1


def reference_score(records: list[CaseRecord]) -> ProfileScore:
    expected = [r for r in records if r.status != CaseStatus.REFERENCE_ERROR and r.reference is not None]
    if not expected:
        return ProfileScore(None, DEFINITION, "no scorable question")
    total = sum(question_score(r.prediction if r.status == CaseStatus.OK else None, r.reference)
                for r in expected)
    return ProfileScore(round(total / len(expected), 4), DEFINITION)   # the reference rounds to 4
