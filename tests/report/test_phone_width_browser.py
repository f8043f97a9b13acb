"""Nothing hidden at phone or desktop width (docs/site.md "Phone width and card pages"), in
headless chromium at 1440 and 390 px: the runs tables' scores and the fired codes' evidence are
in view (wide tables become cards), the per-case table of a report-generation run (scored by
the track itself, on its demo data) fits its box with its Why in view, its cards are as tall
as their frames and are pages with a title and a language, and the raw trace shows in the
browser from file:// and over HTTP instead of downloading."""
from __future__ import annotations

import functools
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest
from tests.report.browser import WIDTHS, needs_browser, new_page
from tests.report.factories import build_report, write_run

from automedbench.api import ensure_dataset
from automedbench.report import collect_reports, write_leaderboard
from automedbench.report.site import run_slug
from automedbench.scoring.pictures import write_pictures
from automedbench.scoring.task_score import score_workspace
from automedbench.tasks import discover

pytestmark = needs_browser
BETA0 = "seg-a_lite_beta_0"       # site_fixture.py's run with fired codes and their evidence
REPORT_RUN = "reportgen-careless"

# a cell is in view when the page shows all of it without scrolling sideways: inside the
# viewport and inside every box on the way up that clips it (a table's scrolling wrapper)
IN_VIEW = """els => els.map(el => {
  const r = el.getBoundingClientRect();
  if (!r.width || r.left < -1 || r.right > innerWidth + 1) return false;
  for (let p = el.parentElement; p; p = p.parentElement) {
    if (getComputedStyle(p).overflowX === "visible") continue;
    const b = p.getBoundingClientRect();
    if (r.left < b.left - 1 || r.right > b.right + 1) return false;
  }
  return true;
})"""


@pytest.fixture(params=WIDTHS, ids=lambda w: f"{w}px")
def wpage(request, browser):
    pg = new_page(browser, request.param)
    pg.width = request.param
    yield pg
    pg.close()


def _column_cells(pg, table, header):
    heads = [h.split("\n")[0].strip() for h in pg.locator(f"{table} thead th").all_inner_texts()]
    i = heads.index(header)
    return f"{table} tbody tr:not(.hidden) > td:nth-child({i + 1})"


def _all_in_view(pg, selector):
    seen = pg.eval_on_selector_all(selector, IN_VIEW)
    return len(seen) > 0 and all(seen), seen


def test_run_scores_are_in_view(site, wpage):
    out, _ = site
    wpage.goto((out / "index.html").as_uri())
    ok, seen = _all_in_view(wpage, _column_cells(wpage, "#runs-table", "Overall"))
    assert ok, (wpage.width, seen)
    ok, seen = _all_in_view(wpage, _column_cells(wpage, "#runs-table", "Task"))
    assert ok, (wpage.width, seen)
    if wpage.width < 700:                                     # a card: the score says what it is
        cell = wpage.locator(_column_cells(wpage, "#runs-table", "Overall")).first
        assert "Overall" in cell.evaluate("td => getComputedStyle(td, '::before').content")
    wpage.goto((out / "tasks" / "seg-a.html").as_uri())
    ok, seen = _all_in_view(wpage, _column_cells(wpage, "#tier-lite table.runs", "Overall"))
    assert ok, (wpage.width, seen)
    assert wpage.evaluate("document.documentElement.scrollWidth") <= wpage.width
    assert wpage.errors == []


def test_fired_codes_show_their_evidence(site, wpage):
    out, _ = site
    wpage.goto((out / "runs" / f"{run_slug(BETA0)}.html").as_uri())
    ok, seen = _all_in_view(wpage, _column_cells(wpage, "#errors-list", "Evidence"))
    assert ok, (wpage.width, seen)
    assert "m019" in wpage.locator("#code-MISSING_CASES").inner_text()
    assert wpage.evaluate("document.documentElement.scrollWidth") <= wpage.width


def _long_findings(outputs):
    """Two reports with many more sentences than the reference: cards taller than a frame's
    default height."""
    spoilt = sorted(outputs.iterdir())[:2]
    extra = " ".join(f"There is a {n} mm nodule in the right upper zone, unchanged." for n in range(11, 29))
    for case in spoilt:
        f = case / "report.txt"
        f.write_text(f.read_text().replace("FINDINGS:", f"FINDINGS: {extra}", 1))
    return [c.name for c in spoilt]


@pytest.fixture(scope="module")
def report_site(tmp_path_factory, staged_once):
    """A report-generation run scored and pictured by its track, built into a site."""
    data, root, ws = (tmp_path_factory.mktemp(n) for n in ("data", "runs", "ws"))
    task = discover()["cxr-report-gen"]
    staged_once(task.dataset, data)
    paths = ensure_dataset(task, data)
    (ws / "outputs").mkdir(parents=True)
    task.track_impl.gold_submission(paths.root, ws / "outputs", task.options)
    long_cases = _long_findings(ws / "outputs")
    cases = [{k: v for k, v in c.items() if k != "files"} for c in paths.load_manifest()["cases"]]
    result, _ = score_workspace(task.track_impl, ws, paths.private, cases, task.options)
    rep = build_report(REPORT_RUN, agent="careless", task=task.id, task_score=result.score)
    rep.run.track = task.track
    rep.task = result
    d = write_run(root, rep)
    write_pictures(task.track_impl, result.per_case, cases, ws, paths.public, paths.private, task.options, d)
    out = tmp_path_factory.mktemp("site")
    write_leaderboard(collect_reports([root]), out)
    return out, long_cases


def test_report_generation_cases_fit_and_cards_fit_their_frames(report_site, wpage):
    out, long_cases = report_site
    wpage.goto((out / "runs" / f"{run_slug(REPORT_RUN)}.html").as_uri())
    wpage.wait_for_load_state("load")
    table = wpage.locator("#cases-table")
    assert table.locator("thead th").count() >= 8                        # many metrics: the hard case
    fits = table.evaluate("t => [t.scrollWidth, t.parentElement.clientWidth]")
    assert fits[0] <= fits[1], fits                                       # no column off to the side
    ok, seen = _all_in_view(wpage, "#cases-table tbody tr[data-pictured='1'] td.why")
    assert ok, seen
    frames = wpage.locator("#cases-table iframe")
    assert frames.count() >= len(long_cases)
    for i in range(frames.count()):
        frames.nth(i).scroll_into_view_if_needed()
    wpage.wait_for_timeout(300)
    cards = [f for f in wpage.frames if f != wpage.main_frame]
    assert len(cards) == frames.count()
    for card in cards:                                                   # all of the card shows
        h = card.evaluate("() => [document.documentElement.scrollHeight, document.documentElement.clientHeight,"
                          " document.documentElement.scrollWidth, document.documentElement.clientWidth]")
        assert h[0] <= h[1] + 1 and h[2] <= h[3] + 1, (card.name, h)
        assert card.evaluate("() => document.documentElement.lang") == "en"
        assert card.evaluate("() => document.title")
    tall = wpage.locator(f"#case-{long_cases[0]} iframe").bounding_box()["height"]
    assert tall > 320                                                    # grown past the old fixed height
    assert wpage.evaluate("document.documentElement.scrollWidth") <= wpage.width
    assert wpage.errors == []


def test_a_card_opened_alone_is_a_titled_page(report_site, page):
    out, long_cases = report_site
    card = next((out / "runs").glob(f"*/pics/{long_cases[0]}/*.html"))
    page.goto(card.as_uri())
    assert page.evaluate("document.documentElement.lang") == "en"
    assert page.title().startswith(f"{long_cases[0]}: ")
    assert "Generated findings" in page.locator("body").inner_text()


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def test_the_trace_shows_in_the_browser(site, page):
    """Followed from the run page, the trace opens as text (a download would fail the goto)."""
    out, _ = site
    run_page = out / "runs" / f"{run_slug(BETA0)}.html"
    page.goto(run_page.as_uri())
    link = page.locator("#raw-links a", has_text="trace.jsonl")
    href = link.get_attribute("href")
    page.goto(link.evaluate("a => a.href"))
    assert '"tool_call"' in page.locator("body").inner_text()
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(out)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        resp = page.goto(f"http://127.0.0.1:{server.server_address[1]}/runs/{href}")
        assert resp.status == 200 and resp.header_value("content-type").startswith("text/plain")
        assert '"tool_call"' in page.locator("body").inner_text()
    finally:
        server.shutdown()
        server.server_close()
