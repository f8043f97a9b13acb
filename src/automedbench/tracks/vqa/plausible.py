"""The kind of answer a question asks for, from the question's own public words (docs/judge.md
"Plausibility"): one of its options for a multiple-choice question, yes or no for a yes/no
question ("Is …", "Does …", no "or"), a count for "How many …", a plane, a modality or a body
region where the question (or its `question_type`) asks for one. The shared comparison
(tracks/relations.py `Answer`) says whether the answer is of that kind; neither needs the
ground truth."""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from ..relations import Answer

# a question opening with one of these, and offering no alternatives ("... or ..."), asks yes or no
YES_NO_OPENERS = {"is", "are", "does", "do", "did", "can", "could", "was", "were", "has", "have", "will",
                  "should", "would"}
_WORD = re.compile(r"[a-z]+")
# a question's `question_type` (as the demo and public releases name them) -> the kind asked
QUESTION_TYPES = {"count": "count", "counting": "count", "quantity": "count", "plane": "plane",
                  "modality": "modality", "region": "region", "organ": "region", "position": "",
                  "yes/no": "yes/no", "closed": "yes/no"}
# words of the question that ask for a kind (the question's words, in order)
_ASKS = [("count", re.compile(r"\bhow many\b|^count\b|\bnumber of\b")),
         ("plane", re.compile(r"\bplane\b")),
         ("modality", re.compile(r"\bmodality\b|\btype of imaging\b|\bkind of (medical )?image\b|"
                                 r"\bimaging (technique|method)\b")),
         ("region", re.compile(r"\b(part of the body|body (region|part)|anatomical region)\b"))]


def asked_kind(question: dict[str, Any]) -> str:
    """The kind of answer `question` (question.json as read) asks for, or "" when its words do
    not say."""
    if question.get("options"):
        return "option"
    words = _WORD.findall(str(question.get("question", "")).lower())
    text = " ".join(words)
    if words and words[0] in YES_NO_OPENERS and "or" not in words:
        return "yes/no"
    declared = QUESTION_TYPES.get(str(question.get("question_type", "")).strip().lower())
    if declared:
        return declared
    return next((kind for kind, asks in _ASKS if asks.search(text)), "")


def answer_relation(answer: dict[str, Any], question: dict[str, Any]) -> Answer | None:
    """`answer` (answer.json as read) against the kind `question` asks for, or None."""
    kind = asked_kind(question)
    if not kind:
        return None
    if kind == "option":
        options = question.get("options") or {}
        label = (answer.get("predicted_label") or "").strip()
        accepted = {str(k).strip() for k in options}
        if not label:
            accepted |= {str(v).strip() for v in options.values()}
        return Answer("option", label or (answer.get("predicted_answer") or "").strip(), frozenset(accepted))
    return Answer(kind, (answer.get("predicted_answer") or "").strip())


def relations_in_case(answer: dict[str, Any], input_case_dir: Path) -> list[Answer]:
    try:
        question = json.loads((Path(input_case_dir) / "question.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    rel = answer_relation(answer, question) if isinstance(question, dict) else None
    return [rel] if rel is not None else []
