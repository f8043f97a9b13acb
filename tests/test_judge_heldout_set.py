"""The judge's held-out set is whole (docs/judge.md "Held-out set"): every trajectory that
bench/make_judge_heldout.py wrote has hand labels, every part (dev, sealed, sealed-2, ..., sealed-8, sealed-9, sealed-10, and sealed-11,
the last not yet measured) mixes honest and adversarial behaviours, and every trajectory is a run that went to its submission with the
sandbox's effects recorded. No judge is run here: the set's numbers belong to
`judge-eval --heldout`. The trajectories live beside the calibration set's, in the repository's
calibration/tracks/<track>/heldout/ (not installed with the package)."""
import json
from collections import Counter

import pytest
import yaml

from automedbench.scoring.judge_eval import HELDOUT_LABELS as LABELS
from automedbench.scoring.judge_eval import HELDOUT_PARTS
from automedbench.scoring.judge_eval import heldout_roots, load_set
from tests.helpers import needs_calibration

needs = needs_calibration()


@pytest.fixture(scope="module")
def entries():
    return yaml.safe_load(LABELS.read_text())["agents"]


@pytest.fixture(scope="module")
def trajectories():
    return [t for root in heldout_roots() for t in load_set(root, LABELS)]


@needs
def test_every_trajectory_is_labelled_and_every_behaviour_ran_twice(trajectories, entries):
    assert len(trajectories) >= 40
    per_agent = Counter(t.agent for t in trajectories)
    assert set(per_agent) == set(entries), set(entries) ^ set(per_agent)
    assert set(per_agent.values()) == {2}
    assert {t.task for t in trajectories} == {"brain-lesion-seg", "modality-patch-cls", "xray-marker-det",
                                               "ldct-denoise"}
    assert {t.tier for t in trajectories} == {"lite", "standard"}


def test_parts_mix_honest_and_adversarial(entries):
    parts = Counter((e["part"], bool(e.get("adversarial"))) for e in entries.values())
    # sealed-11 is labelled but not yet measured: it joins HELDOUT_PARTS when the judge's maintainer measures it
    assert set(parts) == {(p, a) for p in (*HELDOUT_PARTS, "sealed-11") for a in (True, False)}, parts
    assert sum(bool(e.get("adversarial")) for e in entries.values()) * 3 >= len(entries)
    sizes = Counter(e["part"] for e in entries.values())
    assert abs(sizes["dev"] - sizes["sealed"]) <= 2, sizes
    assert sizes["sealed-2"] >= 20 and sizes["sealed-3"] >= 20 and sizes["sealed-4"] >= 20 \
        and sizes["sealed-5"] >= 20 and sizes["sealed-6"] >= 20 and sizes["sealed-7"] >= 20 \
        and sizes["sealed-8"] >= 20 and sizes["sealed-9"] >= 20 \
        and sizes["sealed-10"] >= 20 and sizes["sealed-11"] >= 20, sizes


def test_labels_are_complete_and_never_both_labelled_and_unlabelled(entries):
    items = {"s1a", "s1b", "s1c", "s1d", "s1e", "s1f", "s2a", "s2b", "s2c", "s2d", "s2e", "s3"}
    for agent, e in entries.items():
        labelled, unlabelled = set(e["labels"]), set(e.get("unlabelled") or {})
        assert not labelled & unlabelled, agent
        assert labelled | unlabelled == items, (agent, items - labelled - unlabelled)
        assert e["labels"].get("s3", 0) in (0, 0.5, 1), agent


@needs
def test_every_trajectory_ran_to_its_submission(trajectories):
    for t in trajectories:
        events = [json.loads(line) for line in (t.dir / "trace.jsonl").read_text().splitlines()]
        kinds = [e["type"] for e in events]
        assert "submit" in kinds and events[-1]["type"] == "run_end", t.id
        assert events[-1]["kind"] == "submitted", t.id
        runs = [e for e in events if e["type"] == "execution"]
        assert runs and all(isinstance(e["effects"], dict) for e in runs), t.id
        assert (t.dir / "plan" / "plan.md").is_file(), t.id
