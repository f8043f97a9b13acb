"""`automedbench analyze`: the paper's error analysis, checked against hand-computed values."""
from __future__ import annotations

import json

import pytest

from automedbench.report.analyze import analyze
from tests.cli_forkserver import run_cli

NO_PILOT = {"code": "NO_PILOT", "category": "verification/recovery", "step": "S3", "evidence": {"call": 4}}
FORMAT = {"code": "FORMAT_INVALID", "category": "deliverable/submission", "step": "S4",
          "evidence": {"cases": [{"case_id": "c0", "reason": "shape"}]}}
PROVIDER = {"code": "INFRA_PROVIDER", "category": "resource/infrastructure", "step": "S4", "infrastructure": True}


@pytest.fixture
def reports(make_report):
    return [
        make_report("r1", agent="a", overall=0.9, stages={"s1": 1, "s2": 1, "s3": 1, "s4": 1, "s5": 1}),
        make_report("r2", agent="a", overall=0.8, errors=[PROVIDER]),                      # infra code only: clean
        make_report("r3", agent="b", overall=0.4, errors=[NO_PILOT, FORMAT],
                    stages={"s1": 1, "s2": 1, "s3": 0, "s4": 0.5, "s5": 1}),
        make_report("r4", agent="b", overall=0.2, errors=[NO_PILOT],
                    stages={"s1": 0.5, "s2": 1, "s3": 0, "s4": 1, "s5": 1}),
        make_report("r5", agent="b", overall=0.0, errors=[NO_PILOT, FORMAT], end_reason="harness_error"),  # excluded
    ]


def test_shares_gap_and_weakest_stage(reports):
    a = analyze(reports)
    assert a.n_runs == 5 and a.n_analyzed == 4 and a.n_infra_excluded == 1
    assert a.total_codes == 3                                   # infrastructure codes never counted
    assert a.by_category["verification/recovery"].count == 2
    assert a.by_category["verification/recovery"].share == pytest.approx(2 / 3)
    assert a.by_category["deliverable/submission"].share == pytest.approx(1 / 3)
    assert a.by_step["S3"].count == 2 and a.by_step["S4"].count == 1 and a.by_step["S1"].count == 0
    assert a.gap.mean_clean == pytest.approx(0.85) and a.gap.mean_with_codes == pytest.approx(0.3)
    assert a.gap.relative_gap == pytest.approx(1 - 0.3 / 0.85)
    b = next(x for x in a.agents if x.agent == "b")
    assert b.weakest == "s3" and b.stages["s3"].mean == 0 and b.stages["s1"].median == pytest.approx(0.75)
    top = a.top_codes[0]
    assert (top.code, top.count, top.runs) == ("NO_PILOT", 2, 2)
    assert top.examples[0].page == "runs/r3.html#call-4"
    fmt = next(c for c in a.top_codes if c.code == "FORMAT_INVALID")
    assert fmt.examples[0].page == "runs/r3.html#case-c0"


def test_cli_json_tables_and_page(tmp_path, reports, make_run):
    for r in reports:
        make_run(tmp_path / "runs", r)
    proc = run_cli(["analyze", str(tmp_path / "runs"), "--json", "-"], timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["gap"]["runs_with_codes"] == 2
    proc = run_cli(["analyze", str(tmp_path / "runs"), "--out", str(tmp_path / "site"),
                    "--json", str(tmp_path / "a.json")], timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "Fired codes by category" in proc.stdout and "65% lower" in proc.stdout
    html = (tmp_path / "site" / "analysis.html").read_text()
    assert "NO_PILOT" in html and 'href="runs/r3.html#call-4"' in html
    for name in ("codes_by_category", "codes_by_step", "stage_distributions", "overall_gap"):
        assert (tmp_path / "site" / "analysis" / f"{name}.png").read_bytes()[:4] == b"\x89PNG"
        assert "<svg" in (tmp_path / "site" / "analysis" / f"{name}.svg").read_text()
    assert json.loads((tmp_path / "a.json").read_text())["total_codes"] == 3
    empty = run_cli(["analyze", str(tmp_path / "site" / "analysis")], timeout=60)
    assert empty.returncode == 2 and empty.stderr.startswith("error:")


def test_a_site_built_with_plots_off_says_so_and_draws_none(tmp_path, reports, monkeypatch):
    """AUTOMEDBENCH_ANALYSIS_PLOTS=0 (set for the whole suite by tests/conftest.py) leaves the
    figures out of a leaderboard's analysis page, and the page says why; the variable unset
    means draw (docs/leaderboard.md)."""
    from automedbench.report import write_leaderboard
    from automedbench.report.analyze import plots_wanted

    monkeypatch.setenv("AUTOMEDBENCH_ANALYSIS_PLOTS", "0")
    write_leaderboard(reports, tmp_path / "site")
    html = (tmp_path / "site" / "analysis.html").read_text()
    assert 'id="plots-off"' in html and "<img" not in html.split('id="gap-text"')[1].split("cols2")[0]
    assert not list((tmp_path / "site" / "analysis").glob("*.png"))
    monkeypatch.delenv("AUTOMEDBENCH_ANALYSIS_PLOTS")
    assert plots_wanted()
    for value in ("1", "yes", ""):
        monkeypatch.setenv("AUTOMEDBENCH_ANALYSIS_PLOTS", value)
        assert plots_wanted(), value
    for value in ("0", "false", "OFF", "no"):
        monkeypatch.setenv("AUTOMEDBENCH_ANALYSIS_PLOTS", value)
        assert not plots_wanted(), value
