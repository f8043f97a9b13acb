"""The layers of docs/architecture.md hold: import-linter keeps the contracts in pyproject.toml,
fails when a module imports upward (tested on a copy of the package with one bad import added),
and an import inside a function names only a dependency listed in LAZY_IMPORTS."""
from __future__ import annotations

import ast
import functools
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "automedbench"
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")

# Top-level names a function may import lazily, each because it is optional (an extra, or a
# package a feature may lack) or so slow to import that every CLI command would pay for it.
LAZY_IMPORTS = {
    # optional: extras of pyproject.toml, or not a declared dependency
    "torch": "[lpips] extra (the LPIPS diagnostic)",
    "lpips": "[lpips] extra",
    "h5py": "[fastmri] / [pcam] extras (HDF5 stagers)",
    "pyarrow": "[parquet] extra (VQA parquet stagers)",
    "ray": "[ray] extra (the Ray executor)",
    "minisweagent": "mini-swe-agent, installed without its dependencies (docs/agents.md): agents of kind mini-swe-agent only",
    "radgraph": "[radiology] extra",
    "f1chexbert": "[radiology] extra",
    "pycocotools": "only the detection metric's cross-check (test extra)",
    "data_store": "pydicom-data's import name; the DICOM finder falls back to pydicom's own files",
    "packaging": "not a declared dependency (it comes with pip); the runtime closure skips without it",
    # heavy: seconds to import on a busy machine, needed only by the command that uses them
    "openai": "the LLM client, only when a request is sent",
    "httpx": "the endpoint checks (`agents check`, before a sweep) only; it comes with openai",
    "nltk": "report generation's METEOR only",
    "matplotlib": "the analysis page's plots only",
    "pydicom": "DICOM demo builders and stagers only",
    # nibabel, scipy, PIL and jinja2 are imported where a file is read or written, so that track
    # discovery and light commands (`tasks list`) skip their seconds (docs/testing.md "CLI start-up")
    "nibabel": "NIfTI reading and writing (tracks/nifti_io.py, synthesis's header peek), builders, and the judge's content facts of a volume",
    "nilearn": "the brain demo builder only",
    "skimage": "enhancement/synthesis baselines and builders only",
    "scipy": "builders, baselines and the SSIM filter (metrics/ssim.py) only",
    "rich": "progress bars and tables, only on a terminal",
    "PIL": "builders and stagers that write PNGs, the heuristic judge's look at plan.png, content facts of an image",
    "jinja2": "the leaderboard site's templates (report/leaderboard.py), only when pages are written",
    # the standard library, kept off the path of `automedbench CMD --help` (docs/cli.md "Start-up")
    "textwrap": "the root help's layout only (cli/table.py): a command's help needs none (bench/cli_help.py)",
}


# In-package imports inside a function, each with its reason (docs/architecture.md): file -> reason.
IN_PACKAGE_LAZY = {
    "cli/__init__.py": "`automedbench --version` answers before typer and the command table are imported "
                       "(docs/cli.md \"Start-up\"); cli/root.py imports each command's module by name, when it runs",
    "cli/running.py": "`automedbench run --help` and a flag error need typer alone: the API, the report, the "
                      "sweep and the progress bar are imported by the command as it runs (docs/cli.md \"Start-up\")",
    "cli/common.py": "the scoring profiles, only for the commands that check or print one (docs/cli.md \"Start-up\")",
    "cli/table.py": "the help pages (cli/help_pages.py), only for a command's own --help (docs/cli.md \"Start-up\")",
    "sandbox/runtime.py": "the sandbox package imports with the standard library alone (a non-root "
                          "harness drives it from the system python); the track registry needs pydantic",
}


@functools.lru_cache(maxsize=None)
def _parsed(path: Path, mtime_ns: int) -> ast.Module:
    return ast.parse(path.read_text())


def _tree(path: Path) -> ast.Module:
    """`path`'s syntax tree, parsed once per process (and again if the file changes): the checks
    below walk all of src/ several times (docs/testing.md "What is slow")."""
    return _parsed(path, path.stat().st_mtime_ns)


def _inner_imports(path: Path) -> list[tuple[int, str]]:
    """(line, top-level name) of every import inside a function of `path` (relative: '.')."""
    return list(_inner_imports_of(path, path.stat().st_mtime_ns))


@functools.lru_cache(maxsize=None)
def _inner_imports_of(path: Path, mtime_ns: int) -> tuple[tuple[int, str], ...]:
    tree = _tree(path)
    found = []
    for func in ast.walk(tree):
        if isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(func):
                if isinstance(node, ast.ImportFrom):
                    found.append((node.lineno, "." if node.level else (node.module or "").split(".")[0]))
                elif isinstance(node, ast.Import):
                    found += [(node.lineno, a.name.split(".")[0]) for a in node.names]
    return tuple(sorted(set(found)))


def _sources() -> list[Path]:
    # scripts a scripted agent sends into the sandbox run there, on their own: not the harness
    return [p for p in sorted(PACKAGE.rglob("*.py")) if "methods" not in p.relative_to(PACKAGE).parts]


WHAT_TO_DO = ("imports inside functions that are not listed: move each to the top of its module. Only an "
              "optional dependency (an extra, or a package a feature may lack) or one slow enough to delay every "
              "CLI command may stay inside a function: add its top-level name to LAZY_IMPORTS in "
              "tests/test_layers.py with the reason (docs/architecture.md, 'Imports sit at the top of a file').")


def _unlisted_inner_imports(package: Path, files: list[Path]) -> list[str]:
    """'file:line: name' of every import inside a function of `files` that neither names a
    LAZY_IMPORTS dependency nor is an IN_PACKAGE_LAZY file's import of our own package."""
    return [f"{p.relative_to(package.parent)}:{line}: {name}" for p in files for line, name in _inner_imports(p)
            if name not in LAZY_IMPORTS
            and not (name == "." and str(p.relative_to(package)) in IN_PACKAGE_LAZY)]


def test_imports_inside_functions_are_only_the_listed_lazy_ones():
    bad = _unlisted_inner_imports(PACKAGE, _sources())
    assert not bad, WHAT_TO_DO + "\n" + "\n".join(bad)
    for rel in IN_PACKAGE_LAZY:   # each listed exception still exists (a stale entry is an error)
        assert any(name == "." for _, name in _inner_imports(PACKAGE / rel)), rel
    used = {name for p in _sources() for _, name in _inner_imports(p)}
    assert not set(LAZY_IMPORTS) - used, f"LAZY_IMPORTS entries no function imports any more: {sorted(set(LAZY_IMPORTS) - used)}"


def test_a_new_import_inside_a_function_is_refused(tmp_path):
    """The check itself, on a package with one function importing a listed heavy dependency,
    the standard library and our own package lazily: only the last two are refused."""
    package = tmp_path / "automedbench"
    (package / "report").mkdir(parents=True)
    mod = package / "report" / "extra.py"
    mod.write_text("import os\n\n\ndef f():\n    import matplotlib\n    import json\n"
                   "    from ..scoring import rubric\n    return os, matplotlib, json, rubric\n")
    assert _unlisted_inner_imports(package, [mod]) == ["automedbench/report/extra.py:6: json",
                                                       "automedbench/report/extra.py:7: ."]
    # ... and the same lazy import of our own package in the one file allowed to have it passes
    allowed = package / next(iter(IN_PACKAGE_LAZY))
    allowed.parent.mkdir(parents=True, exist_ok=True)
    allowed.write_text("def g():\n    from .. import tracks\n    return tracks\n")
    assert _unlisted_inner_imports(package, [allowed]) == []


def test_the_lazy_import_check_sees_an_inner_import(tmp_path):
    mod = tmp_path / "m.py"
    mod.write_text("import os\n\ndef f():\n    from .x import y\n    import json\n    import torch\n    return y\n")
    assert _inner_imports(mod) == [(4, "."), (5, "json"), (6, "torch")]


def _lint(src: Path, config: Path) -> subprocess.CompletedProcess:
    if not LINT_IMPORTS.exists():
        pytest.skip("lint-imports is not installed (pip install -e '.[test]')")
    return subprocess.run([str(LINT_IMPORTS), "--no-cache", str(config)], cwd=src.parent,
                          env={"PYTHONPATH": str(src), "PATH": "/usr/bin:/bin"},
                          capture_output=True, text=True, timeout=300)


def test_the_contracts_hold():
    res = _lint(ROOT / "src", ROOT / "pyproject.toml")
    assert res.returncode == 0, res.stdout + res.stderr
    assert "0 broken" in res.stdout


@pytest.mark.parametrize("module, line, message", [
    # a bottom layer importing the API, at the top of the file
    ("errors.py", "from automedbench import api\n", "automedbench.errors is not allowed to import automedbench.api"),
    # a track reaching up into scoring from inside a function counts the same
    ("tracks/base.py", "\n\ndef _sneaky():\n    from ..scoring import rubric\n    return rubric\n",
     "automedbench.tracks is not allowed to import automedbench.scoring"),
    # scoring and the sandbox stay independent
    ("scoring/rubric.py", "from ..sandbox import base as _sandbox\n", "automedbench.sandbox"),
    # the sandbox's rooms: what observes never reaches into a backend (docs/sandbox.md "Code layout")
    ("sandbox/observe/effects.py", "from ..bwrap import backend as _backend\n",
     "automedbench.sandbox.observe is not allowed to import automedbench.sandbox.bwrap"),
])
def test_an_injected_upward_import_fails(tmp_path, module, line, message):
    src = tmp_path / "src"
    shutil.copytree(PACKAGE, src / "automedbench", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    assert _lint(src, tmp_path / "pyproject.toml").returncode == 0   # the copy alone is clean
    with open(src / "automedbench" / module, "a") as fh:
        fh.write(line)
    res = _lint(src, tmp_path / "pyproject.toml")
    assert res.returncode == 1, res.stdout + res.stderr
    assert message in " ".join(res.stdout.split()), res.stdout


def test_every_end_reason_set_comes_from_the_one_enumeration():
    from typing import get_args

    from automedbench.runs import models
    reasons = set(get_args(models.EndReason))
    sets = {name: value for name, value in vars(models).items() if name.endswith("_END_REASONS")}
    assert set(sets) == {"INFRA_END_REASONS", "UNSCORED_END_REASONS", "BUDGET_END_REASONS", "LIMIT_END_REASONS"}
    for name, value in sets.items():
        assert value and value <= reasons, name
    assert models.UNSCORED_END_REASONS == models.INFRA_END_REASONS | {"interrupted"}
    assert not models.BUDGET_END_REASONS & models.UNSCORED_END_REASONS
    assert models.LIMIT_END_REASONS == models.BUDGET_END_REASONS | {"wall_time"}
    # ... and no other module keeps a set of its own
    elsewhere = [f"{p.relative_to(ROOT)}:{n.lineno}" for p in _sources() if p.name != "models.py"
                 for n in ast.walk(_tree(p)) if isinstance(n, (ast.Assign, ast.AnnAssign))
                 for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
                 if isinstance(t, ast.Name) and t.id.endswith("END_REASONS")]
    assert not elsewhere, elsewhere


def test_run_folder_names_are_spelled_only_in_run_files():
    """A run folder's file names are one fact (run_files.py: RunFiles); a string literal that is
    one of them anywhere else in src/ is a second copy that can drift."""
    from automedbench.run_files import RunFiles
    names = {RunFiles.META, RunFiles.CONVERSATION, RunFiles.TRACE, RunFiles.JUDGE, RunFiles.REPORT}
    copies = [f"{p.relative_to(PACKAGE)}:{node.lineno}: {node.value!r}" for p in _sources()
              if p.name != "run_files.py"
              for node in ast.walk(_tree(p))
              if isinstance(node, ast.Constant) and node.value in names]
    assert not copies, "spell run-folder names through RunFiles:\n" + "\n".join(copies)


def test_no_judge_member_is_read_by_getattr():
    """Every member the harness reads from a judge is declared on the Judge protocol
    (scoring/judge/base.py, docs/judge.md "Writing a judge"): the packages that hold and use a
    judge -- scoring and the lifecycle -- read none by getattr, where a missing declaration hides."""
    where = [p for p in _sources() if p.relative_to(PACKAGE).parts[0] in ("scoring", "lifecycle")]
    assert len(where) > 20
    reads = [f"{p.relative_to(PACKAGE)}:{node.lineno}" for p in where for node in ast.walk(_tree(p))
             if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr")]
    assert not reads, reads


def test_a_validation_error_is_formatted_in_one_place():
    """The first problem of a pydantic ValidationError is worded by errors.py:first_field_error
    (task.yaml, sweep files, agent configs, manifests, run records); a second formatter that
    reads `.errors()` itself can drift from it."""
    readers = [f"{p.relative_to(PACKAGE)}:{node.lineno}" for p in _sources() if p.name != "errors.py"
               for node in ast.walk(_tree(p))
               if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "errors"
               and not node.args]
    assert not readers, readers


def test_first_field_error_names_the_field_under_its_part_of_the_file():
    from pydantic import BaseModel, ConfigDict, ValidationError

    from automedbench.errors import first_field_error

    class Inner(BaseModel):
        model_config = ConfigDict(extra="forbid")
        n: int

    class Outer(BaseModel):
        inner: Inner

    try:
        Outer.model_validate({"inner": {"n": "x", "colour": 1}})
    except ValidationError as exc:
        first = first_field_error(exc, under="track_options")
        assert (first.field, first.type, first.more) == ("track_options.inner.n", "int_parsing", 1)
        assert str(first).startswith("field 'track_options.inner.n': Input should be a valid integer")
    try:
        Inner.model_validate([1])
    except ValidationError as exc:
        assert first_field_error(exc, root="(top level)").field == "(top level)"


def test_engine_room_functions_and_modules_stay_small():
    """No function over 80 lines and no module over 600 in the run lifecycle, the scoring path
    and the agent loop (bench/code_stats.py SIZE_AREAS prints the same numbers)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("code_stats", ROOT / "bench" / "code_stats.py")
    code_stats = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(code_stats)
    lines = code_stats.size_report(code_stats.modules(ROOT / "src", "automedbench"), "automedbench")
    assert [line for line in lines if line.startswith(("lifecycle", "scoring path", "agent loop"))], lines
    over = [line for line in lines if line.startswith("OVER")]
    assert not over, "\n".join(over)
