"""The suite's CLI fork server (tests/cli_forkserver.py, docs/testing.md "CLI processes"): a
forked CLI call prints, exits and reads its environment and directory exactly as the plain
subprocess does, and what a fork cannot take over is the call's own (a server started with it)."""
from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest

import automedbench
from tests.cli_forkserver import IMPORT_TIME_VARIABLES, run_cli, start_up_signature

SRC = Path(automedbench.__file__).parent


@pytest.mark.parametrize("args", [["--version"], ["--help"], ["no-such-command"], ["run", "--help"],
                                  ["tasks", "list"], ["tasks", "list", "--json"], ["tasks", "show", "no-such-task"],
                                  ["score", "/nonexistent/run"]])
def test_a_forked_call_prints_and_exits_as_the_subprocess_does(args):
    env = {**os.environ, "COLUMNS": "97"}      # a width unlike the server's: the fork must follow it
    forked, plain = run_cli(args, env=env), run_cli(args, env=env, forked=False)
    assert forked.forked and not plain.forked
    assert (forked.returncode, forked.stdout, forked.stderr) == (plain.returncode, plain.stdout, plain.stderr)


def test_a_forked_call_takes_the_callers_environment_and_directory(tmp_path):
    bad = tmp_path / "my-tasks" / "broken"
    bad.mkdir(parents=True)
    (bad / "task.yaml").write_text("id: broken\ntrack: [unclosed\n")
    # a relative task folder: found only from the caller's directory, named only by its variable
    proc = run_cli(["tasks", "list"], env={**os.environ, "AUTOMEDBENCH_TASKS": "my-tasks"}, cwd=tmp_path)
    assert proc.forked and proc.returncode == 2 and "broken/task.yaml" in proc.stderr, proc.stderr
    again = run_cli(["tasks", "list", "--json"], cwd=tmp_path)       # nothing of that call stays behind
    assert again.forked and again.returncode == 0 and '"broken"' not in again.stdout


def test_what_python_reads_at_start_up_is_the_calls_own(tmp_path):
    toy = Path(__file__).parent / "toy_track"          # a track registered through PYTHONPATH
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(toy), os.environ.get("PYTHONPATH")]))}
    plain = run_cli(["tasks", "list", "--json"])
    other = run_cli(["tasks", "list", "--json"], env=env)
    assert '"toy-threshold"' not in plain.stdout and '"toy-threshold"' in other.stdout, other.stderr
    assert start_up_signature(env) != start_up_signature(os.environ)
    for name in sorted(IMPORT_TIME_VARIABLES):         # each starts a server of its own (or a subprocess)
        assert start_up_signature({**os.environ, name: "changed"}) != start_up_signature(os.environ), name


def _module_level_env_reads(tree: ast.Module) -> set[str]:
    """Names of variables read by os.environ.get / os.getenv / os.environ[...] outside any
    function body (so, when the module is imported)."""
    names: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            return
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args \
                and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
            target = ast.unparse(node.func)
            if target in ("os.environ.get", "os.getenv", "environ.get", "getenv"):
                names.add(node.args[0].value)
        if isinstance(node, ast.Subscript) and ast.unparse(node.value) in ("os.environ", "environ") \
                and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
            names.add(node.slice.value)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return names


def test_every_variable_a_harness_module_reads_on_import_is_listed():
    found: dict[str, str] = {}
    for path in sorted(SRC.rglob("*.py")):
        for name in _module_level_env_reads(ast.parse(path.read_text())):
            found.setdefault(name, str(path.relative_to(SRC)))
    # the check itself finds what it should: the agent runtime's interpreter is read on import
    assert found.get("AUTOMEDBENCH_AGENT_PYTHON") == "sandbox/runtime.py"
    unlisted = {name: where for name, where in found.items() if name not in IMPORT_TIME_VARIABLES}
    assert not unlisted, f"read when imported, not in IMPORT_TIME_VARIABLES: {unlisted}"
