"""Report-generation metrics as the captioning literature computes them (pycocoevalcap, the
"coco-caption" toolkit): corpus BLEU-1..4, METEOR 1.5 and ROUGE-L with beta = 1.2, after its
PTB tokenisation. docs/tracks/report-generation.md "Literature-comparable metrics" says what
each number is and how it differs from our per-study numbers.

  ptb_tokenize   Stanford PTBTokenizer (-preserveLines -lowerCase), as pycocoevalcap runs it,
                 then its punctuation tokens dropped. Re-implemented in Python; the test suite
                 proves it equal to the Java tokenizer on the demo reports when Java is present.
  coco_bleu      pycocoevalcap Bleu(4): corpus BLEU from summed clipped n-gram counts, the
                 "closest" reference length, its tiny/small smoothing constants.
  coco_rouge_l   pycocoevalcap Rouge: per study LCS precision/recall (max over references),
                 F = (1 + b^2) P R / (R + b^2 P) with b = 1.2; the corpus number is the mean.
  meteor_1_5     METEOR 1.5 (Denkowski & Lavie 2014) by its own jar (`-l en -norm`, as
                 pycocoevalcap runs it). Needs Java and meteor-1.5.jar (shipped by the
                 pycocoevalcap package); without them the value is None with the reason.
"""
from __future__ import annotations

import importlib.util
import math
import re
import shutil
import subprocess
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

# pycocoevalcap/tokenizer/ptbtokenizer.py PUNCTUATIONS: dropped after tokenising
PTB_PUNCTUATION = frozenset(["''", "'", "``", "`", "-LRB-", "-RRB-", "-LCB-", "-RCB-",
                             ".", "?", "!", ",", ":", "-", "--", "...", ";"])
# Stanford PTBTokenizer (3.4.1) behaviour reproduced for prose: words keep inner hyphens, dots,
# slashes and digits' separators ("well-circumscribed", "2.5", "03/11", "1,000", "heart.lungs");
# a number with a separator is split from letters after it ("1.5cm" -> 1.5 cm); clitics split
# ("patient's" -> patient 's, "isn't" -> is n't); its abbreviations keep their '.' ("dr.",
# "vs.", "cf.", "etc.", "e.g.", "no." before a number); any other '.' ending a word is split off.
# With -lowerCase the bracket tokens come out as "-lrb-" etc., which pycocoevalcap's punctuation
# list (upper case "-LRB-") does not remove: they stay, as in pycocoevalcap.
_ABBREVIATIONS = ("mr|mrs|ms|messrs|dr|prof|jr|sr|st|inc|co|corp|ltd|bros|vs|cf|al|etc|fig|dept|univ|"
                  "est|gen|sen|rev|gov|col|sgt|lt|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec|"
                  "mon|tue|tues|wed|thu|thurs|fri|calif")
_TOKEN = re.compile(rf"""
    \.\.\.                                   # ellipsis
  | --                                       # dash
  | \b(?:{_ABBREVIATIONS})\.(?=\s|$)          # abbreviations keep their dot
  | \b(?:no|nos|pp|art|nr)\.(?=\s+\d)          # "No. 3"
  | [A-Za-z]\.(?:[A-Za-z]\.)+                # acronyms with dots: e.g. i.e. a.m.
  | \d+(?:[.,/:]\d+)+                        # numbers 2.5 1,000 03/11 10:30
  | \w+(?:[-/'.]\w+)*(?=n't\b)               # the word before n't
  | n't\b
  | '(?:s|re|ve|ll|d|m)\b                    # clitics
  | \w+(?:[-/.]\w+)*                         # words, hyphenated / slashed / dotted inside
  | \S                                       # any other character
""", re.VERBOSE | re.IGNORECASE)
_BRACKETS = {"(": "-lrb-", ")": "-rrb-", "[": "-lsb-", "]": "-rsb-", "{": "-lcb-", "}": "-rcb-"}


def ptb_tokenize(text: str) -> list[str]:
    """pycocoevalcap's tokenisation of one caption/report (lower-cased, its punctuation dropped)."""
    tokens = []
    for raw in _TOKEN.findall(text.replace("\n", " ")):
        tok = _BRACKETS.get(raw, raw.lower())
        if tok == '"':
            tok = "``"       # PTB quotes: removed below either way
        if tok not in PTB_PUNCTUATION:
            tokens.append(tok)
    return tokens


# ---- BLEU (pycocoevalcap/bleu/bleu_scorer.py, option "closest") ---------------------------------
def _ngrams(words: Sequence[str], n: int) -> Counter[tuple[str, ...]]:
    return Counter(tuple(words[i:i + k]) for k in range(1, n + 1) for i in range(len(words) - k + 1))


def coco_bleu(hypotheses: Sequence[Sequence[str]], references: Sequence[Sequence[Sequence[str]]],
              n: int = 4) -> list[float]:
    """Corpus BLEU-1..n over tokenised studies (each with one or more references)."""
    tiny, small = 1e-15, 1e-9
    total_guess = [0] * n
    total_correct = [0] * n
    hyp_len = ref_len = 0
    for hyp, refs in zip(hypotheses, references):
        max_counts: dict[tuple[str, ...], int] = {}
        for ref in refs:
            for ng, count in _ngrams(ref, n).items():
                max_counts[ng] = max(max_counts.get(ng, 0), count)
        ref_lens = [len(r) for r in refs]
        # "closest": the reference length nearest the hypothesis (ties: the shorter)
        closest = min(ref_lens, key=lambda rl: (abs(rl - len(hyp)), rl))
        hyp_len += len(hyp)
        ref_len += closest
        for k in range(n):
            total_guess[k] += max(0, len(hyp) - k)
        for ng, count in _ngrams(hyp, n).items():
            total_correct[len(ng) - 1] += min(max_counts.get(ng, 0), count)
    scores, bleu = [], 1.0
    for k in range(n):
        bleu *= (total_correct[k] + tiny) / (total_guess[k] + small)
        scores.append(bleu ** (1.0 / (k + 1)))
    ratio = (hyp_len + tiny) / (ref_len + small)
    if ratio < 1:
        scores = [s * math.exp(1 - 1 / ratio) for s in scores]
    return scores


# ---- ROUGE-L (pycocoevalcap/rouge/rouge.py) ----------------------------------------------------
def _lcs(a: Sequence[str], b: Sequence[str]) -> int:
    if not a or not b:
        return 0
    row = [0] * (len(b) + 1)
    for x in a:
        prev = 0
        for j, y in enumerate(b, start=1):
            prev, row[j] = row[j], prev + 1 if x == y else max(row[j], row[j - 1])
    return row[-1]


def rouge_l_beta(hypothesis: Sequence[str], references: Sequence[Sequence[str]], beta: float = 1.2) -> float:
    precs, recs = [], []
    for ref in references:
        lcs = _lcs(ref, hypothesis)
        precs.append(lcs / len(hypothesis) if hypothesis else 0.0)
        recs.append(lcs / len(ref) if ref else 0.0)
    p, r = max(precs), max(recs)
    if p == 0 or r == 0:
        return 0.0
    return ((1 + beta ** 2) * p * r) / (r + beta ** 2 * p)


def coco_rouge_l(hypotheses: Sequence[Sequence[str]], references: Sequence[Sequence[Sequence[str]]]) -> float:
    vals = [rouge_l_beta(h, r) for h, r in zip(hypotheses, references)]
    return sum(vals) / len(vals) if vals else 0.0


# ---- METEOR 1.5 (the jar) ----------------------------------------------------------------------
def coco_package_dir() -> Path | None:
    """The installed pycocoevalcap package folder (it ships the jars), or None."""
    spec = importlib.util.find_spec("pycocoevalcap")
    if spec is None or not spec.submodule_search_locations:
        return None       # (a namespace package: no __init__, so no __file__)
    return Path(next(iter(spec.submodule_search_locations)))


def meteor_jar() -> tuple[Path | None, str]:
    """(path to meteor-1.5.jar, "") or (None, why it cannot run)."""
    if shutil.which("java") is None:
        return None, ("METEOR 1.5 needs Java (Debian: default-jre-headless; `make testdeps` installs it)")
    package = coco_package_dir()
    jar = package / "meteor" / "meteor-1.5.jar" if package else None
    if jar is None:
        return None, "METEOR 1.5 needs meteor-1.5.jar: install the test extra (pip install pycocoevalcap)"
    if not jar.is_file():
        return None, f"METEOR 1.5 jar not found at {jar}"
    return jar, ""


def meteor_1_5(hypotheses: Sequence[str], references: Sequence[Sequence[str]],
               timeout_s: float = 300.0) -> tuple[float | None, str]:
    """(corpus METEOR 1.5, "") or (None, why). Texts are the tokenised strings (space-joined).
    The corpus score is the jar's own aggregate over all studies' statistics, as pycocoevalcap
    reports it (not the mean of per-study scores)."""
    jar, why = meteor_jar()
    if jar is None:
        return None, why
    if not hypotheses:
        return None, "no study to score"
    lines = []
    for hyp, refs in zip(hypotheses, references):
        hyp = hyp.replace("|||", "").replace("  ", " ")
        lines.append(" ||| ".join(("SCORE", " ||| ".join(refs), hyp)))
    cmd = ["java", "-jar", "-Xmx2G", jar.name, "-", "-", "-stdio", "-l", "en", "-norm"]
    try:
        # the jar answers each SCORE line with one stats line; then EVAL over all of them
        proc = subprocess.Popen(cmd, cwd=jar.parent, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, text=True)
        assert proc.stdin is not None and proc.stdout is not None
        stats = []
        for line in lines:
            proc.stdin.write(line + "\n")
            proc.stdin.flush()
            stats.append(proc.stdout.readline().strip())
        proc.stdin.write("EVAL ||| " + " ||| ".join(stats) + "\n")
        proc.stdin.flush()
        for _ in stats:
            proc.stdout.readline()
        score = float(proc.stdout.readline().strip())
        proc.stdin.close()
        proc.wait(timeout=timeout_s)
        return score, ""
    except (OSError, ValueError, subprocess.SubprocessError) as exc:
        return None, f"METEOR 1.5 jar failed: {type(exc).__name__}: {exc}"


def literature_metrics(hypotheses: Sequence[str], references: Sequence[str], meteor: bool = True
                       ) -> tuple[dict[str, float | None], str]:
    """{coco_bleu1..4, coco_meteor, coco_rougeL} over whole report texts, and the reason
    coco_meteor is None ("" when it was computed). A missing study is passed as "" by the caller."""
    hyp_tok = [ptb_tokenize(h) for h in hypotheses]
    ref_tok = [[ptb_tokenize(r)] for r in references]
    out: dict[str, float | None] = {}
    if hyp_tok:
        for k, value in enumerate(coco_bleu(hyp_tok, ref_tok), start=1):
            out[f"coco_bleu{k}"] = value
        out["coco_rougeL"] = coco_rouge_l(hyp_tok, ref_tok)
    if not meteor:
        out["coco_meteor"] = None
        return out, "not requested"
    meteor_value, why = meteor_1_5([" ".join(h) for h in hyp_tok], [[" ".join(r[0])] for r in ref_tok])
    out["coco_meteor"] = meteor_value
    return out, why
