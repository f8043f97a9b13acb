"""docs/rl.md's examples run as written (docs/rl.md "How it is tested"): its Python blocks in
order, in one fresh interpreter, on the real bwrap sandbox and a staged tiny dataset; the one
block that needs a Ray cluster is bound to the real signatures instead; the blocks marked as
excerpts of an example file are found in that file; the YAML reward specification loads."""
import ast
import inspect
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from automedbench import rl
from automedbench.rl import RewardSpec
from automedbench.run_files import RunFiles
from automedbench.runs.options import RunOptions
from automedbench.yamlfile import safe_load
from tests.helpers import tiny_lesion_dataset

from .conftest import needs_bwrap

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "rl.md"
# a fenced block, with the HTML comment on the line above it, if any (`<!-- excerpt: PATH -->`,
# `<!-- not run: why -->`)
BLOCK = re.compile(r"(?:<!-- (?P<mark>[^>\n]*?) -->\n)?^```(?P<lang>\w+)\n(?P<body>.*?)^```", re.S | re.M)
DRIVER = """
import sys, traceback
blocks = sys.argv[1:]
scope = {"__name__": "__main__"}
for i, code in enumerate(blocks):
    try:
        exec(compile(code, f"<docs/rl.md python block {i}>", "exec"), scope)
    except BaseException:
        traceback.print_exc()
        sys.exit(f"docs/rl.md python block {i} failed")
"""


def _blocks(lang: str) -> list[tuple[str, str]]:
    return [(m["mark"] or "", m["body"]) for m in BLOCK.finditer(DOC.read_text()) if m["lang"] == lang]


def _runnable() -> list[str]:
    return [body for mark, body in _blocks("python") if not mark]


def test_every_python_block_is_run_or_named_as_not_run():
    marks = [mark for mark, _ in _blocks("python")]
    assert len(_runnable()) >= 2
    assert sorted(m.split(":")[0] for m in marks if m) == ["excerpt", "excerpt", "not run"], marks


def test_excerpts_are_found_in_their_file_in_order():
    excerpts = [(mark.split(":", 1)[1].strip(), body) for mark, body in _blocks("python") if mark.startswith("excerpt")]
    assert excerpts
    for path, body in excerpts:
        source = [line.strip() for line in (REPO / path).read_text().splitlines()]
        at = 0
        for line in (ln.strip() for ln in body.splitlines() if ln.strip()):
            assert line in source[at:], f"{path}: not found (in order): {line!r}"
            at = source.index(line, at) + 1


def test_the_cluster_example_binds_to_the_real_signatures():
    (body,) = [body for mark, body in _blocks("python") if mark.startswith("not run")]
    tree = ast.parse(body)
    known = {"run_group": rl.run_group, "OpenAIPolicy": rl.OpenAIPolicy, "RunOptions": RunOptions}
    bound = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            module = __import__(node.module, fromlist=[a.name for a in node.names])
            assert all(hasattr(module, a.name) for a in node.names), ast.unparse(node)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in known:
            inspect.signature(known[node.func.id]).bind(*node.args, **{k.arg: k.value for k in node.keywords})
            bound.add(node.func.id)
    assert bound == set(known)


def test_the_reward_spec_example_loads():
    (spec,) = _blocks("yaml")
    loaded = RewardSpec.load(safe_load(spec[1]))
    assert loaded.base == "stages" and loaded.error_penalties["SANDBOX_VIOLATION"] == 0.5


@needs_bwrap
@pytest.mark.slow
def test_the_python_examples_run_as_written(tmp_path):
    data = tmp_path / "data"
    tiny_lesion_dataset(data / "mni-brain-lesion", n_cases=3)
    work = tmp_path / "work"
    work.mkdir()
    env = {**os.environ, "AUTOMEDBENCH_DATA": str(data),
           "PYTHONPATH": os.pathsep.join([str(REPO / "src"), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", DRIVER, *_runnable()], cwd=work, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    reports = [json.loads(RunFiles(p.parent).report.read_text()) for p in (work / "episodes").rglob("run.json")]
    assert len(reports) == 5                              # the environment's episode and a group of 4
    assert all(r["overall"] is not None and r["run"]["model"] == "my-model" for r in reports)
    assert all(r["run"]["end_reason"] == "submitted" for r in reports)
