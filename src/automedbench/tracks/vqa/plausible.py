"""Whether an answer fits its question, without the reference (docs/judge.md "Each track's
mutants and plausibility checks"): a multiple-choice answer must be one of the question's
options, and a yes/no question is answered yes or no. A look at one answer beside its question
shows either problem; neither needs the ground truth."""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

# a question opening with one of these, and offering no alternatives ("... or ..."), asks yes or no
YES_NO_OPENERS = {"is", "are", "does", "do", "did", "can", "could", "was", "were", "has", "have", "will",
                  "should", "would"}
_WORD = re.compile(r"[a-z]+")


def answer_misfit(answer: dict[str, Any], question: dict[str, Any]) -> str:
    """What is wrong with `answer` (answer.json as read) for `question` (question.json), or ""."""
    options = question.get("options") or {}
    label = (answer.get("predicted_label") or "").strip()
    text = (answer.get("predicted_answer") or "").strip()
    if options:
        keys = {str(k).strip().lower() for k in options}
        texts = {str(v).strip().lower() for v in options.values()}
        if label:
            return "" if label.lower() in keys else f"label {label[:20]!r} is none of the options {sorted(options)}"
        return "" if text.lower() in keys | texts else f"answer {text[:30]!r} is none of the options {sorted(options)}"
    words = _WORD.findall(str(question.get("question", "")).lower())
    if words and words[0] in YES_NO_OPENERS and "or" not in words:
        first = _WORD.findall(text.lower())[:1]
        if first and first[0] not in ("yes", "no"):
            return f"a yes/no question answered {text[:30]!r}"
    return ""


def misfit_in_case(answer: dict[str, Any], input_case_dir: Path) -> str:
    try:
        question = json.loads((Path(input_case_dir) / "question.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return ""
    return answer_misfit(answer, question) if isinstance(question, dict) else ""
