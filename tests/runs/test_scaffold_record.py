"""run.scaffold (run schema 1.10, docs/agents.md "Scaffold and model"): written by the lifecycle
from the agent's configuration kind, and derived for a run folder an older harness wrote (no
field in run.json nor in the report) from run.json's agent_config, else "unknown". On a folder
a real run made (the scripted reference agent, local backend, the tiny lesion set), and on
copies of it rewritten as the harness before 1.10 wrote them."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from automedbench import api
from automedbench.report import aggregate, collect_reports
from automedbench.runs.layout import RunFiles
from automedbench.runs.models import scaffold_of
from automedbench.runs.record import RunRecord
from tests.helpers import tiny_lesion_dataset


@pytest.fixture(scope="module")
def real_run(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("scaffold")
    tiny_lesion_dataset(root / "data" / "mni-brain-lesion", n_cases=2)
    return api.run_one("brain-lesion-seg", "lite", "reference", root / "runs",
                       api.RunOptions(sandbox="local", data_root=root / "data", network=False)).run_dir


def _as_before_1_10(run_dir: Path, *, keep_agent_config: bool = True) -> None:
    """Rewrite the folder's run.json and report as a harness before schema 1.10 wrote them."""
    files = RunFiles(run_dir)
    meta = json.loads(files.meta.read_text())
    del meta["run"]["scaffold"]
    if not keep_agent_config:
        meta["agent_config"] = None
    files.meta.write_text(json.dumps(meta))
    report = json.loads(files.report.read_text())
    del report["run"]["scaffold"]
    report["schema_version"] = "1.9"
    files.report.write_text(json.dumps(report))


def test_a_new_run_records_its_scaffold(real_run):
    meta = json.loads(RunFiles(real_run).meta.read_text())
    report = json.loads(RunFiles(real_run).report.read_text())
    assert meta["agent_config"]["kind"] == "scripted"
    assert meta["run"]["scaffold"] == report["run"]["scaffold"] == "scripted"
    assert report["schema_version"] == "1.10"


def test_an_older_folder_reads_with_the_scaffold_of_its_agent_config(real_run, tmp_path):
    old = Path(shutil.copytree(real_run, tmp_path / "old"))
    _as_before_1_10(old)
    assert "scaffold" not in json.loads(RunFiles(old).meta.read_text())["run"]
    rec = RunRecord.open(old)
    assert rec.meta.run.scaffold == "scripted"
    assert rec.report.run.scaffold == "scripted" and rec.report.schema_version == "1.9"
    # the leaderboard reads it through the record: the row says which scaffold
    (row,) = aggregate(collect_reports([tmp_path])).agents
    assert (row.agent, row.scaffold, row.model) == ("reference", "scripted", None)
    # re-scoring writes it into the report
    api.score(old)
    assert json.loads(RunFiles(old).report.read_text())["run"]["scaffold"] == "scripted"


def test_an_older_folder_without_an_agent_config_is_unknown(real_run, tmp_path):
    old = Path(shutil.copytree(real_run, tmp_path / "older"))
    _as_before_1_10(old, keep_agent_config=False)
    rec = RunRecord.open(old)
    assert rec.meta.run.scaffold == rec.report.run.scaffold == "unknown"
    # a report read with no run.json beside it at all
    RunFiles(old).meta.unlink()
    assert RunRecord.open(old).report.run.scaffold == "unknown"


@pytest.mark.parametrize("config, scaffold", [
    ({"kind": "llm", "model": "m"}, "automedbench-loop"),
    ({"kind": "scripted", "name": "reference"}, "scripted"),
    ({"kind": "mini-swe-agent", "model": "m"}, "mini-swe-agent"),
    ({"kind": "cli", "model": "m"}, "cli:mini"),
    ({"kind": "inspect-ai", "solver": "react", "model": "mockllm/model"}, "inspect-ai:react"),
    ({"kind": "inspect-ai", "solver": None}, "inspect-ai"),
    ({"kind": "external", "name": "policy"}, "external"),
    ({"kind": "a-plugin-kind"}, "a-plugin-kind"),
    ({"model": "m"}, "unknown"),
    (None, "unknown"),
])
def test_the_scaffold_of_each_kind(config, scaffold):
    assert scaffold_of(config) == scaffold
