"""The places the harness names in the agent's workspace (outputs/, plan/plan.md, plan/plan.png)
are spelled once, in run_files.py's WorkspaceNames (docs/run_record.md): a module that joins a
path with one of those literals, or spells plan/plan.md itself, holds a second copy that can
drift. PENDING lists the modules not moved yet, each with why; a new copy anywhere else fails."""
from __future__ import annotations

import ast
from pathlib import Path

from automedbench.run_files import RunFiles, WorkspaceNames

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "automedbench"
JOINED = {WorkspaceNames.OUTPUTS, WorkspaceNames.PLAN_DIR, "plan.md", "plan.png"}
SPELLED = set(WorkspaceNames.PLAN_FILES)

PENDING: dict[str, str] = {}


def copies(package: Path) -> dict[str, list[int]]:
    found: dict[str, list[int]] = {}
    for path in sorted(package.rglob("*.py")):
        rel = path.relative_to(package).as_posix()
        if rel == "run_files.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            joined = (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div)
                      and isinstance(node.right, ast.Constant) and node.right.value in JOINED)
            spelled = isinstance(node, ast.Constant) and node.value in SPELLED
            if joined or spelled:
                found.setdefault(rel, []).append(node.lineno)
    return found


def test_workspace_names_are_spelled_only_in_run_files():
    found = copies(PACKAGE)
    assert set(found) <= set(PENDING), {k: v for k, v in found.items() if k not in PENDING}
    # a module moved is taken off PENDING, so it cannot gain a copy again unnoticed
    assert set(PENDING) <= set(found), sorted(set(PENDING) - set(found))


def test_the_names_are_what_the_docs_say(tmp_path):
    files = RunFiles(tmp_path)
    assert files.outputs == tmp_path / "workspace" / "outputs"
    assert files.plan_md == tmp_path / "workspace" / "plan" / "plan.md"
    assert files.plan_png == tmp_path / "workspace" / "plan" / "plan.png"
    assert WorkspaceNames.PLAN_FILES == ("plan/plan.md", "plan/plan.png")
    # the check finds a copy: a module that joins "outputs" itself
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "m.py").write_text("def f(ws):\n    return ws / 'outputs', 'plan/plan.md'\n")
    assert copies(tmp_path / "pkg") == {"m.py": [2, 2]}
