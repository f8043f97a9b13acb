"""Report-generation track (docs/tracks/report-generation.md): one free-text report per study.

Per study the agent writes `outputs/<study_id>/report.txt` (UTF-8, any language/script). The
scored text is the FINDINGS section when the report has section headers (case-insensitive,
rules.yaml), else the whole report — the same extraction on both sides.

Task score = mean of the AVAILABLE components, each a mean over all expected studies
(missing / invalid = 0, i.e. metric × completion):
  bleu      mean of sentence BLEU-1..4            always
  rougeL    ROUGE-L F1                            always
  meteor    METEOR (nltk's, WordNet offline)      when WordNet 3.0 is installed
  radgraph_f1, chexbert_micro_f1                  `[radiology]` extra with weights present
The aggregate names the components used and says why any is missing (`components`, `notes`);
corpus BLEU-1..4 (the number papers report) is a dataset-level metric beside it, and so are the
literature-comparable coco_bleu1..4 / coco_rougeL / coco_meteor (pycocoevalcap's definitions:
literature.py).
"""
from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...metrics.bleu import corpus_bleu
from ..pictures import CasePicture, PictureCase
from .pictures import report_pictures
from ..base import (
    AggregateResult,
    CaseCheck,
    CaseRecord,
    CaseScore,
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
from ..reducers import mean_of_present
from . import radiology, reference_profile
from .data import DATASETS
from .folder import LAYOUTS as FOLDER_LAYOUTS
from .body_parts import subject_relation, wrong_body_part
from ..relations import Relation
from .literature import literature_values
from .matching import CONTRADICTS, compare
from .options import ALL_COMPONENTS, ReportGenOptions
from .scoring import meteor_scorer, study_metrics
from .scripted import ReportScriptedMethods
from .text import Report, read_report, rules
from ..mutants import Mutant
from .mutants import reportgen_mutants

if TYPE_CHECKING:
    from ...data import DatasetInfo
    from ...data.from_folder import FolderLayout

LOGIC_FLAG = "logic_suspect"   # scoring/error_codes.yaml case_flag_codes -> LOGIC_SUSPECT

class ReportGenerationTrack(Track[ReportGenOptions]):
    name = "report-generation"
    options_model = ReportGenOptions
    runtime_packages = ("numpy", "scipy", "pillow")
    tasks_dir = Path(__file__).with_name("tasks")
    # a verbatim copy of an m-word findings section scores METEOR = 1 - 0.5/m³ (nltk, Lavie &
    # Agarwal 2007: one chunk is still a fragmentation penalty), so the gold submission's task
    # score is 1 - 0.5/(3·m³) on average; the demo's sections have >= 20 words (< 2.1e-5)
    gold_tolerance = 1e-4
    # honest reports vary a lot per study on text metrics (0.4-0.75 for the reference writer on
    # the demo, more on a handful of studies): LOGIC_SUSPECT comes from the track's own check, a
    # report about another body part (body_parts.py), not from comparing studies' scores
    logic_metric = None
    wording = TrackWording(
        rubric={
            "s1c": "for report generation: a method that reads the images and describes the "
                   "findings actually present (not one fixed normal template for every study)",
            "s2b": "the study's manifest.json and every view: image size, bit depth, view position",
        },
        skills={
            "s3": "Pilot ONE study: write its report.txt, read it back, check it is UTF-8 text with "
                  "a FINDINGS section that mentions what the images show.",
        },
        input_properties="number of views, view positions, image size, bit depth and value range",
    )

    # ---- contract -------------------------------------------------------------------------
    def mutants(self, options: ReportGenOptions) -> list[Mutant]:
        """What a look at one output must catch (mutants.py; docs/judge.md \"Experiments\")."""
        return reportgen_mutants(options)

    def submission(self, options: ReportGenOptions) -> SubmissionLayout:
        o = options
        return SubmissionLayout(
            kind="per_case",
            files=[OutputFile(name=o.output_file,
                              description=f"the {o.report_kind} for this study, UTF-8 plain text")],
            notes=(f"Write the report as plain UTF-8 text (at most {o.max_bytes // 1024} KiB). Put the "
                   "description of what the images show under a `FINDINGS:` header (an "
                   "`IMPRESSION:` may follow); when headers are present only the findings section "
                   "is scored, otherwise the whole text."))

    def metric_name(self, options: ReportGenOptions) -> str:
        return "mean(" + ", ".join(options.components) + ") over the available components"

    def default_bands(self, options: ReportGenOptions) -> MedalBands:
        return MedalBands(metric="score", good=0.80, okay=0.55)

    # ---- references and checks -------------------------------------------------------------
    def folder_layouts(self) -> list[FolderLayout]:
        """The folders `data stage --from-folder` stages (folder.py; trees in docs/your-task.md)."""
        return list(FOLDER_LAYOUTS)

    def load_reference(self, private_case_dir: Path, case_meta: dict[str, Any], options: ReportGenOptions
                       ) -> tuple[Report, dict[str, Any]]:
        o = options
        text = (private_case_dir / "report.txt").read_text(encoding="utf-8")   # raises → reference_error
        ref = Report.from_text(text, o.section)
        if not ref.tokens:
            raise ValueError(f"reference report of {private_case_dir.name} has no words in its {o.section} section")
        return ref, {}

    def check_case(self, submitted: SubmittedCase, reference_meta: dict[str, Any], options: ReportGenOptions) -> CaseCheck:
        o = options
        if submitted.dir is None:
            return CaseCheck(False, "no output folder for this study")
        text, reason = read_report(submitted.dir, o.output_file, o.max_bytes)
        if text is None:
            return CaseCheck(False, reason)
        report = Report.from_text(text, o.section)
        return CaseCheck(True, "", report, non_trivial=not report.placeholder and bool(report.tokens))

    def relations(self, prediction: Report, input_case_dir: Path, options: ReportGenOptions) -> list[Relation]:
        """The report is about the body part its study's public manifest names (body_parts.py;
        docs/judge.md "Plausibility"): a chest report for a leg film is a problem one look shows."""
        return [subject_relation(prediction, input_case_dir)] if isinstance(prediction, Report) else []

    # ---- scoring ------------------------------------------------------------------------------
    def score_case(self, prediction: Report, reference: Report, options: ReportGenOptions,
                   context: ScoringContext) -> CaseScore:
        metrics, stats = study_metrics(prediction, reference)
        extra: dict[str, Any] = {"bleu_stats": stats, "section_found": prediction.section_found}
        if prediction.placeholder:
            metrics = {k: (0.0 if v is not None else None) for k, v in metrics.items()}
            extra["reason"] = f"placeholder text {prediction.placeholder[:40]!r}, not a report: scored 0"
        elif not prediction.tokens:
            extra["reason"] = "the findings section is empty"
        if "reason" in extra:
            extra["flags"] = [extra["reason"]]       # shown per case in the detail report
            extra["why"] = extra["reason"]
        else:
            # the findings compared sentence by sentence, knowing negation, side, zone and size
            # (matching.py; docs/tracks/report-generation.md "Findings that agree"): the Why of
            # every scored study, and a contradiction is flagged
            agreement = compare(prediction.section, reference.section)
            extra["why"] = agreement.why()
            if agreement.conflicts:
                extra["flags"] = [CONTRADICTS]
            if slip := wrong_body_part(prediction.tokens, reference.tokens):
                extra["why"] = f"{slip}; {extra['why']}"
                extra["flags"] = [*extra.get("flags", []), LOGIC_FLAG]
        # the per-study task score (first)
        score = mean_of_present([metrics.get(c) for c in options.components if c in metrics])
        return CaseScore({"score": score, **metrics}, extra)

    def reference_score(self, records: list[CaseRecord], options: ReportGenOptions,
                        context: ScoringContext | None = None) -> ProfileScore:
        """The published reference's definition; null with the reason (reference_profile.py)."""
        return reference_profile.reference_score(records)

    def aggregate(self, cases: ScoredCases, options: ReportGenOptions, context: ScoringContext
                  ) -> AggregateResult:
        """Score = mean of the available components over the valid studies (the core multiplies
        by completion); the reported components are over all expected studies (missing = 0)."""
        o = options
        ok = [r for r in cases.valid if r.score is not None]
        scores = [r.score for r in ok if r.score is not None]
        n, n_ok = cases.n_expected, len(ok)
        notes: dict[str, str] = {}
        values: dict[str, float | None] = {}        # over the expected studies (reported)
        over_valid: dict[str, float | None] = {}    # over the valid studies (the score)
        per_study_means = ("bleu", "bleu1", "bleu2", "bleu3", "bleu4", "rougeL", "rougeL_p", "rougeL_r", "meteor")
        for key in per_study_means:
            vals = [s.metrics.get(key) for s in scores]
            present = [v for v in vals if v is not None]
            complete = len(present) == len(vals)     # a component missing for one study is left out
            values[key] = sum(present) / n if complete else None
            over_valid[key] = (sum(present) / n_ok if n_ok else 0.0) if complete else None
        if values["meteor"] is None and "meteor" in o.components:
            notes["meteor"] = meteor_scorer()[1] or "METEOR could not be computed"
        values.update(corpus_bleu([s.extra["bleu_stats"] for s in scores]))
        self._weight_backed(ok, n, o, context, notes, values, over_valid)
        literature, why = literature_values(cases.expected, o.meteor_1_5)   # docs: "Literature-comparable"
        values.update(literature)
        if why:
            notes["coco_meteor"] = why
        components: list[str] = [c for c in o.components if values.get(c) is not None]
        for c in ALL_COMPONENTS:
            if c not in o.components:
                notes.setdefault(c, "not requested by this task")
        score = mean_of_present([values[c] for c in components]) if components else 0.0
        # diagnostic: one fixed template for every study shows here (1/n), not in BLEU alone
        distinct = len({" ".join(r.prediction.tokens) for r in ok}) / len(ok) if ok else 0.0
        values.update({"score": score, "completion": cases.completion, "distinct_reports": distinct,
                       "n_scored": float(len(ok)), "n_expected": float(n)})
        score_valid = mean_of_present([over_valid[c] for c in components]) if components else 0.0
        return AggregateResult(score=score_valid or 0.0, metrics=values, components=components, notes=notes)

    def _weight_backed(self, ok: list[CaseRecord], n: int, o: ReportGenOptions, context: ScoringContext,
                       notes: dict[str, str], values: dict[str, float | None],
                       over_valid: dict[str, float | None]) -> None:
        """RadGraph F1 and CheXbert micro F1 into `values` (over expected studies) and
        `over_valid` (over the valid ones), or a note saying why not."""
        wanted = [c for c in rules()["weight_backed"] if c in o.components]
        if not wanted:
            return
        if not ok:
            for c in wanted:
                notes[c] = "no valid report to score"
            return
        allow = bool(context.extras.get("allow_weight_download", False))
        hyps = [r.prediction.section for r in ok]
        refs = [r.reference.section for r in ok]
        if "radgraph_f1" in wanted:
            per_study, why = radiology.radgraph_f1(hyps, refs, allow_download=allow)
            values["radgraph_f1"] = sum(per_study) / n if per_study is not None else None
            over_valid["radgraph_f1"] = sum(per_study) / len(ok) if per_study is not None else None
            if why:
                notes["radgraph_f1"] = why
        if "chexbert_micro_f1" in wanted:
            micro, why = radiology.chexbert_micro(hyps, refs, allow_download=allow)
            if micro is not None:
                # a micro F1 is a dataset-level number over the valid studies; reported × completion
                values.update({k: v * len(ok) / n for k, v in micro.items()})
                over_valid.update(micro)
            else:
                values["chexbert_micro_f1"] = over_valid["chexbert_micro_f1"] = None
                notes["chexbert_micro_f1"] = why

    # ---- data, methods, gold ------------------------------------------------------------------
    def datasets(self) -> list[DatasetInfo]:
        return list(DATASETS)

    def reference_methods(self) -> list[ReferenceMethod]:
        """The classical method the scripted agents run (docs/your-task.md section 5)."""
        return [ReferenceMethod("report_writer.py", "rule-based findings from zone densities and blobs of the frontal view, as sentences", "chest or lower-leg radiograph studies (the public manifest.json + images)", lambda o: None)]

    def scripted_methods(self, options: ReportGenOptions) -> ScriptedMethods | None:
        return ReportScriptedMethods(options)

    def case_pictures(self, case: PictureCase, options: ReportGenOptions) -> list[CasePicture]:
        """The report beside the reference, sentences marked matched / missing / extra."""
        return report_pictures(case, options.output_file)

    def gold_submission(self, dataset_root: Path, outputs: Path, options: ReportGenOptions) -> None:
        o = options
        for case in sorted((Path(dataset_root) / "private").iterdir()):
            if (case / "report.txt").is_file():
                (outputs / case.name).mkdir(parents=True, exist_ok=True)
                shutil.copyfile(case / "report.txt", outputs / case.name / o.output_file)

