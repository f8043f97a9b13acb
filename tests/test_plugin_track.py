"""Zero core edits for a new track: the test-only `toy-threshold` track (tests/toy_track/,
registered through the `automedbench.tracks` entry-point group) runs end to end — run, score,
judge, report — in the real sandbox, without a line of core code knowing it."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from automedbench import api
from automedbench.runs.models import DetailReport
from automedbench.tracks import get_track
from tests.cli_forkserver import run_cli

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")
SRC = Path(__file__).resolve().parents[1] / "src" / "automedbench"


def test_the_core_never_names_the_plugin_track():
    hits = subprocess.run(["grep", "-rIl", "-e", "toy-threshold", "-e", "toy_track", str(SRC)],
                          capture_output=True, text=True).stdout
    assert hits == ""
    assert get_track("toy-threshold").__class__.__module__ == "toy_track_pkg"


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    data = tmp_path_factory.mktemp("toy-data")
    out = tmp_path_factory.mktemp("toy-runs")
    return {agent: api.run_one("toy-threshold", "lite", agent, out, api.RunOptions(sandbox="bwrap", data_root=data, network=False)).run_dir
            for agent in ("reference", "careless", "empty")}, out


def _report(run_dir: Path) -> DetailReport:
    return DetailReport.model_validate_json((run_dir / "detail_report.json").read_text())


def test_run_and_score(runs):
    dirs, _ = runs
    ref, careless, empty = (_report(dirs[a]) for a in ("reference", "careless", "empty"))
    assert ref.task.score == 1.0 and ref.rating == "A" and ref.task.aggregate_metrics == {"accuracy": 1.0}
    assert ref.stages["s3"].score == 1.0 and ref.stages["s4"].score == 1.0 and ref.stages["s5"].score == 1.0
    assert careless.task.score == pytest.approx(0.5) and careless.stages["s3"].score == 0
    assert "NO_PILOT" in {e.code for e in careless.errors}
    assert empty.task.score == 0 and "SUBMITTED_NOTHING" in {e.code for e in empty.errors}
    # the prompt's output contract came from the plug-in's SubmissionLayout
    conv = (dirs["reference"] / "conversation.json").read_text()
    assert "outputs/labels.csv" in conv and "case_id, label" in conv


def test_rescore_and_rejudge(runs):
    dirs, _ = runs
    before = _report(dirs["careless"])
    again = api.score(dirs["careless"])
    assert again.model_dump(exclude={"run"}) == before.model_dump(exclude={"run"})
    (rejudged,) = api.judge([dirs["careless"]], ["heuristic"])
    assert rejudged.stages["s3"].score == 0 and rejudged.task.score == before.task.score


def test_report_and_cli(runs, tmp_path):
    _, out = runs
    site = tmp_path / "site"
    res = run_cli(["report", str(out), "--out", str(site)])
    assert res.returncode == 0, res.stderr
    html = next(site.rglob("*.html")).read_text()
    assert "toy-threshold" in html
    # a fresh process finds the plug-in through its entry point on the path, nothing else
    import os
    # the toy's folder first; the rest of PYTHONPATH kept so the process runs the same sources
    toy_path = [str(Path(__file__).parent / "toy_track"), *filter(None, [os.environ.get("PYTHONPATH")])]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(toy_path)}
    listed = run_cli(["tasks", "list", "--json"], env=env)
    assert '"toy-threshold"' in listed.stdout, listed.stderr
