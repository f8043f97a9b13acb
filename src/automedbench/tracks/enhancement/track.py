"""Enhancement track (docs/tracks/enhancement.md): LDCT denoising and MRI ×2 super-resolution of 2-D images.

Per case the agent writes `outputs/<case_id>/enhanced.npy`: float32/float64, exactly the
reference's shape (the public info.json's `output_shape`), every value finite.
Metrics (metrics/ssim.py, bit-identical to scikit-image): SSIM (7×7 uniform window, K1 0.01,
K2 0.03) and PSNR, both with data range R = reference max − min (stated in every report);
PSNR is capped at 100 dB so identical images stay valid JSON; LPIPS is an optional extra
(null with a note when the `[lpips]` extra or its weights are absent).
Task score = mean SSIM over all expected cases (missing/invalid = 0) = mean SSIM × completion.
Medal bands come from the dataset's bands.json (computed by baselines.py).
"""
from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import numpy as np

from ... import yamlfile
from ...metrics.lpips_optional import lpips_distance, lpips_status
from ...metrics.ssim import reference_data_range, ssim_psnr
from .. import per_case
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
from ..pictures import CasePicture, PictureCase, restoration_panels
from ..profile import ProfileScore
from ..reducers import mean_of_present, mean_over_cases, present_values
from ..safety import safe_output_file
from . import reference_profile
from .data import DATASETS
from .npy_io import read_float_npy
from .options import EnhancementOptions
from .scripted import EnhancementMethods
from ..mutants import Mutant
from .mutants import enhancement_mutants
from ..relations import Relation, Values
from . import degrade

PSNR_CAP_DB = 100.0
HERE = Path(__file__).parent


class EnhancementTrack(Track[EnhancementOptions]):
    name = "enhancement"
    options_model = EnhancementOptions
    # aggregate reads only per-case metrics: the core frees each case's arrays once it is scored
    aggregate_uses_case_data = False
    runtime_packages = ("numpy", "scipy", "scikit-image")
    tasks_dir = HERE / "tasks"
    wording = TrackWording(
        rubric={"s1c": "the method fits the degradation: a denoiser for CT quantum noise "
                       "(non-local means, TV, BM3D, a learned LDCT denoiser) or an up-sampler that "
                       "models the ×2 block down-sampling (interpolation + back-projection, a SR network)",
                "s2b": "input shape, dtype, intensity units (HU for CT) and the expected output shape "
                       "(info.json output_shape)"},
        skills={"s3": "Compare the pilot output with its input: same units and range, the expected "
                      "output shape, no NaN; noise reduced (CT) or edges sharper (SR)."},
        input_properties="shape, dtype, intensity units (HU for CT) and the expected output shape",
    )

    # ---- contract ------------------------------------------------------------------------
    def mutants(self, options: EnhancementOptions) -> list[Mutant]:
        """What a look at one output must catch (mutants.py; docs/judge.md \"Experiments\")."""
        return enhancement_mutants(options)

    def submission(self, options: EnhancementOptions) -> SubmissionLayout:
        what = ("the denoised image" if options.variant == "denoise"
                else f"the ×{options.scale} super-resolved image")
        return SubmissionLayout(kind="per_case", files=[OutputFile(
            name=options.output_file,
            description=f"{what} as a NumPy .npy array (np.save), float32 or float64, shape = "
                        f"`output_shape` in the case's info.json, every value finite")],
            notes="Keep the input's intensity units (HU for CT); do not normalise to [0, 1].")

    def metric_name(self, options: EnhancementOptions) -> str:
        return "mean SSIM x completion (SSIM/PSNR data range = reference max - min)"

    def default_bands(self, options: EnhancementOptions) -> MedalBands:
        fb = yamlfile.safe_load((HERE / "bands.yaml").read_text())["fallback"]
        return MedalBands(**fb, source="track fallback: dataset has no bands.json "
                                       "(run python -m automedbench.tracks.enhancement.baselines DATASET_DIR)")

    def dataset_bands(self, dataset_root: Path) -> MedalBands | None:
        """The dataset's computed bands (bands.json), or None when it has none."""
        path = Path(dataset_root) / "bands.json"
        if not path.is_file():
            return None
        return MedalBands.model_validate({**json.loads(path.read_text()),
                                          "source": f"{Path(dataset_root).name}/bands.json (baselines)"})

    # ---- per case ------------------------------------------------------------------------
    def load_reference(self, private_case_dir: Path, case_meta: dict[str, Any],
                       options: EnhancementOptions) -> tuple[np.ndarray, dict[str, Any]]:
        ref = np.load(Path(private_case_dir) / options.reference_file, allow_pickle=False)
        ref = np.asarray(ref, dtype=np.float64)
        if ref.ndim != 2 or not np.isfinite(ref).all():
            raise ValueError(f"reference {ref.shape} is not a finite 2-D image")
        r = reference_data_range(ref)
        if r <= 0:
            raise ValueError("reference is constant (data range 0)")
        return ref, {"shape": ref.shape, "data_range": r}

    def check_case(self, submitted: SubmittedCase, reference_meta: dict[str, Any],
                   options: EnhancementOptions) -> CaseCheck:
        if submitted.dir is None:
            return CaseCheck(False, "no case folder")
        path, reason = safe_output_file(submitted.dir, options.output_file)
        if path is None:
            return CaseCheck(False, reason)
        arr, reason = read_float_npy(path, tuple(reference_meta["shape"]))
        if arr is None:
            return CaseCheck(False, reason)
        return CaseCheck(True, "", arr, non_trivial=bool(np.ptp(arr) > 0))

    def relations(self, prediction: np.ndarray, input_case_dir: Path, options: EnhancementOptions) -> list[Relation]:
        """An enhanced image keeps its input's units, whatever they are (HU, an MR slice's own
        scale): compared on the input's grid through the task's degradation, the identity for
        denoising and the block mean for super-resolution (degrade.py; docs/judge.md
        "Plausibility")."""
        try:
            src = np.load(Path(input_case_dir) / options.input_file, allow_pickle=False)
        except (OSError, ValueError):
            return []
        if src.ndim != 2:
            return []
        to_input = ((lambda a: a) if options.variant == "denoise"
                    else functools.partial(degrade.block_downsample, factor=options.scale))
        return [Values(prediction, src, to_input)]

    def score_case(self, prediction: np.ndarray, reference: np.ndarray, options: EnhancementOptions,
                   context: ScoringContext) -> CaseScore:
        ssim_value, psnr_db, r = ssim_psnr(reference, prediction)
        metrics: dict[str, float | None] = {
            "ssim": ssim_value,
            "psnr": min(psnr_db, PSNR_CAP_DB),
            "lpips": lpips_distance(reference, prediction) if options.lpips else None,
        }
        # the published reference's per-case numbers, for its scoring profile (arrays are dropped
        # after each case): reference_profile.py, docs/scoring-profiles.md
        return CaseScore(metrics, extra={"data_range": r, "why": per_case.flat_output_why(prediction, reference),
                                         **reference_profile.case_values(reference, prediction)})

    def reference_score(self, records: list[CaseRecord], options: EnhancementOptions,
                        context: ScoringContext) -> ProfileScore:
        """The published reference's number (reference_profile.py; docs/scoring-profiles.md)."""
        return reference_profile.reference_score(records)

    def aggregate(self, cases: ScoredCases, options: EnhancementOptions,
                  context: ScoringContext) -> AggregateResult:
        valid = cases.valid
        ssims = present_values(valid, "ssim")
        lp = present_values(valid, "lpips")
        lpips_mean = mean_of_present(lp) if valid and len(lp) == len(valid) else None
        notes = {"data_range": "per case: ground truth max - min (SSIM and PSNR)",
                 "psnr": f"mean over valid cases only; capped at {PSNR_CAP_DB:g} dB"}
        if lpips_mean is None:
            notes["lpips"] = (lpips_status() or "not computed for every case") if options.lpips else "disabled by the task"
        return AggregateResult(
            score=mean_over_cases(valid, "ssim") or 0.0,
            metrics={"ssim": mean_over_cases(cases.expected, "ssim"),
                     "psnr_valid_mean": mean_of_present(present_values(valid, "psnr")),
                     "lpips_valid_mean": lpips_mean, "completion": cases.completion,
                     "ssim_valid_mean": mean_of_present(ssims)},
            # the score is SSIM alone: PSNR and LPIPS are reported beside it, never as its components
            # (docs/scoring.md#task-score)
            components=["ssim"], notes=notes)

    # ---- data, agents, conformance -----------------------------------------------------
    def datasets(self) -> list:
        return list(DATASETS)

    def reference_methods(self) -> list[ReferenceMethod]:
        """The classical method the scripted agents run (docs/your-task.md section 5)."""
        return [ReferenceMethod("enhance_classical.py", "total-variation denoising or cubic-spline + iterative back-projection super-resolution", "any task of the track (input.npy + info.json)", lambda o: None)]

    def scripted_methods(self, options: EnhancementOptions) -> ScriptedMethods | None:
        return EnhancementMethods(options)

    def case_pictures(self, case: PictureCase, options: EnhancementOptions) -> list[CasePicture]:
        """Input, output, reference and difference in the task's display windows (tracks/pictures.py);
        an output that failed its check: input and reference, with the reason."""
        try:
            inp = np.load(case.public_dir / options.input_file, allow_pickle=False)
        except (OSError, ValueError):
            inp = None
        windows = [(w.name, w.level, w.width) for w in options.display_windows]
        # the plausibility check's finding, as the case's reason and the per-call check say it
        finding = "" if case.prediction is None else self.plausibility(case.prediction, case.public_dir, options)
        return restoration_panels(inp if inp is not None and inp.ndim == 2 else None, case.prediction,
                                  case.reference, case.metrics, windows=windows, reason=case.reason,
                                  finding=finding)

    def gold_submission(self, dataset_root: Path, outputs: Path, options: EnhancementOptions) -> None:
        per_case.gold_submission(dataset_root, outputs, options.reference_file, options.output_file)

