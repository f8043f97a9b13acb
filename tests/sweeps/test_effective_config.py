"""The effective configuration is recorded in run.json and locks a sweep root (docs/sweeps.md)."""
from __future__ import annotations

import json

import pytest
from .conftest import reports_under, tiny_spec as _spec

from automedbench.api import run_sweep
from automedbench.runs.sweep import SweepConfigError


def _set_quick(cfg, **fields):
    """Rewrite the `quick` entry of the agents file with extra fields (an edited YAML)."""
    text = cfg.read_text()
    head, rest = text.split("  - name: quick\n", 1)
    extra = "".join(f"    {k}: {v}\n" for k, v in fields.items())
    cfg.write_text(head + "  - name: quick\n" + extra + rest)


def test_run_json_records_the_effective_limits_and_endpoint_and_the_lock_follows_the_yaml(sweep_env, monkeypatch):
    env, tmp, cfg = sweep_env
    _set_quick(cfg, temperature=0.2, limits="{max_turns: 8}")
    root = tmp / "root"
    first = run_sweep(_spec(cfg, env, agents=["quick"]), root)
    meta = json.loads((first[0].run_dir / "run.json").read_text())
    # the tighter of the task's (60) and the entry's (8) max_turns is what ran and what is recorded
    assert meta["limits"]["max_turns"] == 8 and meta["limits"]["set_by"]["max_turns"] == "agent"
    conf = meta["agent_config"]
    assert conf["base_url"].startswith("http://127.0.0.1:") and conf["temperature"] == 0.2
    assert conf["model"] == "sleep-0.2" and "api_key" not in conf and "source" not in conf
    report = json.loads((first[0].run_dir / "detail_report.json").read_text())
    assert report["run"]["config_hash"] == meta["agent_config_hash"]

    # the same entry reached another way (the env var instead of the option): not a change
    monkeypatch.setenv("AUTOMEDBENCH_AGENTS", str(cfg))
    spec = _spec(cfg, env, agents=["quick"])
    spec = spec.model_copy(update={"options": spec.options.model_copy(update={"agent_configs": None})})
    assert [r.status for r in run_sweep(spec, root)] == ["skipped"]

    # an edited YAML (temperature, limit) is a changed configuration: refused, naming what changed
    text = cfg.read_text().replace("temperature: 0.2", "temperature: 0.9").replace("{max_turns: 8}", "{max_turns: 4}")
    cfg.write_text(text)
    with pytest.raises(SweepConfigError) as exc:
        run_sweep(_spec(cfg, env, agents=["quick"]), root)
    msg = str(exc.value)
    assert "agents.quick.temperature: 0.2 -> 0.9" in msg and "agents.quick.limits.max_turns: 8 -> 4" in msg
    assert "--force" in msg
    # --force adopts it: the run made with the old configuration is superseded and the cell runs again
    plans = []
    forced = run_sweep(_spec(cfg, env, agents=["quick"]), root, force=True,
                       on_event=lambda ev: plans.append(ev.message) if ev.kind == "plan" else None)
    assert [r.status for r in forced] == ["done"]
    # the restart said which cell it moved and re-ran, and that none was kept
    assert plans == ["0 finished cell(s) kept; 1 moved to .superseded/ and re-run (they ran with another agent "
                     "configuration): tiny-seg/lite/quick#0; 0 new"]
    assert json.loads((forced[0].run_dir / "run.json").read_text())["limits"]["max_turns"] == 4
    assert len(reports_under(root)) == 2   # one in place, one under .superseded/ (kept for inspection)
    assert len(list((root / ".superseded").rglob("detail_report.json"))) == 1


def test_the_board_separates_configurations_of_one_name(sweep_env):
    from automedbench.report import aggregate, collect_reports
    env, tmp, cfg = sweep_env
    run_sweep(_spec(cfg, env, agents=["quick"]), tmp / "a")
    _set_quick(cfg, temperature=0.7)
    run_sweep(_spec(cfg, env, agents=["quick"]), tmp / "b")
    board = aggregate(collect_reports([tmp / "a", tmp / "b"]))
    assert len(board.agents) == 2 and all(a.agent.startswith("quick [") for a in board.agents)
    assert len(board.config_notes) == 1 and "'quick' covers 2 configurations" in board.config_notes[0]
    assert "fields that differ: temperature (run.json agent_config)" in board.config_notes[0]
    from automedbench.report import write_leaderboard
    html = write_leaderboard(collect_reports([tmp / "a", tmp / "b"]), tmp / "site").read_text()
    assert "Rows split so that nothing different is averaged together" in html and "covers 2 configurations" in html
    one = aggregate(collect_reports([tmp / "a"]))
    assert [a.agent for a in one.agents] == ["quick"] and not one.config_notes


def test_the_board_never_mixes_two_versions_of_a_task(sweep_env):
    """A task edited between two sweeps (a new task hash): two task rows, never one mean, and
    the note names the field that changed."""
    from automedbench.report import aggregate, collect_reports
    env, tmp, cfg = sweep_env
    run_sweep(_spec(cfg, env, agents=["quick"]), tmp / "a")
    yaml = tmp / "tasks" / "tiny-seg" / "task.yaml"
    yaml.write_text(yaml.read_text().replace("max_turns: ", "max_turns: 1", 1))
    run_sweep(_spec(cfg, env, agents=["quick"]), tmp / "c")
    board = aggregate(collect_reports([tmp / "a", tmp / "c"]))
    assert len(board.tasks) == 2 and all(t.startswith("tiny-seg [") for t in board.tasks), board.tasks
    assert sorted(g.task for g in board.groups) == board.tasks            # one group row per version
    assert len(board.agents) == 1 and board.agents[0].tasks == board.tasks
    [note] = board.config_notes
    assert note.startswith("task 'tiny-seg' was run in 2 versions") and "fields that differ: max_turns" in note
    assert aggregate(collect_reports([tmp / "a"])).tasks == ["tiny-seg"]   # one version: the plain id


def test_a_sweep_file_and_the_same_sweep_as_options_are_one_configuration(sweep_env, monkeypatch):
    from automedbench.runs.sweep import RunOptions, SweepSpec, load_sweep_file
    env, tmp, cfg = sweep_env
    sweep_file = tmp / "sweep.yaml"
    sweep_file.write_text("agents: [quick]\ntasks: [tiny-seg]\noptions:\n  sandbox: local\n  network: false\n"
                          "  tasks_dirs: [tasks]\n  agent_configs: [agents.yaml]\n  data_root: data\n")
    root = tmp / "root"
    assert [r.status for r in run_sweep(load_sweep_file(sweep_file), root)] == ["done"]
    # the same thing as flags would give it: data root and tasks from the environment instead
    monkeypatch.setenv("AUTOMEDBENCH_DATA", env["AUTOMEDBENCH_DATA"])
    monkeypatch.setenv("AUTOMEDBENCH_TASKS", env["AUTOMEDBENCH_TASKS"])
    flags = SweepSpec(agents=["quick"], tasks=["tiny-seg"],
                      options=RunOptions(sandbox="local", network=False, agent_configs=[str(cfg)]))
    assert [r.status for r in run_sweep(flags, root)] == ["skipped"]
