"""The prewarmed interpreter running scripts (sandbox/bwrap/warm.py, docs/judge.md "What replays
cost"): in a real bwrap sandbox, a bash call that only starts python on a script, and a python
call that starts the sandbox's python on a script through `subprocess` (the zygote), answer
as the same calls run fresh -- `sys.argv`, `__main__`, `__file__`, `sys.path[0]`, a sibling
module imported from the script's folder, `if __name__ == "__main__"`, exit statuses,
exceptions, syntax errors, signals, a source's coding declaration, the variables bash exports --
and whatever a fork could get wrong is declined or left to the real fork and exec."""
from __future__ import annotations

import functools
import os

import pytest

from automedbench.agents import AGENT_CLASSES
from automedbench.api import run_one
from automedbench.data import dataset_paths
from automedbench.lifecycle.experiments import _Runner, run_experiments
from automedbench.runs.options import RunOptions
from automedbench.sandbox import SandboxSpec
from automedbench.sandbox.bwrap.warm import shell_python, warm_imports
from automedbench.scoring.experiments import CallExperiment
from automedbench.tasks import get_task
from tests.judge_runs import PLAN, run_scripted, steps_agent

from .conftest import needs_bwrap

LOOK = '''"""A look at one output."""
import os
import sys

from helper import describe

KEYS = ("SHLVL", "_", "PWD", "OLDPWD")


def main() -> None:
    print(sys.argv, __name__, __file__, __doc__, __package__, __spec__, __cached__, type(__loader__).__name__)
    print(sys.path[0], sys.executable, sys.orig_argv, os.getcwd())
    print({k: os.environ.get(k) for k in KEYS}, sorted(globals()))
    print(describe(sys.argv[1:]))


if __name__ == "__main__":
    main()
'''
HELPER = '''import numpy as np


def describe(args):
    a = np.arange(12).reshape(3, 4)
    if "boom" in args:
        raise ValueError("the mask is empty")
    return f"shape {a.shape} sum {a.sum()} args {args} helper {__name__}"
'''
SCRIPTS = {
    "look.py": LOOK,
    "helper.py": HELPER,
    "exit3.py": "import sys\nprint('before', flush=True)\nsys.exit(3)\n",
    "exit_message.py": "import sys\nsys.exit('the mask is empty')\n",
    "syntax.py": "print('a'\nx = \n",
    "killed.py": "import os, signal\nprint('x', flush=True)\nos.kill(os.getpid(), signal.SIGTERM)\n",
    "atexit_thread.py": ("import atexit, threading, time\natexit.register(lambda: print('atexit ran'))\n"
                         "t = threading.Thread(target=lambda: (time.sleep(0.2), print('thread done')))\nt.start()\n"
                         "print('main done')\n"),
    "stderr.py": "import sys\nprint('out')\nprint('err', file=sys.stderr)\nraise SystemExit(0)\n",
    # tells a fork of the warm server from a fresh interpreter: numpy already imported
    "tell.py": "import sys\nprint('numpy' in sys.modules)\n",
    "uses_json.py": "import json, sys\nprint('numpy' in sys.modules)\n",
}
LATIN1 = "# -*- coding: latin-1 -*-\nprint('caf\xe9', len('\xe9'))\n".encode("latin-1")

COMMANDS = {
    "argv_and_json": """python scripts/look.py a 'b c' --args-json '{"data_dir": "/data/public", "n": [1, 2]}'""",
    "python3": "python3 scripts/look.py",
    "absolute_interpreter": "/opt/agent-python/bin/python scripts/look.py x",
    "cd_first": 'cd scripts && python look.py "x y"',
    "exception_in_sibling": "python scripts/look.py boom",
    "exit_status": "python scripts/exit3.py",
    "exit_message": "python scripts/exit_message.py",
    "syntax_error": "python scripts/syntax.py",
    "killed_by_signal": "python scripts/killed.py",
    "atexit_and_thread": "python scripts/atexit_thread.py",
    "stderr": "python scripts/stderr.py",
    "coding_declaration": "python scripts/latin1.py",
    "dash_c": "python -c 'import sys; print(sys.argv, sys.path[0], __name__, type(__loader__).__name__)' x 'y z'",
}

LAUNCH = ("import subprocess, sys\n"
          "r = subprocess.run([sys.executable, 'scripts/look.py', 'a b', '--k={\"v\": 1}'])\n"
          "print('returned', r.returncode)\nsys.exit(r.returncode)\n")
LAUNCHERS = {
    "launch": LAUNCH,
    "launch_fails": LAUNCH.replace("'a b'", "'boom'"),
    "launch_captured": ("import subprocess, sys\n"
                        "r = subprocess.run([sys.executable, 'scripts/look.py', 'q'], capture_output=True, text=True)\n"
                        "print('code', r.returncode, 'out', r.stdout.upper(), 'err', r.stderr[-60:])\n"),
    "launch_stderr_to_stdout": ("import subprocess, sys\n"
                                "out = subprocess.run([sys.executable, 'scripts/stderr.py'], stdout=subprocess.PIPE,"
                                " stderr=subprocess.STDOUT).stdout\nprint(repr(out))\n"),
    "launch_by_name_in_folder": ("import subprocess\n"
                                 "print(subprocess.check_output(['python', 'look.py', 'n'], cwd='scripts').decode())\n"),
    "launch_in_a_folder_named_roundabout": ("import subprocess, sys\n"
                                            "subprocess.run([sys.executable, 'look.py'], cwd='scripts/../scripts/')\n"),
    "launch_dash_c": ("import subprocess, sys\n"
                      "subprocess.run([sys.executable, '-c', 'import sys; print(sys.argv, sys.path[0])', 'v'])\n"),
    "launch_killed": ("import subprocess, sys\n"
                      "print(subprocess.run([sys.executable, 'scripts/killed.py']).returncode)\n"),
    "launch_twice": ("import subprocess, sys\n"
                     "for name in ('exit3.py', 'look.py'):\n"
                     "    print(name, subprocess.run([sys.executable, 'scripts/' + name]).returncode, flush=True)\n"),
    "launch_other_env": ("import os, subprocess, sys\n"
                         "subprocess.run([sys.executable, 'scripts/look.py'], env=dict(os.environ, SHLVL='7'))\n"),
    "launch_from_a_forked_copy": ("import os, subprocess, sys\n"
                                  "pid = os.fork()\n"
                                  "if pid == 0:\n"
                                  "    r = subprocess.run([sys.executable, 'scripts/exit3.py'])\n"
                                  "    print('child saw', r.returncode, flush=True)\n"
                                  "    os._exit(0)\n"
                                  "os.waitpid(pid, 0)\n"
                                  "print('parent saw', subprocess.run([sys.executable, 'scripts/exit3.py']).returncode)\n"),
    "launch_missing": ("import subprocess, sys\n"
                       "print(subprocess.run([sys.executable, 'scripts/missing.py']).returncode)\n"),
    "launch_missing_folder": ("import subprocess, sys\n"
                              "try:\n    subprocess.run([sys.executable, 'look.py'], cwd='nowhere')\n"
                              "except OSError as exc:\n    print(type(exc).__name__, exc.errno)\n"),
}


@pytest.fixture
def script_box(world):
    from automedbench.sandbox.bwrap.backend import BwrapSandbox
    world.clear_workspace()
    scripts = world.workspace / "scripts"
    scripts.mkdir()
    for name, text in SCRIPTS.items():
        (scripts / name).write_text(text)
    (scripts / "latin1.py").write_bytes(LATIN1)
    box = BwrapSandbox(SandboxSpec(public_dir=world.public, workspace=world.workspace, network=False,
                                   timeout_s=30, max_procs=128, memory_mb=4096, max_file_mb=256,
                                   output_cap=64 * 1024, record_effects=False))
    uid = getattr(box, "workspace_uid", None)
    if uid is not None:
        for path in (world.workspace, scripts):
            os.chown(path, uid, uid)
    yield box
    box.close()
    world.clear_workspace()


def _answer(result):
    return result.exit_code, result.stdout, result.stderr


def test_shell_python_takes_only_a_plain_python_command_line():
    assert shell_python("python s.py a 'b c' \"d\"") == (["python", "s.py", "a", "b c", "d"], None)
    assert shell_python("  cd scripts && python3 s.py --args-json '{\"k\": 1}'\n") == (
        ["python3", "s.py", "--args-json", '{"k": 1}'], "scripts")
    assert shell_python("python -c 'print(1)' x") == (["python", "-c", "print(1)", "x"], None)
    for other in ("python s.py | head", "python s.py > out.txt", "python s.py && echo ok", "python s.py; ls",
                  "X=1 python s.py", "python $SCRIPT", "python *.py", "python ~/s.py", "python s.py &",
                  "python -u s.py", "python -m pkg", "python", "ls", "python s.py\npython t.py",
                  "python s.py # a comment", 'python "$HOME/s.py"', "python s.py `date`", "cd && python s.py",
                  "cd - && python s.py", "nice python s.py", "python s.py \\\n x", "python {a,b}.py"):
        assert shell_python(other) is None, other


def test_imports_are_found_in_the_scripts_a_call_writes():
    launcher = "import pathlib, subprocess\nfor n, t in {'s.py': 'import nibabel as nib\\nimport numpy'}.items():\n" \
               "    pathlib.Path(n).write_text(t)\nsubprocess.run(['python', 's.py'])"
    assert warm_imports([launcher]) == []            # what it ran is known: the scripts it read
    assert sorted(warm_imports([], [launcher])) == ["nibabel", "numpy"]


@needs_bwrap
def test_a_script_run_warm_answers_as_bash_running_python(script_box):
    warm = script_box.warm_python(warm_imports([HELPER]))
    try:
        for name, command in COMMANDS.items():
            fresh = script_box.execute("bash", command, timeout_s=20)
            parsed = shell_python(command)
            assert parsed is not None, name
            forked = warm.run_argv(*parsed, 20)
            assert forked is not None, name
            assert _answer(forked) == _answer(fresh), name
        assert warm.runs == len(COMMANDS) and warm.declined == 0 and not warm.broken
        # the forks ran in the warm interpreter: numpy was imported before the script ran
        assert warm.run_argv(["python", "scripts/tell.py"], None, 20).stdout == "True\n"
        assert script_box.execute("bash", "python scripts/tell.py", timeout_s=20).stdout == "False\n"
    finally:
        warm.close()


@needs_bwrap
def test_a_script_started_through_subprocess_answers_as_a_fresh_one(script_box):
    warm = script_box.warm_python(warm_imports([HELPER]))
    try:
        for name, code in LAUNCHERS.items():
            fresh = script_box.execute("python", code, timeout_s=20)
            forked = warm.run(code, 20)
            assert forked is not None, name
            assert _answer(forked) == _answer(fresh), name
        # the zygote took the new process's place: the script found numpy imported
        tell = "import subprocess, sys\nsys.exit(subprocess.run([sys.executable, 'scripts/tell.py']).returncode)"
        assert warm.run(tell, 20).stdout == "True\n"
        assert script_box.execute("python", tell, timeout_s=20).stdout == "False\n"
        # another environment is left to the real fork and exec
        other_env = "import os, subprocess, sys\nsubprocess.run([sys.executable, 'scripts/tell.py'], env={**os.environ, 'A': '1'})"
        assert warm.run(other_env, 20).stdout == "False\n"
    finally:
        warm.close()


@needs_bwrap
def test_what_a_fork_could_get_wrong_is_declined_or_run_for_real(script_box, world):
    warm = script_box.warm_python(["numpy"])
    try:
        for command in ("python scripts/missing.py", "python scripts", "cd nowhere && python look.py",
                        "python /usr/bin/true", "ls -la"):
            parsed = shell_python(command)
            assert parsed is None or warm.run_argv(*parsed, 20) is None, command
        assert not warm.broken
        # a file beside the script named like a module the server imported (numpy imports json)
        (world.workspace / "scripts" / "json.py").write_text("print('the workspace json')\n")
        assert warm.run_argv(["python", "scripts/uses_json.py"], None, 20) is None
        assert script_box.execute("bash", "python scripts/uses_json.py", timeout_s=20).stdout == \
            "the workspace json\nFalse\n"
        launcher = "import subprocess, sys\nsubprocess.run([sys.executable, 'scripts/uses_json.py'])"
        assert warm.run(launcher, 20).stdout == script_box.execute("python", launcher, timeout_s=20).stdout == \
            "the workspace json\nFalse\n"
        (world.workspace / "scripts" / "json.py").unlink()
        # the user's site folder, which a fresh interpreter puts on its path
        site = world.workspace / ".local" / "lib" / "python3.11" / "site-packages"
        site.mkdir(parents=True)
        uid = getattr(script_box, "workspace_uid", None)
        if uid is not None:
            for path in (world.workspace / ".local", *site.parents[:3], site):
                os.chown(path, uid, uid)
        assert warm.run_argv(["python", "scripts/tell.py"], None, 20) is None
        assert warm.run("print(1)", 20) is None
        assert warm.declined >= 7 and not warm.broken
    finally:
        warm.close()


def _replay(code: str, decidable_if: str, runner: _Runner) -> CallExperiment:
    result = runner.execute("bash", code, 10)
    return CallExperiment(call_index=3, decidable=result.stdout.strip() == decidable_if, why="not reproduced")


@needs_bwrap
def test_a_bash_call_is_decided_warm_or_again_fresh(script_box):
    runner = _Runner(script_box, [HELPER])
    try:
        assert runner.warm is not None
        decided = runner.decided(functools.partial(_replay, "python scripts/exit3.py", "before"))
        assert decided.decidable and decided.interpreter == "warm"
        decided = runner.decided(functools.partial(_replay, "python scripts/tell.py", "False"))
        assert decided.decidable and decided.interpreter == "fresh"
        runs = runner.warm.runs
        decided = runner.decided(functools.partial(_replay, "python scripts/exit3.py | cat", "before"))
        assert decided.decidable and runner.warm.runs == runs       # a pipe: bash, fresh
    finally:
        runner.close()


@needs_bwrap
@pytest.mark.slow
def test_a_scripted_run_is_decided_alike_warm_and_fresh(tmp_path, monkeypatch, staged_once):
    """The built-in reference agent's calls write a step script and start it through
    `subprocess` (tracks/scripted_code.py `launch`): replayed warm, the script runs in the
    zygote with the modules it read preloaded, and every call is decided as fresh decides it."""

    task = get_task("brain-lesion-seg")
    staged_once(task.dataset, os.environ["AUTOMEDBENCH_DATA"])
    report = run_one(task.id, "lite", "reference", tmp_path, RunOptions(sandbox="bwrap"))
    public = dataset_paths(task.dataset).public
    decided = {}
    for switch in ("0", "1"):
        monkeypatch.setenv("AUTOMEDBENCH_WARM_REPLAYS", switch)
        exp = run_experiments(report.run_dir, task, "bwrap", public)
        assert exp.error is None and exp.calls and exp.inputs, exp
        decided[switch] = [(c.call_index, c.decidable, c.killed, [(v.name, v.changed) for v in c.variants])
                           for c in [*exp.calls, *exp.inputs]]
        assert {c.interpreter for c in [*exp.calls, *exp.inputs]} == {"fresh" if switch == "0" else "warm"}
    assert decided["0"] == decided["1"]
    assert all(d for _, d, _, _ in decided["1"]) and any(k for _, _, k, _ in decided["1"])


LOOK_SCRIPT = '''"""Look at each pilot mask: its shape and how many voxels of each label."""
import glob
import sys

from stats import summary

if __name__ == "__main__":
    for path in sorted(glob.glob(sys.argv[1] + "/*/*.nii.gz")):
        print(path.rsplit("/", 2)[-2], summary(path))
'''
STATS = '''import nibabel as nib
import numpy as np


def summary(path):
    a = np.asanyarray(nib.load(path).dataobj)
    labels, counts = np.unique(a, return_counts=True)
    return f"shape {a.shape} labels {dict(zip(labels.tolist(), counts.tolist()))}"
'''


def _bash_look(context, methods):
    write = ("# S3 write the look script\nimport pathlib\npathlib.Path('checks').mkdir(exist_ok=True)\n"
             f"pathlib.Path('checks/look.py').write_text({LOOK_SCRIPT!r})\n"
             f"pathlib.Path('checks/stats.py').write_text({STATS!r})\n")
    return [PLAN, ("python", methods.setup_code(context.data_dir)), ("python", methods.pilot_code(context.data_dir)),
            ("python", write), ("bash", "cd checks && python look.py ../outputs"),
            ("python", methods.batch_code(context.data_dir, careless=False))]


@needs_bwrap
@pytest.mark.slow
def test_a_bash_look_at_a_script_is_decided_warm_as_fresh(tmp_path, monkeypatch, staged_once):
    """A look the way agents often write one: a script (and a module beside it) written by one
    call, run by a bash call `cd checks && python look.py ../outputs`. Replayed warm, it runs in
    a fork of the server (nibabel preloaded from the module the call read), and every call is
    decided as fresh decides it; the look catches a broken mask."""

    AGENT_CLASSES.add("steps-bash-look", steps_agent("steps-bash-look", _bash_look), replace=True, description="test")
    report, recorded = run_scripted("brain-lesion-seg", "steps-bash-look", tmp_path, monkeypatch, staged_once)
    look = next(c for c in recorded.calls if c.call_index == 5)
    assert look.decidable and look.interpreter == "warm" and look.killed, look
    task = get_task("brain-lesion-seg")
    decided = {}
    for switch in ("0", "1"):
        monkeypatch.setenv("AUTOMEDBENCH_WARM_REPLAYS", switch)
        exp = run_experiments(report.run_dir, task, "bwrap", dataset_paths(task.dataset).public)
        decided[switch] = [(c.call_index, c.decidable, c.killed, [(v.name, v.changed, v.failed) for v in c.variants])
                           for c in [*exp.calls, *exp.inputs]]
    assert decided["0"] == decided["1"] and any(i == 5 for i, *_ in decided["1"])
