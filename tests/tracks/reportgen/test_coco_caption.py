"""Our pycocoevalcap-style metrics (metrics/coco_caption.py) against pycocoevalcap itself, on
the demo reports: the PTB tokeniser against the Stanford jar, BLEU/ROUGE-L against its scorers,
METEOR 1.5 against its wrapper. Java-backed checks skip with the exact reason without Java."""
from __future__ import annotations

import shutil
import subprocess

import pytest

from automedbench.datasets import stage
from automedbench.metrics.coco_caption import (
    PTB_PUNCTUATION,
    coco_bleu,
    coco_package_dir,
    coco_rouge_l,
    literature_metrics,
    meteor_jar,
    ptb_tokenize,
)
from automedbench.tracks.reportgen.text import Report

pytest.importorskip("pycocoevalcap.bleu.bleu", reason="pycocoevalcap (test extra) not installed")
from pycocoevalcap.bleu.bleu import Bleu  # noqa: E402
from pycocoevalcap.rouge.rouge import Rouge  # noqa: E402

needs_java = pytest.mark.skipif(shutil.which("java") is None,
                                reason="java not on PATH: `make testdeps` installs default-jre-headless")

ODD = ["FINDINGS: 2.5 cm R-sided effusion; no PTX (stable), cf. 03/11 -- heart_size OK.",
       "The patient's heart isn't enlarged... e.g. x-ray 50% 1,000 mL [sic] {x} \"quoted\" 'single'",
       "Dr. Smith said: no change vs. prior. CT: 1.5cm lesion, 10-mm nodule; FINDINGS:no change.",
       "Nos. 3 and pp. 4, Jan. 2020; heart.lungs clear", ""]


@pytest.fixture(scope="module")
def demo_texts(tmp_path_factory):
    paths = stage("cxr-report-demo", tmp_path_factory.mktemp("coco"), n_cases=24, quiet=True)
    refs = [Report.from_text((d / "report.txt").read_text()).section
            for d in sorted((paths.root / "private").iterdir())]
    # hypotheses: another study's report (realistic overlap), a truncation, a sentence, an empty one
    hyps = refs[1:] + refs[:1]
    hyps[3] = refs[3][: len(refs[3]) // 2]
    hyps[5] = "No pneumothorax."
    hyps[7] = ""
    return hyps, refs


def java_ptb(lines: list[str]) -> list[list[str]]:
    """pycocoevalcap's PTBTokenizer steps (jar, -preserveLines -lowerCase, punctuation list)."""
    jar = coco_package_dir() / "tokenizer" / "stanford-corenlp-3.4.1.jar"
    done = subprocess.run(["java", "-cp", str(jar), "edu.stanford.nlp.process.PTBTokenizer",
                           "-preserveLines", "-lowerCase"], input="\n".join(line.replace("\n", " ") for line in lines),
                          capture_output=True, text=True, timeout=120, check=True)
    out = done.stdout.split("\n")
    return [[w for w in out[i].rstrip().split(" ") if w and w not in PTB_PUNCTUATION] for i in range(len(lines))]


@needs_java
def test_python_ptb_tokeniser_equals_the_stanford_jar_on_the_demo_reports(demo_texts):
    hyps, refs = demo_texts
    lines = [t for t in refs + hyps + ODD if t.strip()]
    assert [ptb_tokenize(t) for t in lines] == java_ptb(lines)


def _coco_inputs(hyps, refs):
    res = {i: [" ".join(ptb_tokenize(h))] for i, h in enumerate(hyps)}
    gts = {i: [" ".join(ptb_tokenize(r))] for i, r in enumerate(refs)}
    return gts, res


def test_corpus_bleu_and_rouge_l_equal_pycocoevalcap(demo_texts):
    hyps, refs = demo_texts
    gts, res = _coco_inputs(hyps, refs)
    theirs_bleu, _ = Bleu(4).compute_score(gts, res, verbose=0)
    theirs_rouge, _ = Rouge().compute_score(gts, res)
    hyp_tok = [ptb_tokenize(h) for h in hyps]
    ref_tok = [[ptb_tokenize(r)] for r in refs]
    assert coco_bleu(hyp_tok, ref_tok) == pytest.approx(theirs_bleu, abs=1e-12)
    assert coco_rouge_l(hyp_tok, ref_tok) == pytest.approx(theirs_rouge, abs=1e-12)
    ours, _ = literature_metrics(hyps, refs, meteor=False)
    assert [ours[f"coco_bleu{k}"] for k in range(1, 5)] == pytest.approx(theirs_bleu, abs=1e-12)
    # the perfect corpus scores 1 and differs from ours (F1, per-study mean) on the same texts
    perfect, _ = literature_metrics(refs, refs, meteor=False)
    assert perfect["coco_bleu4"] == pytest.approx(1.0) and perfect["coco_rougeL"] == pytest.approx(1.0)


def test_rouge_l_uses_beta_1_2_not_f1():
    hyp, ref = ["a", "b"], ["a", "b", "c", "d"]       # P = 1, R = 0.5
    beta = 1.2
    assert coco_rouge_l([hyp], [[ref]]) == pytest.approx((1 + beta**2) * 0.5 / (0.5 + beta**2))
    assert coco_rouge_l([hyp], [[ref]]) != pytest.approx(2 * 0.5 / 1.5)


@pytest.mark.slow
@needs_java
def test_meteor_1_5_equals_pycocoevalcap(demo_texts):
    from pycocoevalcap.meteor.meteor import Meteor

    assert meteor_jar()[0] is not None, meteor_jar()[1]
    hyps, refs = demo_texts
    gts, res = _coco_inputs(hyps, refs)
    scorer = Meteor()
    try:
        theirs, _ = scorer.compute_score(gts, res)
    finally:
        del scorer
    ours, why = literature_metrics(hyps, refs)
    assert why == "" and ours["coco_meteor"] == pytest.approx(theirs, abs=1e-9)
