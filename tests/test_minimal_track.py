"""A track is its contract and its scoring; the kit is optional (docs/tracks.md "The optional
kit"). The test-only `toy-parity` track (tests/toy_track/toy_track_pkg/minimal.py, registered
through the entry-point group) defines nothing else: no datasets, scripted methods, gold
submission, pictures, folder layouts, wording or sandbox packages. Its data is staged from a
plain folder, and runs go end to end in the real sandbox — run, score, judge — with no core
line naming it."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from automedbench import api
from automedbench.agents import AGENT_CLASSES
from automedbench.agents.base import AgentContext, AgentOutcome, ToolBox
from automedbench.agents.scripted import ScriptedAgent
from automedbench.data.from_folder import stage_from_folder
from automedbench.errors import UserError
from automedbench.tasks import discover
from automedbench.tracks import get_track
from automedbench.tracks.base import TrackAssets, TrackContract, TrackScoring

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")
SRC = Path(__file__).resolve().parents[1] / "src" / "automedbench"
NUMBERS = (3, 8, 15, 22, 41, 56)

TASK_YAML = """\
id: parity-demo
title: Parity of a number (test-only track of contract and scoring alone)
track: toy-parity
dataset: parity-set
description: |
  Each case holds number.txt, one integer. Write `even` or `odd`.
case_unit: number
input_files: [number.txt]
time_limit_s: 300
max_turns: 20
network: false
tiers:
  lite:
    model: "the remainder of a division by two"
    requirements: []
  standard:
    candidates: ["the remainder of a division by two", "the last digit"]
  pro:
    background: "Even numbers end in 0, 2, 4, 6 or 8."
"""


class ParitySolver(ScriptedAgent):
    """An agent of the test's own (the track ships no scripted method): one call answers every
    case from its input, then it submits."""

    name = "parity-solver"

    def run(self, system_prompt: str, context: AgentContext, tools: ToolBox) -> AgentOutcome:
        self.call(tools, "python", "\n".join([
            "# S4 answer every case",
            "import pathlib",
            f"for case in sorted(p for p in pathlib.Path({context.data_dir!r}).iterdir() if p.is_dir()):",
            "    n = int((case / 'number.txt').read_text())",
            "    out = pathlib.Path('outputs') / case.name",
            "    out.mkdir(parents=True, exist_ok=True)",
            "    (out / 'parity.txt').write_text('odd' if n % 2 else 'even')",
            "print('answered')", ""]))
        self.submit(tools)
        return AgentOutcome("submitted")


@pytest.fixture(scope="module")
def parity(tmp_path_factory):
    """The task folder, the data staged from a plain folder, and a run of each agent."""
    base = tmp_path_factory.mktemp("parity")
    folder = base / "my-folder"
    for i, n in enumerate(NUMBERS):
        (folder / f"case_{i:02d}" / "public").mkdir(parents=True)
        (folder / f"case_{i:02d}" / "private").mkdir()
        (folder / f"case_{i:02d}" / "public" / "number.txt").write_text(f"{n}\n")
        (folder / f"case_{i:02d}" / "private" / "parity.txt").write_text("odd" if n % 2 else "even")
    (base / "tasks" / "parity-demo").mkdir(parents=True)
    (base / "tasks" / "parity-demo" / "task.yaml").write_text(TASK_YAML)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("AUTOMEDBENCH_TASKS", str(base / "tasks"))
        task = discover()["parity-demo"]
        stage_from_folder("parity-set", folder, task, root=base / "data")
        AGENT_CLASSES.add(ParitySolver.name, ParitySolver, replace=True, description="test")
        options = api.RunOptions(sandbox="bwrap", data_root=base / "data", network=False)
        try:
            reports = {a: api.run_one("parity-demo", "lite", a, base / "runs", options)
                       for a in ("parity-solver", "empty")}
            with pytest.raises(UserError) as refused:
                api.run_one("parity-demo", "lite", "reference", base / "runs", options)
        finally:
            AGENT_CLASSES.remove(ParitySolver.name)
    return reports, str(refused.value), base


def test_the_track_defines_only_contract_and_scoring_members():
    track = get_track("toy-parity")
    own = set(vars(type(track)))
    kit = {m for m in (*vars(TrackAssets), *TrackAssets.__annotations__) if not m.startswith("_")}
    assert not own & kit, own & kit
    assert own & {"submission", "load_reference", "check_case", "score_case", "aggregate"}
    assert isinstance(track, TrackContract) and isinstance(track, TrackScoring)
    # the kit's defaults
    options = track.parse_options(None)
    assert track.datasets() == [] and track.scripted_methods(options) is None and track.runtime_packages == ()
    assert track.case_pictures(None, options) == [] and track.label_names(options) == []
    assert [lay.name for lay in track.folder_layouts()] == ["generic"]
    with pytest.raises(NotImplementedError, match="toy-parity.*no gold submission"):
        track.gold_submission(Path("/nonexistent"), Path("/nonexistent"), options)


def test_a_run_is_scored_and_judged(parity):
    reports, _, _ = parity
    solved, empty = reports["parity-solver"], reports["empty"]
    assert solved.task.score == 1.0 and solved.task.aggregate_metrics == {"accuracy": 1.0}
    assert [c.status for c in solved.task.per_case] == ["ok"] * len(NUMBERS)
    assert solved.rating == "A" and solved.stages["s4"].score == 1.0
    assert empty.task.score == 0 and "SUBMITTED_NOTHING" in {e.code for e in empty.errors}
    # the prompt's output contract came from the track's SubmissionLayout
    conv = json.loads((solved.run_dir / "conversation.json").read_text())
    assert "parity.txt" in json.dumps(conv)


def test_the_scripted_agents_refuse_it_by_name(parity):
    _, refused, _ = parity
    assert "parity-demo" in refused and "no classical method" in refused


def test_the_core_never_names_it():
    hits = subprocess.run(["grep", "-rIl", "-e", "toy-parity", "-e", "parity-demo", str(SRC)],
                          capture_output=True, text=True).stdout
    assert hits == ""
