"""The track seam: small protocols the core reads, each with one job (docs/tracks.md).

The core runs the workflow (prompt → agent ⇄ sandbox → scoring → judge → report); a track
only knows its data and its metric. A track is a package `tracks/<name>/` that provides an
object satisfying `Track` below and registers it by name (tracks/registry.py; third-party
packages through the `automedbench.tracks` entry-point group). Adding a track or a task
edits no core file.

A track IS its contract and its scoring; everything else is an optional kit beside them.
`Track[OptionsT]` is composed of:
  - `TrackContract`  what the agent is told: typed options (`options_model`, `parse_options`),
                     the output layout (`submission`, which the prompt and the format check both
                     read) and the track's wording (rubric, skills, heuristic-judge patterns)
  - `TrackScoring`   `load_reference`, `check_case`, `score_case`, `aggregate` over the VALID
                     cases, `metric_name`, `default_bands`; the core applies the rules around
                     them once (scoring/task_score.py): reference errors left out, missing and
                     invalid cases count 0, score × completion
  - `TrackAssets`    the optional kit, every member with a default: datasets, scripted methods
                     (real step scripts run with JSON arguments: tracks/scripted_code.py), the
                     gold submission, sandbox packages, tasks, pictures, folder layouts, label
                     names, the published reference's score
Every optional capability is declared on its protocol with a default; a track subclassing
`Track` inherits the defaults, so the core never asks for an undeclared attribute, and a track
that defines only the contract's and the scoring's required members runs end to end.
Shared reducers for `aggregate` (mean over cases, macro over classes): tracks/reducers.py.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Callable, Literal, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field
from pydantic.dataclasses import dataclass as pydantic_dataclass

from ..data.from_folder import GENERIC_LAYOUT, FolderLayout
from ..number_format import COUNT_NAMES
from .mutants import GENERIC_MALIGN, Mutant
from .relations import Relation, mismatch

if TYPE_CHECKING:
    from ..data import DatasetInfo
    from .pictures import CasePicture, PictureCase


# metric names that say "a count" (printed as integers on the site and the CLI: number_format.py):
# the tracks name theirs so
COUNT_METRIC_NAMES = COUNT_NAMES



# a track option's json_schema_extra marking it as presentation only (how pictures are drawn):
# left out of the task's hash, so changing it never splits a board (Task.hashed_snapshot)
PRESENTATION: dict[str, Any] = {"presentation": True}

class CaseStatus(str, enum.Enum):
    """What happened to one expected case. Never parsed from a reason string."""

    OK = "ok"                            # valid output, scored
    MISSING = "missing"                  # the agent wrote nothing for this case
    INVALID = "invalid"                  # output present but failed the format check
    REFERENCE_ERROR = "reference_error"  # our private reference is unreadable: a harness fault,
                                         # left out of the task score, S4 and S5 (docs/scoring.md#task-score)


@dataclass
class SubmittedCase:
    """One case's submission as the core found it.

    per-case layout: `dir` = outputs/<case_id>/ (it exists; the track reads its files with
    tracks.safety.safe_output_file). Cohort layout: `row` = that case's parsed row/entry of
    the cohort file (the core parsed the file, refused duplicates and unknown ids)."""

    case_id: str
    dir: Path | None = None
    row: dict[str, Any] | None = None


@dataclass
class CaseCheck:
    valid: bool
    reason: str = ""
    # the loaded, validated prediction, passed on to score_case (avoids a second read)
    prediction: Any = None
    # False when the output is valid but trivial (an all-zero mask, an empty answer): S5 asks for
    # at least one valid NON-trivial case, and PLACEHOLDER_OUTPUT fires when all are trivial.
    non_trivial: bool = True


@dataclass
class CaseScore:
    # named per-case metrics; None = not applicable / could not be judged (never 0 by default)
    metrics: dict[str, float | None]
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class CaseRecord:
    """One record per EXPECTED case; `aggregate` gets those that are not reference errors
    (ScoredCases)."""

    case_id: str
    meta: dict[str, Any]          # the manifest's entry for this case (e.g. lesion_positive, boxes)
    status: CaseStatus
    score: CaseScore | None = None
    reason: str = ""
    prediction: Any = None        # the checked prediction (dataset-level metrics need it: mAP, BLEU)
    reference: Any = None         # the loaded reference (None for reference_error)


@dataclass
class AggregateResult:
    """What `aggregate` returns: `score` = the track's metric in [0, 1] over the VALID cases
    (the core multiplies it by completion to make the task score, docs/tracks.md), plus named
    dataset-level metrics saved in detail_report.json (`task.aggregate_metrics`)."""

    score: float
    metrics: dict[str, float | None] = field(default_factory=dict)
    # which metric components were actually used (text metrics: BLEU, ROUGE-L, … ; docs/scoring.md#task-score)
    components: list[str] = field(default_factory=list)
    # why a component is missing, e.g. {"meteor": "WordNet not installed"}
    notes: dict[str, str] = field(default_factory=dict)
    # dataset-level findings naming cases, e.g. {"logic_suspect": [ids]} for a label shift seen in
    # the confusion matrix; each flag becomes a per-case flag and fires the error code that
    # scoring/error_codes.yaml `case_flag_codes` maps it to
    flags: dict[str, list[str]] = field(default_factory=dict)


@dataclass
class ScoringContext:
    """Services a metric may need, injected by the core (no I/O inside metrics otherwise).

    answer_judge: optional LLM answer judge for free-text answers: (question, reference, prediction) -> 0/0.5/1,
    or None when it could not judge (then the case's judged metric is None, never 0)."""

    answer_judge: Callable[[str, str, str], float | None] | None = None
    cache_dir: Path | None = None
    extras: dict[str, Any] = field(default_factory=dict)


class OutputFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    description: str


class SubmissionLayout(BaseModel):
    """Where the agent's outputs go. Generated by the track from its options; the prompt's
    output contract and the core's format checks both read this, so they cannot disagree."""

    model_config = ConfigDict(extra="forbid")
    kind: Literal["per_case", "cohort"]
    # per_case: files inside outputs/<case_id>/ ; cohort: exactly one file inside outputs/
    files: list[OutputFile]
    # cohort only: how the file is parsed by the core (tracks/cohort.py)
    cohort_format: Literal["csv", "json"] | None = None
    key: str = "case_id"                  # the column / field naming the case
    columns: list[str] = Field(default_factory=list)   # required columns besides the key (csv)
    notes: str = ""                       # extra contract text (dtype, shape, value rules)
    # what one unit of work is for the judge's pilot/batch facts (docs/judge.md): a case folder
    # (per_case) or a row of the cohort file (cohort); None = the default for `kind`
    unit: Literal["case", "cohort_row"] | None = None
    # the largest share of the expected units a pilot may cover (at least one unit)
    pilot_max_fraction: float = Field(default=0.25, gt=0, lt=1)

    @property
    def effective_unit(self) -> str:
        return self.unit or ("case" if self.kind == "per_case" else "cohort_row")

    @property
    def file_names(self) -> list[str]:
        return [f.name for f in self.files]

    def contract(self, workspace_dir: str) -> str:
        """The prompt's output contract, generated (never a second hand-written list)."""
        lines = []
        if self.kind == "per_case":
            lines.append(f"For EVERY case write `{workspace_dir}/outputs/<case_id>/` containing:")
            lines += [f"- `{f.name}`: {f.description}" for f in self.files]
        else:
            (f,) = self.files
            cols = ", ".join([self.key, *self.columns])
            what = f"a CSV file with a header row `{cols}` and one row per case" if self.cohort_format == "csv" \
                else f"a JSON object mapping each `{self.key}` to its entry"
            lines.append(f"Write ONE file for the whole cohort: `{workspace_dir}/outputs/{f.name}` — {what}.")
            lines.append(f"- `{f.name}`: {f.description}")
        if self.notes.strip():
            lines.append(self.notes.strip())
        return "\n".join(lines)


class MedalBands(BaseModel):
    """Medal thresholds on one aggregate metric (higher is better). Rating: good → A,
    okay → B, a valid submission below okay → C; none valid / disqualified → F."""

    model_config = ConfigDict(extra="forbid")
    metric: str                           # a key of AggregateResult.metrics ("score" = task score)
    good: float
    okay: float
    fallback_metric: str | None = None    # used when `metric` is None (e.g. no lesion-positive case)
    source: str = "track default"         # or "task.yaml", or "<dataset>/bands.json (baselines)"


class TrackWording(BaseModel):
    """The track's words for the generic parts: rubric items, skills, the heuristic judge's
    evidence patterns. All optional; the core has generic defaults."""

    model_config = ConfigDict(extra="forbid")
    # rubric item id -> track-specific wording appended to the generic item text (s1c, s2b, …)
    rubric: dict[str, str] = Field(default_factory=dict)
    # stage id (s1..s5) -> skill text appended to the generic skill in tiers that get skills
    skills: dict[str, str] = Field(default_factory=dict)
    # what the agent checks on an input (prompt wording: "shape, spacing, dtype, intensity")
    input_properties: str = "shape, dtype and value range"


OptionsT = TypeVar("OptionsT", bound=BaseModel)
# the scoring and asset protocols only take options in: contravariant (mypy checks variance)
OptionsInT = TypeVar("OptionsInT", bound=BaseModel, contravariant=True)


@dataclass(frozen=True)
class ScoredCases:
    """What `TrackScoring.aggregate` is given: the core has already applied its rules
    (docs/tracks.md, "What the core owns"). Reference errors are left out; `valid` holds the
    cases whose output passed the format check and was scored (status OK); `unanswered` holds
    the missing and invalid ones — their manifest meta and reference, never a prediction or a
    score — for dataset-level metrics that must count what was missed (e.g. the reference
    boxes of an unanswered image). `expected` is both, in manifest order."""

    expected: list[CaseRecord]

    @property
    def valid(self) -> list[CaseRecord]:
        return [r for r in self.expected if r.status is CaseStatus.OK]

    @property
    def unanswered(self) -> list[CaseRecord]:
        return [r for r in self.expected if r.status is not CaseStatus.OK]

    @property
    def n_expected(self) -> int:
        return len(self.expected)

    @property
    def completion(self) -> float:
        """valid / expected (reference errors excluded); the core multiplies the track's score
        over the valid cases by it."""
        return len(self.valid) / len(self.expected) if self.expected else 0.0


@runtime_checkable
class TrackContract(Protocol[OptionsT]):
    """What the agent is told: options, output layout, wording. One job: the contract."""

    name: str
    options_model: type[OptionsT]
    # optional: the track's words for the generic parts (default: the core's generic wording)
    wording: TrackWording = TrackWording()

    def parse_options(self, raw: OptionsT | Mapping[str, Any] | None,
                      context: Mapping[str, Any] | None = None) -> OptionsT:
        """The one way to get a track's typed options: a model passes through, a mapping is
        validated by `options_model` (whose `extra="forbid"` refuses unknown keys), None gives
        the defaults. `context` is the pydantic validation context: a task passes the fields an
        option may follow (`input_files`: docs/tracks.md "Options that follow the task").
        Inherited by every track subclassing `Track`."""
        if isinstance(raw, self.options_model):
            return raw
        return self.options_model.model_validate(dict(raw or {}), context=dict(context or {}))

    def submission(self, options: OptionsT) -> SubmissionLayout: ...


# one definition: what a track's `reference_score` returns is what detail_report.json records
# under task.profile_scores (a pydantic dataclass, so the report's schema includes it)
@pydantic_dataclass(frozen=True, config=ConfigDict(extra="forbid"))
class ProfileScore:
    """One scoring profile's task score (docs/scoring-profiles.md)."""

    score: float | None = None    # None: not defined for this track, or not computable here
    definition: str = ""          # one line: what the number is
    note: str = ""                # why it is None, or what the reference leaves undefined


@runtime_checkable
class TrackScoring(Protocol[OptionsInT]):
    """How a submission is read and scored. The core owns the rules around it (status per
    case, reference-error exclusion, missing/invalid = 0, completion): docs/tracks.md."""

    # optional capabilities (declared here with their defaults; docs/tracks.md lists them):
    # False = `aggregate` reads only per-case metrics, so the core frees each case's prediction
    # and reference once it is scored (volumes: memory stays at a few cases)
    aggregate_uses_case_data: bool = True
    # LOGIC_SUSPECT: the per-case metric compared across cases ("" = the first one; None = none,
    # the track flags suspicious cases from `aggregate` through AggregateResult.flags) ...
    logic_metric: str | None = ""
    # ... and the fraction of the best case below which a valid case is suspicious
    logic_drop: float = 0.8
    # whether a trivial output (CaseCheck.non_trivial False: no boxes, an empty mask) can be the
    # right answer for some case; if not, the harness's per-output check counts a trivial output
    # as a problem the pilot should have caught (docs/judge.md "Per-output checks")
    trivial_can_be_right: bool = False

    def metric_name(self, options: OptionsInT) -> str: ...

    def default_bands(self, options: OptionsInT) -> MedalBands: ...

    def load_reference(self, private_case_dir: Path, case_meta: dict[str, Any],
                       options: OptionsInT) -> tuple[Any, dict[str, Any]]:
        """(reference, reference_meta for check_case e.g. expected shape). May raise: the core
        records REFERENCE_ERROR (a harness fault), never the agent's."""
        ...

    def check_case(self, submitted: SubmittedCase, reference_meta: dict[str, Any],
                   options: OptionsInT) -> CaseCheck:
        """Read and validate one case's submission. Never raises for bad agent output."""
        ...

    def relations(self, prediction: Any, input_case_dir: Path, options: OptionsInT) -> list[Relation]:
        """Optional capability: how this output's facts relate to its input's (tracks/relations.py:
        values in the input's units, boxes in its pixel grid, a text about the study its public
        metadata names, an answer of the kind its question asks), built from `prediction` (what
        `check_case` returned) and the case's public folder, never the reference. Must not raise
        for bad output. Default: none declared."""
        return []

    def plausibility(self, prediction: Any, input_case_dir: Path, options: OptionsInT) -> str:
        """A problem a careful look at one valid output would see without the reference, or "" —
        the harness's per-output check reports it (docs/judge.md "Plausibility"); never a score.
        Default: the first of `relations` the output breaks (tracks/relations.py `mismatch`); a
        track with checks of the output alone (a lesion larger than its organ) adds them."""
        return mismatch(self.relations(prediction, input_case_dir, options))

    def score_case(self, prediction: Any, reference: Any, options: OptionsInT,
                   context: ScoringContext) -> CaseScore: ...

    def aggregate(self, cases: ScoredCases, options: OptionsInT, context: ScoringContext) -> AggregateResult:
        """The metric over the VALID cases (`cases.valid`), plus named dataset metrics. The core
        multiplies `score` by completion; it never calls this when no case is scorable."""
        ...

    def mutants(self, options: OptionsInT) -> list[Mutant]:
        """Optional capability: the broken outputs this track's experts would want a look at one
        output to catch (an empty mask, values in the wrong units, boxes outside the image), as
        data (tracks/mutants.py). The judge replays each call that read an output with these in
        its place (docs/judge.md "Experiments"). Default: every file emptied."""
        return list(GENERIC_MALIGN)


@runtime_checkable
class TrackAssets(Protocol[OptionsInT]):
    """The optional kit: what a track may ship besides its contract and scoring — datasets,
    scripted methods, the gold submission, the sandbox packages its agent code needs, its
    built-in tasks, pictures, folder layouts, label names, the published reference's score.
    Every member has a default (docs/tracks.md "The optional kit")."""

    # pip names agent code needs inside the sandbox, besides the base set (sandbox/runtime.py)
    runtime_packages: tuple[str, ...] = ()
    tasks_dir: Path | None = None          # folder of this track's built-in tasks
    # folder of this track's judge-calibration trajectories (<agent>__<task>__<tier>/), read by
    # `automedbench judge-eval` beside every other track's (docs/judge.md "Calibration set").
    # None: the repository's calibration/tracks/<track name>/ ($AUTOMEDBENCH_CALIBRATION), where
    # the built-in tracks' are; a plug-in track may name its own folder here instead
    calibration_dir: Path | None = None
    # how far below 1.0 the gold submission may score when the metric cannot reach exactly 1 on
    # a verbatim copy (METEOR's fragmentation penalty 0.5/m³); the conformance suite reads it
    gold_tolerance: float = 1e-6

    def datasets(self) -> list[DatasetInfo]:
        """Demo builders and official stagers this track provides. Default: none (its tasks'
        data is staged from a folder: `data stage --from-folder`, docs/your-task.md)."""
        return []

    def scripted_methods(self, options: OptionsInT) -> ScriptedMethods | None:
        """The calls of the built-in scripted agents (reference/careless), or None: they then
        refuse the task by name (runs/preflight.py). Default: None."""
        return None

    def reference_methods(self) -> list[ReferenceMethod]:
        """Optional: the classical methods the scripted agents can run, in the order they are
        tried on a task that names none (`track_options.reference_method`); `tasks show` lists
        them with what each needs (docs/your-task.md section 5). Default: none listed."""
        return []

    def gold_submission(self, dataset_root: Path, outputs: Path, options: OptionsInT) -> None:
        """Write a perfect submission (from the private references) into `outputs/` — the
        conformance suite scores it: 1.0 within `gold_tolerance`. Default: none, said so."""
        raise NotImplementedError(f"track {getattr(self, 'name', '?')!r} ships no gold submission "
                                  "(TrackAssets.gold_submission, docs/tracks.md)")

    def folder_layouts(self) -> list[FolderLayout]:
        """Optional: the folder layouts `data stage --from-folder` recognises for this track, in
        detection order (docs/your-task.md section 2). Default: the generic layout
        DIR/<case_id>/{public,private}/ (+ cases.csv)."""
        return [GENERIC_LAYOUT]

    def label_names(self, options: OptionsInT) -> list[str]:
        """Optional: the names a case's reference answer is one of (classification's labels,
        detection's classes). `data stage --from-folder` warns when a case id contains one: the
        agent sees the case ids (docs/your-task.md section 2). Default: none."""
        return []

    # optional capability (default: none): small pictures of one valid, scored case for the run
    # page — drawn in memory; the core picks the cases and places the files (docs/site.md)
    def case_pictures(self, case: PictureCase, options: OptionsInT) -> list[CasePicture]:
        return []

    def reference_score(self, records: list[CaseRecord], options: OptionsInT,
                        context: ScoringContext) -> ProfileScore | None:
        """Optional capability: the published reference's task score for this track (every
        expected case's record, reference errors included), or None = not defined for this
        track (the default). docs/scoring-profiles.md."""
        return None


@runtime_checkable
class Track(TrackContract[OptionsT], TrackScoring[OptionsT], TrackAssets[OptionsT], Protocol[OptionsT]):
    """A track = contract + scoring, with the optional kit (TrackAssets) beside. Subclass it
    (`class MyTrack(Track[MyOptions])`) to inherit the optional capabilities' defaults and
    `parse_options`; mypy then checks every member's signature, and the registry refuses an
    object that is not a Track."""


class ScriptedMethods(Protocol):
    """The calls the built-in scripted agents send through execute_code (so their trajectories
    look like an LLM's). Each returns the Python code of one call, run in the workspace (cwd =
    workspace): a launcher (tracks/scripted_code.py `launch`) that copies one of the track's
    step scripts (a real file in `<track>/methods/steps/`) and the method files it installs into
    the workspace and runs it with its arguments as JSON (docs/tracks.md "Scripted methods")."""

    def plan_steps(self) -> list[str]: ...

    def setup_code(self, data_dir: str) -> str:
        """S2: write the method's files into the workspace, check the runtime and ONE input."""
        ...

    def pilot_code(self, data_dir: str) -> str:
        """S3: run the method on ONE case into outputs/."""
        ...

    def inspect_code(self, data_dir: str) -> str:
        """S3: inspect the pilot output against its input (shape, values, plausibility)."""
        ...

    def batch_code(self, data_dir: str, careless: bool) -> str:
        """S4: every case. careless=True injects the track's realistic bug (which the score
        and the error codes must name)."""
        ...

    def verify_code(self, data_dir: str) -> str:
        """S5: check every expected output exists before submitting."""
        ...


@dataclass(frozen=True)
class ReferenceMethod:
    """A classical method of a track (docs/your-task.md section 5)."""
    file: str                             # methods/<file>; `track_options.reference_method: <file>` picks it
    summary: str                          # what it does, one line
    needs: str                            # what a task must have for it, in task.yaml's words
    fits: Callable[[Any], str | None]     # options -> None when it can run, else what is missing
    automatic: bool = True                # tried when the task names no method (False: only when named)


def pick_reference_method(track: Any, options: Any) -> tuple[str | None, list[str]]:
    """(the method file the scripted agents run, []) — the task's `reference_method` when it
    names one, else the first listed method that fits — or (None, what each method is missing)."""
    named = getattr(options, "reference_method", None)
    if named:
        return named, []
    missing = []
    for m in track.reference_methods():
        why = m.fits(options) if m.automatic else f"runs only when named (`reference_method: {m.file}`)"
        if why is None:
            return m.file, []
        missing.append(f"{m.file} needs {why}")
    return None, missing


def with_reference_method(track: Any, options: OptionsT) -> OptionsT | None:
    """`options` with `reference_method` set to the method the scripted agents run
    (`pick_reference_method`), or None when none fits: the scripted agents then skip the task."""
    method, _ = pick_reference_method(track, options)
    return None if method is None else options.model_copy(update={"reference_method": method})


def draws_pictures(track: Any) -> bool:
    """Whether the track overrides the default `case_pictures` (TrackAssets above, which draws
    none): the core then reads its picked cases again to have them drawn."""
    own = getattr(type(track), "case_pictures", None)
    return own is not None and own is not TrackAssets.case_pictures


def pictures_of(track: Any, case: PictureCase, options: Any) -> list[CasePicture]:
    """The track's pictures of `case` (the default draws none)."""
    return list(track.case_pictures(case, options)) if draws_pictures(track) else []
