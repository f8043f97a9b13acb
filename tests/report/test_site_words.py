"""The site's words say what they count: a case the agent wrote nothing for is "missing" on
the compare page, and the column of runs without a submission is "Not submitted" (issue 21)."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

SITE_JS = Path(__file__).parents[2] / "src" / "automedbench" / "report" / "static" / "site.js"


def _function(name: str) -> str:
    text = SITE_JS.read_text()
    start = text.index(f"  function {name}(")
    end = text.index("\n  }\n", start) + 4
    return text[start:end]


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node to run the site's script")
def test_compare_page_says_missing_for_a_missing_case():
    script = _function("esc") + _function("caseStatusBadge") + """
    var cases = %s;
    console.log(JSON.stringify(cases.map(caseStatusBadge)));
    """ % json.dumps([{"status": "missing", "valid": False}, {"status": "invalid", "valid": False},
                      {"status": "ok", "valid": True}, {"status": "reference_error", "valid": False},
                      {"valid": False}])
    out = subprocess.run(["node", "-e", script], capture_output=True, text=True, timeout=30, check=True)
    missing, invalid, ok, ref, old = json.loads(out.stdout)
    assert ">missing<" in missing and "invalid" not in missing
    assert ">invalid<" in invalid and ok == "" and ">ground-truth error<" in ref
    assert ">invalid<" in old   # a schema-1.0 case without status: derived from `valid`


def test_the_failure_column_is_named_for_what_it_counts(tmp_path, make_report):
    from automedbench.report import write_leaderboard
    from automedbench.report.collect import ReportList
    reps = [make_report("a1", agent="alpha"), make_report("b1", agent="beta")]
    write_leaderboard(ReportList(reps, run_dirs={}), tmp_path)
    for page in [tmp_path / "index.html", *sorted((tmp_path / "tasks").glob("*.html"))]:
        html = page.read_text()
        assert ">Failure<" not in html
        assert re.search(r'<th title="share of complete runs that never called submit_results[^"]*">Not submitted</th>',
                         html), page


def test_the_site_script_names_no_stage_of_its_own():
    """Stage ids, names and weights reach site.js only through the page's data (docs/site.md
    "Stages come from the rubric"): a stage id or name written in the script is a second copy."""
    from automedbench.scoring.rubric import load_rubric
    text = SITE_JS.read_text()
    stages = load_rubric().stages
    found = ([sid for sid in stages if re.search(rf"\b{sid}\b", text, flags=re.IGNORECASE)]   # s1 or S1
             + [st.name for st in stages.values() if re.search(rf"\b{re.escape(st.name)}\b", text)])
    assert not found, f"site.js names stages {found}: read them from the data's `stages` instead"


def test_the_templates_name_no_stage_id():
    """The pages' sentences name stages through STAGE_WORDS / STAGES (from the rubric the site
    is given), never as "S1" written in a template."""
    from automedbench.scoring.rubric import load_rubric
    ids = "|".join(load_rubric().stages)
    found = [f"{t.name}: {m.group(0)}" for t in sorted((SITE_JS.parents[1] / "templates").glob("*.j2"))
             for m in re.finditer(rf"\b({ids})\b", t.read_text(), flags=re.IGNORECASE)]
    assert not found, found


def test_stage_colours_come_from_the_rubric(tmp_path):
    """site.css names no stage; stages.css is written from the rubric the site is given, and a
    colour that is not #rrggbb is refused when the rubric loads (it goes into a style sheet)."""
    from automedbench.report.site import stage_css
    from automedbench.scoring.rubric import RUBRIC_PATH, load_rubric
    css = (SITE_JS.parent / "site.css").read_text()
    ids = "|".join(load_rubric().stages)
    assert not re.findall(rf"[.-]({ids})\b", css), "site.css styles a stage: give it a colour in rubric.yaml"
    text = RUBRIC_PATH.read_text()
    changed = tmp_path / "rubric.yaml"
    changed.write_text(text.replace('color: "#07698a"', 'color: "#123456"', 1))
    written = stage_css(load_rubric(changed))
    assert "--s2:#123456;" in written and ".bars span.s2, .stage-s2 { background:var(--s2); }" in written
    bad = tmp_path / "bad.yaml"
    bad.write_text(text.replace('color: "#07698a"', 'color: "red; } body { display:none"', 1))
    with pytest.raises(ValueError, match="s2.color must be #rrggbb"):
        load_rubric(bad)
