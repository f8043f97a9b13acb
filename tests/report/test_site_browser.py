"""The site in a real browser: Debian's chromium, headless, driven by Playwright.

Pages load from file:// without console errors; tables are filled; sorting, the track/task/
tier filters and the tier picker work; an error code's evidence link opens the right turn;
the comparison view loads two runs on demand; the call search filters tool calls."""
from __future__ import annotations

import pytest
from tests.report.browser import needs_browser
from tests.report.site_fixture import make_site_runs

from automedbench.report import aggregate, collect_reports, write_leaderboard
from automedbench.report.profiles import with_profile
from automedbench.report.site import run_slug

pytestmark = needs_browser


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
    row = page.locator('#agents-table tbody tr[data-agent="alpha"] td').nth(_col(page, "#agents-table", "Overall")).inner_text()
    assert row.split("\n")[0] == f"{want.overall.mean * 100:.1f}"
    page.select_option("#f-track", "detection")
    page.select_option("#f-task", "det-b")
    assert set(_column(page, "#groups-table", 0)) == {"det-b"}
    assert set(_column(page, "#runs-table", 2)) == {"det-b"}
    page.select_option("#f-track", "segmentation")                  # the task no longer fits: reset
    assert page.locator("#f-task").input_value() == ""
    assert set(_column(page, "#groups-table", 0)) == {"seg-a"}


def test_profile_toggle_switches_the_task_column_and_the_url(site, page):
    # docs/site.md "Scoring profile": the Task column switches in the page; Overall stays ours
    out, reps = site
    page.goto((out / "index.html").as_uri())
    ours, ref = page.locator('#profile-toggle [data-profile="ours"]'), page.locator('#profile-toggle [data-profile="reference"]')
    assert ours.get_attribute("aria-pressed") == "true" and ref.get_attribute("aria-pressed") == "false"
    t, o = _col(page, "#agents-table", "Task"), _col(page, "#agents-table", "Overall")
    cell = page.locator('#agents-table tbody tr[data-agent="alpha"] td')
    want = {p: next(a for a in aggregate(with_profile(reps, p)).agents if a.agent == "alpha").task_score.mean
            for p in ("ours", "reference")}
    overall = cell.nth(o).inner_text()
    assert cell.nth(t).inner_text().split("\n")[0] == f"{want['ours'] * 100:.1f}"
    ref.click()
    assert ref.get_attribute("aria-pressed") == "true" and ours.get_attribute("aria-pressed") == "false"
    assert "profile=reference" in page.evaluate("location.hash")
    assert cell.nth(t).inner_text().split("\n")[0] == f"{want['reference'] * 100:.1f}"
    assert cell.nth(o).inner_text() == overall
    run = reps[0]
    rt = _col(page, "#runs-table", "Agentic") + 1                      # the score column, not the task name
    run_cell = page.locator(f'#runs-table tbody tr[data-run="{run.run.run_id}"] td').nth(rt)
    assert run_cell.inner_text() == f"{run.task.profile_scores['reference'].score * 100:.1f}"
    page.reload()                                                     # the state lives in the URL
    assert ref.get_attribute("aria-pressed") == "true" and run_cell.inner_text() == f"{run.task.profile_scores['reference'].score * 100:.1f}"
    ours.click()
    assert run_cell.inner_text() == f"{run.task.score * 100:.1f}" and "profile" not in page.evaluate("location.hash")
    assert page.errors == []


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
    # the target is marked on hashchange, after the click returns (seen late under load)
    page.wait_for_selector("details.call.target", timeout=3000)
    call = page.locator("details.call.target")
    assert call.count() == 1 and call.get_attribute("data-turn") == "3"
    assert call.evaluate("d => d.open") and call.is_visible()
    assert "marker-3" in call.inner_text() and "Traceback: boom" in call.inner_text()
    box = call.bounding_box()
    assert 0 <= box["y"] < 900                                       # scrolled into view
    page.click('#timeline-bar a[href="#call-5"]')
    # hashchange fires after the click returns: wait for it rather than race it
    page.wait_for_function("document.querySelector('details.call.target').id === 'call-5'", timeout=3000)


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


# ---- run pages a researcher debugs with (docs/site.md) ----------------------------------------

BETA0 = "seg-a_lite_beta_0"    # the run site_fixture.enrich_run fills with what a researcher debugs


def _run_page(page, out, run_id=BETA0):
    page.goto((out / "runs" / f"{run_slug(run_id)}.html").as_uri())
    page.wait_for_load_state("load")


def test_pictures_on_the_run_page_and_side_by_side_in_compare(site, page):
    out, _ = site
    _run_page(page, out)
    img = page.locator("#case-c1 td.pics img")
    assert img.count() == 1 and img.evaluate("i => i.complete && i.naturalWidth") == 40
    assert "contours" in img.get_attribute("alt")
    frame = page.locator("#case-c1 td.pics iframe")
    assert frame.count() == 1 and "allow-scripts" not in frame.get_attribute("sandbox")   # scripts off in the card
    assert page.locator("#case-c0 td.pics img").count() == 0
    page.goto((out / "compare.html").as_uri() + f"?a={BETA0}&b=seg-a_lite_beta_1")
    page.wait_for_selector("#compare-cases")
    row = page.locator("#cmp-case-c1")
    assert row.locator("td").nth(1).locator("img").count() == 1                # A's picture, B has none
    assert page.locator("#compare-cases tbody tr").first.get_attribute("id") == "cmp-case-c1"
    assert page.errors == []


def test_transcript_shows_everything_in_order(site, page):
    out, _ = site
    _run_page(page, out)
    sp = page.locator("#system-prompt")
    assert not sp.evaluate("d => d.open") and "SYSTEM-PROMPT-MARKER" in sp.evaluate("d => d.textContent")
    tr = page.locator("#transcript")
    text = tr.inner_text()
    assert "100 in / 20 out" in text and "NUDGE-MARKER" in text and "REJECTED-MARKER" in text
    assert text.index("REJECTED-MARKER") < text.index("call 4")                 # in trace order
    submit = page.locator("#call-7")
    assert "Submission received. The harness will score it." in submit.locator("pre.result").inner_text(timeout=0) \
        or "Submission received" in submit.evaluate("d => d.textContent")
    assert "{}" not in submit.evaluate("d => d.querySelector('pre.result').textContent")
    assert "/workspace/outputs/c0/mask.nii.gz" in page.locator("#call-2 .effects").evaluate("e => e.textContent")
    hrefs = page.eval_on_selector_all("#raw-links a", "as => as.map(a => [a.textContent, a.href])")
    labels = [h[0] for h in hrefs]
    assert {"trace.jsonl", "conversation.json", "detail_report.json", "workspace files"} <= set(labels)
    assert any("Inspect" in x for x in labels)
    from urllib.parse import unquote, urlsplit
    for _, href in hrefs:
        from pathlib import Path
        assert Path(unquote(urlsplit(href).path)).exists(), href


def test_judge_item_links_to_its_cited_call_and_file(site, page):
    # docs/site.md "Run page": each item shows its own reason and links to the calls/files it cites
    out, _ = site
    _run_page(page, out)
    row = page.locator('#judge-table tr.item-row[data-item="s3"]')
    assert "EVIDENCE-WHY-MARKER" in row.inner_text()
    assert row.locator('a[href="#call-99"]').count() == 0 and "#99" in row.inner_text()   # not in the trace
    row.locator('a[href="#call-5"]').click()
    call = page.locator("details.call.target")
    assert call.get_attribute("id") == "call-5" and call.evaluate("d => d.open")
    assert 0 <= call.bounding_box()["y"] < 900                                           # scrolled to
    row.locator("a.file-link").click()                                                   # the call that wrote it
    page.wait_for_function("document.querySelector('details.call.target').id === 'call-2'", timeout=3000)
    s1a = page.locator('#judge-table tr.item-row[data-item="s1a"] a.file-link')
    assert s1a.get_attribute("href") == "#plan-md"
    assert page.errors == []


def test_case_filter_and_its_url(site, page):
    out, _ = site
    _run_page(page, out)
    def shown():
        return page.eval_on_selector_all("#cases-table tbody tr:not(.hidden)", "rs => rs.map(r => r.cells[0].innerText)")
    assert len(shown()) == 82
    page.click('[data-case-filter="zero"]')
    assert shown() == ["c1"]
    assert page.locator('[data-case-filter="zero"]').get_attribute("aria-pressed") == "true"
    assert "cases=zero" in page.evaluate("location.hash")
    page.click('[data-case-filter="flagged"]')
    assert shown() == ["x0"]
    page.click('[data-case-filter="invalid"]')
    assert len(shown()) == 80
    page.click('[data-case-filter="all"]')
    assert len(shown()) == 82


def test_text_that_does_not_mislead(site, page):
    out, _ = site
    _run_page(page, out)
    why = page.eval_on_selector_all("#cases-table tbody tr", "rs => rs.map(r => r.cells[r.cells.length - 1].innerText)")
    assert "= 0" not in why[0]                       # fp_voxels = 0 is the good outcome: no claim
    assert "dice = 0" in why[1]
    col = _col(page, "#cases-table", "n_gt")
    assert _column(page, "#cases-table", col)[:2] == ["2", "1"]                  # counts, not 2.000
    errors = page.locator("#errors-list").inner_text()
    assert "\\u2014" not in errors and "pilot —" in errors
    ev = page.locator("#code-NO_PILOT details.ev")
    assert ev.count() == 1 and ev.locator("summary").inner_text().endswith("…")
    assert not ev.locator("summary").inner_text()[:-1].rstrip().endswith("chec")   # cut at a word boundary
    missing = page.locator("#code-MISSING_CASES").inner_text()
    assert "+56 more" in missing and "m019" in missing
    judge = page.locator("#judge-table")
    assert "″" not in judge.inner_text()
    s1a = page.locator('#judge-table tr[data-item="s1a"]').inner_text()
    assert "plan.md present" not in s1a
    assert "plan.md present" in page.locator("#judge-s1").inner_text()


def test_task_board_defects(site, page):
    out, _ = site
    page.goto((out / "tasks" / "seg-a.html").as_uri())
    assert page.locator("#compare-go").count() == 0                             # no duplicate ids
    ids = page.eval_on_selector_all("[id]", "es => es.map(e => e.id)")
    assert len(ids) == len(set(ids))
    page.evaluate("location.hash = '#tier=pro'")                                 # a change within the page
    page.wait_for_function("!document.querySelector('#tier-pro').classList.contains('hidden')")
    assert page.locator('#tier-picker button[data-tier="pro"]').get_attribute("aria-pressed") == "true"
    boxes = page.locator("#tier-pro input.cmp")
    boxes.nth(0).check()
    boxes.nth(1).check()
    link = page.locator("#tier-pro .compare-go")
    assert link.is_visible() and "compare.html?a=" in link.get_attribute("href")


def test_compare_clears_when_run_a_changes(site, page):
    out, _ = site
    page.goto((out / "compare.html").as_uri() + "?a=seg-a_lite_alpha_0&b=seg-a_lite_beta_0")
    page.wait_for_selector("#compare-table")
    page.select_option("#cmp-a", "det-b_lite_alpha_0")
    page.wait_for_timeout(200)
    assert page.locator("#compare-table").count() == 0
    assert page.locator("#cmp-b").input_value() == ""
    page.select_option("#cmp-b", "det-b_lite_beta_0")
    page.wait_for_selector("#compare-table")
    assert "det-b" in page.locator("#compare-table").inner_text()


def test_index_sorting_filters_and_url_state(site, page):
    out, reps = site
    page.goto((out / "index.html").as_uri())
    i = _col(page, "#agents-table", "Agent")
    th = page.locator("#agents-table thead th").nth(i)
    th.focus()
    page.keyboard.press("Enter")                                                  # keyboard-operable
    assert th.get_attribute("aria-sort") == "ascending"
    page.select_option("#f-tier", "lite")
    names = page.eval_on_selector_all("#agents-table tbody tr", "rows => rows.map(r => r.dataset.agent)")
    assert names == sorted(names) and "sorted-asc" in th.get_attribute("class")   # the arrow tells the truth
    assert "tier=lite" in page.evaluate("location.hash") and f"sort-agents={i}.a" in page.evaluate("location.hash")
    # the error-codes table follows the filters
    page.select_option("#f-tier", "pro")
    agents = page.eval_on_selector_all("#errors-table tbody tr", "rows => rows.map(r => r.dataset.agent)")
    assert sorted(agents) == ["alpha", "beta"]
    # a shared view opens as it was
    page.goto((out / "index.html").as_uri() + "#track=detection&tier=pro")
    assert page.locator("#f-track").input_value() == "detection" and page.locator("#f-tier").input_value() == "pro"
    assert set(_column(page, "#groups-table", 0)) == {"det-b"}
    # 95% CI sorts by the interval, not its width: the lower bound
    page.goto((out / "index.html").as_uri())
    c = _col(page, "#agents-table", "95% CI")
    page.locator("#agents-table thead th").nth(c).click()
    lows = page.eval_on_selector_all("#agents-table tbody tr", f"rs => rs.map(r => Number(r.cells[{c}].dataset.v))")
    want = sorted((a.overall.ci_low for a in aggregate(reps).agents), reverse=True)
    assert lows == pytest.approx(want, abs=1e-3)


PAGES = ["index.html", "tasks/seg-a.html", f"runs/{BETA0}.html", "compare.html?a=seg-a_lite_alpha_0&b=seg-a_lite_beta_0",
         "analysis.html", "rubric.html", "tiers.html", "rules.html"]


def _open(page, out, rel):
    path, _, query = rel.partition("?")
    page.goto((out / path).as_uri() + (f"?{query}" if query else ""))
    page.wait_for_load_state("load")
    if query:
        page.wait_for_selector("#compare-table")


def test_no_page_scrolls_sideways(site, browser):
    out, _ = site
    for width in (1440, 390):
        pg = browser.new_page(viewport={"width": width, "height": 900})
        for rel in PAGES:
            _open(pg, out, rel)
            sw = pg.evaluate("document.documentElement.scrollWidth")
            assert sw <= width, (width, rel, sw)
        pg.close()


@pytest.mark.slow
def test_accessibility_axe_core(site, browser):
    axe_mod = pytest.importorskip("axe_playwright_python.sync_playwright",
                                  reason="axe-playwright-python is not installed (the test extra)")
    out, _ = site
    axe = axe_mod.Axe()
    pg = browser.new_page(viewport={"width": 1440, "height": 900})
    for rel in PAGES:
        _open(pg, out, rel)
        results = axe.run(pg)
        bad = [(v["id"], v["impact"], len(v["nodes"])) for v in results.response["violations"]
               if v["impact"] in ("serious", "critical")]
        assert bad == [], (rel, bad, [v["nodes"][0]["target"] for v in results.response["violations"]
                                      if v["impact"] in ("serious", "critical")])
    pg.close()


def test_noscript_message(site, browser):
    out, _ = site
    ctx = browser.new_context(java_script_enabled=False)
    pg = ctx.new_page()
    pg.goto((out / "index.html").as_uri())
    assert "JavaScript" in pg.locator("#noscript-note").inner_text()
    # issue 28: without JavaScript the board never claims "No runs match this filter"
    assert not pg.locator("#agents-empty").is_visible()
    assert "No runs match" not in pg.locator("body").inner_text()
    ctx.close()


def test_a_stage_renamed_in_the_rubric_shows_under_its_new_name(tmp_path, page):
    """The pages take the stages from the rubric they are given, the script included
    (docs/site.md "Stages come from the rubric"): rename S2 in a copy of rubric.yaml and the
    board's header, its bars (drawn by site.js) and the comparison's row (site.js) say the new name."""
    from automedbench.scoring.rubric import RUBRIC_PATH, load_rubric
    text = RUBRIC_PATH.read_text()
    assert "name: Setup\n" in text
    renamed = tmp_path / "rubric.yaml"
    renamed.write_text(text.replace("name: Setup\n", "name: Toolchain\n"))
    root, out = tmp_path / "runs", tmp_path / "site"
    make_site_runs(root)
    write_leaderboard(collect_reports([root]), out, analysis_plots=False, rubric=load_rubric(renamed))
    page.goto((out / "index.html").as_uri())
    head = page.locator("#agents-table thead").inner_text()
    assert "Toolchain" in head and "Setup" not in head
    bar_titles = page.eval_on_selector_all("#agents-table .bars span", "els => els.map(e => e.title)")
    assert len(bar_titles) == 15 and sum(t.startswith("S2 Toolchain ") for t in bar_titles) == 3, bar_titles
    assert not any("Setup" in t for t in bar_titles)
    page.goto((out / "compare.html").as_uri() + "?a=seg-a_lite_alpha_0&b=seg-a_lite_beta_0")
    page.wait_for_selector("#compare-table")
    rows = page.eval_on_selector_all("#compare-table tbody th", "els => els.map(e => [e.textContent, e.title])")
    assert [r for r in rows if r[1]] == [["S1", "Plan"], ["S2", "Toolchain"], ["S3", "Validate"], ["S4", "Inference"],
                                         ["S5", "Submit"]], rows
    assert page.errors == []
