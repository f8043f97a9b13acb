"""Benchmark: report-generation text scoring, ours vs the libraries one report at a time.

    python bench/score_text.py [--reports 1000] [--seed 0]

Makes N (report, reference) pairs: references from the demo's templates (templates.yaml) over
random simulated findings; reports from the same templates with other wordings, other findings
and random word edits. Then, in this one process, after WordNet is loaded once for both:
  baseline  per report: sacrebleu sentence BLEU-1..4 (four BLEU objects, tokenize="none"),
            rouge-score rougeL, nltk single_meteor_score — on the same word tokens;
  ours      the track's scoring: each text tokenised and its n-grams counted once, BLEU-1..4
            from one set of counts, bit-parallel ROUGE-L, METEOR with per-word stem/synonym caches
            (a fresh scorer, caches empty at the start, no word store from earlier runs).
Checks that every per-report value is identical (max |Δ| printed) and prints the speed ratio.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

import numpy as np


def make_pairs(n: int, seed: int) -> list[tuple[str, str]]:
    from automedbench.tracks.reportgen.data.demo import (
        _draw_findings,
        write_reference_report,
    )

    rng = np.random.default_rng(seed)
    pairs = []
    for _ in range(n):
        kind = "chest" if rng.random() < 0.85 else "tibia"
        truth = _draw_findings(kind, rng)
        guess = truth if rng.random() < 0.6 else _draw_findings(kind, rng)
        ref = write_reference_report(kind, truth, rng)
        words = write_reference_report(kind, guess, rng).split(" ")
        for _ in range(int(rng.integers(0, 6))):           # a few edits: drop / duplicate a word
            i = int(rng.integers(len(words)))
            words.insert(i, words[i]) if rng.random() < 0.5 else words.pop(i)
        pairs.append((" ".join(words), ref))
    return pairs


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reports", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    from nltk.translate.meteor_score import single_meteor_score
    from rouge_score import rouge_scorer
    from sacrebleu.metrics import BLEU

    from automedbench.metrics.meteor import Meteor, load_wordnet
    from automedbench.metrics.text_tokens import tokenize
    from automedbench.tracks.reportgen import scoring
    from automedbench.tracks.reportgen.text import Report, extract_findings

    wordnet, reason = load_wordnet()
    if wordnet is None:
        print(f"error: {reason}", file=sys.stderr)
        return 2
    pairs = make_pairs(args.reports, args.seed)
    print(f"{len(pairs)} report/reference pairs, findings sections scored")

    class Tokens:
        def tokenize(self, text):
            return tokenize(text)

    bleus = [BLEU(max_ngram_order=n, tokenize="none", effective_order=True) for n in range(1, 5)]
    rouge = rouge_scorer.RougeScorer(["rougeL"], tokenizer=Tokens())
    wordnet.synsets("warm")          # nltk's reader loads lazily; warm it for both sides

    t0 = time.perf_counter()
    base = []
    for hyp, ref in pairs:
        h, r = tokenize(extract_findings(hyp)[0]), tokenize(extract_findings(ref)[0])
        hs, rs = " ".join(h), " ".join(r)
        b = [m.sentence_score(hs, [rs]).score / 100 for m in bleus]
        rl = rouge.score(rs, hs)["rougeL"].fmeasure
        base.append((*b, sum(b) / 4, rl, single_meteor_score(r, h, wordnet=wordnet)))
    t_base = time.perf_counter() - t0

    # fresh caches: the first reports pay for them (an empty word store: metrics/meteor_words.py)
    home = tempfile.TemporaryDirectory(prefix="amb-bench-home-")   # removed when the bench ends
    os.environ["AUTOMEDBENCH_HOME"] = home.name
    scoring.meteor_scorer.cache_clear()
    t0 = time.perf_counter()
    ours = []
    for hyp, ref in pairs:
        m, _ = scoring.study_metrics(Report.from_text(hyp), Report.from_text(ref))
        ours.append((m["bleu1"], m["bleu2"], m["bleu3"], m["bleu4"], m["bleu"], m["rougeL"], m["meteor"]))
    t_ours = time.perf_counter() - t0
    assert isinstance(scoring.meteor_scorer()[0], Meteor)

    diff = float(np.max(np.abs(np.array(base) - np.array(ours))))
    print(f"baseline (sacrebleu x4 + rouge-score + nltk METEOR, per report): {t_base:8.3f} s")
    print(f"ours     (report-generation track scoring):                     {t_ours:8.3f} s")
    print(f"max |difference| over {len(pairs)} x 7 values: {diff:.3g}  ({'identical' if diff == 0 else 'DIFFERENT'})")
    print(f"speed-up: {t_base / t_ours:.1f}x")
    return 0 if diff == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
