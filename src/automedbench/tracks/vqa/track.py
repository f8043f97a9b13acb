"""Medical VQA track (docs/tracks/vqa.md): one question per case, open-ended or multiple choice.

Input  public/<qid>/question.json  {question_id, question, images: [file names], options
       ({label: text}, MCQ only), question_type} + the image files.
Output outputs/<qid>/answer.json   {question_id, predicted_label (MCQ), predicted_answer,
       raw_model_output, model_name}.
Reference private/<qid>/answer.json {question_id, question, answer, alternatives: [...],
       label (MCQ), options (MCQ), question_type, answer_type}.

Per-case score (metrics/answer_match.py; normalisation is the table answer_normalisation.yaml):
  MCQ  exact label: `predicted_label` if given, else a label parsed from `predicted_answer`
       with the documented parser (parse_choice).
  open yes/no reference: strict polarity match; otherwise max(EM, token-F1) over the reference
       and its alternatives.
  Placeholders ("unknown", "n/a", an empty answer, or an empty raw_model_output beside a
  non-empty answer) score 0 and are flagged: CaseScore.extra["flags"] = ["placeholder"] (the
  core fires PLACEHOLDER_OUTPUT for flagged cases).
Optional LLM answer judge (ScoringContext.answer_judge, open questions only; the core's judge
caches its verdicts): {0, 0.5, 1}; a question it could not judge is None, never 0. Reported beside the deterministic
score with their agreement rate; it never replaces the task score.
Task score = mean per-case score over ALL expected questions (missing/invalid = 0).
"""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...llm.answer_judge import ALLOWED as JUDGE_VALUES
from ...llm.answer_judge import JudgeInstructions, LLMAnswerJudge
from ...metrics.answer_match import is_placeholder, load_table, parse_choice, score_open
from ..pictures import CasePicture, PictureCase, not_scored_note, panels, read_png_gray, text_as_written, text_card
from ..base import (
    AggregateResult,
    CaseCheck,
    CaseRecord,
    CaseScore,
    CaseStatus,
    MedalBands,
    OutputFile,
    ScoredCases,
    ScoringContext,
    ScriptedMethods,
    SubmissionLayout,
    SubmittedCase,
    Track,
    TrackWording,
    ReferenceMethod,
)
from ..profile import ProfileScore
from ..reducers import case_value, mean_of_present, mean_over_cases
from ..safety import safe_output_file
from . import reference_profile
from .data import DATASETS
from .folder import LAYOUTS as FOLDER_LAYOUTS
from .options import ANSWER_FILE, VQAOptions
from .plausible import relations_in_case
from ..relations import Relation
from .scripted import VQAScriptedMethods
from ..mutants import Mutant
from .mutants import vqa_mutants

if TYPE_CHECKING:
    from ...data import DatasetInfo
    from ...data.from_folder import FolderLayout

PLACEHOLDER_FLAG = "placeholder"   # scoring/error_codes.yaml case_flag_codes -> PLACEHOLDER_OUTPUT
# the core answer judge's instructions for VQA (text and version unchanged since the judge was
# written, so verdicts cached under this version stay valid)
JUDGE_INSTRUCTIONS = JudgeInstructions(
    text=("You grade answers to medical visual question answering. Compare the PREDICTED answer to "
          "the REFERENCE answer for the QUESTION. Reply with JSON only: {\"score\": 1} when they mean "
          "the same, {\"score\": 0.5} when the prediction is partly right (e.g. right finding, wrong "
          "location), {\"score\": 0} otherwise. Judge meaning, not wording."),
    version="answer-judge-1")


# ---- answer.json ------------------------------------------------------------------------------
def read_answer(case_dir: Path, case_id: str, mcq: bool, max_bytes: int) -> tuple[dict | None, str]:
    """Load and validate one answer.json; (answer, "") or (None, one-line reason). Never raises."""
    path, reason = safe_output_file(case_dir, ANSWER_FILE)
    if path is None:
        return None, reason
    try:
        size = path.stat().st_size
        if size > max_bytes:
            return None, f"{ANSWER_FILE}: {size} bytes, larger than the {max_bytes}-byte limit (refused)"
        raw = path.read_bytes()
    except OSError as exc:
        return None, f"{ANSWER_FILE}: unreadable: {exc.strerror}"
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None, f"{ANSWER_FILE}: not UTF-8 text (binary data?)"
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        return None, f"{ANSWER_FILE}: malformed JSON: {getattr(exc, 'msg', exc)}".rstrip()
    if not isinstance(data, dict):
        return None, f"{ANSWER_FILE}: expected a JSON object, got {type(data).__name__}"
    qid = data.get("question_id")
    if qid != case_id:
        return None, f"{ANSWER_FILE}: question_id {str(qid)[:40]!r} does not match the case {case_id!r}"
    for key in ("predicted_answer", "raw_model_output", "model_name"):
        if key not in data:
            return None, f"{ANSWER_FILE}: missing field {key!r}"
        if not isinstance(data[key], str):
            return None, f"{ANSWER_FILE}: {key!r} must be a string, got {type(data[key]).__name__}"
    if not data["model_name"].strip():
        return None, f"{ANSWER_FILE}: 'model_name' is empty"
    label = data.get("predicted_label")
    if label is not None and not isinstance(label, str):
        return None, f"{ANSWER_FILE}: 'predicted_label' must be a string or null, got {type(label).__name__}"
    if mcq and "predicted_label" not in data:
        return None, f"{ANSWER_FILE}: missing field 'predicted_label' (multiple-choice question)"
    return {"question_id": qid, "predicted_answer": data["predicted_answer"],
            "predicted_label": label, "raw_model_output": data["raw_model_output"],
            "model_name": data["model_name"]}, ""


def placeholder_reason(answer: dict[str, Any], mcq: bool) -> str:
    """Why an answer is a placeholder, or "" when it is a real answer."""
    table = load_table()
    label, text = answer.get("predicted_label"), answer.get("predicted_answer", "")
    if mcq:
        has_answer = bool((label or "").strip()) and not is_placeholder(label, table)
        has_answer = has_answer or not is_placeholder(text, table)
    else:
        has_answer = not is_placeholder(text, table)
    if not has_answer:
        shown = (label if mcq and label else text).strip()[:30]
        return f"placeholder answer {shown!r}" if shown else "empty answer"
    if not answer.get("raw_model_output", "").strip():
        return "raw_model_output is empty while an answer is present"
    return ""


# ---- the answer judge -------------------------------------------------------------------------
def judge_answer(context: ScoringContext, question: str, reference: str, prediction: str) -> float | None:
    """The context's answer judge (the core's LLM judge is given the VQA instructions and caches
    its verdicts by model, instructions version and content; any other judge is called with the
    three strings). A verdict outside {0, 0.5, 1} or an exception is "could not judge" (None),
    never 0."""
    judge = context.answer_judge
    if judge is None:
        return None
    try:
        if isinstance(judge, LLMAnswerJudge):
            value = judge(question, reference, prediction, instructions=JUDGE_INSTRUCTIONS)
        else:
            value = judge(question, reference, prediction)
    except Exception:  # noqa: BLE001 — a judge fault is never the agent's: unjudged, not 0
        return None
    if value is None or isinstance(value, bool) or not isinstance(value, (int, float)) \
            or float(value) not in JUDGE_VALUES:
        return None
    return float(value)


def _quote(text: Any, limit: int = 80) -> str:
    t = " ".join(str(text or "").split())
    return repr(t if len(t) <= limit else t[:limit].rsplit(" ", 1)[0] + "…")


def _rule_words(rule: str) -> str:
    """The open-answer rule that gave 0 (metrics/answer_match.py score_open), in words."""
    if rule.startswith("contradiction:"):
        return f"contradicts the ground truth: {rule.split(':', 1)[1]}"
    return {"yes_no": "yes/no differs", "em_f1": "no word in common",
            "empty_after_normalisation": "nothing left once normalised"}.get(rule, rule)


def _wrong_choice_why(label: str | None, rule: str, reference: dict[str, Any]) -> str:
    """Why a multiple-choice answer scored 0, in one line (docs/tracks.md `extra["why"]`)."""
    opts = reference.get("options") or {}
    ref = f"{reference['label']} ({_quote(opts.get(reference['label'], ''), 40)})"
    if label is None:
        return f"no option recognised in the answer ({rule}); ground truth {ref}"
    return f"chose {label} ({_quote(opts.get(label, ''), 40)}), ground truth {ref}"


def _nearest_half(x: float) -> float:
    """Deterministic score on the judge's grid {0, 0.5, 1} (ties go up) for the agreement rate."""
    return math.floor(x * 2 + 0.5) / 2


class VQATrack(Track[VQAOptions]):
    name = "vqa"
    options_model = VQAOptions
    runtime_packages: tuple[str, ...] = ("numpy", "scipy", "pillow")
    tasks_dir = Path(__file__).with_name("tasks")
    # LOGIC_SUSPECT compares each case with the best one; a VQA case is right or wrong (0/1, or a
    # token-F1), so a wrong answer beside a right one is the accuracy itself, not the signature
    # of a flipped axis or wrong label map. None = no per-case metric for it (scoring/error_codes.py).
    logic_metric = None
    wording = TrackWording(
        rubric={"s1c": "For VQA: a method that reads the image AND the question (a medical VQA "
                       "model or an explicit rule per question type), not a text-only guess.",
                "s2b": "Checked a question.json and its image(s): fields, options, image size/mode."},
        skills={"s3": "Answer ONE question end to end, open answer.json and check question_id, the "
                      "label against the options (MCQ) and that the answer is not a placeholder."},
        input_properties="question fields, options, image size and mode")

    # ---- contract ---------------------------------------------------------------------------
    def mutants(self, options: VQAOptions) -> list[Mutant]:
        """What a look at one output must catch (mutants.py; docs/judge.md \"Experiments\")."""
        return vqa_mutants(options)

    def submission(self, options: VQAOptions) -> SubmissionLayout:
        opts = options
        label_rule = {"open": "`predicted_label`: null (open questions)",
                      "mcq": "`predicted_label`: the chosen option's label, e.g. \"B\"",
                      "mixed": "`predicted_label`: the chosen option's label for questions with "
                               "`options`, else null"}[opts.mode]
        return SubmissionLayout(
            kind="per_case",
            files=[OutputFile(name=ANSWER_FILE, description=(
                "a JSON object with `question_id` (the case id), `predicted_label`, "
                "`predicted_answer` (the answer text), `raw_model_output` (the full text your "
                "model or method produced) and `model_name`"))],
            notes=(f"{label_rule}. Give a real answer: placeholders such as \"unknown\" or "
                   f"\"n/a\", or an empty `raw_model_output`, score 0 and are flagged. "
                   f"UTF-8 JSON, at most {opts.max_answer_bytes} bytes."))

    def metric_name(self, options: VQAOptions) -> str:
        return {"open": "open-answer score: yes/no strict, else max(EM, token-F1)",
                "mcq": "multiple-choice accuracy (exact label)",
                "mixed": "VQA accuracy (MCQ exact label; open: yes/no strict, else max(EM, token-F1))"
                }[options.mode]

    def default_bands(self, options: VQAOptions) -> MedalBands:
        return MedalBands(metric="score", good=0.40, okay=0.25)

    # ---- per case ---------------------------------------------------------------------------
    def load_reference(self, private_case_dir: Path, case_meta: dict[str, Any], options: VQAOptions
                       ) -> tuple[dict[str, Any], dict[str, Any]]:
        ref = json.loads((private_case_dir / ANSWER_FILE).read_text())
        if not isinstance(ref, dict) or not (ref.get("answer") or ref.get("label")):
            raise ValueError(f"{private_case_dir.name}: reference has neither answer nor label")
        mcq = bool(ref.get("label"))
        if mcq and ref["label"] not in (ref.get("options") or {}):
            raise ValueError(f"{private_case_dir.name}: reference label {ref['label']!r} is not an option")
        return ref, {"mcq": mcq, "labels": sorted(ref.get("options") or {})}

    def relations(self, prediction: dict[str, Any], input_case_dir: Path, options: VQAOptions) -> list[Relation]:
        """The answer is of the kind its question asks for: one of its options, yes or no, a
        count, a plane, a modality, a body region (plausible.py; tracks/relations.py `Answer`)."""
        return list(relations_in_case(prediction, input_case_dir))

    def check_case(self, submitted: SubmittedCase, reference_meta: dict[str, Any], options: VQAOptions) -> CaseCheck:
        try:
            opts = options
            if submitted.dir is None:
                return CaseCheck(False, "no output folder for this question")
            mcq = bool(reference_meta.get("mcq"))
            answer, reason = read_answer(submitted.dir, submitted.case_id, mcq, opts.max_answer_bytes)
            if answer is None:
                return CaseCheck(False, reason)
            answer["placeholder"] = placeholder_reason(answer, mcq)
            return CaseCheck(True, "", prediction=answer, non_trivial=not answer["placeholder"])
        except Exception as exc:  # noqa: BLE001 — the checker never raises for bad agent output
            return CaseCheck(False, f"{ANSWER_FILE}: unreadable ({type(exc).__name__})")

    def score_case(self, prediction: dict[str, Any], reference: dict[str, Any], options: VQAOptions,
                   context: ScoringContext) -> CaseScore:
        opts = options
        mcq = bool(reference.get("label"))
        # check_case already decided ("" = a real answer); recompute only for a bare prediction
        placeholder = prediction["placeholder"] if "placeholder" in prediction else placeholder_reason(prediction, mcq)
        extra: dict[str, Any] = {"question_type": reference.get("question_type", "unknown"),
                                 "answer_type": "mcq" if mcq else reference.get("answer_type", "open")}
        if placeholder:
            extra.update(placeholder=True, flags=[PLACEHOLDER_FLAG], reason=placeholder,
                         why=placeholder)
            metrics: dict[str, float | None] = {"score": 0.0, "placeholder": 1.0}
            if not mcq:
                metrics.update(em=0.0, f1=0.0, judged=0.0)
            return CaseScore(metrics=metrics, extra=extra)
        if mcq:
            options_map = reference.get("options") or {}
            text = prediction.get("predicted_label") or prediction.get("predicted_answer") or ""
            label, rule = parse_choice(text, options_map, options_map)
            if label is None and prediction.get("predicted_label"):
                # the label field held no label ("pneumonia"): fall back to the answer text
                label, second = parse_choice(prediction.get("predicted_answer"), options_map, options_map)
                rule = second if label else f"predicted_label: {rule}; predicted_answer: {second}"
            extra.update(parsed_label=label, label_rule=rule)
            correct = float(label == str(reference["label"]).upper())
            extra["why"] = "" if correct else _wrong_choice_why(label, rule, reference)
            return CaseScore(metrics={"score": correct, "placeholder": 0.0}, extra=extra)
        refs = [reference["answer"], *(reference.get("alternatives") or [])]
        result = score_open(prediction["predicted_answer"], refs)
        extra["rule"] = result["rule"]
        if not result["score"]:
            extra["why"] = (f"answered {_quote(prediction['predicted_answer'])}, ground truth "
                            f"{_quote(reference['answer'])} ({_rule_words(str(result['rule']))})")
        judged = None
        if opts.use_answer_judge and context.answer_judge is not None:
            judged = judge_answer(context, str(reference.get("question", "")), str(reference["answer"]),
                                  prediction["predicted_answer"])
        return CaseScore(metrics={"score": result["score"], "em": result["em"], "f1": result["f1"],
                                  "judged": judged, "placeholder": 0.0}, extra=extra)

    # ---- whole task -------------------------------------------------------------------------
    def reference_score(self, records: list[CaseRecord], options: VQAOptions, context: ScoringContext) -> ProfileScore:
        """The published reference's task score (reference_profile.py; docs/scoring-profiles.md)."""
        return reference_profile.reference_score(records)

    def aggregate(self, cases: ScoredCases, options: VQAOptions, context: ScoringContext) -> AggregateResult:
        """Mean per-question score over the valid questions (the core multiplies by completion);
        the reported accuracies are means over the expected questions of each kind (an
        unanswered one counts 0)."""
        scorable = cases.expected

        def kind(r: CaseRecord) -> str:
            if r.score is not None and "answer_type" in r.score.extra:
                return str(r.score.extra["answer_type"])
            if r.reference is not None:
                return "mcq" if r.reference.get("label") else str(r.reference.get("answer_type", "open"))
            return str(r.meta.get("answer_type", "open"))

        def qtype(r: CaseRecord) -> str:
            return str(r.meta.get("question_type") or (r.reference or {}).get("question_type") or "unknown")

        score = mean_over_cases(scorable, "score") or 0.0
        ok = cases.valid
        open_recs = [r for r in scorable if kind(r) != "mcq"]
        flagged = [r for r in ok if r.score is not None and r.score.extra.get("placeholder")]
        metrics: dict[str, float | None] = {
            "score": score, "accuracy": score, "n_questions": float(len(scorable)),
            "completion": cases.completion,
            "n_placeholder": float(len(flagged)), "placeholder_rate": len(flagged) / len(scorable),
            "mcq_accuracy": mean_over_cases([r for r in scorable if kind(r) == "mcq"], "score"),
            "closed_accuracy": mean_over_cases([r for r in open_recs if kind(r) == "closed"], "score"),
            "open_score": mean_over_cases([r for r in open_recs if kind(r) != "closed"], "score"),
            "em": mean_over_cases(open_recs, "em"),
            "token_f1": mean_over_cases(open_recs, "f1"),
        }
        for t in sorted({qtype(r) for r in scorable}):
            metrics[f"by_type.{t}"] = mean_over_cases([r for r in scorable if qtype(r) == t], "score")
        notes: dict[str, str] = {}
        # the score a guess earns: 1/options per multiple-choice question, 1/2 per yes/no
        # question, 0 per open one; medal bands start above it (docs/scoring.md "Medals start above chance")
        metrics["chance_level.score"] = sum(_chance(r.reference) for r in scorable) / len(scorable)
        notes["chance_level.score"] = ("a guess per question: 1/options for multiple choice, 1/2 for yes/no, "
                                 "0 for open answers; the medal bands are read from it up")
        # the score is the deterministic answer score alone; the LLM answer judge's verdicts are
        # reported beside it and never change it, so they are no component (docs/scoring.md#task-score)
        components = ["deterministic"]
        # the LLM answer judge, beside the deterministic score (open questions only). Questions
        # without an answer (missing / invalid / placeholder) count 0 in the judged score, as in
        # the deterministic one; coverage and agreement are over the ANSWERED questions only.
        asked = [r for r in open_recs if r.status == CaseStatus.OK and r.score is not None
                 and not r.score.extra.get("placeholder")]
        verdicts = [(r, r.score.metrics.get("judged")) for r in asked if r.score is not None]
        verdicts = [(r, v) for r, v in verdicts if v is not None]
        if verdicts:
            asked_ids = {id(r) for r in asked}
            unanswered = [0.0 for r in open_recs if id(r) not in asked_ids]
            metrics["judged_score"] = mean_of_present([float(v) for _, v in verdicts if v is not None] + unanswered)
            metrics["judge_coverage"] = len(verdicts) / len(asked)
            metrics["judge_agreement"] = mean_of_present([float(_nearest_half(case_value(r, "score")) == v)
                                                          for r, v in verdicts])
            if len(verdicts) < len(asked):
                notes["judged_score"] = (f"{len(asked) - len(verdicts)} answered open question(s) could not be "
                                         "judged (left out, not 0)")
        else:
            metrics.update(judged_score=None, judge_coverage=None, judge_agreement=None)
            notes["judged_score"] = ("no open questions" if not open_recs else
                                     "no LLM answer judge configured" if context.answer_judge is None
                                     else "the answer judge judged no question")
        return AggregateResult(score=mean_over_cases(ok, "score") or 0.0, metrics=metrics,
                               components=components, notes=notes)

    # ---- data, methods, gold ----------------------------------------------------------------
    def datasets(self) -> list[DatasetInfo]:
        return list(DATASETS)

    def reference_methods(self) -> list[ReferenceMethod]:
        """The classical method the scripted agents run (docs/your-task.md section 5)."""
        return [ReferenceMethod("vqa_rules.py", "rules on the question text and image statistics (count, finding, plane, modality, region); MCQ answers matched to the options", "any task (question.json + its images)", lambda o: None)]

    def scripted_methods(self, options: VQAOptions) -> ScriptedMethods | None:
        return VQAScriptedMethods(options)

    def folder_layouts(self) -> list[FolderLayout]:
        """The folders `data stage --from-folder` stages (folder.py; trees in docs/your-task.md)."""
        return list(FOLDER_LAYOUTS)

    def case_pictures(self, case: PictureCase, options: VQAOptions) -> list[CasePicture]:
        """The image(s), and a card with the question, the answer, the reference and the verdict."""
        try:
            q = json.loads((case.public_dir / "question.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            q = {}
        ref: dict[str, Any] = case.reference
        pred: dict[str, Any] | None = case.prediction
        opts = ref.get("options") or q.get("options") or {}
        score = case.metrics.get("score")
        verdict = "could not be judged" if score is None else "correct" if score >= 1 else \
            "partly correct" if score > 0 else "wrong"
        answer = (" / ".join(str(x) for x in (pred.get("predicted_label"), pred.get("predicted_answer")) if x)
                  if pred is not None else "(as written) " + (text_as_written(case.output_dir, ANSWER_FILE) or "—"))
        rows = [("question", str(q.get("question", ""))),
                *([("options", "; ".join(f"{k}: {v}" for k, v in opts.items()))] if opts else []),
                ("answer", answer),
                ("ground truth", " / ".join(str(x) for x in (ref.get("label"), ref.get("answer")) if x))]
        head = not_scored_note(case) if pred is None else f"{verdict} (score {score})"
        good = False if pred is None else None if score is None else score >= 1
        pics = [CasePicture("answer.html", text_card(rows, head, good), "question, answer, ground truth and verdict"
                            + (f" · {not_scored_note(case)}" if pred is None else ""), "text/html")]
        images = [g for g in (read_png_gray(case.public_dir / str(n)) for n in (q.get("images") or [])[:2]) if g is not None]
        if images:
            pics.insert(0, CasePicture("image.png", panels([(g, f"image {i + 1}") for i, g in enumerate(images)]),
                                       "the image the question is about"))
        return pics

    def gold_submission(self, dataset_root: Path, outputs: Path, options: VQAOptions) -> None:
        """answer.json from every private reference (label + answer text)."""
        manifest = json.loads((Path(dataset_root) / "manifest.json").read_text())
        for case in manifest["cases"]:
            qid = case["case_id"]
            ref = json.loads((Path(dataset_root) / "private" / qid / ANSWER_FILE).read_text())
            answer = ref.get("answer") or (ref.get("options") or {}).get(ref.get("label"), "")
            out = Path(outputs) / qid
            out.mkdir(parents=True, exist_ok=True)
            (out / ANSWER_FILE).write_text(json.dumps({
                "question_id": qid, "predicted_label": ref.get("label"), "predicted_answer": answer,
                "raw_model_output": f"gold: {answer}", "model_name": "gold-reference"}))


def _chance(reference: dict[str, Any] | None) -> float:
    """What a uniform guess scores on one question (docs/scoring.md "Medals start above chance")."""
    if not reference:
        return 0.0
    if reference.get("label"):
        return 1.0 / max(1, len(reference.get("options") or {}))
    answers = {str(a).strip().lower() for a in [reference.get("answer"), *(reference.get("alternatives") or [])]}
    return 0.5 if answers and answers <= {"yes", "no"} else 0.0
