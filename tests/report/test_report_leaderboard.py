from __future__ import annotations

import csv
import json
import re
import shutil
import subprocess

import pytest

from automedbench.report import collect_reports, write_leaderboard
from automedbench.report.leaderboard import CSV_COLUMNS, PLOT_PREFIX

EVIL = '<script>alert("x")</script>'


def _site(tmp_path, reports, **kw):
    out = tmp_path / "site"
    kw.setdefault("analysis_plots", False)  # matplotlib figures cost seconds; tests/report/test_analyze.py draws them
    index = write_leaderboard(reports, out, generated_at="2026-11-26 00:00 UTC", **kw)
    return out, index.read_text(encoding="utf-8")


def test_writes_all_files_and_shows_agents(tmp_path, make_report):
    reps = [make_report("a1", agent="alpha", overall=0.8), make_report("a2", agent="alpha", overall=0.6),
            make_report("b1", agent="beta", task="other", tier="pro", overall=0.3)]
    out, html = _site(tmp_path, reps)
    assert (out / "index.html").is_file()
    assert list(out.glob("*.png")) == []  # S1-S5 bars are drawn in the table (see test_site_browser.py)
    assert "alpha" in html and "beta" in html
    assert "70.0" in html          # alpha overall mean x100
    assert html.index("alpha") < html.index("beta")  # sorted by overall
    data = json.loads((out / "leaderboard.json").read_text())
    assert data["schema_version"] == "2.3" and data["n_runs"] == 3
    assert [a["agent"] for a in data["agents"]] == ["alpha", "beta"]
    assert data["agents"][0]["overall"]["mean"] == pytest.approx(0.7)  # stored on the 0..1 scale


def test_csv_header_and_one_row_per_agent_task_tier(tmp_path, make_report):
    reps = [make_report("a1", agent="alpha"), make_report("a2", agent="alpha"),
            make_report("a3", agent="alpha", tier="pro"), make_report("b1", agent="beta")]
    out, _ = _site(tmp_path, reps)
    with open(out / "leaderboard.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    # one named column each, every row as wide as the header (a writer that drops a field fails)
    assert len(set(rows[0])) == len(rows[0]) and all(len(r) == len(rows[0]) for r in rows)
    assert len(rows) == 1 + 3      # alpha × lite, alpha × pro, beta × lite
    assert rows[0][:5] == ["agent", "task", "tier", "n_runs", "models"]
    for col in ("overall_mean", "overall_ci_low", "overall_ci_high", "agentic_mean", "task_score_mean",
                "s1_mean", "s5_n", "avg_turns", "avg_wall_time_s", "avg_tokens", "avg_cost_usd",
                "failure_rate", "disqualified", "judge_incomplete"):
        assert col in rows[0]
    body = {(r[0], r[1], r[2]): r for r in rows[1:]}
    assert len(rows) == 4 and body[("alpha", "kits-demo", "lite")][3] == "2"


def test_agent_names_are_html_escaped(tmp_path, make_report):
    out, html = _site(tmp_path, [make_report("x", agent=EVIL)])
    assert EVIL not in html and "<script>" not in html.lower()   # only the site's own <script src=...>
    assert "&lt;script&gt;" in html                              # tables: HTML-escaped
    assert "\\u003cscript\\u003e" in html                         # embedded JSON: cannot close its element
    data = json.loads((out / "leaderboard.json").read_text())
    assert data["agents"][0]["agent"] == EVIL  # data files keep the name as it is


def test_page_is_self_contained(tmp_path, make_report):
    out, html = _site(tmp_path, [make_report("x")])
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html, re.I)
    assert "@import" not in html
    # its only stylesheets and script are the site's own files, next to it (stages.css holds
    # the stage colours, written from the rubric)
    assert re.findall(r'<link [^>]*href="([^"]+)"', html) == ["assets/site.css", "assets/stages.css"]
    assert all((out / "assets" / name).is_file() for name in ("site.css", "stages.css", "site.js"))
    assert re.findall(r'<script src="([^"]+)"', html) == ["assets/site.js"]


def test_single_run_page(tmp_path, make_report):
    out, html = _site(tmp_path, [make_report("only", agent="solo", overall=0.42)])
    assert "solo" in html and "42.0" in html and "n=1" in html
    assert 'id="empty-state"' not in html


def test_zero_run_page_has_empty_state(tmp_path):
    out, html = _site(tmp_path, [])
    assert 'id="empty-state"' in html and "No runs to show yet" in html
    assert json.loads((out / "leaderboard.json").read_text())["n_runs"] == 0
    with open(out / "leaderboard.csv", encoding="utf-8") as fh:
        assert fh.read().strip().split(",") == CSV_COLUMNS
    assert list(out.glob("*.png")) == []


def test_stale_files_are_removed(tmp_path, make_report):
    out, _ = _site(tmp_path, [make_report("x", agent="old-agent")])
    assert (out / "runs" / "x.html").exists()
    (out / f"{PLOT_PREFIX}old-agent-1234.png").write_bytes(b"\x89PNG")  # an earlier version's plot
    _site(tmp_path, [make_report("y", agent="new-agent")])
    assert not (out / "runs" / "x.html").exists() and (out / "runs" / "y.html").exists()
    assert not list(out.glob(f"{PLOT_PREFIX}*"))


def test_unisolated_runs_are_marked(tmp_path, make_report):
    reps = [make_report("l1", agent="local-agent", sandbox="local (no isolation)"),
            make_report("b1", agent="boxed-agent", sandbox="bwrap")]
    _, html = _site(tmp_path, reps)
    assert 'id="unisolated-note"' in html and "local (no isolation)" in html
    assert html.count('class="unisolated"') == 2  # per-task row, errors row (the agents table is built in the browser)
    _, html2 = _site(tmp_path, [make_report("b2", sandbox="bwrap")])
    assert 'id="unisolated-note"' not in html2 and 'class="unisolated"' not in html2


def test_null_stage_counts_and_infrastructure_errors_shown(tmp_path, make_report):
    reps = [make_report("r1", stages={"s1": 1.0, "s2": None, "s3": 1.0, "s4": 1.0, "s5": 1.0},
                        errors=[{"code": "JUDGE_DOWN", "category": "resource/infrastructure",
                                 "step": "S2", "infrastructure": True}]),
            make_report("r2", errors=[{"code": "E3", "category": "verification/recovery", "step": "S3"}]),
            make_report("r3", judge_incomplete=True)]
    _, html = _site(tmp_path, reps)
    assert "n=1/2" in html
    assert "JUDGE_DOWN ×1" in html
    assert "judge incomplete" in html


def test_collection_warnings_are_shown(tmp_path, make_report, make_run):
    make_run(tmp_path / "runs", make_report("ok"))
    bad = tmp_path / "runs" / "bad"
    bad.mkdir()
    (bad / "detail_report.json").write_text("{", encoding="utf-8")
    reps = collect_reports([tmp_path / "runs"])
    _, html = _site(tmp_path, reps)
    assert "skipped" in html and "invalid JSON" in html


def test_headless_chromium_renders_page(tmp_path, make_report):
    exe = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if exe is None:
        pytest.skip("no chromium binary: the headless rendering check needs it (apt-get install chromium)")
    out, _ = _site(tmp_path, [make_report("r1", agent=EVIL), make_report("r2", agent="beta")])
    shot = tmp_path / "shot.png"
    proc = subprocess.run(
        [exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run",
         f"--user-data-dir={tmp_path / 'profile'}", f"--screenshot={shot}", "--window-size=1400,1000",
         (out / "index.html").as_uri()],
        capture_output=True, timeout=120)
    assert shot.exists() and shot.stat().st_size > 10_000, proc.stderr[-2000:]


def test_json_is_strict_and_has_generated_at(tmp_path, make_report):
    out, _ = _site(tmp_path, [make_report("r1", overall=float("nan")), make_report("r2")])
    text = (out / "leaderboard.json").read_text()
    assert "NaN" not in text
    assert json.loads(text)["generated_at"] == "2026-11-26 00:00 UTC"


def test_csv_has_rank_medal_and_rating(tmp_path, make_report):
    reps = [make_report("a1", agent="alpha"), make_report("a2", agent="alpha"), make_report("b1", agent="beta")]
    out, _ = _site(tmp_path, reps)
    with open(out / "leaderboard.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    board = json.loads((out / "leaderboard.json").read_text())
    best = max(board["groups"], key=lambda g: g["overall"]["mean"])
    by_agent = {r["agent"]: r for r in rows}
    assert by_agent[best["agent"]]["rank"] == "1" and sorted(r["rank"] for r in rows) == ["1", "2"]
    for r, g in ((by_agent[g["agent"]], g) for g in board["groups"]):
        assert r["medal"] in g["medals"] and r["rating"] in g["ratings"]
        assert r["medals"] == ";".join(f"{k}:{v}" for k, v in g["medals"].items())
