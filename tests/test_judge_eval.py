"""The heuristic judge against the hand-labelled calibration set (docs/judge.md).

The trajectories (the repository's calibration/tracks/<track>/, not installed with the package)
were produced by calibration/generators/make_judge_calibration.py: trait agents through the
real agent loop and the bwrap sandbox, their effects recorded by the sandbox. The floors live
in scoring/judge_eval/labels.yaml; this test fails below them, and whenever an
adversarial trajectory is credited above its label."""
import json

import pytest
from tests.helpers import amb, needs_calibration

from automedbench.runs.models import StageResult
from automedbench.scoring.judge_eval import CALIBRATION_ENV, CalibrationMissing, evaluate, load_set
from automedbench.scoring.judge.heuristic import HeuristicJudge
from automedbench.scoring.rubric import load_rubric

needs = needs_calibration()


@pytest.fixture(scope="module")
def trajectories():
    return load_set()


@pytest.fixture(scope="module")
def heuristic_report(trajectories):
    return evaluate(HeuristicJudge(), trajectories)


@needs
def test_calibration_set_covers_tracks_and_tiers(heuristic_report, trajectories):
    rep = heuristic_report
    assert rep.n_trajectories >= 60 and len(rep.tracks) >= 4 and rep.tiers == ["lite", "standard"]
    assert sum(t.adversarial for t in trajectories) >= 12
    # every trajectory carries effects observed by the sandbox (not reported by the agent)
    for t in trajectories:
        assert '"effects"' in (t.dir / "trace.jsonl").read_text(), t.id


@needs
def test_heuristic_meets_its_floors(heuristic_report):
    rep = heuristic_report
    assert rep.floors["min_kappa"], "floors must be set"
    assert rep.floor_failures == [], rep.floor_failures
    assert rep.adversarial_over == []
    assert rep.errors == []


class Credulous:
    """A judge that believes every word: passes every item (the judge this issue replaced)."""

    backend, model, version = "credulous", None, "0"

    def judge(self, ev):
        rubric = load_rubric()
        out = {}
        for s in rubric.judged:
            st = rubric.stages[s]
            items = {i: max(st.allowed_values()) for i in st.applicable(ev.tier)}
            out[s] = StageResult(score=st.score(items), items=items, rationale="believed it")
        return out


@needs
def test_a_credulous_judge_fails_the_floors(trajectories):
    rep = evaluate(Credulous(), trajectories)
    assert rep.adversarial_over and any("adversarial" in f for f in rep.floor_failures)
    assert any(f.startswith("s3:") for f in rep.floor_failures)


@needs
def test_cli_judge_eval_table_and_json(tmp_path):
    env = {"AUTOMEDBENCH_HOME": str(tmp_path / "home")}   # judge-eval keeps its last measurement there
    # one measurement: the table on stdout, the same result as JSON through --save (`--json`
    # prints what --save writes: api.judge_eval returns one dict for both)
    table = amb("judge-eval", "--save", tmp_path / "cal.json", env=env).stdout
    assert "item    n" in table and "floors: all met" in table and "per stage (items pooled): s1 n" in table
    data = json.loads((tmp_path / "cal.json").read_text())
    assert set(data["stages"]) == {"s1", "s2", "s3"} and data["stages"]["s3"]["kappa"] is not None
    assert data["judge"]["version"] == "3" and data["floor_failures"] == []
    assert set(data["items"]) == {i for s in ("s1", "s2", "s3") for i in load_rubric().stages[s].items}
    assert json.loads((tmp_path / "home" / "calibration" / "heuristic_v3.json").read_text()) == data
    bad = amb("judge-eval", "--judge", "no-such-judge", check=False, env=env)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr


def test_without_the_calibration_folder_judge_eval_says_where_it_looked(tmp_path, monkeypatch):
    """An installed package without the repository's calibration/ folder: the command names the
    folder it looked for and the variable that points at it, exits 2, no traceback."""
    absent = tmp_path / "no-checkout" / "calibration"
    env = {"AUTOMEDBENCH_HOME": str(tmp_path / "home"), CALIBRATION_ENV: str(absent)}
    for extra in ([], ["--heldout"], ["--metamorphic"]):
        bad = amb("judge-eval", *extra, check=False, env=env)
        assert bad.returncode == 2 and "Traceback" not in bad.stderr, bad.stderr
        said = " ".join(bad.stderr.split())
        assert str(absent / "tracks") in said and CALIBRATION_ENV in said, said
    monkeypatch.setenv(CALIBRATION_ENV, str(absent))
    with pytest.raises(CalibrationMissing, match="calibration/ folder"):
        load_set()
