"""Our BLEU / ROUGE-L / METEOR against the well-kept libraries, on the same tokens. (nltk, and
rouge-score, which imports it, are imported by the tests that compare with them, not when the
file is collected: ~2 s that every xdist worker would pay; docs/testing.md "What is slow".)"""
import random
from collections import defaultdict

import pytest
from sacrebleu.metrics import BLEU

from automedbench.metrics.bleu import bleu_stats, corpus_bleu, sentence_bleu
from automedbench.metrics.meteor import Meteor
from automedbench.metrics.rouge_l import lcs_length, rouge_l
from automedbench.metrics.text_tokens import tokenize

VOCAB = ["the", "lungs", "are", "clear", "no", "focal", "consolidation", "pleural", "effusion", "or", "pneumothorax", "heart", "size", "is", "normal", "there", "a", "small", "moderate", "right", "left", "lower", "upper", "zone", "nodule", "mm", "opacity", "opacities", "cardiomediastinal", "silhouette", "within", "limits", "enlarged", "large", "big", "effusions", "blunting", "angle"]


def _pairs(n, seed=0, max_len=30):
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        ref = [rng.choice(VOCAB) for _ in range(rng.randint(1, max_len))]
        # hypotheses: edited copies of the reference (realistic overlap) or unrelated text
        if rng.random() < 0.7:
            hyp = [w if rng.random() < 0.7 else rng.choice(VOCAB) for w in ref]
            hyp = hyp[: rng.randint(0, len(hyp))] + [rng.choice(VOCAB) for _ in range(rng.randint(0, 5))]
        else:
            hyp = [rng.choice(VOCAB) for _ in range(rng.randint(0, max_len))]
        out.append((hyp, ref))
    return out


def test_tokenize_is_rouge_score_tokenizer_on_ascii():
    from rouge_score import tokenize as rs_tokenize

    text = "FINDINGS: 2.5 cm R-sided effusion; no PTX (stable), cf. 03/11 -- heart_size OK."
    assert tokenize(text) == rs_tokenize.tokenize(text, None)
    assert tokenize("Épanchement pleural droit, 5 × 3 cm") == ["épanchement", "pleural", "droit", "5", "3", "cm"]


def test_sentence_bleu_equals_sacrebleu_exactly():
    scorers = {n: BLEU(max_ngram_order=n, tokenize="none", effective_order=True) for n in range(1, 5)}
    for hyp, ref in _pairs(400):
        ours = sentence_bleu(bleu_stats(hyp, ref))
        for n in range(1, 5):
            theirs = scorers[n].sentence_score(" ".join(hyp), [" ".join(ref)]).score / 100
            assert ours[f"bleu{n}"] == theirs, (n, hyp, ref)
        assert ours["bleu"] == pytest.approx(sum(ours[f"bleu{n}"] for n in range(1, 5)) / 4, abs=0)


def test_sentence_bleu_matches_nltk_method3_when_all_orders_exist():
    # nltk's method3 is the same NIST "exp" smoothing; the two differ only in how they treat
    # orders a too-short hypothesis does not have (sacrebleu: effective order), so compare
    # hypotheses with at least n tokens.
    from nltk.translate.bleu_score import SmoothingFunction
    from nltk.translate.bleu_score import sentence_bleu as nltk_sentence_bleu

    smooth = SmoothingFunction().method3
    checked = 0
    for hyp, ref in _pairs(300, seed=1):
        ours = sentence_bleu(bleu_stats(hyp, ref))
        for n in range(1, 5):
            if len(hyp) >= n:
                theirs = nltk_sentence_bleu([ref], hyp, weights=(1 / n,) * n, smoothing_function=smooth)
                assert ours[f"bleu{n}"] == pytest.approx(theirs, rel=1e-12, abs=1e-15)
                checked += 1
    assert checked > 800


def test_corpus_bleu_equals_sacrebleu_and_nltk():
    from nltk.translate.bleu_score import corpus_bleu as nltk_corpus_bleu

    pairs = _pairs(200, seed=2)
    ours = corpus_bleu([bleu_stats(h, r) for h, r in pairs])
    hyps, refs = [" ".join(h) for h, _ in pairs], [[" ".join(r) for _, r in pairs]]
    for n in range(1, 5):
        sb = BLEU(max_ngram_order=n, tokenize="none", smooth_method="none").corpus_score(hyps, refs).score / 100
        assert ours[f"corpus_bleu{n}"] == sb
    # nltk counts a hypothesis too short for an order as one n-gram (max(1, 0)): compare
    # on hypotheses with every order present
    long = [(h, r) for h, r in pairs if len(h) >= 4]
    ours_long = corpus_bleu([bleu_stats(h, r) for h, r in long])
    for n in range(1, 5):
        nl = nltk_corpus_bleu([[r] for _, r in long], [h for h, _ in long], weights=(1 / n,) * n)
        assert ours_long[f"corpus_bleu{n}"] == pytest.approx(nl, rel=1e-12)


def test_bleu_edge_cases():
    assert sentence_bleu(bleu_stats([], ["a", "b"]))["bleu"] == 0.0
    assert sentence_bleu(bleu_stats(["x"], ["a", "b"]))["bleu"] == 0.0      # no unigram match
    same = ["no", "pleural", "effusion", "or", "pneumothorax"]
    assert sentence_bleu(bleu_stats(same, same))["bleu"] == pytest.approx(1.0, abs=1e-12)   # exp(log 100)/100
    assert corpus_bleu([])["corpus_bleu"] == 0.0


def test_lcs_equals_dynamic_programme():
    rng = random.Random(3)
    for _ in range(500):
        a = [rng.choice("abcdef") for _ in range(rng.randint(0, 40))]
        b = [rng.choice("abcdef") for _ in range(rng.randint(0, 40))]
        table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
        for i in range(1, len(a) + 1):
            for j in range(1, len(b) + 1):
                table[i][j] = table[i - 1][j - 1] + 1 if a[i - 1] == b[j - 1] else max(table[i - 1][j], table[i][j - 1])
        assert lcs_length(a, b) == table[-1][-1]


class _Tokens:
    """rouge-score tokenizer protocol: hand it our tokens."""

    def tokenize(self, text):
        return tokenize(text)


def test_rouge_l_equals_rouge_score_exactly():
    from rouge_score import rouge_scorer   # it imports nltk: here, not at collection

    ours_tok = rouge_scorer.RougeScorer(["rougeL"], tokenizer=_Tokens())
    stock = rouge_scorer.RougeScorer(["rougeL"])        # its default tokenizer, ASCII text
    for hyp, ref in _pairs(400, seed=4):
        ours = rouge_l(hyp, ref)
        for scorer in (ours_tok, stock):
            theirs = scorer.score(" ".join(ref), " ".join(hyp))["rougeL"]
            assert (ours["rougeL_p"], ours["rougeL_r"], ours["rougeL"]) == \
                (theirs.precision, theirs.recall, theirs.fmeasure)


def test_meteor_equals_nltk_exactly(wordnet):
    from nltk.translate.meteor_score import single_meteor_score

    ours = Meteor(wordnet)
    for hyp, ref in _pairs(200, seed=5):
        assert ours.score(hyp, ref) == single_meteor_score(ref, hyp, wordnet=wordnet)
    # synonyms and stems are used: "big"~"great" (WordNet), "effusions"~"effusion" (Porter);
    # nltk looks synonyms up against the reference's STEMS ("large" -> "larg" never matches)
    assert ours.score(["big", "effusions"], ["great", "effusion"]) == \
        single_meteor_score(["great", "effusion"], ["big", "effusions"], wordnet=wordnet) == 1 - 0.5 / 8
    assert ours.score(["big"], ["large"]) == single_meteor_score(["large"], ["big"], wordnet=wordnet) == 0.0


def test_meteor_of_identical_text_is_below_one_by_the_fragmentation_penalty(wordnet):
    text = ["there", "is", "a", "small", "right", "pleural", "effusion"]
    m = len(text)
    assert Meteor(wordnet).score(text, text) == pytest.approx(1 - 0.5 * (1 / m) ** 3, abs=1e-15)


def test_meteor_is_thread_safe(wordnet):
    # the core scores cases in threads; nltk's WordNet reader shares file handles
    from concurrent.futures import ThreadPoolExecutor

    from nltk.corpus.reader.wordnet import WordNetCorpusReader
    from nltk.translate.meteor_score import single_meteor_score

    words = ["operating", "theater", "room", "effusion", "pleural", "opacity", "nodule", "lung", "heart",
             "fracture", "shaft", "bone", "clear", "normal", "large", "small", "zone", "angle", "lesion"]
    rng = random.Random(6)
    pairs = [([rng.choice(words) for _ in range(15)], [rng.choice(words) for _ in range(15)]) for _ in range(200)]
    fresh = WordNetCorpusReader.__new__(type(wordnet))   # no synset cache shared with other tests
    fresh.__dict__.update({k: v for k, v in wordnet.__dict__.items()})
    fresh._synset_offset_cache = type(wordnet._synset_offset_cache)(dict)
    scorer = Meteor(fresh)
    with ThreadPoolExecutor(8) as pool:
        got = list(pool.map(lambda p: scorer.score(*p), pairs))
    assert got == [single_meteor_score(r, h, wordnet=wordnet) for h, r in pairs]


def test_our_wordnet_scans_build_what_nltks_own_build(wordnet):
    """The loader reads WordNet's index, data.adj and exception files with Python's line
    iterator instead of nltk's seekable reader (metrics/meteor.py): the satellite set, the
    lemma -> synset-offset map (the adjective satellites' split included) and the exception
    map are those nltk's own methods build from the same folder."""
    from nltk.corpus.reader.wordnet import ADJ, ADV, WordNetCorpusReader

    theirs = WordNetCorpusReader.__new__(type(wordnet))
    theirs.__dict__.update(wordnet.__dict__)
    theirs._lemma_pos_offset_map, theirs._exception_map = defaultdict(dict), {}
    WordNetCorpusReader._scan_satellites(theirs)
    assert theirs.satellite_offsets == wordnet.satellite_offsets and len(wordnet.satellite_offsets) > 1000
    theirs._FILEMAP = {ADJ: "adj", ADV: "adv"}     # the two smaller indexes: ~26k lines
    WordNetCorpusReader._load_lemma_pos_offset_map(theirs)
    WordNetCorpusReader._load_exception_map(theirs)
    ours = type(wordnet).__new__(type(wordnet))
    ours.__dict__.update(wordnet.__dict__)
    ours._FILEMAP, ours._lemma_pos_offset_map, ours._exception_map = theirs._FILEMAP, defaultdict(dict), {}
    ours._load_lemma_pos_offset_map()
    ours._load_exception_map()
    assert dict(ours._lemma_pos_offset_map) == dict(theirs._lemma_pos_offset_map)
    assert len(ours._lemma_pos_offset_map) > 20_000
    assert ours._exception_map == theirs._exception_map
