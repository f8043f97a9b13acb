"""A contradiction is never "✓ matched" (issue 45, item 4; docs/tracks/report-generation.md
"Findings that agree"): the demo's reference reports are submitted as written except one
study's nodule, said 10 mm larger and in the other zone (the issue's "29 mm … right upper zone"
against "19 mm … right lower zone"). Scored by the core, pictured by the track and written by
the site's own code, the run page's Why and the report card must both name the contradiction,
and the card must never call that sentence matched nor say "0 missing" alone."""
from __future__ import annotations

import html as html_lib
import json
import re

from automedbench.report import collect_reports, write_leaderboard
from automedbench.report.site import run_slug
from automedbench.scoring.pictures import write_pictures
from automedbench.scoring.task_score import score_workspace
from automedbench.tasks import get_task
from automedbench.tracks.reportgen.text import extract_findings
from tests.report.factories import build_report, write_run

NODULE = re.compile(r"(\d+) mm (rounded |)nodule (is seen |)in the (right|left) (upper|lower) zone")


def _text(fragment: str) -> str:
    return html_lib.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", fragment)))


def test_a_nodule_of_another_size_and_zone_is_flagged_on_the_page(tmp_path, staged_once):
    task = get_task("cxr-report-gen")
    track, options = task.track_impl, task.options
    data = staged_once(task.dataset, tmp_path / "data")
    cases = json.loads(data.manifest.read_text())["cases"]
    rep = build_report("report_contradiction", task=task.id)
    run_dir = write_run(tmp_path / "runs", rep)
    ws = run_dir / "workspace"
    track.gold_submission(data.root, ws / "outputs", options)
    # one study's nodule said 10 mm larger and in the other zone, every other word kept
    for c in cases:
        out = ws / "outputs" / c["case_id"] / options.output_file
        findings, _ = extract_findings(out.read_text(encoding="utf-8"))
        m = NODULE.search(findings)
        if m:
            size, zone = int(m.group(1)), m.group(5)
            other = "upper" if zone == "lower" else "lower"
            said = m.group(0).replace(f"{size} mm", f"{size + 10} mm").replace(f"{zone} zone", f"{other} zone")
            out.write_text(out.read_text(encoding="utf-8").replace(m.group(0), said), encoding="utf-8")
            case_id = c["case_id"]
            break
    else:
        raise AssertionError("no demo reference states a nodule")
    result, _ = score_workspace(track, ws, data.private, cases, options)
    index = write_pictures(track, result.per_case, cases, ws, data.public, data.private, options, run_dir)
    rep.run.track, rep.task = track.name, result
    (run_dir / "detail_report.json").write_text(rep.model_dump_json(indent=2), encoding="utf-8")
    write_leaderboard(collect_reports([tmp_path / "runs"]), tmp_path / "site")
    page = (tmp_path / "site" / "runs" / f"{run_slug(rep.run.run_id)}.html").read_text(encoding="utf-8")

    # the case's Why on the run page names the finding, both sizes and both zones
    row = re.search(rf'<tr id="case-{re.escape(case_id)}".*?</tr>', page, re.DOTALL)
    assert row, case_id
    why = _text(row.group(0))
    assert (f"contradicts the ground truth: nodule: generated {other} zone, {size + 10} mm; "
            f"ground truth {zone} zone, {size} mm") in why, why
    # every other study's report is the reference itself: matched, nothing contradicted
    for c in result.per_case:
        if c.case_id != case_id:
            assert c.reason.endswith("matched, 0 missing, 0 contradicted") and not c.flags, (c.case_id, c.reason)

    # the report card of that study, as the site serves it
    assert case_id in {e["case_id"] for e in index}, "the contradicted study was not pictured"
    (card_path,) = (tmp_path / "site" / "runs").rglob(f"*{case_id}*/report.html")
    card = card_path.read_text(encoding="utf-8")
    reference_col = card.split("<h3>Ground-truth findings</h3>", 1)[1]
    nodule_item = next(li for li in re.findall(r"<li.*?</li>", reference_col, re.DOTALL) if "nodule" in li)
    assert "✓ matched" not in nodule_item and "contradicted" in nodule_item, nodule_item
    summary = _text(re.search(r"<p>(.*?)</p>", card, re.DOTALL).group(1))
    assert "0 missing, 1 contradicted" in summary, summary
