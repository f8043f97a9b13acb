"""The static site as files: every page exists, every link and fragment resolves, the index
stays small, run pages hold the run's record, and no report string can inject markup."""
from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit


from automedbench.report import collect_reports, write_leaderboard
from automedbench.report.site import run_slug


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.refs: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        for key in ("href", "src"):
            if a.get(key):
                self.refs.append(a[key])


def parse(path: Path) -> _Links:
    p = _Links()
    p.feed(path.read_text(encoding="utf-8"))
    return p


def test_every_page_exists(site):
    out, reps = site
    for r in reps:
        assert (out / "runs" / f"{run_slug(r.run.run_id)}.html").is_file()
        assert (out / "runs" / f"{run_slug(r.run.run_id)}.js").read_text().startswith("AMB_RUN(")
    assert {p.stem for p in (out / "tasks").glob("*.html")} == {"seg-a", "det-b"}
    for name in ("index.html", "compare.html", "analysis.html", "assets/site.css", "assets/site.js",
                 "analysis/codes_by_category.svg", "analysis/overall_gap.png"):
        assert (out / name).is_file(), name


def test_every_link_and_fragment_resolves(site):
    out, _ = site
    pages = sorted(out.rglob("*.html"))
    ids = {p.resolve(): parse(p).ids for p in pages}
    checked = 0
    for page in pages:
        for ref in parse(page).refs:
            parts = urlsplit(ref)
            assert not parts.scheme and not parts.netloc, f"{page.name}: external reference {ref}"
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page.resolve()
            assert target.exists(), f"{page.relative_to(out)} -> {ref}"
            frag = unquote(parts.fragment)
            if frag and not frag.startswith("tier="):
                assert frag in ids[target], f"{page.relative_to(out)} -> {ref}: no element id {frag!r}"
            checked += 1
    assert checked > 200


def test_run_page_holds_the_record(site):
    out, reps = site
    r = next(x for x in reps if x.run.agent == "beta")
    html = (out / "runs" / f"{run_slug(r.run.run_id)}.html").read_text()
    assert html.count('<details class="call') == 7                     # every tool call, submit included
    assert "marker-3" in html and "Traceback: boom" in html            # its code and output
    assert 'href="#turn-3"' in html and 'href="#call-3"' in html       # UNRECOVERED_ERROR evidence links
    assert 'href="#case-c1"' in html and 'id="case-c1"' in html        # LOGIC_SUSPECT -> the case row
    assert "1. inspect &lt;one&gt; case" in html                        # plan.md, escaped
    assert "plan/plan.md exists" in html                                # rubric item wording
    gamma = next(x for x in reps if x.run.agent == "gamma")
    ghtml = (out / "runs" / f"{run_slug(gamma.run.run_id)}.html").read_text()
    assert "missing" in ghtml                                           # the reason for the zero case
    infra = next(x for x in reps if x.run.end_reason == "harness_error")
    ihtml = (out / "runs" / f"{run_slug(infra.run.run_id)}.html").read_text()
    assert "infrastructure fault" in ihtml and 'id="run-status">infra<' in ihtml


def test_index_has_no_run_bodies_and_stays_small(site):
    out, _ = site
    html = (out / "index.html").read_text()
    assert "marker-3" not in html                  # tool calls live only in run pages
    assert len(html.encode()) < 200_000


def test_hostile_strings_cannot_inject(tmp_path, make_report, make_run):
    evil = '</script><img src=x onerror=alert(1)>'
    r = make_report("e1", agent=evil, task="t-1")
    d = make_run(tmp_path / "runs", r)
    (d / "trace.jsonl").write_text('{"type":"tool_call","t":0.1,"turn":1,"call_index":1,"stage":"s2","code":"'
                                   + evil.replace('"', '\\"') + '"}\n')
    out = tmp_path / "site"
    write_leaderboard(collect_reports([tmp_path / "runs"]), out, analysis_plots=False)
    for page in out.rglob("*.html"):
        text = page.read_text()
        assert "<img src=x" not in text and "</script><img" not in text, page.name
    js = next((out / "runs").glob("*.js")).read_text()
    assert "</script>" not in js and re.search(r"\\u003c/script\\u003e", js)


def test_boards_say_when_runs_were_scored_with_different_metric_components(tmp_path, make_report, make_run):
    """docs/leaderboard.md: a task score over {bleu, rougeL} is not comparable with one over
    {bleu, meteor, rougeL}; the task board names the sets and flags the mix, never silently."""
    a = make_report("c1", task="report-task")
    a.task.components = ["bleu", "rougeL"]
    b = make_report("c2", task="report-task")
    b.task.components = ["bleu", "meteor", "rougeL"]
    c = make_report("c3", task="other-task")
    c.task.components = ["accuracy"]
    for r in (a, b, c):
        make_run(tmp_path / "runs", r)
    out = tmp_path / "site"
    write_leaderboard(collect_reports([tmp_path / "runs"]), out, analysis_plots=False)
    pages = {p.name: p.read_text() for p in out.rglob("*.html")}
    mixed = [name for name, text in pages.items() if "mixed components" in text]
    assert len(mixed) == 1 and "report-task" in mixed[0]
    text = pages[mixed[0]]
    assert "bleu+rougeL" in text and "bleu+meteor+rougeL" in text and "not directly comparable" in text
    other = next(t for n, t in pages.items() if "other-task" in n)
    assert "accuracy" in other and "mixed components" not in other


def test_reference_pages_come_from_the_yaml_that_owns_them(site):
    import yaml

    from automedbench.scoring.error_codes import error_table
    from automedbench.scoring.rubric import load_rubric
    out = site[0]
    rubric = (out / "rubric.html").read_text()
    for sid, st in load_rubric().stages.items():
        assert f'id="{sid}"' in rubric and st.name in rubric
        for item in st.items:
            assert f'id="item-{item}"' in rubric
    tiers_yaml = yaml.safe_load((Path(__file__).parents[2] / "src/automedbench/prompts/tiers.yaml").read_text())
    tiers = (out / "tiers.html").read_text()
    for tid, t in tiers_yaml.items():
        assert f'id="tier-{tid}"' in tiers and t["research"].split(":")[0].replace("'", "&#39;") in tiers
    rules = (out / "rules.html").read_text()
    assert all(f'id="code-{c}"' in rules for c in error_table()["codes"])
    index = (out / "index.html").read_text()
    for s in ("s1", "s2", "s3", "s4", "s5"):
        assert f'href="rubric.html#{s}"' in index                        # a stage header opens its rubric
    assert 'href="leaderboard.csv" download' in index and 'href="leaderboard.json" download' in index
    cards = re.search(r'<div class="cards" id="summary-cards">(.*?)</div>\n<p', index, re.S).group(1)
    for label in ("avg turns", "avg time", "avg tokens", "avg cost", "not submitted"):
        assert label in cards


def test_task_board_describes_its_task(site):
    out = site[0]
    page = (out / "tasks" / "seg-a.html").read_text()
    about = re.search(r'<section class="about" id="task-about">(.*?)</section>', page, re.S).group(1)
    cases = re.search(r'<dd id="task-cases">(.*?)</dd>', about).group(1)
    assert cases.startswith("82")                 # the most expected cases a run of it was scored on
    assert "good ≥ 0.6, okay ≥ 0.3 on <code>score</code>" in about
