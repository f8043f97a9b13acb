"""A run page read as a researcher debugging a failed case (docs/site.md "Run page"), at
desktop and phone width: where the points went, at the top, with links that land."""
from __future__ import annotations

import re

import pytest
from tests.report.browser import WIDTHS, needs_browser, new_page

from automedbench.report.site import run_slug

pytestmark = needs_browser
BETA0 = "seg-a_lite_beta_0"    # the run site_fixture.enrich_run fills with what a researcher debugs


@pytest.fixture(params=WIDTHS, ids=lambda w: f"{w}px")
def wpage(request, browser):
    pg = new_page(browser, request.param)
    pg.width = request.param
    yield pg
    pg.close()


def _open(pg, out, run_id=BETA0):
    pg.goto((out / "runs" / f"{run_slug(run_id)}.html").as_uri())
    pg.wait_for_load_state("load")


def test_where_the_points_went_is_at_the_top_and_its_links_land(site, wpage):
    out, _ = site
    _open(wpage, out)
    pts = wpage.locator("#points")
    assert pts.bounding_box()["y"] < (900 if wpage.width > 700 else 1000)       # no scrolling past the record first
    assert wpage.evaluate("document.documentElement.scrollWidth") <= wpage.width
    cut = wpage.eval_on_selector_all("#points-table th, #points-table td",
                                     "es => es.filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.innerText)")
    assert cut == []                                                            # nothing clipped in its cell
    s3 = wpage.locator('#points-table tr[data-part="s3"]')
    cost = float(re.search(r"−([\d.]+)", s3.locator("td.num").nth(1).inner_text()).group(1))
    assert cost == pytest.approx(100 * 0.5 * 0.35 * 0.5, abs=0.06)              # 0.5 of S3's 0.35 weight, half of Overall
    assert wpage.locator('#points-table tr[data-part="s1"] td.num').nth(1).inner_text() == "0"
    text = s3.inner_text()
    assert "EVIDENCE-WHY-MARKER" in text and "NO_PILOT" in text and "LOGIC_SUSPECT" in text
    assert "call 99" in text and s3.locator('a[href="#call-99"]').count() == 0  # not in the trace: no dead link
    task = wpage.locator('#points-table tr[data-part="task"]').inner_text()
    assert "76 × no output folder" in task and "+70 more" in task and "malformed JSON" in task
    assert re.search(r"c1 dice 0\.000 — valid output, but dice = 0", task)
    # one reason quoting per-case numbers is one group, not one line per case
    assert "3 × box 0: empty box x1=40 x2=1 (numbers differ per case)" in task
    # each code links to its call; the cited call opens, scrolled into view
    s4 = wpage.locator('#points-table tr[data-part="s4"]')
    s4.locator('a[href="#call-3"]').click()
    call = wpage.locator("details.call.target")
    assert call.get_attribute("id") == "call-3" and call.evaluate("d => d.open")
    assert -2 <= call.bounding_box()["y"] < 900                                 # scrolled to (sub-pixel)
    s3.locator('a[href="#call-5"]').first.click()
    wpage.wait_for_function("document.querySelector('details.call.target').id === 'call-5'", timeout=3000)
    # the worst valid case leads to the call that wrote its output
    wpage.locator('#points-table tr[data-part="task"] a[href="#call-2"]').click()
    wpage.wait_for_function("document.querySelector('details.call.target').id === 'call-2'", timeout=3000)
    assert wpage.errors == []


def test_section_menu_reaches_every_section(site, wpage):
    out, _ = site
    _open(wpage, out)
    targets = wpage.eval_on_selector_all("nav.sections a", "as => as.map(a => a.getAttribute('href'))")
    assert {"#points", "#cases", "#errors", "#judge", "#calls", "#raw-links"} <= set(targets)
    for t in targets:
        assert wpage.locator(t).count() == 1, t
    wpage.click('nav.sections a[href="#errors"]')
    wpage.wait_for_function("Math.abs(document.getElementById('errors').getBoundingClientRect().top) < 50")
    assert wpage.errors == []


def test_uncharged_decoy_access_is_shown_as_such(site, wpage):
    # docs/site.md "Honest numbers": a disputed access is listed, marked not charged, with why
    out, _ = site
    _open(wpage, out)
    row = wpage.locator('#violations-table tr.uncharged[data-kind="private_access_not_the_call"]')
    text = row.inner_text()
    assert "not charged" in text and "disputed" in text and "updatedb" in text and "not the call's" in text
    assert "not charged" in wpage.locator('nav.sections a[href="#violations"]').inner_text()
    row.locator('a[href="#call-3"]').click()
    assert wpage.locator("details.call.target").get_attribute("id") == "call-3"
    assert wpage.evaluate("document.documentElement.scrollWidth") <= wpage.width


def test_an_interval_from_identical_repeats_says_so(tmp_path, browser, make_report, make_run):
    # docs/site.md "Honest numbers": "95.0–95.0" from a deterministic agent is no interval
    from automedbench.report import collect_reports, write_leaderboard
    for i in range(3):
        make_run(tmp_path / "runs", make_report(f"same{i}", agent="steady", task_score=0.9))
    for i, t in enumerate((0.2, 0.6, 0.9)):
        make_run(tmp_path / "runs", make_report(f"vary{i}", agent="wobbly", task_score=t))
    write_leaderboard(collect_reports([tmp_path / "runs"]), tmp_path / "site", analysis_plots=False)
    for width in WIDTHS:
        pg = new_page(browser, width)
        pg.goto((tmp_path / "site" / "index.html").as_uri())
        steady = pg.locator('#agents-table tbody tr[data-agent="steady"]').inner_text()
        wobbly = pg.locator('#agents-table tbody tr[data-agent="wobbly"]').inner_text()
        assert "(identical repeats)" in steady and "(identical repeats)" not in wobbly and "–" in wobbly
        pg.goto((tmp_path / "site" / "tasks" / "kits-demo.html").as_uri())
        assert "(identical repeats)" in pg.locator("#tier-lite").inner_text()
        assert pg.errors == []
        pg.close()


def test_task_diagnostics_confusion_matrix_recall_and_components(site, wpage):
    # docs/site.md "Task diagnostics": the matrix the label shift shows in, recall per class,
    # and which components the score used and which it could not compute, with why
    out, reps = site
    _open(wpage, out)
    r = next(x for x in reps if x.run.run_id == BETA0)
    m = wpage.locator('table.matrix-table[data-matrix="confusion"]')
    rows = m.evaluate("t => [...t.tBodies[0].rows].map(r => [...r.cells].map(c => c.innerText))")
    agg = r.task.aggregate_metrics
    assert rows == [[t] + [str(int(agg[f"confusion/{t}/{p}"])) for p in ("ct", "mr")] for t in ("ct", "mr")]
    assert m.locator("td.diag").count() == 2 and m.locator("td.off").count() == 1       # the one shifted cell
    recall = wpage.locator("#per-class-table").inner_text()
    assert "recall" in recall and f"{agg['recall/ct']:.3f}" in recall
    comp = wpage.locator("#task-components").inner_text()
    assert "bleu" in comp and "rouge_l" in comp and "not computed" in comp and "COMPONENT-NOTE-MARKER" in comp
    # a note on how a number was made is a note, not a component that failed
    assert comp.index("(NOTE-MARKER)") > comp.index("Notes:") > comp.index("COMPONENT-NOTE-MARKER")
    assert "accuracy" in wpage.locator("#task-metrics").inner_text()
    assert wpage.evaluate("document.documentElement.scrollWidth") <= wpage.width
    assert wpage.errors == []


# ---- the small defects of issue 29, each checked where it showed ------------------------------

def test_counts_print_as_integers_even_when_none_is_above_one(site, wpage):
    out, _ = site
    _open(wpage, out)
    heads = wpage.locator("#cases-table thead th").all_inner_texts()
    col = next(i for i, h in enumerate(heads) if h.split("\n")[0].strip().startswith("n_pred"))
    cells = wpage.eval_on_selector_all("#cases-table tbody tr", f"rs => rs.slice(0, 2).map(r => r.cells[{col}].innerText)")
    assert cells == ["1", "0"]                                            # a count of one box, not 1.000
    wpage.goto((out / "compare.html").as_uri() + f"?a={BETA0}&b=seg-a_lite_beta_1")
    wpage.wait_for_selector("#compare-cases")
    row = wpage.locator("#cmp-case-c0").inner_text()
    assert "n_pred 1" in row and "n_pred 1.000" not in row and "n_gt 2," in row
    assert wpage.errors == []


def test_rubric_page_ids_are_unique_and_judge_items_link_to_them(site, wpage):
    out, _ = site
    wpage.goto((out / "rubric.html").as_uri())
    ids = wpage.eval_on_selector_all("[id]", "es => es.map(e => e.id)")
    assert len(ids) == len(set(ids)) and "s3" in ids and "item-s3" in ids   # stage S3 and item s3 apart
    _open(wpage, out)
    wpage.locator('#judge-table tr[data-item="s3"] a[href="../rubric.html#item-s3"]').click()
    wpage.wait_for_load_state("load")
    assert wpage.url.endswith("rubric.html#item-s3") and wpage.locator("#item-s3").is_visible()


def test_error_code_table_fits_its_headers(site, wpage):
    out, _ = site
    wpage.goto((out / "index.html").as_uri())
    cut = wpage.eval_on_selector_all("#errors-table th, #errors-table td",
                                     "es => es.filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.innerText)")
    assert cut == []
    if wpage.width > 700:   # on a desktop every column shows without scrolling the box
        box = wpage.evaluate("(() => { const t = document.getElementById('errors-table'); "
                             "return [t.getBoundingClientRect().right, t.parentElement.getBoundingClientRect().right]; })()")
        assert box[0] <= box[1] + 1, box
    head = wpage.locator("#errors-table thead").inner_text()
    assert "structure (not counted)" in head.replace("\n", " ").replace("\u00ad", "")
    assert wpage.evaluate("document.documentElement.scrollWidth") <= wpage.width


def test_analysis_examples_are_readable_text(site, wpage):
    out, _ = site
    wpage.goto((out / "analysis.html").as_uri())
    row = next(r for r in wpage.locator("#codes-table tbody tr").all() if "NO_PILOT" in r.inner_text())
    ev = row.locator("td").last.inner_text()
    assert "\\u2014" not in ev and "pilot —" in ev                              # no JSON escapes
    texts = row.locator("td").last.locator(".meta").all_inner_texts()
    long = next(t for t in texts if "every case was written" in t)
    assert long.endswith("…") and long[:-1].rstrip().split(" ")[-1] in {"every", "case", "was", "written", "without", "a", "check"}


def test_no_track_guess_in_a_codes_text(site, wpage):
    out, _ = site
    _open(wpage, out)
    assert "orientation" not in wpage.locator("#code-LOGIC_SUSPECT").inner_text()


def test_axe_with_the_transcript_open(site, wpage):
    # every <details> open (calls, system prompt, long evidence): scrollable blocks are focusable
    axe_mod = pytest.importorskip("axe_playwright_python.sync_playwright",
                                  reason="axe-playwright-python is not installed (the test extra)")
    out, _ = site
    _open(wpage, out)
    wpage.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
    results = axe_mod.Axe().run(wpage)
    bad = [(v["id"], v["impact"], [n["target"] for n in v["nodes"][:3]]) for v in results.response["violations"]
           if v["impact"] in ("serious", "critical")]
    assert bad == []
    assert wpage.evaluate("document.documentElement.scrollWidth") <= wpage.width


def test_pictures_have_html_captions_and_cards_use_the_width(site, wpage):
    # docs/site.md "Pictures of outputs": the caption is text on the page, not pixels; on a
    # phone a case is a card and its pictures and answer cards take the full width
    out, _ = site
    _open(wpage, out)
    fig = wpage.locator("#case-c1 figure.pic-png")
    cap = fig.locator("figcaption")
    assert cap.is_visible() and "ground truth (green) and prediction (magenta) contours" in cap.inner_text() and "c1" in cap.inner_text()
    frame = wpage.locator("#case-c1 figure.pic-html iframe").bounding_box()
    if wpage.width < 700:
        assert frame["width"] >= 0.85 * (wpage.width - 20)                      # not a 142 px slot
        img = fig.locator("img").bounding_box()
        assert img["width"] >= 0.85 * (wpage.width - 20)
        assert wpage.locator("#cases-table thead").is_hidden()
        cell = wpage.locator('#case-c0 td[data-label="n_gt"]')                   # labelled by CSS ::before
        assert cell.is_visible() and cell.inner_text() == "2"
        assert "n_gt" in cell.evaluate("td => getComputedStyle(td, '::before').content")
    else:
        assert frame["width"] >= 500
    # the frame is as tall as its card (docs/site.md "Phone width and card pages"): all of it shows
    card = next(f for f in wpage.frames if f != wpage.main_frame)
    inner = card.evaluate("() => [document.documentElement.scrollHeight, document.documentElement.clientHeight]")
    assert "answer card" in card.inner_text("body") and inner[0] <= inner[1] + 1 and frame["height"] >= inner[0]
    assert wpage.evaluate("document.documentElement.scrollWidth") <= wpage.width
    assert wpage.errors == []


def test_judge_verdict_rationale_and_evidence_in_view(site, wpage):
    # docs/site.md "Run page": on a phone the verdicts table is one card per stage and item, so
    # the verdict, the item's reason and the calls and files it cites are on screen
    out, _ = site
    _open(wpage, out)
    row = wpage.locator('#judge-table tr.item-row[data-item="s3"]')
    row.scroll_into_view_if_needed()
    badge = row.locator(".badge")
    why = row.locator("td", has_text="EVIDENCE-WHY-MARKER")
    cite = row.locator('.cites a[href="#call-5"]')
    for el in (badge, why, cite):
        box = el.bounding_box()
        assert el.is_visible() and box["x"] >= 0 and box["x"] + box["width"] <= wpage.width, el
    assert "partial 0.5" in badge.inner_text()
    stage = wpage.locator("#judge-s1")
    assert stage.locator("td").last.bounding_box()["x"] + 10 < wpage.width                # the stage's rationale too
    assert wpage.evaluate("document.documentElement.scrollWidth") <= wpage.width


def test_compare_keeps_its_numbers_in_view(site, wpage):
    out, _ = site
    wpage.goto((out / "compare.html").as_uri() + f"?a={BETA0}&b=seg-a_lite_beta_1")
    wpage.wait_for_selector("#compare-table")
    for label in ("Overall", "Task", "error codes"):
        cells = wpage.locator("#compare-table tr", has=wpage.locator(f"th:text-is('{label}')")).locator("td")
        assert cells.count() == 3
        for c in cells.all():
            box = c.bounding_box()
            assert box["x"] >= 0 and box["x"] + box["width"] <= wpage.width + 1, (label, box)
    delta = wpage.locator("#compare-table tr", has=wpage.locator("th:text-is('Overall')")).locator("td").nth(2)
    assert delta.inner_text() == "5.0" and delta.is_visible()
    assert wpage.evaluate("document.documentElement.scrollWidth") <= wpage.width
