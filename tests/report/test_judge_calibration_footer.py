"""The leaderboard footer names each judge and its measured calibration (docs/site.md
"Leaderboard footer"): `judge-eval` keeps its last measurement under <home>/calibration/,
`report` finds it there (or takes --judge-calibration FILE); a judge never measured reads
"not measured"; a file that is not a judge-eval result is a warning on the page, not a crash."""
import json
import re

import pytest

from tests.helpers import amb, needs_calibration

from automedbench.api import judge_eval
from automedbench.report import write_leaderboard
from automedbench.runs.models import JudgeInfo


def _footer(html: str) -> str:
    m = re.search(r'<dd id="judge-calibration">(.*?)</dd>', html, re.DOTALL)
    assert m, "footer has no judge calibration"
    return re.sub(r"<[^>]+>", "", m.group(1))


@pytest.mark.slow
@needs_calibration()
def test_judge_eval_then_report_shows_kappa_per_stage(tmp_path, make_report, make_run, monkeypatch):
    env = {"AUTOMEDBENCH_HOME": str(tmp_path / "home")}
    # what `judge-eval` keeps (tests/test_judge_eval.py proves the command writes this file): the
    # API the command calls, in this process, instead of a second full measurement in a subprocess
    monkeypatch.setenv("AUTOMEDBENCH_HOME", env["AUTOMEDBENCH_HOME"])
    judge_eval(record=True)
    saved = json.loads((tmp_path / "home" / "calibration" / "heuristic_v3.json").read_text())
    k3 = saved["stages"]["s3"]["kappa"]
    heur = make_report("h1", agent="alpha")
    heur.judge = JudgeInfo(backend="heuristic", version="3")
    llm = make_report("l1", agent="beta")
    llm.judge = JudgeInfo(backend="llm", model="judge-model", version="llm-4")
    for r in (heur, llm):
        make_run(tmp_path / "runs", r)
    amb("report", tmp_path / "runs", "--out", tmp_path / "site", env=env)
    footer = _footer((tmp_path / "site" / "index.html").read_text())
    assert f"heuristic v3: S1 κ {saved['stages']['s1']['kappa']:.2f}" in footer
    assert f"S3 κ {k3:.2f}" in footer and f"{saved['n_trajectories']} trajectories" in footer
    # the set it was measured on is named (docs/site.md "Leaderboard footer")
    assert "built-in calibration set" in footer and f"tracks {', '.join(saved['tracks'])}" in footer
    assert f"tiers {', '.join(saved['tiers'])}" in footer and "not runs of the agents on this board" in footer
    assert "llm:judge-model vllm-4: calibration not measured" in footer
    # an explicit file replaces the default folder: the heuristic judge is then "not measured"
    other = tmp_path / "llm.json"
    other.write_text(json.dumps({**saved, "judge": {"backend": "llm", "model": "judge-model", "version": "llm-4"}}))
    amb("report", tmp_path / "runs", "--out", tmp_path / "site2", "--judge-calibration", other, env=env)
    footer = _footer((tmp_path / "site2" / "index.html").read_text())
    assert "heuristic v3: calibration not measured" in footer and "llm:judge-model vllm-4: S1 κ" in footer
    bad = amb("report", tmp_path / "runs", "--out", tmp_path / "s3", "--judge-calibration", tmp_path / "nope.json",
              env=env, check=False)
    assert bad.returncode == 2 and "no such file" in bad.stderr and "Traceback" not in bad.stderr


def test_unreadable_calibration_is_a_warning_and_not_measured(tmp_path, make_report):
    bad = tmp_path / "bad.json"
    bad.write_text('{"judge": "heuristic"}')
    rep = make_report("r1")
    index = write_leaderboard([rep], tmp_path / "site", analysis_plots=False, judge_calibration=[bad])
    html = index.read_text()
    assert "calibration not measured" in _footer(html)
    assert "bad.json: not a judge-eval --save result" in html
