"""Every "+N more" on the site is a link to all of them (issue 45, item 6; docs/site.md "Totals
and groups"): identical failures grouped with a count, the invalid cases past the groups shown,
an error code's case evidence the scorer capped at 20, a call's file lists cut at 200. Browser-
free: the site is written from run folders on disk and its HTML parsed (html.parser); each "+N
more" must be the text of an <a href> whose target exists (an element of the page, or a file of
the site) and, on the page, lists the ids shown before the link and the N others, each a link to
its row. On the pages before this change the groups' "+N more" was a <details> summary and the
error codes' one a link to the whole case table."""
from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

from automedbench.report import collect_reports, write_leaderboard
from automedbench.report.site import run_slug
from automedbench.runs.models import CaseResult, StageResult
from automedbench.scoring.error_codes import detect_errors
from tests.report.factories import build_report, write_run
from tests.report.site_fixture import make_site_runs

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
MORE = re.compile(r"^\+(\d+) more$")


class Node:
    def __init__(self, tag: str, attrs: dict, parent: Node | None):
        self.tag, self.attrs, self.parent, self.children = tag, attrs, parent, []

    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def walk(self):
        yield self
        for c in self.children:
            if isinstance(c, Node):
                yield from c.walk()

    def case_links(self) -> list[str]:
        return [n.attrs["href"][len("#case-"):] for n in self.walk()
                if n.tag == "a" and n.attrs.get("href", "").startswith("#case-")]


class Tree(HTMLParser):
    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.root = self.cur = Node("#root", {}, None)
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        node = Node(tag, {k: v or "" for k, v in attrs}, self.cur)
        self.cur.children.append(node)
        if tag not in VOID:
            self.cur = node

    def handle_endtag(self, tag):
        n = self.cur
        while n is not None and n.tag != tag:
            n = n.parent
        if n is not None and n.parent is not None:
            self.cur = n.parent

    def handle_data(self, data):
        self.cur.children.append(data)


def _run_with_long_lists(root: Path) -> tuple:
    """A VQA run as the careless agent leaves one, its codes fired by the scorer itself: 76
    placeholder answers (one group), 17 answers that are not JSON, one case each of five other
    invalid reasons (past the 4 groups shown), 25 missing; one call wrote 250 files."""
    placeholder = "placeholder answer 'unknown'"
    per_case = ([CaseResult(case_id=f"q{i:03d}", valid=True, reason=placeholder, flags=["placeholder"],
                            metrics={"score": 0.0}) for i in range(76)]
                + [CaseResult(case_id=f"r{i:03d}", valid=True, metrics={"score": 1.0}) for i in range(20)]
                + [CaseResult(case_id=f"x{i:03d}", valid=False, status="invalid", reason=f"answer.json: {i} bytes, not JSON")
                   for i in range(17)]
                + [CaseResult(case_id=f"y{i}", valid=False, status="invalid", reason=why) for i, why in enumerate(
                    ["answer empty", "question_id differs", "answer too long", "no answer key", "options named",
                     "file is a folder", "answer is a list"])]
                + [CaseResult(case_id=f"m{i:03d}", valid=False, status="missing", reason="no output") for i in range(25)])
    rep = build_report("long_lists", agent="careless", task="vqa-demo-mcq")
    rep.task.per_case = per_case
    rep.errors = detect_errors([], {"s3": StageResult(score=1.0)}, rep.task, submitted=True, end_reason="submitted",
                               workspace=root, logic_metric=None)
    d = write_run(root, rep)
    written = [{"path": f"/workspace/outputs/r{i:03d}/answer.json", "op": "created", "size": 30, "sha256": "ff"}
               for i in range(250)]
    events = [{"type": "run_start", "t": 0.0, "data": {}},
              {"type": "tool_call", "t": 0.1, "turn": 1, "call_index": 1, "stage": "s4", "language": "python",
               "code": "batch()", "kind": "execute_code"},
              {"type": "execution", "t": 1.0, "turn": 1, "call_index": 1, "stage": "s4", "duration_s": 0.9,
               "language": "python", "exit_code": 0, "stdout": "", "stderr": "", "timed_out": False,
               "effects": {"written": written, "deleted": [], "read": [], "read_back": []}},
              {"type": "run_end", "t": 1.1, "kind": "submitted"}]
    (d / "trace.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    return rep, per_case


def test_every_plus_n_more_on_the_site_links_to_all_of_them(tmp_path):
    make_site_runs(tmp_path / "runs")
    rep, per_case = _run_with_long_lists(tmp_path / "runs")
    codes = {e.code: e.evidence for e in rep.errors}
    # the scorer capped these lists: the page must not stop where the evidence does
    assert {"FORMAT_INVALID", "MISSING_CASES", "PLACEHOLDER_OUTPUT"} <= codes.keys(), codes
    assert len(codes["PLACEHOLDER_OUTPUT"]["cases"]) == 20 and codes["PLACEHOLDER_OUTPUT"]["n_cases"] == 76
    site = tmp_path / "site"
    write_leaderboard(collect_reports([tmp_path / "runs"]), site, analysis_plots=False)

    found: dict[str, list[tuple[int, str]]] = {}
    for page in sorted(site.rglob("*.html")):
        html = page.read_text(encoding="utf-8")
        if "more" not in html:
            continue
        tree = Tree(html)
        ids = {n.attrs["id"]: n for n in tree.root.walk() if "id" in n.attrs}
        for node in tree.root.walk():
            for child in node.children:
                if not isinstance(child, str):
                    continue
                for m in re.finditer(r"\+(\d+) more", child):
                    where = f"{page.relative_to(site)}: {child.strip()[:80]!r}"
                    # the words are the whole text of a link
                    assert node.tag == "a" and MORE.match(node.text().strip()), f"not a link: {where}"
                    n, href = int(m.group(1)), node.attrs.get("href", "")
                    assert href, where
                    target, _, anchor = href.partition("#")
                    if target:   # another file of the site: it exists
                        assert (page.parent / target).is_file(), f"{where} -> {href} is not there"
                        found.setdefault(page.name, []).append((n, href))
                        continue
                    assert anchor in ids, f"{where} -> #{anchor} is on no element of the page"
                    listed = ids[anchor].case_links()
                    # what the link follows: the ids shown before it, in the same list item or cell
                    shown = node.parent.case_links()
                    assert len(set(listed)) == len(listed) >= n, (where, len(listed))
                    assert set(shown) <= set(listed) and len(listed) == len(shown) + n, (where, shown, len(listed))
                    assert all(f"case-{cid}" in ids for cid in listed), f"{where}: a listed case has no row"
                    found.setdefault(page.name, []).append((n, href))
    run_page = f"{run_slug(rep.run.run_id)}.html"
    links = dict((href, n) for n, href in found.get(run_page, []))
    # the placeholder group (76: 6 shown), the 25 missing and the 17 not JSON (6 shown each), the
    # five invalid past the four groups shown, each capped code, the call's 250 files (200 shown)
    assert links.get("#all-same-1") == 70 and links.get("#all-invalid-1") == 19, links
    assert links.get("#all-invalid-2") == 11 and links.get("#all-invalid-rest") == 5, links
    assert links.get("#all-code-PLACEHOLDER_OUTPUT") == 56, links
    assert links.get("#all-code-FORMAT_INVALID") == 4 and links.get("#all-code-MISSING_CASES") == 5, links
    trace_links = [h for h, n in links.items() if h.endswith("trace.jsonl.txt") and n == 50]
    assert trace_links, links
    trace = (site / "runs" / trace_links[0]).read_text(encoding="utf-8")
    written = next(json.loads(line)["effects"]["written"] for line in trace.splitlines() if '"effects"' in line)
    assert len(written) == 250
    # the lists under the anchors name exactly the cases of their rule
    html = (site / "runs" / run_page).read_text(encoding="utf-8")
    tree = Tree(html)
    by_id = {n.attrs["id"]: n for n in tree.root.walk() if "id" in n.attrs}
    assert by_id["all-code-PLACEHOLDER_OUTPUT"].case_links() == [f"q{i:03d}" for i in range(76)]
    assert sorted(by_id["all-code-MISSING_CASES"].case_links()) == [c.case_id for c in per_case if c.status == "missing"]
    assert "250 written" in html


def test_the_analysis_lists_every_code_fired_not_a_top_few(tmp_path):
    """The error analysis's codes table was cut to the 15 most frequent without saying of how
    many; it lists every agent-attributable code fired, and its heading counts them."""
    from automedbench.scoring.error_codes import error_table
    table = error_table()["codes"]
    named = [c for c, spec in table.items() if not spec.get("infrastructure")][:18]
    assert len(named) == 18, named
    for k in range(18):   # run k fires codes k.. : code i fires in i + 1 runs, most frequent last here
        write_run(tmp_path / "runs", build_report(f"r{k:02d}", agent="a", errors=[
            {"code": c, "category": table[c]["category"], "step": table[c]["step"], "evidence": {"excerpt": "x"}}
            for c in named[k:]]))
    write_leaderboard(collect_reports([tmp_path / "runs"]), tmp_path / "site", analysis_plots=False)
    tree = Tree((tmp_path / "site" / "analysis.html").read_text(encoding="utf-8"))
    heading = next(n for n in tree.root.walk() if n.attrs.get("id") == "top-codes")
    table_node = next(n for n in tree.root.walk() if n.attrs.get("id") == "codes-table")
    rows = [n for n in table_node.walk() if n.tag == "tr"][1:]
    shown = [next(b for b in r.walk() if b.tag == "b").text() for r in rows]
    assert shown == named[::-1], shown
    assert "(18)" in heading.text(), heading.text()
