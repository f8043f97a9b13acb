"""The site in a real browser: Debian's chromium, headless, driven by Playwright.

Pages load from file:// without console errors; tables are filled; sorting, the track/task/
tier filters and the tier picker work; an error code's evidence link opens the right turn;
the comparison view loads two runs on demand; the call search filters tool calls."""
from __future__ import annotations

import shutil

import pytest
from site_fixture import make_site_runs

from automedbench.report import aggregate, collect_reports, write_leaderboard
from automedbench.report.site import run_slug

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]

try:
    from playwright.sync_api import sync_playwright
except ImportError:  # pragma: no cover
    sync_playwright = None

pytestmark = [
    pytest.mark.skipif(sync_playwright is None, reason="the playwright package is not installed (pip install playwright)"),
    pytest.mark.skipif(shutil.which("chromium") is None,
                       reason="no chromium binary: `make test` installs it as root (apt-get install chromium)"),
]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    root = tmp_path_factory.mktemp("runs")
    reps = make_site_runs(root)
    out = tmp_path_factory.mktemp("site")
    write_leaderboard(collect_reports([root]), out, analysis_plots=False)
    return out, reps


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    pg = browser.new_page(viewport={"width": 1300, "height": 900})
    pg.errors = []
    pg.on("console", lambda m: pg.errors.append(m.text) if m.type == "error" else None)
    pg.on("pageerror", lambda e: pg.errors.append(str(e)))
    yield pg
    pg.close()


def _col(page, table, header):
    heads = page.locator(f"{table} thead th").all_inner_texts()
    return next(i for i, h in enumerate(heads) if h.split("\n")[0].strip() == header)


def _column(page, table, i):
    return page.eval_on_selector_all(f"{table} tbody tr:not(.hidden)", f"rows => rows.map(r => r.cells[{i}].innerText.trim())")


def test_pages_load_without_console_errors_and_tables_are_filled(site, page):
    out, reps = site
    paths = [out / "index.html", out / "compare.html", out / "analysis.html", *sorted((out / "tasks").glob("*.html")),
             *sorted((out / "runs").glob("*.html"))[:6]]
    for p in paths:
        page.goto(p.as_uri())
        page.wait_for_load_state("load")
        assert page.errors == [], (p.name, page.errors)
    page.goto((out / "index.html").as_uri())
    assert page.locator("#agents-table tbody tr").count() == 3
    assert page.locator("#groups-table tbody tr").count() == 10
    assert page.locator("#runs-table tbody tr").count() == len(reps)
    assert page.locator("#agents-table .bars span").count() == 15   # S1-S5 bars per agent
    assert "1 infra" in page.locator("#agents-table").inner_text()  # counted beside alpha's row


def test_sorting_by_a_column(site, page):
    out, _ = site
    page.goto((out / "index.html").as_uri())
    i = _col(page, "#agents-table", "Agent")
    def names():
        return page.eval_on_selector_all("#agents-table tbody tr", "rows => rows.map(r => r.dataset.agent)")
    page.locator("#agents-table thead th").nth(i).click()
    assert names() == ["alpha", "beta", "gamma"]
    page.locator("#agents-table thead th").nth(i).click()
    assert names() == ["gamma", "beta", "alpha"]
    o = _col(page, "#runs-table", "Overall")
    page.locator("#runs-table thead th").nth(o).click()
    vals = [float(v) for v in _column(page, "#runs-table", o) if v != "—"]
    assert vals == sorted(vals, reverse=True) and len(set(vals)) > 2


def test_filters_recompute_the_agent_rows(site, page):
    out, reps = site
    page.goto((out / "index.html").as_uri())
    page.select_option("#f-tier", "pro")
    names = page.eval_on_selector_all("#agents-table tbody tr", "rows => rows.map(r => r.dataset.agent)")
    assert sorted(names) == ["alpha", "beta"]                        # gamma ran Lite only
    tiers = set(_column(page, "#groups-table", 1))
    assert tiers == {"pro"}
    want = next(a for a in aggregate([r for r in reps if r.run.tier == "pro"]).agents if a.agent == "alpha")
    row = page.locator('#agents-table tbody tr[data-agent="alpha"] td').nth(2).inner_text()
    assert row.split("\n")[0] == f"{want.overall.mean * 100:.1f}"
    page.select_option("#f-track", "detection")
    page.select_option("#f-task", "det-b")
    assert set(_column(page, "#groups-table", 0)) == {"det-b"}
    assert set(_column(page, "#runs-table", 2)) == {"det-b"}
    page.select_option("#f-track", "segmentation")                  # the task no longer fits: reset
    assert page.locator("#f-task").input_value() == ""
    assert set(_column(page, "#groups-table", 0)) == {"seg-a"}


def test_tier_picker(site, page):
    out, _ = site
    page.goto((out / "tasks" / "seg-a.html").as_uri())
    assert page.locator("#tier-lite").is_visible() and not page.locator("#tier-pro").is_visible()
    page.click('#tier-picker button[data-tier="pro"]')
    assert page.locator("#tier-pro").is_visible() and not page.locator("#tier-lite").is_visible()
    assert "gamma" not in page.locator("#tier-pro").inner_text()
    page.goto((out / "tasks" / "seg-a.html").as_uri() + "#tier=pro")
    assert page.locator("#tier-pro").is_visible()


def test_evidence_link_opens_the_right_turn(site, page):
    out, reps = site
    r = next(x for x in reps if x.run.agent == "beta")
    page.goto((out / "runs" / f"{run_slug(r.run.run_id)}.html").as_uri())
    assert page.locator("details.call[open]").count() == 0
    page.click('#errors-list a[href="#turn-3"]')
    call = page.locator("details.call.target")
    assert call.count() == 1 and call.get_attribute("data-turn") == "3"
    assert call.evaluate("d => d.open") and call.is_visible()
    assert "marker-3" in call.inner_text() and "Traceback: boom" in call.inner_text()
    box = call.bounding_box()
    assert 0 <= box["y"] < 900                                       # scrolled into view
    page.click('#timeline-bar a[href="#call-5"]')
    assert page.locator("details.call.target").get_attribute("id") == "call-5"


def test_call_search(site, page):
    out, reps = site
    r = next(x for x in reps if x.run.agent == "beta")
    page.goto((out / "runs" / f"{run_slug(r.run.run_id)}.html").as_uri())
    page.fill("#call-search", "traceback")
    visible = page.locator("details.call:not(.hidden)")
    assert visible.count() == 1 and visible.get_attribute("id") == "call-3"
    page.fill("#call-search", "")
    assert page.locator("details.call:not(.hidden)").count() == 7


def test_compare_two_runs(site, page):
    out, reps = site
    a = next(x for x in reps if x.run.agent == "alpha" and x.run.task == "seg-a")
    page.goto((out / "tasks" / "seg-a.html").as_uri())
    boxes = page.locator("#tier-lite input.cmp")
    boxes.nth(0).check()
    boxes.nth(3).check()
    page.click("#tier-lite .compare-go")
    page.wait_for_selector("#compare-table")
    text = page.locator("#compare-table").inner_text()
    assert "Overall" in text and "S3" in text and "seg-a · lite" in text
    assert page.locator("#compare-cases tbody tr").count() >= 2
    assert page.errors == []
    # the B list only offers runs of A's task
    page.goto((out / "compare.html").as_uri() + f"?a={a.run.run_id}")
    opts = page.eval_on_selector_all("#cmp-b option", "os => os.map(o => o.textContent)")
    assert all("seg-a" in o for o in opts[1:]) and len(opts) > 2
