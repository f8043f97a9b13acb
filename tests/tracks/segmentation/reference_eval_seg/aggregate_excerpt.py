"""Excerpts of the reference's eval_seg/aggregate.py (AutoMedBench/AutoMedBench, branch eval_seg,
commit 5a9834ce0010c4e97b9eb22a4645321b9529902b; MIT, LICENSE beside this file): the two
clinical-score functions verbatim, and the lines of build_report / _build_report_multiclass that
turn dice_scorer's result into the clinical score (same statements, the rest of those functions
— stage scores, medals, ratings — left out)."""


def compute_clinical_score(organ_dice: float, lesion_dice: float) -> float:
    """Clinical score = 0.50 * lesion Dice + 0.50 * organ Dice.

    Organ Dice: ALL patients.  Lesion Dice: positive patients only.
    """
    return round(0.50 * lesion_dice + 0.50 * organ_dice, 4)


def compute_clinical_score_multiclass(macro_mean_dice: float) -> float:
    """Multi-class clinical score = macro-mean Dice across foreground tissues."""
    return round(float(macro_mean_dice), 4)


def clinical_score_binary(dice_result: dict) -> float:
    # from build_report
    lesion_dice = dice_result.get("mean_lesion_dice", 0.0)
    organ_dices_all = [
        pr["organ_dice"]
        for pr in dice_result.get("per_patient", {}).values()
        if pr.get("organ_dice") is not None
    ]
    organ_dice = float(sum(organ_dices_all) / len(organ_dices_all)) if organ_dices_all else 0.0
    total_patients = max(len(dice_result.get("per_patient", {})), 1)
    patients_with_output = sum(
        1 for pr in dice_result.get("per_patient", {}).values()
        if pr.get("lesion_dice") is not None
    )
    inference_completes = patients_with_output / total_patients
    all_patients_done = (inference_completes >= 1.0)
    if not all_patients_done:
        lesion_dice = 0.0
        organ_dice = 0.0
    return compute_clinical_score(organ_dice, lesion_dice)


def clinical_score_multiclass(dice_result: dict) -> float:
    # from _build_report_multiclass
    macro_mean_dice = float(dice_result.get("macro_mean_dice", 0.0))
    per_patient = dice_result.get("per_patient", {})
    total_patients = max(len(per_patient), 1)
    patients_with_output = sum(
        1 for pr in per_patient.values()
        if not pr.get("missing_pred") and not pr.get("missing_gt")
        and pr.get("mean_tissue_dice") is not None
    )
    inference_completes = patients_with_output / total_patients
    all_patients_done = (inference_completes >= 1.0)
    if not all_patients_done:
        macro_mean_dice = 0.0
    return compute_clinical_score_multiclass(macro_mean_dice)
