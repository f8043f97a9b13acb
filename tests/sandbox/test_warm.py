"""The prewarmed interpreter for the judge's replays (sandbox/bwrap/warm.py, docs/judge.md "What
replays cost"): in a real bwrap sandbox, a python call run in a fork of the warm server gives
the same exit status, stdout and stderr as the same call run fresh -- exceptions, syntax
errors, sys.exit, signals, time-outs, atexit handlers, threads -- and anything the fork could
get wrong (a workspace file shadowing a preloaded module, a dead server) answers None so the
caller runs it fresh."""
from __future__ import annotations

import functools
import os

import pytest

from automedbench.lifecycle.experiments import _Runner
from automedbench.sandbox import SandboxSpec
from automedbench.sandbox.bwrap.warm import WarmCapable, warm_imports
from automedbench.scoring.experiments import CallExperiment

from .conftest import needs_bwrap

CASES = {
    "prints": "import numpy as np\nprint(np.arange(6).reshape(2, 3).sum(axis=0))",
    "reads_the_workspace": "print(open('note.txt').read().upper())",
    "input_file": "import nibabel as nib, glob\nimg = nib.load(sorted(glob.glob('/data/*/imaging.nii.gz'))[0])\n"
                  "print(img.shape, img.get_fdata().max())",
    "raises": "import numpy as np\ndef f(x):\n    return x['missing']\nf({})",
    "syntax_error": "print('a'\nx = ",
    "exit_status": "import sys\nprint('before')\nsys.exit(3)",
    "exit_message": "import sys\nsys.exit('the mask is empty')",
    "assert_fails": "import numpy as np\nassert np.zeros(3).sum() > 0, 'empty output'",
    "killed_by_signal": "import os, signal\nprint('x', flush=True)\nos.kill(os.getpid(), signal.SIGTERM)",
    "atexit_and_thread": ("import atexit, threading, time\natexit.register(lambda: print('atexit ran'))\n"
                          "t = threading.Thread(target=lambda: (time.sleep(0.2), print('thread done')))\nt.start()\n"
                          "print('main done')"),
    "stderr_and_stdout": "import sys\nprint('out')\nprint('err', file=sys.stderr)",
    "argv_and_main": "import sys\nprint(sys.argv, __name__)",
}


@pytest.fixture
def warm_box(world):
    from automedbench.sandbox.bwrap.backend import BwrapSandbox
    world.clear_workspace()
    (world.workspace / "note.txt").write_text("case_00000 looks fine\n")
    box = BwrapSandbox(SandboxSpec(public_dir=world.public, workspace=world.workspace, network=False,
                                   timeout_s=30, max_procs=128, memory_mb=4096, max_file_mb=256,
                                   output_cap=64 * 1024, record_effects=False))
    uid = getattr(box, "workspace_uid", None)
    if uid is not None:
        os.chown(world.workspace, uid, uid)
    yield box
    box.close()
    world.clear_workspace()


@needs_bwrap
def test_a_warm_fork_answers_as_a_fresh_interpreter(warm_box):
    assert isinstance(warm_box, WarmCapable)
    warm = warm_box.warm_python(warm_imports(CASES.values()))
    try:
        for name, code in CASES.items():
            fresh = warm_box.execute("python", code, timeout_s=20)
            forked = warm.run(code, 20)
            assert forked is not None, name
            assert (forked.exit_code, forked.stdout, forked.stderr) == (fresh.exit_code, fresh.stdout, fresh.stderr), name
        assert warm.runs == len(CASES) and not warm.broken
    finally:
        warm.close()


@needs_bwrap
def test_a_warm_time_out_is_reported_as_a_fresh_one(warm_box):
    code = "import time\nprint('started', flush=True)\ntime.sleep(60)"
    warm = warm_box.warm_python(["numpy"])
    try:
        fresh = warm_box.execute("python", code, timeout_s=1)
        forked = warm.run(code, 1)
        assert forked is not None and fresh.timed_out and forked.timed_out
        assert (forked.exit_code, forked.stdout, forked.stderr) == (fresh.exit_code, fresh.stdout, fresh.stderr)
        # the server lives on after a child's time-out
        again = warm.run("print(2 + 2)", 5)
        assert again is not None and again.stdout == "4\n"
    finally:
        warm.close()


@needs_bwrap
def test_a_workspace_module_shadowing_a_preloaded_one_is_declined(warm_box, world):
    warm = warm_box.warm_python(["numpy"])
    try:
        assert warm.run("import numpy; print(numpy.__name__)", 10) is not None
        (world.workspace / "numpy.py").write_text("print('the workspace numpy')\n")
        assert warm.run("import numpy", 10) is None
        assert warm.declined == 1 and not warm.broken
        assert warm_box.execute("python", "import numpy", timeout_s=10).stdout == "the workspace numpy\n"
    finally:
        warm.close()


@needs_bwrap
def test_a_dead_server_answers_none_and_stays_down(warm_box):
    warm = warm_box.warm_python([])
    try:
        assert warm.run("print(1)", 10) is not None
        proc = warm._proc
        assert proc is not None
        os.killpg(proc.pid, 9)
        proc.wait()
        # the server is started again once: a dead one found at the next request is replaced
        assert warm.run("print(1)", 10) is not None
        warm._proc.stdout.close()           # now the host cannot read its replies
        assert warm.run("print(1)", 10) is None and warm.broken
        assert warm.run("print(1)", 10) is None
    finally:
        warm.close()


def _replay(code: str, decidable_if: str, runner: _Runner) -> CallExperiment:
    result = runner.execute("python", code, 10)
    return CallExperiment(call_index=3, decidable=result.stdout.strip() == decidable_if, why="not reproduced")


@needs_bwrap
def test_a_call_the_warm_replay_cannot_decide_is_replayed_fresh(warm_box, monkeypatch):
    runner = _Runner(warm_box, ["import numpy"])
    try:
        assert runner.warm is not None
        decided = runner.decided(functools.partial(_replay, "print('ok')", "ok"))
        assert decided.decidable and decided.interpreter == "warm"
        # the one thing a fork tells apart from a fresh interpreter: what is already imported.
        # A replay that needs the fresh answer is undecided warm, so it is replayed fresh
        code = "import sys; print('numpy' in sys.modules)"
        assert runner.warm.run(code, 10).stdout == "True\n"
        decided = runner.decided(functools.partial(_replay, code, "False"))
        assert decided.decidable and decided.interpreter == "fresh"
    finally:
        runner.close()
    monkeypatch.setenv("AUTOMEDBENCH_WARM_REPLAYS", "0")
    assert _Runner(warm_box, ["import numpy"]).warm is None


@needs_bwrap
def test_a_server_started_beside_a_shadowing_file_preloads_the_installed_module(warm_box, world):
    (world.workspace / "numpy.py").write_text("print('the workspace numpy')\n")
    warm = warm_box.warm_python(["numpy"])
    try:
        warm.start()
        assert warm.run("import numpy", 10) is None     # declined while the file is there
        (world.workspace / "numpy.py").unlink()
        forked = warm.run("import numpy; print(numpy.zeros(2).sum())", 10)
        assert forked is not None and forked.stdout == "0.0\n", forked
    finally:
        warm.close()
