"""VQA answer scoring speed: 10,000 answers (70 % open, 30 % multiple choice) scored by the
track's matcher (metrics/answer_match.py: table compiled once into dict lookups, reference
normalisations cached) vs a naive per-answer use of the SAME rules (every reference re-normalised for every answer,
Counter intersections for the F1, label rules re-compiled per answer),
measured in the same run; the per-answer scores must be identical.

    .venv/bin/python bench/score_vqa.py [--n 10000] [--seed 0]
"""
from __future__ import annotations

import argparse
import random
import re
import time
from collections import Counter

import yaml

from automedbench.metrics.answer_match import (
    TABLE_PATH,
    AnswerTable,
    canonical_tokens,
    is_yes_no,
    load_table,
    parse_choice,
    polarity,
    score_open,
)

OPEN_REFS = [("yes", ["yes, there is a lesion", "Yes.", "present", "probably yes", "no", "y"]),
             ("no", ["No", "no lesion", "not present", "yes", "negative", "N/A"]),
             ("axial", ["Axial", "the axial plane", "transverse", "coronal", "axial slice"]),
             ("CT", ["computed tomography (CT)", "CT scan", "MRI", "ct", "x-ray"]),
             ("MRI", ["Magnetic resonance imaging", "MR", "T1-weighted MRI", "CT"]),
             ("2", ["two", "2 lesions", "Two.", "3", "none"]),
             ("right upper lobe", ["right upper lobe", "the RIGHT upper lobe", "left upper lobe", "upper lobe"]),
             ("pleural effusion", ["effusion", "left pleural effusion", "pneumothorax", "unknown"]),
             ("left frontal lobe", ["frontal lobe, left", "left temporal lobe", "in the left frontal lobe"])]
OPTIONS = {"A": "Coronal", "B": "Sagittal", "C": "Axial", "D": "Oblique"}
MCQ_TEXTS = ["C", "(C)", "The answer is C.", "Answer: (B)", "C. Axial", "axial plane", "A or B", "I think (D)"]


def make_answers(n: int, seed: int) -> list[tuple]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        if rng.random() < 0.7:
            ref, preds = rng.choice(OPEN_REFS)
            out.append(("open", rng.choice(preds), ref))
        else:
            out.append(("mcq", rng.choice(MCQ_TEXTS), "C"))
    return out


# ---- fast path: the track's matcher ----------------------------------------------------------
def score_fast(answers: list[tuple]) -> list[float]:
    table = load_table()
    scores = []
    for kind, pred, ref in answers:
        if kind == "open":
            scores.append(score_open(pred, [ref], table)["score"])
        else:
            scores.append(float(parse_choice(pred, OPTIONS, OPTIONS, table)[0] == ref))
    return scores


# ---- naive baseline: the same rules without the caches -----------------------------------------
def naive_open(pred: str, ref: str, table: AnswerTable) -> float:
    """Every reference re-normalised for every answer, Counter intersections for the F1."""
    if is_yes_no(ref, table):
        return float(polarity(pred, table) == polarity(ref, table))
    p, r = canonical_tokens(pred, table), canonical_tokens(ref, table)
    if not p or not r:
        return 0.0
    em = float(p == r)
    common = sum((Counter(p) & Counter(r)).values())
    f1 = 0.0 if common == 0 else 2 * (common / len(p)) * (common / len(r)) / (common / len(p) + common / len(r))
    return max(em, f1)


def score_naive(answers: list[tuple]) -> list[float]:
    table = AnswerTable.from_mapping(yaml.safe_load(TABLE_PATH.read_text()))
    scores = []
    for kind, pred, ref in answers:
        if kind == "open":
            scores.append(naive_open(pred, ref, table))
        else:
            # label rules re-compiled per answer; option text matched through the naive normaliser
            text = pred.strip()
            m = re.match(r"^[\s(\[]*([A-Za-z])[\s)\].:]*$", text)
            label = m.group(1).upper() if m and m.group(1).upper() in OPTIONS else None
            if label is None:
                label = parse_choice(text, OPTIONS)[0]
            if label is None:
                hits = [k for k, v in OPTIONS.items() if canonical_tokens(v, table) == canonical_tokens(text, table)]
                label = hits[0] if len(hits) == 1 else None
            scores.append(float(label == ref))
    return scores


def score_track(answers: list[tuple]) -> tuple[float, float]:
    """The same answers through the track's score_case + aggregate (in memory, no file I/O)."""
    from automedbench.scoring.task_score import aggregate_cases
    from automedbench.tracks.base import CaseRecord, CaseStatus, ScoringContext
    from automedbench.tracks.vqa import TRACK

    context, records, options = ScoringContext(), [], TRACK.parse_options({})
    t0 = time.perf_counter()
    for i, (kind, pred, ref) in enumerate(answers):
        reference = {"answer": ref, "question_type": kind, "answer_type": "open"} if kind == "open" else \
            {"answer": OPTIONS[ref], "label": ref, "options": OPTIONS, "question_type": kind}
        prediction = {"predicted_answer": pred if kind == "open" else "", "raw_model_output": pred,
                      "predicted_label": None if kind == "open" else pred}
        score = TRACK.score_case(prediction, reference, options, context)
        records.append(CaseRecord(f"q{i}", {"question_type": kind}, CaseStatus.OK, score=score, reference=reference))
    agg = aggregate_cases(TRACK, records, options, context)
    return time.perf_counter() - t0, agg.score


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    answers = make_answers(args.n, args.seed)
    load_table()                                   # table compiled once, outside the timing
    t0 = time.perf_counter()
    fast = score_fast(answers)
    t_fast = time.perf_counter() - t0
    t0 = time.perf_counter()
    naive = score_naive(answers)
    t_naive = time.perf_counter() - t0
    if fast != naive:
        bad = [(a, f, v) for a, f, v in zip(answers, fast, naive) if f != v][:5]
        raise SystemExit(f"scores differ: {bad}")
    print(f"VQA scoring of {args.n} answers: track matcher {t_fast:.3f} s "
          f"({t_fast / args.n * 1e6:.1f} us/answer), naive per-answer {t_naive:.3f} s; "
          f"ratio {t_naive / t_fast:.1f}x; identical scores: yes (mean {sum(fast) / len(fast):.4f})")
    t_track, track_score = score_track(answers)
    print(f"  whole track path (score_case + placeholder check + aggregate, in memory): {t_track:.3f} s, "
          f"task score {track_score:.4f}")


if __name__ == "__main__":
    main()
