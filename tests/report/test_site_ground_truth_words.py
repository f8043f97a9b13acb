"""docs/site.md "Ground truth, baseline and the published reference": on a generated site the
ground truth is called "ground truth" (pictures' captions drawn by the tracks' own picture code,
the answer and report cards, the confusion matrix, a zero case's Why), the built-in agent
`reference` is marked as the baseline wherever agents are listed or compared, and the scoring
profile `reference` is labelled "published reference's scoring" on its toggle. Browser-free:
the pages' HTML and their inline data, as written."""
from __future__ import annotations

import html
import io
import json
import re
from pathlib import Path

import numpy as np
import pytest

from automedbench.report import collect_reports, write_leaderboard
from automedbench.report.site import run_slug
from automedbench.runs.models import CaseResult
from automedbench.tracks import get_track
from automedbench.tracks.detection.pictures import detection_pictures
from automedbench.tracks.pictures import PictureCase, restoration_panels
from automedbench.tracks.reportgen.pictures import report_pictures
from automedbench.tracks.reportgen.text import Report
from automedbench.tracks.segmentation.pictures import segmentation_pictures

from .factories import build_report, write_run
from .site_fixture import make_site_runs, write_trace

BASELINE_RUN = "seg-a_lite_reference_0"


def _png(path: Path, shape: tuple[int, int] = (24, 32)) -> None:
    from PIL import Image
    buf = io.BytesIO()
    Image.fromarray((np.arange(shape[0] * shape[1]) % 251).reshape(shape).astype(np.uint8), "L").save(buf, "PNG")
    path.write_bytes(buf.getvalue())


def _track_pictures(public: Path, outputs: Path) -> dict[str, list]:
    """case id -> the pictures the tracks' own code draws for it: valid cases and cases whose
    output was not scored, for every track that draws."""
    _png(public / "image.png")
    (public / "question.json").write_text(json.dumps({"question": "Is this a CT image?", "images": ["image.png"]}))

    def case(cid: str, prediction, reference, reason: str = "") -> PictureCase:
        return PictureCase(cid, public, {}, prediction, reference, {"score": 0.0}, reason=reason,
                           output_dir=None if not reason else outputs)

    mask = np.zeros((8, 8, 3), bool)
    mask[2:5, 2:5, 1] = True
    boxes = {"width": 32, "height": 24, "boxes": np.array([[0, 2, 2, 9, 9], [0, 12, 4, 20, 14]], float)}
    ref_report = Report.from_text("FINDINGS: A 12 mm nodule in the right upper zone. No effusion.")
    gen_report = Report.from_text("FINDINGS: No nodule. No effusion.")
    img = np.arange(64, dtype=float).reshape(8, 8)
    cls, cls_opts = get_track("classification"), get_track("classification").parse_options({"labels": ["ct", "mr"]})
    vqa = get_track("vqa")
    vqa_opts = vqa.parse_options({})
    vqa_ref = {"answer": "yes", "label": None}
    return {
        "seg-ok": segmentation_pictures(case("seg-ok", {"mask.nii.gz": mask[::-1]}, {"mask.nii.gz": mask}), "image.nii.gz"),
        "seg-bad": segmentation_pictures(case("seg-bad", None, {"mask.nii.gz": mask}, "mask.nii.gz: not a NIfTI file"),
                                         "image.nii.gz"),
        "det-ok": detection_pictures(case("det-ok", np.array([[0, 0.9, 3, 3, 9, 9]], float), boxes), "image.png",
                                     "prediction.json"),
        "det-bad": detection_pictures(case("det-bad", None, boxes, "prediction.json: malformed JSON"), "image.png",
                                      "prediction.json"),
        "rep-ok": report_pictures(case("rep-ok", gen_report, ref_report), "report.txt"),
        "rep-bad": report_pictures(case("rep-bad", None, ref_report, "report.txt: empty"), "report.txt"),
        "enh-ok": restoration_panels(img, img * 1.1, img, {"ssim": 0.9}),
        "enh-bad": restoration_panels(img, None, img, {}, reason="output.npy: wrong shape"),
        "cls-ok": cls.case_pictures(case("cls-ok", 1, 0), cls_opts),
        "cls-bad": cls.case_pictures(case("cls-bad", None, 0, "predictions.csv: no row"), cls_opts),
        "vqa-ok": vqa.case_pictures(case("vqa-ok", {"predicted_answer": "no"}, vqa_ref), vqa_opts),
    }


def _track_whys() -> dict[str, str]:
    """case id -> the one-line Why the tracks' own score_case gives a clear failure."""
    from automedbench.tracks.base import ScoringContext
    from automedbench.tracks.per_case import flat_output_why
    from automedbench.tracks.segmentation.track import zero_dice_why
    ctx = ScoringContext()
    seg_ref, seg_pred = np.zeros((8, 8, 20), bool), np.zeros((8, 8, 20), bool)
    seg_ref[2:5, 2:5, 12:16], seg_pred[2:5, 2:5, 3:5] = True, True
    det = get_track("detection")
    boxes = {"boxes": np.array([[0, 10, 10, 20, 20], [0, 50, 50, 60, 60]], float), "width": 100, "height": 100}
    det_opts = det.parse_options({"classes": ["marker"]})
    vqa = get_track("vqa")
    mcq = {"label": "C", "options": {"A": "Sagittal", "C": "Axial"}, "question": "Which plane?"}
    rep = get_track("report-generation")
    rep_opts = rep.parse_options({})
    ref_report = Report.from_text("FINDINGS: A 19 mm nodule in the right lower zone. No effusion. Heart normal.")
    gen_report = Report.from_text("FINDINGS: A 29 mm nodule in the right upper zone.")
    cls = get_track("classification")
    return {
        "why-seg-elsewhere": zero_dice_why("lesion", 0.0, seg_ref, seg_pred),
        "why-seg-empty": zero_dice_why("lesion", 0.0, seg_ref, np.zeros_like(seg_pred)),
        "why-flat": flat_output_why(np.full((16, 16), 7.0), np.arange(256, dtype=float).reshape(16, 16)),
        "why-det": det.score_case(np.zeros((0, 6)), boxes, det_opts, ctx).extra["why"],
        "why-mcq": vqa.score_case({"predicted_label": "A", "predicted_answer": "Sagittal", "raw_model_output": "A"},
                                  mcq, vqa.parse_options({"mode": "mcq"}), ctx).extra["why"],
        "why-open": vqa.score_case({"predicted_answer": "axial", "raw_model_output": "axial"},
                                   {"answer": "coronal", "question": "Which plane?"},
                                   vqa.parse_options({"mode": "open"}), ctx).extra["why"],
        "why-report": rep.score_case(gen_report, ref_report, rep_opts, ctx).extra["why"],
        "why-cls": cls.score_case(1, 0, cls.parse_options({"labels": ["ct", "mr"]}), ctx).extra["why"],
    }


def _write_pictures(run_dir: Path, drawn: dict[str, list]) -> None:
    """The pictures beside the report as scoring/pictures.py places them (pictures/index.json)."""
    index = []
    for cid, pics in drawn.items():
        assert pics, f"{cid}: the track drew nothing"
        (run_dir / "pictures" / cid).mkdir(parents=True)
        for p in pics:
            (run_dir / "pictures" / cid / p.name).write_bytes(p.data)
        index.append({"case_id": cid, "dir": cid, "value": 0.0, "valid": not cid.endswith("-bad"),
                      "files": [{"name": p.name, "caption": p.caption, "media_type": p.media_type} for p in pics]})
    (run_dir / "pictures" / "index.json").write_text(json.dumps(index), encoding="utf-8")


@pytest.fixture(scope="module")
def words_site(tmp_path_factory):
    """The site fixture's runs, plus two runs of the baseline agent `reference` whose cases carry
    pictures drawn by the tracks' own code and a case whose Why the site writes itself."""
    root = tmp_path_factory.mktemp("runs")
    make_site_runs(root)
    for rep in range(2):
        r = build_report(f"seg-a_lite_reference_{rep}", agent="reference", task="seg-a", tier="lite", overall=0.9)
        r.task.medal_bands = {"metric": "score", "good": 0.6, "okay": 0.3, "source": "track default"}
        if rep == 0:
            drawn = _track_pictures(tmp_path_factory.mktemp("public"), tmp_path_factory.mktemp("outputs"))
            r.task.per_case = [CaseResult(case_id=cid, valid=not cid.endswith("-bad"),
                                          status="ok" if not cid.endswith("-bad") else "invalid",
                                          metrics={"dice": 0.0} if not cid.endswith("-bad") else {},
                                          reason="" if not cid.endswith("-bad") else "not scored")
                               for cid in drawn]
            r.task.per_case += [CaseResult(case_id=cid, valid=True, metrics={"dice": 0.0}, reason=why)
                                for cid, why in _track_whys().items()]
            r.task.aggregate_metrics = {"confusion/ct/ct": 2.0, "confusion/ct/mr": 1.0,
                                        "confusion/mr/mr": 3.0, "confusion/mr/ct": 0.0}
        d = write_run(root, r)
        write_trace(d)
        if rep == 0:
            _write_pictures(d, drawn)
    out = tmp_path_factory.mktemp("site")
    write_leaderboard(collect_reports([root]), out)
    return out


def _text(fragment: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", fragment))


def _captions(page: str) -> list[str]:
    return [_text(c) for c in re.findall(r"<figcaption>(.*?)</figcaption>", page, re.DOTALL)]


def test_pictures_captions_and_cards_say_ground_truth(words_site):
    page = (words_site / "runs" / f"{run_slug(BASELINE_RUN)}.html").read_text(encoding="utf-8")
    caps = _captions(page)
    pic_caps = [c for c in caps if "rows =" not in c]
    assert len(pic_caps) >= 12, caps   # every case's pictures have their caption on the page
    for cap in pic_caps:
        assert "reference" not in cap.lower(), cap
    said = " ".join(pic_caps)
    for words in ("ground truth (green) and prediction (magenta) contours",        # segmentation
                  "ground-truth contours (green)",                                  # not scored
                  "predicted (magenta) and ground-truth (green) boxes", "2 ground-truth boxes",   # detection
                  "input, output, ground truth and the difference map",            # enhancement
                  "input and ground truth (the output was not scored)",
                  "the generated findings beside the ground truth",                # report generation
                  "the report as written beside the ground truth's findings",
                  "predicted 'mr', ground truth 'ct': wrong", "ground truth 'ct'",  # classification
                  "question, answer, ground truth and verdict"):                   # VQA
        assert words in said, (words, pic_caps)
    # the cards (report, answer) as the site serves them: their column and row heads
    cards = {p.parent.name: p.read_text(encoding="utf-8") for p in (words_site / "runs").rglob("*.html")
             if p.parent.parent.name == "pics"}
    assert "<h3>Ground-truth findings</h3>" in cards["rep-ok"] and "Reference findings" not in cards["rep-ok"]
    assert "ground truth" in _text(cards["vqa-ok"]) and "reference" not in _text(cards["vqa-ok"]).lower()


def test_the_confusion_matrix_and_a_zero_cases_why_say_ground_truth(words_site):
    page = (words_site / "runs" / f"{run_slug(BASELINE_RUN)}.html").read_text(encoding="utf-8")
    matrix = [c for c in _captions(page) if "rows =" in c]
    assert matrix and all("rows = ground truth, columns = prediction" in c for c in matrix), matrix
    heads = [_text(h) for h in re.findall(r"<th(?:\s[^>]*)?>(.*?)</th>", page, re.DOTALL)]
    assert "ground truth ↓ / predicted →" in heads and not any("reference ↓" in h for h in heads), heads
    row = re.search(r'<tr id="case-seg-ok".*?</tr>', page, re.DOTALL)
    assert row and "= 0 against the ground truth" in _text(row.group(0)), row and _text(row.group(0))
    assert "against the reference" not in page


def test_the_tracks_whys_on_the_run_page_say_ground_truth(words_site):
    page = (words_site / "runs" / f"{run_slug(BASELINE_RUN)}.html").read_text(encoding="utf-8")
    rows = {cid: _text(row) for cid, row in re.findall(r'<tr id="case-(why-[\w-]+)".*?>(.*?)</tr>', page, re.DOTALL)}
    assert len(rows) == 8, sorted(rows)
    for cid, text in rows.items():
        assert "ground truth" in text or "ground-truth" in text, (cid, text)
        assert "reference" not in text.lower(), (cid, text)


def test_the_baseline_agent_is_marked_where_agents_are_listed_and_compared(words_site):
    compare = (words_site / "compare.html").read_text(encoding="utf-8")
    data = json.loads(html.unescape(re.search(r'<script type="application/json" id="compare-runs">(.*?)</script>',
                                              compare, re.DOTALL).group(1)))
    ref = [r for r in data["runs"] if r["agent"] == "reference"]
    others = [r for r in data["runs"] if r["agent"] != "reference"]
    assert len(ref) == 2 and all(r["baseline"] and r["label"] == "reference (baseline)" for r in ref), ref
    assert others and not any(r["baseline"] for r in others) and all(r["label"] == r["agent"] for r in others)
    note = re.search(r'<p class="hint" id="baseline-note">(.*?)</p>', compare, re.DOTALL)
    assert note and "reference baseline" in " ".join(_text(note.group(1)).split()) \
        and "not the ground truth" in _text(note.group(1)), compare
    # the script draws the runs' names from that data: the option's text and the table's badge
    js = (words_site / "assets" / "site.js").read_text(encoding="utf-8")
    assert "(r.label || r.agent)" in js and "baselineBadge(a.run.agent)" in js

    index = (words_site / "index.html").read_text(encoding="utf-8")
    board = json.loads(html.unescape(re.search(r'id="board-data">(.*?)</script>', index, re.DOTALL).group(1)))
    assert board["baseline_agents"] == ["reference"]
    badge = re.compile(r'<span class="name"[^>]*>(\w+)</span><span class="badge baseline"')
    assert set(badge.findall(index)) == {"reference"}, badge.findall(index)
    task = (words_site / "tasks" / "seg-a.html").read_text(encoding="utf-8")
    assert set(badge.findall(task)) == {"reference"} and 'reference<span class="badge baseline"' in task
    run = (words_site / "runs" / f"{run_slug(BASELINE_RUN)}.html").read_text(encoding="utf-8")
    assert re.search(r'<h1>reference<span class="badge baseline"[^>]*>baseline</span>', run)
    other = (words_site / "runs" / f"{run_slug('seg-a_lite_alpha_0')}.html").read_text(encoding="utf-8")
    assert "badge baseline" not in other


def test_the_reference_profile_is_labelled_as_the_published_reference(words_site):
    index = (words_site / "index.html").read_text(encoding="utf-8")
    toggle = re.search(r'<span role="group"[^>]*id="profile-toggle".*?</span>', index, re.DOTALL)
    assert toggle, "no profile toggle"
    buttons = dict(re.findall(r'data-profile="(\w+)"[^>]*>([^<]*)</button>', toggle.group(0)))
    assert html.unescape(buttons["reference"]) == "published reference's scoring" and buttons["ours"] == "ours", buttons


def test_every_page_says_reference_only_for_the_baseline_or_the_published_reference(words_site):
    """What a reader sees on every page (scripts, the <head> and the runs' ids aside): each
    "reference" left is the baseline agent's name beside its badge, or the published
    reference's scoring profile; the ground truth is never called so."""
    pages = sorted(p for p in words_site.rglob("*.html") if p.parent.name != "pics" and "pics" not in p.parts)
    assert len(pages) > 20
    seen = 0
    for p in pages:
        t = p.read_text(encoding="utf-8")
        t = re.sub(r"<head>.*?</head>|<script.*?</script>", " ", t, flags=re.DOTALL)
        text = " ".join(_text(t).split())
        text = re.sub(r"\S*_reference_\S*", "RUN", text)       # run ids name their agent
        seen += len(re.findall(r"\breference (?:baseline|\(baseline\))", text))
        left = re.sub(r"\breference (?:baseline|\(baseline\))|published reference's scoring", "", text)
        found = [m.group(0) for m in re.finditer(r".{0,60}\breferences?\b.{0,40}", left, re.IGNORECASE)]
        assert not found, (p.relative_to(words_site), found)
    assert seen >= 6   # index, task board, analysis, compare, the runs' pages
