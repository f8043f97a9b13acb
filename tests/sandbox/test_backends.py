"""Backends other than the bwrap namespace itself: registry, local, docker argv, GPU
argument construction, the agent runtime cache, the exec function and its CLI."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import types
from pathlib import Path

import pytest

from automedbench import sandbox as sb
from automedbench.sandbox import SandboxError, SandboxSpec, open_sandbox
from automedbench.sandbox.docker.backend import (
    check_image,
    container_argv,
    scoring_argv,
)
from automedbench.scoring.workspace_guard import escaping_links

from .conftest import needs_bwrap

DIGEST = "ghcr.io/x/amb-agent@sha256:" + "a" * 64


def test_registry_default_is_bwrap():
    assert sb.DEFAULT_BACKEND == "bwrap"
    assert {"bwrap", "docker", "local"} <= set(sb.available_backends())


def test_missing_bwrap_names_the_apt_package(monkeypatch, tmp_path):
    from automedbench.sandbox.bwrap import backend as bwrap
    monkeypatch.setattr(bwrap.shutil, "which", lambda name: None)
    monkeypatch.setattr(bwrap.os, "access", lambda *a: False)
    with pytest.raises(SandboxError, match="apt-get install bubblewrap"):
        open_sandbox("bwrap", SandboxSpec(public_dir=tmp_path, workspace=tmp_path / "ws"))


def test_local_backend_is_labelled_and_warns(tmp_path, caplog, recwarn):
    with caplog.at_level("WARNING", logger="automedbench.sandbox"):
        box = open_sandbox("local", SandboxSpec(public_dir=tmp_path, workspace=tmp_path / "ws"))
    # one log line, no Python RuntimeWarning (which prints a source line to the user)
    assert [r.getMessage() for r in caplog.records if "isolates nothing" in r.getMessage()]
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]
    assert box.name == "local (no isolation)" and box.isolated is False
    assert box.execute("python", "print(6*7)").stdout.strip() == "42"


# ------------------------------------------------------------------ docker
def test_docker_requires_digest():
    for bad in ("python:3.11", "amb-agent:latest", "amb@sha256:short", "sha256:abc", ""):
        with pytest.raises(SandboxError, match="pinned by digest"):
            check_image(bad)
    assert check_image(DIGEST) == DIGEST


def test_docker_container_argv(tmp_path):
    spec = SandboxSpec(public_dir=tmp_path / "pub", workspace=tmp_path / "ws", network=False,
                       memory_mb=2048, max_procs=256, cpus=1.5)
    a = container_argv(spec, DIGEST, "amb-x", [("decoy", str(tmp_path / "decoy"), "/data/private")], gpu=True)
    joined = " ".join(a)
    for piece in ("--read-only", "--cap-drop ALL", "--security-opt no-new-privileges", "--pids-limit 256",
                  "--memory 2048m", "--cpus 1.5", "--network none", "--gpus all", "target=/data/public,readonly",
                  "target=/workspace", "mode=1777", "fsize="):
        assert piece in joined, piece
    assert a[-3:] == [DIGEST, "sleep", "infinity"]
    # the only thing at /data/private is the decoy, and no env var passes at container level
    privs = [x for x in a if "/data/private" in x]
    assert privs == [f"type=bind,source={tmp_path / 'decoy'},target=/data/private,readonly"]
    assert "--env" not in a
    spec.network = True  # network on still starts with no network; slirp4netns attaches later
    assert "--network none" in " ".join(container_argv(spec, DIGEST, "amb-y", []))
    assert check_image("sha256:" + "b" * 64)


def test_docker_scoring_argv_alone_mounts_private(tmp_path):
    ro = [tmp_path / "run", tmp_path / "ds" / "private", tmp_path / "venv"]
    a = scoring_argv(DIGEST, "amb-score-x", ro, tmp_path / "out", ["python", "-m", "x"], user="0:0",
                     read_any_file=True)
    joined = " ".join(a)
    for piece in ("--network none", "--read-only", "--cap-drop ALL", "--cap-add DAC_READ_SEARCH",
                  "--security-opt no-new-privileges", "--hostname amb-score-x", "--user 0:0"):
        assert piece in joined, piece
    mounts = [x for x in a if x.startswith("type=bind")]
    # each input read-only at its own path; the output dir is the one writable mount
    assert [m for m in mounts if not m.endswith(",readonly")] == [f"type=bind,source={tmp_path / 'out'},target=/scores"]
    for p in ro:
        assert f"type=bind,source={p},target={p},readonly" in mounts
    assert a[-4:] == [DIGEST, "python", "-m", "x"]
    # no secret can pass: the environment is three fixed values (docker passes no host variable)
    envs = [a[i + 1].split("=")[0] for i, x in enumerate(a) if x == "--env"]
    assert sorted(envs) == ["AUTOMEDBENCH_HOME", "HOME", "PYTHONDONTWRITEBYTECODE"]


def test_docker_backend_records_its_image(docker_box, docker_image):
    assert docker_box.image == docker_image and docker_image.startswith("sha256:")
    r = docker_box.execute("bash", "id -u; ls /data; test -w / || echo ro-root; touch /tmp/x && echo tmp-ok")
    assert r.exit_code == 0, r.stderr
    assert r.stdout.split() == ["1000", "private", "public", "ro-root", "tmp-ok"]
    # effects are observed on the host side of the bind mounts; /tmp (a tmpfs) is not one
    assert r.effects is not None and r.effects["written"] == [] and r.effects["recorder"] == "inotify"


def test_a_container_lost_before_any_call_is_started_again_once(world, docker_image, tmp_path, caplog):
    """The engine's start-up race (docker's init exiting 127 as the container starts): before
    any agent call the sandbox starts its container again, once, and says so."""
    import logging
    import subprocess

    from automedbench.sandbox.docker.backend import DockerSandbox
    box = DockerSandbox(SandboxSpec(public_dir=world.public, workspace=tmp_path / "ws", timeout_s=30),
                        image=docker_image)
    try:
        subprocess.run([box.docker, "kill", box.container], capture_output=True, check=True, timeout=60,
                       env=box._cli_env)
        assert not box.running()
        with caplog.at_level(logging.WARNING, logger="automedbench.sandbox.docker.backend"):
            box.ensure_running()
        assert box.running() and box.execute("bash", "echo up").stdout.strip() == "up"
        assert any("container exited 137" in r.getMessage() and "started it again" in r.getMessage()
                   for r in caplog.records), caplog.records
    finally:
        box.close()


def test_a_container_lost_under_the_agent_is_an_infrastructure_fault(world, docker_image, tmp_path):
    """docs/faults.md: when the engine loses the sandbox's container, the call raises SandboxError
    (the run ends as infra_error) naming the container's exit, instead of handing the agent an
    `exit 1` to be scored on."""
    import subprocess

    from automedbench.sandbox import SandboxError
    from automedbench.sandbox.docker.backend import DockerSandbox
    box = DockerSandbox(SandboxSpec(public_dir=world.public, workspace=tmp_path / "ws", timeout_s=30),
                        image=docker_image)
    try:
        assert box.running() and box.execute("bash", "echo up").stdout.strip() == "up"
        subprocess.run([box.docker, "kill", box.container], capture_output=True, check=True, timeout=60,
                       env=box._cli_env)
        assert not box.running()
        with pytest.raises(SandboxError, match=r"container stopped under the agent: container exited 137"):
            box.execute("bash", "echo up")
    finally:
        box.close()


def test_docker_without_image_says_how_to_build(tmp_path, monkeypatch):
    from automedbench.sandbox.docker import backend as docker
    monkeypatch.delenv("AUTOMEDBENCH_DOCKER_IMAGE", raising=False)
    monkeypatch.setattr(docker, "recorded_image", lambda: None)
    (tmp_path / "pub").mkdir()
    with pytest.raises(SandboxError, match="build-image"):
        open_sandbox("docker", SandboxSpec(public_dir=tmp_path / "pub", workspace=tmp_path / "ws"))


# ------------------------------------------------------------------ GPU
def test_gpu_bind_args_from_fake_dev_listing():
    from automedbench.sandbox.bwrap.backend import gpu_bind_args
    nodes = ["/dev/nvidia0", "/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools", "/dev/null"]
    libs = {"/usr/local/nvidia", "/usr/lib/x86_64-linux-gnu/libcuda.so.1", "/run/nvidia-persistenced"}
    fake_glob = lambda pat: sorted(p for p in libs if p == pat or (pat.endswith("*") and p.startswith(pat[:-1])))
    args, env = gpu_bind_args(nodes, {"CUDA_VISIBLE_DEVICES": "0", "OPENAI_API_KEY": "x"},
                              exists=lambda p: p in libs, globber=fake_glob)
    for n in nodes[:4]:
        i = args.index(n)
        assert args[i - 1] == "--dev-bind" and args[i + 1] == n
    assert "/dev/null" not in args
    # under /usr: visible through the recursive /usr bind, never bound again (a symlinked
    # /usr/local/cuda made such a second bind fail on the GPU machine)
    assert "/usr/local/nvidia" not in args and "/usr/lib/x86_64-linux-gnu/libcuda.so.1" not in args
    i = args.index("/run/nvidia-persistenced")
    assert args[i - 1:i + 2] == ["--ro-bind", "/run/nvidia-persistenced", "/run/nvidia-persistenced"]
    assert env["CUDA_VISIBLE_DEVICES"] == "0" and env["NVIDIA_VISIBLE_DEVICES"] == "all"
    assert "/usr/local/nvidia/lib64" in env["LD_LIBRARY_PATH"] and "OPENAI_API_KEY" not in env
    assert gpu_bind_args(["/dev/null", "/dev/zero"], {}) == ([], {})


@needs_bwrap
@pytest.mark.bwrap
def test_extra_ro_binds_and_gpu_nodes_in_argv(world, tmp_path):
    from automedbench.sandbox.bwrap.backend import BwrapSandbox
    extra = tmp_path / "torch"
    extra.mkdir()
    (extra / "marker.txt").write_text("torch here")
    spec = SandboxSpec(public_dir=world.public, workspace=tmp_path / "ws", extra_ro_binds=[(str(extra), "/opt/torch")])
    with BwrapSandbox(spec, gpu_nodes=[]) as box:
        r = box.execute("bash", "cat /opt/torch/marker.txt; touch /opt/torch/x || echo ro")
        assert "torch here" in r.stdout and "ro" in r.stdout
        assert "--dev-bind" not in box.argv("python", "1")


# ------------------------------------------------------------------ agent runtime
def test_runtime_built_once_under_a_race(tmp_path):
    """Two processes ask for a fresh runtime at once: one builds, both get the same dir."""
    code = ("import sys; from pathlib import Path; from automedbench.sandbox.runtime import ensure_agent_runtime;"
            "print(ensure_agent_runtime(root=Path(sys.argv[1]), compile_bytecode=False))")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    procs = [subprocess.Popen([sys.executable, "-c", code, str(tmp_path)], stdout=subprocess.PIPE, text=True, env=env)
             for _ in range(2)]
    outs = [p.communicate(timeout=300)[0].strip() for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert outs[0] == outs[1]
    built = [d for d in tmp_path.iterdir() if not d.name.startswith(".")]
    assert len(built) == 1 and (built[0] / ".complete").is_file()
    assert not list(tmp_path.glob(".build-*"))
    site = built[0] / "site"
    assert (site / "numpy").is_dir() and (site / "nibabel").is_dir() and not (site / "automedbench").exists()
    assert os.readlink(built[0] / "bin" / "python").startswith("/usr/")


# ------------------------------------------------------------------ workspace guard
def test_escaping_links_found(tmp_path):
    ws = tmp_path / "ws"
    (ws / "outputs").mkdir(parents=True)
    (ws / "outputs" / "ok.txt").write_text("1")
    (ws / "outputs" / "inner").symlink_to("ok.txt")
    (ws / "outputs" / "ref.nii.gz").symlink_to("/root/.cache/automedbench/data/x/private/c/ref.nii.gz")
    (ws / "up").symlink_to("../..")
    found = {f["path"] for f in escaping_links(ws)}
    assert found == {"outputs/ref.nii.gz", "up"}


# ------------------------------------------------------------------ exec + CLI
@needs_bwrap
@pytest.mark.bwrap
def test_sandbox_exec_function(world):
    from automedbench.sandbox.exec import sandbox_exec
    out = sandbox_exec(world.public, None, "bwrap", False, "bash", "ls /data/public; ls /data/private")
    assert out["exit_code"] == 0 and "case_00000" in out["stdout"]
    assert out["violations"] and out["violations"][0]["kind"] == "private_access"
    assert set(out) >= {"exit_code", "stdout", "stderr", "duration_s", "violations", "effects"}
    # listing directories reads no file
    assert out["effects"]["read"] == [] and out["effects"]["written"] == []


@pytest.fixture
def fake_task(monkeypatch, world):
    import automedbench.cli.sandbox as cli_sandbox
    import automedbench.tasks as tasks
    fake = lambda tid: types.SimpleNamespace(id=tid, dataset="demo_ds")  # noqa: E731
    # where the command looks it up: cli/sandbox.py binds get_task when first imported, which
    # another test of the same worker may have done already (the CLI help pages test does)
    monkeypatch.setattr(tasks, "get_task", fake)
    monkeypatch.setattr(cli_sandbox, "get_task", fake)
    return world.dataset.parent


@needs_bwrap
@pytest.mark.bwrap
def test_cli_exec_prints_one_json_object(fake_task, tmp_path):
    from typer.testing import CliRunner

    from automedbench.cli.sandbox import sandbox_app
    script = tmp_path / "probe.py"
    script.write_text("import os\nprint(sorted(os.listdir('/data/public')))\n")
    res = CliRunner().invoke(sandbox_app, ["exec", "--task", "demo", "--data-root", str(fake_task),
                                           "--python", str(script)])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["exit_code"] == 0 and "case_00000" in out["stdout"] and out["violations"] == []


@needs_bwrap
@pytest.mark.bwrap
def test_cli_exec_exits_with_the_scripts_status(fake_task, tmp_path):
    from typer.testing import CliRunner

    from automedbench.cli.sandbox import sandbox_app
    script = tmp_path / "fail.sh"
    script.write_text("echo partial; exit 3\n")
    res = CliRunner().invoke(sandbox_app, ["exec", "--task", "demo", "--data-root", str(fake_task),
                                           "--bash", str(script)])
    assert res.exit_code == 3, res.output
    assert json.loads(res.stdout)["exit_code"] == 3
    script.write_text("kill -9 $$\n")
    res = CliRunner().invoke(sandbox_app, ["exec", "--task", "demo", "--data-root", str(fake_task),
                                           "--bash", str(script)])
    assert res.exit_code == 137, res.output


def test_cli_exec_unstaged_dataset_exits_2(fake_task, tmp_path):
    from typer.testing import CliRunner

    from automedbench.cli.sandbox import sandbox_app
    script = tmp_path / "p.sh"
    script.write_text("echo hi\n")
    res = CliRunner().invoke(sandbox_app, ["exec", "--task", "demo", "--data-root", str(tmp_path / "empty"),
                                           "--bash", str(script)])
    assert res.exit_code == 2
    assert "not staged" in res.output


@needs_bwrap
@pytest.mark.bwrap
def test_root_fallback_mode_is_flagged(world, tmp_path, monkeypatch, caplog):
    """If a root harness cannot drop privileges, bwrap still isolates but every result says
    that RLIMIT_NPROC is not enforced."""
    if os.geteuid() != 0:
        pytest.skip("only meaningful as root")
    from automedbench.sandbox import privilege
    from automedbench.sandbox.bwrap import backend as bwrap
    monkeypatch.setattr(privilege, "_DROP_OK", False)
    with caplog.at_level("WARNING", logger="automedbench.sandbox"):
        box = bwrap.BwrapSandbox(SandboxSpec(public_dir=world.public, workspace=tmp_path / "ws"))
    assert any("RLIMIT_NPROC" in r.getMessage() for r in caplog.records)
    with box:
        r = box.execute("bash", "ls /data; cat /proc/self/uid_map")
        assert box.mode == "root" and "public" in r.stdout
        assert any(w["kind"] == "sandbox_degraded" for w in r.warnings)


@needs_bwrap
@pytest.mark.bwrap
def test_drop_mode_runs_as_unprivileged_host_uid(world, tmp_path):
    if os.geteuid() != 0:
        pytest.skip("only meaningful as root")
    from automedbench.sandbox.bwrap import backend as bwrap
    with bwrap.BwrapSandbox(SandboxSpec(public_dir=world.public, workspace=tmp_path / "ws")) as box:
        assert box.mode == "drop"
        r = box.execute("bash", "id -u; touch made-inside")
        assert r.stdout.split() == ["1000"]
        # uid 1000 inside is the sandbox's own unprivileged host uid outside (not root)
        owner = (tmp_path / "ws" / "made-inside").stat().st_uid
        assert owner == box.drop_to and bwrap.HOST_UID <= owner < bwrap.HOST_UID + 512


@pytest.mark.slow
@needs_bwrap
@pytest.mark.bwrap
def test_one_sandboxs_fork_bomb_does_not_stop_another_sandbox_from_starting(world, tmp_path):
    """docs/sandbox.md: each sandbox has a host uid of its own, so RLIMIT_NPROC (counted per uid,
    machine-wide) is each sandbox's own budget. With one shared uid, a sandbox that had forked
    up to its limit made every other sandbox fail (`bwrap: Creating new namespace failed:
    Resource temporarily unavailable`), and that failure was charged to the other agent."""
    if os.geteuid() != 0:
        pytest.skip("only meaningful as root (drop mode)")
    import threading
    import time

    from automedbench.sandbox.bwrap import backend as bwrap
    spec = dict(public_dir=world.public, timeout_s=30, max_procs=48)
    with bwrap.BwrapSandbox(SandboxSpec(workspace=tmp_path / "a", **spec)) as bomb, \
            bwrap.BwrapSandbox(SandboxSpec(workspace=tmp_path / "b", **spec)) as other:
        assert bomb.drop_to != other.drop_to
        code = ("import os, time\nkids = 0\ntry:\n    while True:\n        if os.fork() == 0:\n"
                "            time.sleep(8); os._exit(0)\n        kids += 1\nexcept OSError:\n    pass\n"
                "open('/workspace/full', 'w').write(str(kids))\ntime.sleep(8)\n")
        thread = threading.Thread(target=bomb.execute, args=("python", code), daemon=True)
        thread.start()
        deadline = time.monotonic() + 20
        while not (tmp_path / "a" / "full").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert (tmp_path / "a" / "full").exists(), "the fork bomb never reached its limit"
        r = other.execute("python", "print(6 * 7)")   # while the first sandbox's uid is at its limit
        assert r.exit_code == 0 and r.stdout.strip() == "42", (r.exit_code, r.stderr[-300:])
        thread.join(timeout=30)


@needs_bwrap
@pytest.mark.bwrap
@pytest.mark.parametrize("dst", ["/opt", "/", "/usr", "/data", "/workspace", "/workspace/x", "/opt/agent-python/lib", "rel"])
def test_extra_binds_cannot_cover_sandbox_paths(world, tmp_path, dst):
    from automedbench.sandbox.bwrap.backend import BwrapSandbox
    with pytest.raises(SandboxError):
        BwrapSandbox(SandboxSpec(public_dir=world.public, workspace=tmp_path / "ws",
                                 extra_ro_binds=[(str(tmp_path), dst)]))


def test_runtime_links_the_harness_files_where_it_can_and_copies_elsewhere(tmp_path):
    """docs/sandbox.md, "The agent runtime": on the harness environment's file system the
    runtime's files are hard links (no ~360 MB copy); on another (/dev/shm, a tmpfs) copies."""
    import numpy
    from automedbench.sandbox.runtime import ensure_agent_runtime
    harness_file = Path(numpy.__file__)
    same_fs = os.stat(tmp_path).st_dev == os.stat(harness_file).st_dev
    built = ensure_agent_runtime(root=tmp_path / "rt", compile_bytecode=False)
    linked = built / "site" / "numpy" / "__init__.py"
    assert json.loads((built / "runtime.json").read_text())["filled_by"] == ("link" if same_fs else "copy")
    assert (os.stat(linked).st_ino == os.stat(harness_file).st_ino) == same_fs
    assert linked.read_bytes() == harness_file.read_bytes() and os.stat(linked).st_mode & 0o444 == 0o444
    if not Path("/dev/shm").is_dir() or os.stat("/dev/shm").st_dev == os.stat(harness_file).st_dev:
        pytest.fail("needs /dev/shm on a file system other than the harness environment's")
    other = Path(tempfile.mkdtemp(dir="/dev/shm", prefix="amb-rt-"))
    try:
        copied = ensure_agent_runtime(root=other, compile_bytecode=False)
        assert json.loads((copied / "runtime.json").read_text())["filled_by"] == "copy"
        copy = copied / "site" / "numpy" / "__init__.py"
        assert os.stat(copy).st_ino != os.stat(harness_file).st_ino and copy.read_bytes() == harness_file.read_bytes()
    finally:
        shutil.rmtree(other, ignore_errors=True)
