"""Whole S1→S5 runs of the built-in agents on the synthesis demo task (zsr-x4-demo), in the real bwrap
sandbox: synthesis's careless copies the input header (wrong affine: the file is invalid)."""
import pytest

from tests.tracks.demo_runs import (
    check_careless_bug_is_named_and_costs_the_medal,
    check_empty_agent_scores_nothing,
    check_reference_earns_a_good_medal_cleanly,
    needs_bwrap,
    run_builtin_agents,
)

pytestmark = [needs_bwrap, pytest.mark.slow]


@pytest.fixture(scope="module")
def runs(tmp_path_factory, staged_once):
    return run_builtin_agents("zsr-x4-demo", "ct-brain-zsr-demo", {"n_cases": 2}, tmp_path_factory, staged_once)


def test_reference_earns_a_good_medal_cleanly(runs):
    check_reference_earns_a_good_medal_cleanly(runs["reference"])


def test_careless_bug_is_named_and_costs_the_medal(runs):
    check_careless_bug_is_named_and_costs_the_medal(runs["careless"], "FORMAT_INVALID")


def test_empty_agent_scores_nothing(runs):
    check_empty_agent_scores_nothing(runs["empty"])
