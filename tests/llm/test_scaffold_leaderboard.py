"""The leaderboard separates agents by scaffold and model (issue 43, docs/leaderboard.md "Rows
that are never mixed", docs/agents.md "Scaffold and model"): the same scripted model, asked
through the loopback OpenAI-compatible server, run once by our own loop and once by
mini-swe-agent in the bwrap sandbox. Each run folder records its scaffold (run.json and the
report); the board, its CSV and JSON, the site's tables, the CLI's per-agent table and the
Inspect export show the two as two rows (or two runs), each with its scaffold and the same model."""
from __future__ import annotations

import csv
import json
import re
import shutil
from pathlib import Path

import pytest
from rich.console import Console

from automedbench import api
from automedbench.export import inspect_log
from automedbench.report import aggregate, collect_reports, write_leaderboard
from automedbench.report.site import run_slug
from automedbench.report.table import agents_table
from automedbench.runs.record import RunRecord
from tests.helpers import tiny_lesion_dataset

from .bash_scaffold import bash_tool_script, loop_script
from .fake_openai import FakeOpenAI

pytest.importorskip("minisweagent", reason="mini-swe-agent is not installed (make test installs it: docs/agents.md)")
pytestmark = [pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed"),
              pytest.mark.filterwarnings("ignore::RuntimeWarning")]

TASK, TIER, MODEL = "brain-lesion-seg", "lite", "fake-coder"
COMMANDS = ["# S1 plan\nls /data/public", "# S2 setup\npython3 -c 'import numpy; print(numpy.__version__)'"]


def _agents(path: Path, url: str) -> Path:
    entry = f"model: {MODEL}\n    base_url: {url}\n    retry: {{max_retries: 0}}\n" \
            f"    pricing: {{input_per_mtok: 2.0, output_per_mtok: 8.0}}"
    path.write_text(f"agents:\n  - name: loop-fake\n    {entry}\n"
                    f"  - name: mini-fake\n    kind: mini-swe-agent\n    {entry}\n")
    return path


@pytest.fixture(scope="module")
def two_scaffolds(tmp_path_factory):
    """Two scored run folders under one root: our loop and mini-swe-agent, one model."""
    root = tmp_path_factory.mktemp("scaffolds")
    tiny_lesion_dataset(root / "data" / "mni-brain-lesion", n_cases=2)
    srv = FakeOpenAI().start()
    try:
        cfg = _agents(root / "agents.yaml", srv.url)
        opts = api.RunOptions(sandbox="bwrap", data_root=root / "data", network=False, agent_configs=[cfg],
                              exec_timeout_s=60)
        srv.push(*loop_script(COMMANDS))
        loop = api.run_one(TASK, TIER, "loop-fake", root / "runs", opts).run_dir
        srv.push(*bash_tool_script(COMMANDS))
        mini = api.run_one(TASK, TIER, "mini-fake", root / "runs", opts).run_dir
    finally:
        srv.stop()
    return root, loop, mini


def test_each_run_records_the_scaffold_that_drove_it(two_scaffolds):
    _, loop, mini = two_scaffolds
    for run_dir, scaffold in ((loop, "automedbench-loop"), (mini, "mini-swe-agent")):
        meta = json.loads((run_dir / "run.json").read_text())
        report = json.loads((run_dir / "detail_report.json").read_text())
        assert meta["run"]["scaffold"] == report["run"]["scaffold"] == scaffold
        assert meta["run"]["model"] == report["run"]["model"] == MODEL
        rec = RunRecord.open(run_dir)
        assert rec.meta.run.scaffold == rec.report.run.scaffold == scaffold
        # both ran their commands and submitted: two real runs, not two empty folders
        assert report["run"]["end_reason"] == "submitted" and report["run"]["turns"] == len(COMMANDS) + 1


def test_the_same_model_under_two_scaffolds_is_two_rows(two_scaffolds, tmp_path):
    root, loop, mini = two_scaffolds
    reports = collect_reports([root / "runs"])
    board = aggregate(reports)
    assert {(a.agent, a.scaffold, a.model) for a in board.agents} == \
        {("loop-fake", "automedbench-loop", MODEL), ("mini-fake", "mini-swe-agent", MODEL)}
    assert {(g.agent, g.scaffold, g.model, g.task, g.tier) for g in board.groups} == \
        {("loop-fake", "automedbench-loop", MODEL, TASK, TIER), ("mini-fake", "mini-swe-agent", MODEL, TASK, TIER)}

    out = tmp_path / "site"
    write_leaderboard(reports, out, analysis_plots=False)
    data = json.loads((out / "leaderboard.json").read_text())
    assert sorted((a["scaffold"], a["model"]) for a in data["agents"]) == \
        [("automedbench-loop", MODEL), ("mini-swe-agent", MODEL)]
    with open(out / "leaderboard.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert sorted((r["agent"], r["scaffold"], r["model"]) for r in rows) == \
        [("loop-fake", "automedbench-loop", MODEL), ("mini-fake", "mini-swe-agent", MODEL)]

    # the site: the task x tier table (written in Python) and the agent table's data (filled by
    # site.js from the board data) each have Scaffold and Model columns beside Agent
    html = (out / "index.html").read_text()
    groups = html[html.index('id="groups-table"'):]
    groups = groups[:groups.index("</table>")]
    heads = re.findall(r"<th[^>]*>([^<]+)</th>", groups[:groups.index("</thead>")])
    assert heads[2:5] == ["Agent", "Scaffold", "Model"]
    for agent, scaffold in (("loop-fake", "automedbench-loop"), ("mini-fake", "mini-swe-agent")):
        row = next(r for r in groups.split("<tr")[2:] if f'data-group="{agent}|' in r)
        assert f'<td class="scaffold">{scaffold}</td><td class="model">{MODEL}</td>' in row
    agents_head = html[html.index('id="agents-table"'):]
    agents_head = agents_head[:agents_head.index("</thead>")]
    assert re.findall(r"<th[^>]*>([^<]+)</th>", agents_head)[1:5] == ["Agent", "Scaffold", "Model", "Overall"]
    board_data = json.loads(re.search(r'<script type="application/json" id="board-data">(.*?)</script>',
                                      html, re.S).group(1))
    assert sorted((a["agent"], a["scaffold"], a["model"]) for a in board_data["views"]["*|*|*"]) == \
        [("loop-fake", "automedbench-loop", MODEL), ("mini-fake", "mini-swe-agent", MODEL)]
    for run_dir, scaffold in ((loop, "automedbench-loop"), (mini, "mini-swe-agent")):
        page = (out / "runs" / f"{run_slug(run_dir.name)}.html").read_text()
        assert f'scaffold <span id="run-scaffold">{scaffold}</span> · model {MODEL}' in page
    task_page = next((out / "tasks").glob("*.html")).read_text()
    assert task_page.count('<td class="scaffold">') == 2 and '<td class="scaffold">mini-swe-agent</td>' in task_page

    # the CLI's per-agent table: one line per scaffold, each naming the model
    console = Console(width=220, record=True, file=open("/dev/null", "w"))
    console.print(agents_table(board))
    lines = console.export_text().splitlines()
    for agent, scaffold in (("loop-fake", "automedbench-loop"), ("mini-fake", "mini-swe-agent")):
        line = next(ln for ln in lines if f" {agent} " in ln)
        assert f" {scaffold} " in line and f" {MODEL} " in line

    # the Inspect export of each run carries its scaffold and model apart
    for run_dir, scaffold in ((loop, "automedbench-loop"), (mini, "mini-swe-agent")):
        log = inspect_log(run_dir)
        meta = log["samples"][0]["metadata"]
        assert (meta["scaffold"], meta["model"]) == (scaffold, MODEL) and log["eval"]["metadata"]["scaffold"] == scaffold
