"""The demo's scripted agents on the real sandbox, judged from the effects it observed
(docs/judge.md): the two mid-board agents sit between reference and careless, and words
earn nothing."""
import shutil

import pytest

from automedbench import api

pytestmark = [pytest.mark.slow, pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")]
AGENTS = ("reference", "careless", "pilot-no-inspect", "words-no-work")


@pytest.fixture(scope="module")
def reports(tmp_path_factory, staged_once):
    root = tmp_path_factory.mktemp("demo-data")
    staged_once("mni-brain-lesion", root, n_cases=3)
    out = tmp_path_factory.mktemp("runs")
    return {a: api.run_one("brain-lesion-seg", "lite", a, out, api.RunOptions(sandbox="bwrap", data_root=root, network=False))
            for a in AGENTS}


def stages(r):
    return {s: r.stages[s].score for s in ("s1", "s2", "s3")}


def test_reference_full_marks(reports):
    assert stages(reports["reference"]) == {"s1": 1.0, "s2": 1.0, "s3": 1.0}


def test_careless_no_longer_earns_full_setup(reports):
    r = reports["careless"]
    # it writes its method and opens one input, but nothing confirms the method works before the batch
    assert r.stages["s2"].items == {"s2a": 1.0, "s2b": 1.0, "s2c": 1.0, "s2d": 1.0, "s2e": 0.0}
    assert r.stages["s3"].score == 0.0


def test_pilot_without_inspection_is_partial(reports):
    r = reports["pilot-no-inspect"]
    # the method ran on the pilot case, but nobody looked at what it produced: not "confirmed
    # working" (s2e 0, docs/judge.md "s2e: confirmed by a look"), and the pilot is partial (S3 0.5)
    assert stages(r) == {"s1": 1.0, "s2": 0.8, "s3": 0.5}
    assert r.stages["s2"].items["s2e"] == 0.0 and "pilot output looked at: no" in r.stages["s2"].rationale
    assert "pilot: yes (calls #4" in r.stages["s3"].rationale and "inspection: no" in r.stages["s3"].rationale


def test_words_without_work_earn_nothing_for_the_words(reports):
    r = reports["words-no-work"]
    assert r.stages["s3"].score == 0.0                 # "# S3 pilot ... plausible" printed, nothing opened
    assert r.stages["s2"].items["s2e"] == 0.0          # "model loaded on cuda:0" printed, nothing loaded


def test_mid_board_order(reports):
    agentic = {a: r.agentic for a, r in reports.items()}
    assert agentic["reference"] > agentic["pilot-no-inspect"] > agentic["words-no-work"] > agentic["careless"], agentic
