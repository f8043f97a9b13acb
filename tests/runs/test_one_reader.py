"""Done-when of issue 42 item 3: no module parses run.json or detail_report.json but the one
reader, RunRecord (runs/record.py; docs/run_record.md "Reading a run folder"), and the writers
listed in WRITERS. The check is a walk of src/'s syntax: every json.loads / json.load /
model_validate_json / model_validate call whose text names those files or their models, or a
name the module binds to RunFiles.META / RunFiles.REPORT (e.g. a tuple of output names)."""
from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "automedbench"
READER = "runs/record.py"

# What names run.json or detail_report.json inside a parse call: the models, RunFiles' names
# and properties, the file names themselves.
NAMES = ("RunMeta", "DetailReport", "RunFiles.META", "RunFiles.REPORT", "REPORT_NAME", ".meta.", ".report.",
         ".meta)", ".report)", "run.json", "detail_report.json")
PARSERS = ("loads", "load", "model_validate_json", "model_validate")

# file -> (the parse it may do, why): a writer that parses what it is about to write
WRITERS = {
    "scoring/score_run.py": ("DetailReport.model_validate_json(written.pop(files.report.name))",
                             "the report a scoring container returned, in memory, before score_run writes it"),
}


def segment(lines: list[str], node: ast.expr) -> str:
    """The source text of `node` (ast.get_source_segment splits the whole module on every call:
    over every call of the package that made this test take half a minute)."""
    if node.end_lineno is None or node.end_col_offset is None:
        return ""
    first, last = node.lineno - 1, node.end_lineno - 1
    if first == last:
        return lines[first].encode()[node.col_offset:node.end_col_offset].decode()
    return (lines[first].encode()[node.col_offset:].decode() + "".join(lines[first + 1:last])
            + lines[last].encode()[:node.end_col_offset].decode())


def aliases(tree: ast.Module, source: str) -> tuple[str, ...]:
    """The names a module binds to a value that names run.json or detail_report.json by its
    RunFiles constant (REPORT_NAME = RunFiles.REPORT, OUTPUTS = (RunFiles.REPORT, ...))."""
    found: set[str] = set()
    if "RunFiles.META" not in source and "RunFiles.REPORT" not in source:
        return ()
    lines = source.splitlines(keepends=True)
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        text = segment(lines, value)
        if "RunFiles.META" in text or "RunFiles.REPORT" in text:
            found.update(t.id for t in targets if isinstance(t, ast.Name))
    return tuple(sorted(found))


def offenders(package: Path) -> list[str]:
    """'path:line: call' for each parse of run.json / detail_report.json outside the reader."""
    found: list[tuple[str, int, str]] = []
    for path in sorted(package.rglob("*.py")):
        rel = path.relative_to(package).as_posix()
        if rel == READER:
            continue
        source = path.read_text(encoding="utf-8")
        tree = ast.parse(source)
        names = NAMES + aliases(tree, source)
        lines = source.splitlines(keepends=True)
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in PARSERS):
                continue
            text = segment(lines, node)
            if not any(name in text for name in names):
                continue
            allowed = WRITERS.get(rel)
            if allowed and allowed[0] in text:
                continue
            found.append((rel, node.lineno, f"{rel}:{node.lineno}: {' '.join(text.split())[:120]}"))
    return [line for _, _, line in sorted(found)]


@pytest.mark.slow
def test_only_the_reader_parses_run_json_and_detail_report():
    assert offenders(PACKAGE) == []


@pytest.mark.slow
def test_the_check_finds_a_parse_outside_the_reader(tmp_path):
    # a copy of the package with today's kinds of parse added back in one module: each is named
    package = Path(shutil.copytree(PACKAGE, tmp_path / "automedbench", ignore=shutil.ignore_patterns("__pycache__")))
    mod = package / "report" / "sneaky.py"
    mod.write_text("import json\nfrom ..run_files import RunFiles\nfrom ..runs.layout import RunMeta\n\n\n"
                   "def end(d):\n"
                   "    return json.loads(RunFiles(d).report.read_text())['run']['end_reason']\n\n\n"
                   "def meta(files):\n"
                   "    return RunMeta.model_validate_json(files.meta.read_text())\n\n\n"
                   "def other(path):\n"
                   "    return json.loads(path.read_text())   # not a run folder's file: fine\n\n\n"
                   "OUTPUTS = (RunFiles.REPORT, RunFiles.JUDGE)\n\n\n"
                   "def versions(written):\n"
                   "    return json.loads(written[OUTPUTS[0]])['versions']   # through the module's own name\n")
    assert offenders(package) == [
        "report/sneaky.py:7: json.loads(RunFiles(d).report.read_text())",
        "report/sneaky.py:11: RunMeta.model_validate_json(files.meta.read_text())",
        "report/sneaky.py:22: json.loads(written[OUTPUTS[0]])",
    ]
    # the writer's own parse is allowed only as listed: another parse in the same file is not
    (package / "scoring" / "score_run.py").write_text(
        (package / "scoring" / "score_run.py").read_text() + "\n\ndef again(files):\n"
        "    return DetailReport.model_validate_json(files.report.read_text())\n")
    assert [o.split(":")[0] for o in offenders(package)] == ["report/sneaky.py", "report/sneaky.py",
                                                             "report/sneaky.py", "scoring/score_run.py"]
