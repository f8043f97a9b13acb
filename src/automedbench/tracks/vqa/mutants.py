"""VQA's broken outputs (docs/judge.md "Experiments"): empty and placeholder answers (content);
an answer filed under another question, an answer file without its answer (form)."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..mutants import Apply, Mutant, UnitFiles, edit_json
from .options import ANSWER_FILE, VQAOptions

ANSWER_KEYS = ("predicted_answer", "predicted_label", "raw_model_output")


def _answer(fn: Callable[[dict[str, Any]], "dict[str, Any] | None"]) -> Apply:
    def edit(doc: Any) -> Any:
        return fn(dict(doc)) if isinstance(doc, dict) else None

    def apply(files: UnitFiles) -> bool:
        p = files.get(ANSWER_FILE)
        return p is not None and edit_json(p, edit)
    return apply


def _set(value: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """Every answer text replaced; a key that holds no text (a label left null) keeps its value,
    so the mutant changes the content and not the form (docs/judge.md "Experiments": a look at
    the keys and their types must kill no content mutant)."""
    return lambda d: {**d, **{k: value for k in ANSWER_KEYS if isinstance(d.get(k), str)}}


def _other_question(d: dict[str, Any]) -> dict[str, Any] | None:
    q = d.get("question_id")
    if q is None:
        return None
    return {**d, "question_id": f"{q}_other" if isinstance(q, str) else q + 1}


def _without_answer(d: dict[str, Any]) -> dict[str, Any] | None:
    return {k: v for k, v in d.items() if k != "predicted_answer"} if "predicted_answer" in d else None


def vqa_mutants(options: VQAOptions) -> list[Mutant]:
    return [
        Mutant("placeholder", 'the placeholder "unknown" for every answer', _answer(_set("unknown"))),
        # form: whether there is any answer at all (docs/judge.md "Verdicts": emptiness is form)
        Mutant("empty_answer", "an empty answer", _answer(_set("")), aspect="form"),
        Mutant("other_question", "the answer filed under another question's id", _answer(_other_question),
               aspect="form"),
        Mutant("answer_missing", "the predicted_answer field left out", _answer(_without_answer), aspect="form"),
    ]
