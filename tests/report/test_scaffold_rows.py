"""Rows keyed by scaffold and model (docs/leaderboard.md "Rows that are never mixed"): one agent
name whose runs differ in scaffold or model is never one mean, even where no configuration
hash tells the runs apart (an older harness recorded none); each row carries one scaffold and
one model."""
from __future__ import annotations

from automedbench.report.aggregate import agent_labels, aggregate
from automedbench.report.analyze import analyze


def _with(report, *, scaffold=None, config_hash=None):
    return report.model_copy(update={"run": report.run.model_copy(update={"scaffold": scaffold,
                                                                          "config_hash": config_hash})})


def test_one_name_under_two_scaffolds_without_a_hash_is_two_rows(make_report):
    reps = [_with(make_report("l1", agent="x", overall=0.9), scaffold="automedbench-loop"),
            _with(make_report("l2", agent="x", overall=0.7), scaffold="automedbench-loop"),
            _with(make_report("m1", agent="x", overall=0.2), scaffold="mini-swe-agent")]
    board = aggregate(reps)
    rows = {(a.agent, a.scaffold, a.model): a for a in board.agents}
    assert set(rows) == {("x [automedbench-loop, m-1]", "automedbench-loop", "m-1"),
                         ("x [mini-swe-agent, m-1]", "mini-swe-agent", "m-1")}
    assert rows[("x [automedbench-loop, m-1]", "automedbench-loop", "m-1")].overall.mean == 0.8
    assert rows[("x [mini-swe-agent, m-1]", "mini-swe-agent", "m-1")].overall.mean == 0.2
    assert {(g.agent, g.scaffold) for g in board.groups} == {("x [automedbench-loop, m-1]", "automedbench-loop"),
                                                             ("x [mini-swe-agent, m-1]", "mini-swe-agent")}
    # the error analysis's per-agent stages are the board's rows too, never one mean over both
    stages = {a.agent: a.stages["s1"].n for a in analyze(reps).agents}
    assert stages == {"x [automedbench-loop, m-1]": 2, "x [mini-swe-agent, m-1]": 1}


def test_one_name_with_two_models_is_two_rows_and_a_report_without_a_scaffold_is_unknown(make_report):
    reps = [make_report("a", agent="y", model="m-1"), make_report("b", agent="y", model="m-2"),
            make_report("c", agent="z", model=None)]
    rows = {a.agent: a for a in aggregate(reps).agents}
    assert set(rows) == {"y [unknown, m-1]", "y [unknown, m-2]", "z"}
    assert (rows["y [unknown, m-2]"].model, rows["y [unknown, m-2]"].models) == ("m-2", ["m-2"])
    assert (rows["z"].scaffold, rows["z"].model) == ("unknown", None)


def test_a_hash_that_tells_the_rows_apart_labels_them_and_one_identity_keeps_the_name(make_report):
    reps = [_with(make_report("a", agent="w"), scaffold="inspect-ai:react", config_hash="aaaaaaaa11"),
            _with(make_report("b", agent="w"), scaffold="inspect-ai:basic", config_hash="bbbbbbbb22"),
            _with(make_report("c", agent="v"), scaffold="scripted", config_hash="cccccccc33"),
            _with(make_report("d", agent="v"), scaffold="scripted", config_hash="cccccccc33")]
    assert agent_labels(reps) == {"a": "w [aaaaaaaa]", "b": "w [bbbbbbbb]", "c": "v", "d": "v"}
    # neither the hash nor (scaffold, model) alone separates these three: all three are named
    reps = [_with(make_report("p", agent="u", model="m-1"), scaffold="s", config_hash="h1"),
            _with(make_report("q", agent="u", model="m-2"), scaffold="s", config_hash="h1"),
            _with(make_report("r", agent="u", model="m-1"), scaffold="s", config_hash="h2")]
    assert sorted(agent_labels(reps).values()) == ["u [h1, s, m-1]", "u [h1, s, m-2]", "u [h2, s, m-1]"]
