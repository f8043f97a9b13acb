"""The labelled answer-pair table (answer_pairs.yaml) against the VQA matcher, and the
answer table's documentation rules (docs/tracks/vqa.md "Answer matching")."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from automedbench.metrics.answer_match import TABLE_PATH, AnswerTable, load_table, polarity, score_open

PAIRS = yaml.safe_load((Path(__file__).with_name("answer_pairs.yaml")).read_text())["pairs"]


def test_the_table_is_large_and_spans_modalities():
    assert len(PAIRS) >= 150
    assert len({row[0] for row in PAIRS}) >= 6
    assert all(len(row) == 5 and row[4] for row in PAIRS), "each pair has a modality, both answers, a score, a why"


@pytest.mark.parametrize("modality, prediction, reference, expected, why", PAIRS,
                         ids=[f"{i}-{r[0]}" for i, r in enumerate(PAIRS)])
def test_answer_pair(modality, prediction, reference, expected, why):
    assert score_open(prediction, [reference])["score"] == pytest.approx(float(expected), abs=1e-9), why


def test_every_synonym_entry_names_its_source():
    raw = yaml.safe_load(TABLE_PATH.read_text())
    missing = [name for name, entry in raw["phrases"].items()
               if not isinstance(entry, dict) or len(str(entry.get("source", "")).strip()) < 10]
    assert not missing, f"phrase entries without a source: {missing}"


def test_no_two_entries_merge_into_one_another():
    """A spelling listed under two canonical forms would merge two findings silently."""
    raw = yaml.safe_load(TABLE_PATH.read_text())
    seen: dict[str, str] = {}
    for name, entry in raw["phrases"].items():
        for spelling in [name, *entry["spellings"]]:
            assert seen.setdefault(spelling, name) == name, f"{spelling!r} under {seen[spelling]!r} and {name!r}"


def test_an_unquoted_yes_no_in_the_table_is_refused():
    raw = yaml.safe_load(TABLE_PATH.read_text())
    raw["negation"]["before"] = yaml.safe_load("[no, without]")     # YAML reads `no` as False
    with pytest.raises(ValueError, match="quote"):
        AnswerTable.from_mapping(raw)


def test_hedge_holding_both_polarities_has_no_polarity():
    table = load_table()
    assert polarity("yes and no", table) is None and polarity("yes", table) == "yes"
    assert polarity("there is no lesion", table) == "no"
