"""METEOR's word lookups kept between processes (metrics/meteor_words.py): the same scores as
nltk's, no nltk import once the words are stored, and a new store whenever what the answers
depend on changes."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from automedbench.metrics.meteor import DEBIAN_WORDNET, REQUIRED_FILES, Meteor, MeteorUnavailable
from automedbench.metrics.meteor_words import WordStore, fingerprint, word_store

from .test_text_metrics import _pairs

SCORE_REPORTS = r"""
import json, sys
from automedbench.tracks.reportgen.scoring import study_metrics
from automedbench.tracks.reportgen.text import Report
pairs = json.loads(sys.stdin.read())
values = [study_metrics(Report.from_text(h), Report.from_text(r))[0]["meteor"] for h, r in pairs]
print(json.dumps({"meteor": values, "nltk_imported": "nltk" in sys.modules}))
"""


def _score_in_a_new_process(pairs, home: Path) -> dict:
    env = {**os.environ, "AUTOMEDBENCH_HOME": str(home)}
    done = subprocess.run([sys.executable, "-c", SCORE_REPORTS], input=json.dumps(pairs), env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_nltk_data_path_is_the_list_nltk_builds(tmp_path):
    env = {**os.environ, "NLTK_DATA": f"{tmp_path / 'a'}{os.pathsep}~/b"}
    code = ("import json, nltk.data; from automedbench.metrics.meteor_words import nltk_data_path; "
            "print(json.dumps([nltk.data.path, nltk_data_path()]))")
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    theirs, ours = json.loads(done.stdout)
    assert ours == theirs and str(tmp_path / "a") in ours


@pytest.mark.slow
def test_a_second_process_scores_the_same_without_importing_nltk(tmp_path, wordnet):
    reports = [("FINDINGS: The lungs are clear. No pleural effusions. Heart size is normal.",
                "FINDINGS: Lungs clear. There is no effusion; the heart is not enlarged."),
               ("FINDINGS: Large right lower zone opacity, likely consolidation.",
                "FINDINGS: Big opacity in the right lower lobe consistent with pneumonia.")]
    first = _score_in_a_new_process(reports, tmp_path)
    second = _score_in_a_new_process(reports, tmp_path)
    assert first["nltk_imported"] and not second["nltk_imported"]
    assert second["meteor"] == first["meteor"] and all(v is not None and v > 0 for v in first["meteor"])
    stored = json.loads(next((tmp_path / "meteor").glob("words-*.json")).read_text())
    assert "effusions" in stored["stems"] and stored["stems"]["effusions"] == "effus"


def test_scores_from_stored_words_equal_nltks(tmp_path, wordnet):
    from nltk.translate.meteor_score import single_meteor_score   # here, not at collection (~2 s)

    store = WordStore(tmp_path / "words.json")
    pairs = _pairs(150, seed=11)
    cold = Meteor(wordnet, known=store)
    assert [cold.score(h, r) for h, r in pairs] == [single_meteor_score(r, h, wordnet=wordnet) for h, r in pairs]
    store.save()

    def no_wordnet():
        raise AssertionError("WordNet loaded although every word was stored")
    warm = Meteor(no_wordnet, known=WordStore(tmp_path / "words.json"))
    assert [warm.score(h, r) for h, r in pairs] == [cold.score(h, r) for h, r in pairs]
    assert warm._stemmer is None                       # nltk's stemmer was not needed either


def test_a_word_not_stored_needs_wordnet_and_says_so_when_it_is_gone(tmp_path, wordnet):
    store = WordStore(tmp_path / "words.json")
    Meteor(wordnet, known=store).score(["clear"], ["clear", "lungs"])

    def gone():
        raise MeteorUnavailable("WordNet not found")
    warm = Meteor(gone, known=store)
    assert warm.score(["clear"], ["clear", "lungs"]) > 0
    with pytest.raises(MeteorUnavailable, match="WordNet not found"):
        warm.score(["opacity"], ["consolidation"])


def test_concurrent_processes_merge_their_words_and_a_damaged_store_is_rewritten(tmp_path):
    path = tmp_path / "meteor" / "words-x.json"
    a, b = WordStore(path), WordStore(path)
    a.stems["lungs"], a.synonyms["lungs"] = "lung", frozenset({"lungs", "lung"})
    b.stems["effusion"], b.synonyms["big"] = "effus", frozenset({"big", "large"})
    a.save()
    b.save()                                            # b loaded before a saved: a's words survive
    merged = WordStore(path)
    assert merged.stems == {"lungs": "lung", "effusion": "effus"}
    assert merged.synonyms == {"lungs": frozenset({"lungs", "lung"}), "big": frozenset({"big", "large"})}
    assert not merged.unsaved()
    path.write_text("{not json")
    damaged = WordStore(path)
    assert damaged.stems == {} and not damaged.unsaved()
    damaged.stems["heart"] = "heart"
    damaged.save()
    assert WordStore(path).stems == {"heart": "heart"}


def test_an_unwritable_home_leaves_scoring_as_it_was(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    (home / "meteor").write_text("a file where the folder should be")
    store = WordStore(home / "meteor" / "words-x.json")
    store.stems["heart"] = "heart"
    store.save()                                        # no exception
    assert store.unsaved()


def test_the_fingerprint_follows_nltk_wordnet_and_the_variable(tmp_path, monkeypatch):
    own = tmp_path / "wn"
    own.mkdir()
    for name in REQUIRED_FILES:
        (own / name).write_text("x")
    base = fingerprint(DEBIAN_WORDNET, REQUIRED_FILES)
    assert base is not None and base == fingerprint(DEBIAN_WORDNET, REQUIRED_FILES)
    monkeypatch.setenv("AUTOMEDBENCH_WORDNET", str(own))
    with_own = fingerprint(DEBIAN_WORDNET, REQUIRED_FILES)
    assert with_own != base
    (own / "index.noun").write_text("changed")           # a WordNet file replaced
    os.utime(own / "index.noun", ns=(1, 1))
    assert fingerprint(DEBIAN_WORDNET, REQUIRED_FILES) != with_own
    monkeypatch.delenv("AUTOMEDBENCH_WORDNET")
    data = tmp_path / "nltk_data"
    monkeypatch.setenv("NLTK_DATA", str(data))
    before = fingerprint(DEBIAN_WORDNET, REQUIRED_FILES)
    (data / "corpora" / "wordnet").mkdir(parents=True)    # nltk's own WordNet installed later
    assert fingerprint(DEBIAN_WORDNET, REQUIRED_FILES) != before
    assert word_store(tmp_path, DEBIAN_WORDNET, REQUIRED_FILES).path.parent == tmp_path / "meteor"
