"""Pictures for diagnosis on real tracks' runs (docs/site.md "Pictures of outputs", "Run page"),
at desktop and phone width: a case whose output failed its check is drawn with its reason, the
picture is large and zooms in the page, every clear failure says why, compare keeps both runs'
pictures of a case and its numbers in view. The runs are scored by the tracks themselves (the
xray-marker-det and vqa-demo-mcq demo data, real files), then built into a site."""
from __future__ import annotations

import json

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
DET_A, DET_B, VQA = "det-careless", "det-gold", "vqa-wrong"


def _score_into_run(task_id, run_id, agent, spoil, data, root, tmp):
    """Gold outputs spoilt by `spoil(outputs)`, scored by the track, pictured, written as a run."""
    task = discover()[task_id]
    paths = ensure_dataset(task, data)
    ws = tmp / run_id
    (ws / "outputs").mkdir(parents=True)
    task.track_impl.gold_submission(paths.root, ws / "outputs", task.options)
    notes = spoil(ws / "outputs")
    cases = [{k: v for k, v in c.items() if k != "files"} for c in paths.load_manifest()["cases"]]
    result, _ = score_workspace(task.track_impl, ws, paths.private, cases, task.options)
    rep = build_report(run_id, agent=agent, task=task_id, task_score=result.score)
    rep.run.track = task.track
    rep.task = result
    d = write_run(root, rep)
    write_pictures(task.track_impl, result.per_case, cases, ws, paths.public, paths.private, task.options, d)
    return notes


def _boxed(outputs):
    return [c for c in sorted(outputs.iterdir()) if json.loads((c / "prediction.json").read_text())["boxes"]]


def _careless_boxes(outputs):
    """The first boxed case written as (x, y, w, h); the second's boxes moved to a corner (valid, none found)."""
    xywh, far = _boxed(outputs)[:2]
    pred = json.loads((xywh / "prediction.json").read_text())
    for b in pred["boxes"]:
        b["x2"], b["y2"] = b["x2"] - b["x1"], b["y2"] - b["y1"]
    (xywh / "prediction.json").write_text(json.dumps(pred))
    (far / "prediction.json").write_text(json.dumps(
        {"boxes": [{"class": "marker", "score": 0.9, "x1": 0, "y1": 0, "x2": 3, "y2": 3}]}))
    return {"xywh": xywh.name, "far": far.name}


def _wrong_answers(outputs):
    """One question answered with another option (valid, wrong), one answer file emptied (invalid)."""
    wrong, empty = sorted(outputs.iterdir())[:2]
    ans = json.loads((wrong / "answer.json").read_text())
    ans["predicted_label"] = "A" if ans["predicted_label"] != "A" else "B"
    ans["predicted_answer"] = ""
    (wrong / "answer.json").write_text(json.dumps(ans))
    (empty / "answer.json").write_text("")
    return {"wrong": wrong.name, "empty": empty.name}


@pytest.fixture(scope="module")
def real_site(tmp_path_factory, staged_once):
    data, root, tmp = (tmp_path_factory.mktemp(n) for n in ("data", "runs", "ws"))
    for task_id in ("xray-marker-det", "vqa-demo-mcq"):
        staged_once(discover()[task_id].dataset, data)
    det = _score_into_run("xray-marker-det", DET_A, "careless", _careless_boxes, data, root, tmp)
    _score_into_run("xray-marker-det", DET_B, "reference", lambda o: {}, data, root, tmp)
    vqa = _score_into_run("vqa-demo-mcq", VQA, "careless", _wrong_answers, data, root, tmp)
    out = tmp_path_factory.mktemp("site")
    write_leaderboard(collect_reports([root]), out)
    return out, det, vqa


@pytest.fixture(params=WIDTHS, ids=lambda w: f"{w}px")
def wpage(request, browser):
    pg = new_page(browser, request.param)
    pg.width = request.param
    yield pg
    pg.close()


def _open(pg, out, run_id):
    pg.goto((out / "runs" / f"{run_slug(run_id)}.html").as_uri())
    pg.wait_for_load_state("load")


def _fits(pg):
    return pg.evaluate("document.documentElement.scrollWidth") <= pg.width


def test_an_invalid_case_is_pictured_large_with_its_reason(real_site, wpage):
    out, det, _ = real_site
    _open(wpage, out, DET_A)
    row = wpage.locator(f"#case-{det['xywh']}")
    assert row.get_attribute("data-invalid") == "1"
    img = row.locator("figure.pic-png img")
    img.scroll_into_view_if_needed()
    assert img.evaluate("i => i.complete && i.naturalWidth") >= 512             # drawn at twice the 256 px image
    cap = row.locator("figure.pic-png figcaption").inner_text()
    assert "not scored: prediction.json: box 0: empty box" in cap and "looks like (x, y, w, h)" in cap
    assert "as written" in cap
    width = img.bounding_box()["width"]
    assert width >= (0.85 * (wpage.width - 20) if wpage.width < 700 else 500)  # not a small image in a big frame
    # the pictured filter shows it
    wpage.click('button[data-case-filter="pictured"]')
    assert row.is_visible()
    assert _fits(wpage) and wpage.errors == []


def test_every_clear_failure_says_why(real_site, wpage):
    out, det, vqa = real_site
    _open(wpage, out, DET_A)
    why = wpage.locator(f"#case-{det['far']} td.why")
    assert why.is_visible() and "found 0 of" in why.inner_text() and "IoU 0.00 (needs 0.5)" in why.inner_text()
    _open(wpage, out, VQA)
    why = wpage.locator(f"#case-{vqa['wrong']} td.why")
    assert why.is_visible() and why.inner_text().startswith("chose ") and ", ground truth " in why.inner_text()
    # the invalid answer's card names the reason and is the page's width on a phone
    frame = wpage.locator(f"#case-{vqa['empty']} figure.pic-html")
    assert "not scored" in frame.locator("figcaption").inner_text()
    box = frame.locator("iframe").bounding_box()
    assert box["width"] >= (0.85 * (wpage.width - 20) if wpage.width < 700 else 500)
    assert _fits(wpage) and wpage.errors == []


def test_a_picture_enlarges_and_zooms_in_the_page(real_site, wpage):
    out, det, _ = real_site
    _open(wpage, out, DET_A)
    link = wpage.locator(f"#case-{det['xywh']} a.pic")
    link.scroll_into_view_if_needed()
    link.click()
    dlg = wpage.locator("dialog#zoom")
    assert dlg.evaluate("d => d.open") and dlg.is_visible()
    img = dlg.locator("img")
    wpage.wait_for_function("document.querySelector('#zoom img').naturalWidth > 0")
    fit = img.bounding_box()["width"]
    assert fit <= wpage.width and "not scored" in dlg.locator(".zoom-cap").inner_text()
    dlg.locator("button[data-zoom=in]").click()
    assert img.bounding_box()["width"] == pytest.approx(fit * 1.5, abs=2)
    dlg.locator("button[data-zoom=one]").click()
    assert img.bounding_box()["width"] == pytest.approx(img.evaluate("i => i.naturalWidth"), abs=1)
    assert dlg.locator(".zoom-level").inner_text() == "100%"
    wpage.keyboard.press("+")
    assert dlg.locator(".zoom-level").inner_text() == "150%"
    wpage.keyboard.press("Escape")
    assert not dlg.evaluate("d => d.open")
    assert wpage.url.endswith(".html")                                         # the page stayed; the file was not followed
    assert _fits(wpage) and wpage.errors == []


def test_compare_shows_both_runs_pictures_of_a_case_and_keeps_its_numbers_in_view(real_site, wpage):
    out, det, _ = real_site
    wpage.goto((out / "compare.html").as_uri() + f"?a={DET_A}&b={DET_B}")
    wpage.wait_for_selector("#compare-cases")
    row = wpage.locator(f"#cmp-case-{det['xywh']}")
    imgs = row.locator("img")
    assert imgs.count() == 2                                                   # A's invalid case and B's valid one
    names = [i.get_attribute("src").rsplit("/", 2)[-2] for i in imgs.all()]
    assert names == [det["xywh"], det["xywh"]]
    assert "not scored" in row.locator("td").nth(1).inner_text()
    for cell in wpage.locator("#compare-table tbody tr").nth(1).locator("td").all():   # Overall: A, B, Δ
        box = cell.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= wpage.width + 1 and cell.inner_text().strip()
    assert _fits(wpage) and wpage.errors == []


def test_axe_with_the_transcript_open_and_a_picture_zoomed(real_site, wpage):
    axe_mod = pytest.importorskip("axe_playwright_python.sync_playwright",
                                  reason="axe-playwright-python is not installed (the test extra)")
    out, det, _ = real_site
    _open(wpage, out, DET_A)
    wpage.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
    axe = axe_mod.Axe()

    def serious():
        res = axe.run(wpage).response["violations"]
        return [(v["id"], [n["target"] for n in v["nodes"][:3]]) for v in res if v["impact"] in ("serious", "critical")]
    assert serious() == []
    wpage.locator(f"#case-{det['xywh']} a.pic").click()
    wpage.wait_for_function("document.querySelector('#zoom img').naturalWidth > 0")
    assert serious() == []


def test_a_report_card_is_readable_in_the_frame_at_either_width(tmp_path, wpage):
    # the generated and the reference findings side by side in a 560 px frame, one above the
    # other in a phone's (docs/site.md "Pictures of outputs"); no text cut off sideways
    from automedbench.tracks.pictures import PictureCase
    from automedbench.tracks.reportgen.pictures import report_pictures
    from automedbench.tracks.reportgen.text import Report
    ref = Report.from_text("FINDINGS: A well-defined lucent lesion with a thin sclerotic rim is seen in the distal "
                           "tibial metaphysis. No acute fracture.")
    gen = Report.from_text("FINDINGS: The lungs are clear. No acute fracture.")
    (card,) = report_pictures(PictureCase("s1", tmp_path, {}, gen, ref, {"bleu": 0.1}), "report.txt")
    (tmp_path / "report.html").write_bytes(card.data)
    frame = 560 if wpage.width > 700 else wpage.width - 20
    wpage.set_viewport_size({"width": frame, "height": 400})
    wpage.goto((tmp_path / "report.html").as_uri())
    gen_col, ref_col = wpage.locator(".g > div").all()
    a, b = gen_col.bounding_box(), ref_col.bounding_box()
    if frame < 480:
        assert b["y"] >= a["y"] + a["height"] and a["width"] >= 0.9 * (frame - 12)     # stacked, full width
    else:
        assert b["x"] >= a["x"] + a["width"] and a["y"] == b["y"]                     # side by side
    assert "tibial metaphysis" in ref_col.inner_text() and "missing" in ref_col.inner_text()
    assert wpage.evaluate("document.documentElement.scrollWidth") <= frame
