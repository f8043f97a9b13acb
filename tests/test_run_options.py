"""RunOptions (runs/options.py): the one list of a run's options, how a sweep's command line
overrides its file, and the trace reader the CLI prints an infrastructure fault from."""
from pathlib import Path

import pytest
from pydantic import ValidationError

from automedbench.runs.options import RunOptions
from automedbench.runs.trace import TraceWriter, infra_error_message


def test_flags_override_only_what_they_set():
    in_file = RunOptions(sandbox="bwrap", judges=["heuristic", "gpt"], data_root="/data", allow_self_judge=True,
                         exec_timeout_s=60)
    flags = RunOptions(sandbox="local", network=False)
    merged = in_file.overridden_by(flags)
    assert (merged.sandbox, merged.network) == ("local", False)        # given on the command line
    assert merged.judges == ["heuristic", "gpt"] and merged.data_root == "/data"   # kept from the file
    assert merged.allow_self_judge is True and merged.exec_timeout_s == 60
    assert in_file.overridden_by(RunOptions()) == in_file               # no flag: the file as it was


def test_paths_are_text_and_resolved_against_the_working_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    opts = RunOptions(data_root=Path("data"), tasks_dirs=[Path("tasks")], agent_configs=["agents.yaml"])
    assert opts.data_root == "data" and opts.tasks_dirs == ["tasks"]   # kept as text (lock, sweep file)
    assert opts.tasks_dir_paths == [Path("tasks")] and opts.agent_config_paths == [Path("agents.yaml")]
    resolved = opts.resolved()
    assert resolved.data_root == str(tmp_path / "data")
    assert resolved.tasks_dirs == [str(tmp_path / "tasks")] and resolved.agent_configs == [str(tmp_path / "agents.yaml")]
    assert RunOptions().resolved() == RunOptions()


def test_unknown_option_is_refused():
    with pytest.raises(ValidationError, match="timeout"):
        RunOptions(timeout=5)


def test_infra_error_message_is_the_last_infrastructure_error_of_the_trace(tmp_path):
    assert infra_error_message(tmp_path) == ""                         # no trace at all
    trace = TraceWriter(tmp_path / "trace.jsonl")
    trace.emit("error", kind="agent_crash", message="ValueError: not infrastructure")
    trace.emit("error", kind="infrastructure", message="first outage")
    trace.emit("error", kind="infrastructure", message="ProviderError: 503 at http://127.0.0.1:9/v1 — retry later")
    trace.emit("run_end", kind="infra_error")
    trace.close()
    (tmp_path / "trace.jsonl").open("a").write('{"type": "error", "kind": "infrastr')   # torn last line
    assert infra_error_message(tmp_path) == "ProviderError: 503 at http://127.0.0.1:9/v1 — retry later"
