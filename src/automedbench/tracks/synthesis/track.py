"""Synthesis track (docs/tracks/synthesis.md): CT ×4 z super-resolution and MRI→CT, 3-D volumes.

Per case the agent writes `outputs/<case_id>/sct.nii.gz` ON THE REFERENCE GRID: shape equal
to the reference's (a trailing singleton axis is tolerated), affine within 1e-3 of it in
every entry (the public target_grid.json gives both), values finite.

Metric: 3-D SSIM (metrics/ssim.py, bit-identical to scikit-image): 7×7×7 uniform window,
K1 0.01, K2 0.03, sample covariance, data range R = reference max − min after the task's
optional intensity clip (`hu_clip`, e.g. [-1024, 3000] HU as SynthRAD; applied to reference
and prediction alike). PSNR and MAE are reported as diagnostics.
Task score = mean SSIM over all expected cases (missing/invalid = 0).
Medal: on `ssim_medal` = the task score if it is above the task's baseline (mean of each
case's `baseline_ssim` in the manifest: linear z-interpolation for z-SR, bulk density for
MRI→CT), else 0 — good ≥ 0.98, okay ≥ 0.95 (bands.yaml); not above the baseline = no medal.
"""
from __future__ import annotations

import functools
import gzip
import io
from pathlib import Path
from typing import Any

import numpy as np

from ... import yamlfile
from ...metrics.ssim import reference_data_range, ssim_psnr
from .. import per_case
from ..base import (
    AggregateResult,
    CaseCheck,
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
from ..nifti_io import NiftiReadError, affine_max_diff, match_shape, read_nifti
from ..pictures import CasePicture, PictureCase, restoration_panels
from ..reducers import mean_of_present, mean_over_cases, present_values
from ..safety import safe_output_file
from .data import DATASETS
from .options import SynthesisOptions
from .zsr import slab_average
from ..relations import Relation, Values
from .scripted import SynthesisMethods
from ..mutants import Mutant
from .mutants import synthesis_mutants

HERE = Path(__file__).parent
AFFINE_TOL = 1e-3
PSNR_CAP_DB = 100.0


def _peek_shape(path: Path) -> tuple[tuple[int, ...] | None, str]:
    """Read only the header (first 540 decompressed bytes): refuse absurd shapes before
    decompressing a possibly huge file."""
    import nibabel as nib
    try:
        with open(path, "rb") as fh:
            magic = fh.read(2)
        opener = gzip.open if magic == b"\x1f\x8b" else open
        with opener(path, "rb") as fh:
            head = fh.read(540)
        hdr = nib.Nifti1Header.from_fileobj(io.BytesIO(head), check=True)
        return tuple(int(s) for s in hdr.get_data_shape()), ""
    except Exception as exc:
        return None, f"not a NIfTI file ({type(exc).__name__})"


class SynthesisTrack(Track[SynthesisOptions]):
    name = "synthesis"
    options_model = SynthesisOptions
    # aggregate reads only per-case metrics: the core frees each case's arrays once it is scored
    aggregate_uses_case_data = False
    runtime_packages = ("numpy", "scipy", "nibabel")
    tasks_dir = HERE / "tasks"
    wording = TrackWording(
        rubric={"s1c": "the method fits the task: through-plane super-resolution that models the "
                       "slab-averaged thick slices (spline/back-projection, self-supervised SR, a "
                       "SR network), or an MRI→CT synthesis model for the anatomy",
                "s2b": "input shape, voxel spacing/affine, intensity range and the target grid "
                       "(target_grid.json shape and affine)"},
        skills={"s3": "Check the pilot output on the target grid: shape and affine equal to "
                      "target_grid.json, finite values, intensities in the input's range."},
        input_properties="shape, voxel spacing and affine, dtype, intensity range and the target grid",
    )

    def mutants(self, options: SynthesisOptions) -> list[Mutant]:
        """What a look at one output must catch (mutants.py; docs/judge.md \"Experiments\")."""
        return synthesis_mutants(options)

    def submission(self, options: SynthesisOptions) -> SubmissionLayout:
        what = (f"the volume restored to the ×{options.scale} finer z grid" if options.variant == "ct_zsr"
                else "the synthetic CT in HU")
        return SubmissionLayout(kind="per_case", files=[OutputFile(
            name=options.output_file,
            description=f"{what}: NIfTI (gzip), float, on the REFERENCE grid — shape and affine exactly as "
                        f"`shape` / `affine` in the case's target_grid.json, every value finite")],
            notes="A volume on any other grid (e.g. the input's affine) fails the format check.")

    def metric_name(self, options: SynthesisOptions) -> str:
        clip = f", clipped to {list(options.hu_clip)}" if options.hu_clip else ""
        return f"mean 3-D SSIM x completion ({options.win_size}^3 window, data range = reference max - min{clip})"

    def default_bands(self, options: SynthesisOptions) -> MedalBands:
        b = yamlfile.safe_load((HERE / "bands.yaml").read_text())[options.variant]
        return MedalBands(**b, source="track default (docs/scoring.md#per-track-metrics-and-medal-bands; below the task baseline = no medal)")

    def _prepare(self, arr: np.ndarray, options: SynthesisOptions) -> np.ndarray:
        arr = np.asarray(arr, dtype=np.float64)
        return np.clip(arr, *options.hu_clip) if options.hu_clip else arr

    def relations(self, prediction: np.ndarray, input_case_dir: Path, options: SynthesisOptions) -> list[Relation]:
        """A z super-resolved volume keeps its low-resolution input's units: compared on the
        input's grid through the task's own degradation, the mean of each slab of `scale` slices
        (zsr.py; docs/judge.md "Plausibility"). MRI to CT changes units: no relation declared."""
        if options.variant != "ct_zsr":
            return []
        try:
            arr, _ = read_nifti(Path(input_case_dir) / options.input_file)
        except Exception:  # noqa: BLE001 -- an unreadable input: nothing to compare with
            return []
        return [Values(self._prepare(prediction, options), self._prepare(arr, options),
                       functools.partial(slab_average, scale=options.scale))]

    def load_reference(self, private_case_dir: Path, case_meta: dict[str, Any],
                       options: SynthesisOptions) -> tuple[np.ndarray, dict[str, Any]]:
        arr, affine = read_nifti(Path(private_case_dir) / options.reference_file)
        ref = self._prepare(arr, options)
        if ref.ndim != 3 or not np.isfinite(ref).all() or reference_data_range(ref) <= 0:
            raise ValueError(f"reference {ref.shape} is not a finite, non-constant 3-D volume")
        return ref, {"shape": ref.shape, "affine": np.asarray(affine)}

    def check_case(self, submitted: SubmittedCase, reference_meta: dict[str, Any],
                   options: SynthesisOptions) -> CaseCheck:
        name = options.output_file
        if submitted.dir is None:
            return CaseCheck(False, "no case folder")
        path, reason = safe_output_file(submitted.dir, name)
        if path is None:
            return CaseCheck(False, reason)
        shape = tuple(reference_meta["shape"])
        head_shape, reason = _peek_shape(path)
        if head_shape is None:
            return CaseCheck(False, f"{name}: {reason}")
        if not match_shape(head_shape, shape):
            return CaseCheck(False, f"{name}: wrong shape {head_shape}, expected the reference grid {shape}")
        try:
            arr, affine = read_nifti(path)
        except NiftiReadError as exc:
            return CaseCheck(False, f"{name}: unreadable NIfTI: {exc}")
        arr = arr.reshape(shape)   # the header's shape, matched above: drops trailing singleton axes
        diff = affine_max_diff(affine, reference_meta["affine"])
        if not diff <= AFFINE_TOL:
            return CaseCheck(False, f"{name}: affine differs from the reference grid by {diff:.4g} "
                                    f"(> {AFFINE_TOL:g}; wrote the input's grid?)")
        if arr.dtype.kind not in "fiu":
            return CaseCheck(False, f"{name}: unsupported voxel type {arr.dtype}")
        if arr.dtype.kind == "f" and not np.isfinite(arr).all():
            return CaseCheck(False, f"{name}: contains NaN or Inf values")
        pred = self._prepare(arr, options)
        return CaseCheck(True, "", pred, non_trivial=bool(np.ptp(pred) > 0))

    def score_case(self, prediction: np.ndarray, reference: np.ndarray, options: SynthesisOptions,
                   context: ScoringContext) -> CaseScore:
        ssim_value, psnr_db, r = ssim_psnr(reference, prediction, win_size=options.win_size)
        return CaseScore({"ssim": ssim_value,
                          "psnr": min(psnr_db, PSNR_CAP_DB),
                          "mae": float(np.mean(np.abs(reference - prediction)))},
                         extra={"data_range": r, "why": per_case.flat_output_why(prediction, reference)})

    def aggregate(self, cases: ScoredCases, options: SynthesisOptions,
                  context: ScoringContext) -> AggregateResult:
        valid, expected = cases.valid, cases.expected
        score = mean_over_cases(expected, "ssim") or 0.0     # the task score: over expected cases
        base = [float(b) for r in expected if (b := r.meta.get("baseline_ssim")) is not None]
        baseline = mean_of_present(base) if len(base) == len(expected) else None
        notes = {"data_range": "per case: ground truth max - min" + (f" after clipping to {list(options.hu_clip)}"
                                                                  if options.hu_clip else ""),
                 "window": f"uniform {options.win_size}^3, K1=0.01, K2=0.03 (scikit-image defaults)"}
        if baseline is None:
            notes["baseline"] = "manifest has no baseline_ssim for every case: medal on ssim alone"
            medal = score
        else:
            # the baseline itself (the input interpolated) is the trivial output: a medal needs
            # more than it (docs/scoring.md "Medals start above chance")
            medal = score if score > baseline else 0.0
            if score <= baseline:
                notes["baseline"] = f"mean SSIM {score:.4f} is not above the task baseline {baseline:.4f}: fail"
        return AggregateResult(score=mean_over_cases(valid, "ssim") or 0.0, metrics={
            "ssim": score, "ssim_medal": medal, "baseline_ssim": baseline,
            "completion": cases.completion,
            "psnr_valid_mean": mean_of_present(present_values(valid, "psnr")),
            "mae_valid_mean": mean_of_present(present_values(valid, "mae"))},
            components=["ssim"], notes=notes)   # PSNR and MAE: beside the score (docs/scoring.md#task-score)

    def datasets(self) -> list:
        return list(DATASETS)

    def reference_methods(self) -> list[ReferenceMethod]:
        """The classical method the scripted agents run (docs/your-task.md section 5)."""
        return [ReferenceMethod("zsr_classical.py", "cubic-spline through-plane interpolation + iterative back-projection", "variant ct_zsr (lowres.nii.gz + target_grid.json)", lambda o: None if o.variant == "ct_zsr" else "variant ct_zsr (MRI to CT has no classical method)")]

    def scripted_methods(self, options: SynthesisOptions) -> ScriptedMethods | None:
        if options.variant != "ct_zsr":
            return None   # MRI→CT has no offline demo data and no classical reference method
        return SynthesisMethods(options)

    def case_pictures(self, case: PictureCase, options: SynthesisOptions) -> list[CasePicture]:
        """The middle axial slice: input (its own grid), output, reference, difference."""
        k = case.reference.shape[2] // 2
        try:
            arr, _ = read_nifti(case.public_dir / options.input_file)
            inp = self._prepare(arr, options)
            inp2 = np.rot90(inp[..., inp.shape[2] // 2]) if inp.ndim == 3 else None
        except Exception:  # noqa: BLE001 - drawn without the input
            inp2 = None
        out = None if case.prediction is None else np.rot90(case.prediction[..., k])
        # the plausibility check's finding, as the case's reason and the per-call check say it
        finding = "" if case.prediction is None else self.plausibility(case.prediction, case.public_dir, options)
        return restoration_panels(inp2, out, np.rot90(case.reference[..., k]), case.metrics, f"slice z={k}",
                                  reason=case.reason, finding=finding)

    def gold_submission(self, dataset_root: Path, outputs: Path, options: SynthesisOptions) -> None:
        per_case.gold_submission(dataset_root, outputs, options.reference_file, options.output_file)
