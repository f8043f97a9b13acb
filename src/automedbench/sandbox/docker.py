"""`docker` backend: the bwrap layout, in a container.

    agent container   : read-only rootfs, /data/public (ro), /workspace (rw), tmpfs /tmp,
                        --cap-drop ALL, no-new-privileges, --pids-limit, --memory,
                        --network none unless the network is on, --gpus all with a GPU.
    scoring container : --network none, the workspace read-only and the ONLY place the
                        private references are ever mounted.

Images are pinned by digest (`name@sha256:<64 hex>`): a bare tag can change under the
benchmark, so it is rejected. The image is taken from `AUTOMEDBENCH_DOCKER_IMAGE` unless
passed explicitly. Argument construction is pure (`agent_argv`, `scoring_argv`) and unit
tested; running needs a Docker engine (`docker info`).
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import uuid
from pathlib import Path

from . import advisory
from .base import ExecResult, SandboxError, SandboxSpec, command_for, run_process
from .inside import DATA_INSIDE, PRIVATE_INSIDE, WORKSPACE_INSIDE, has_nvidia_gpu
from .inside import agent_env as shared_agent_env

DIGEST_RE = re.compile(r"^[\w./:-]+@sha256:[0-9a-f]{64}$")


def check_image(image: str) -> str:
    if not image or not DIGEST_RE.match(image):
        raise SandboxError(f"docker image {image!r} is not pinned by digest: use name@sha256:<64 hex> "
                           "(e.g. `docker inspect --format '{{index .RepoDigests 0}}' IMAGE`)")
    return image


def docker_available(docker: str = "docker") -> tuple[bool, str]:
    exe = shutil.which(docker)
    if not exe:
        return False, "docker CLI not installed"
    try:
        res = subprocess.run([exe, "info", "--format", "{{.ServerVersion}}"], capture_output=True,
                             text=True, timeout=20)
    except (OSError, subprocess.SubprocessError) as exc:
        return False, f"docker info failed: {exc}"
    if res.returncode != 0:
        return False, "no Docker engine reachable (`docker info` failed): " + res.stderr.strip()[:200]
    return True, res.stdout.strip()


def _env_args(env: dict[str, str]) -> list[str]:
    out: list[str] = []
    for k, v in env.items():
        out += ["--env", f"{k}={v}"]
    return out


def agent_env(spec: SandboxSpec) -> dict[str, str]:
    """The same scrubbed environment as bwrap (inside.agent_env); the image's python is on PATH."""
    return shared_agent_env(spec)


def agent_argv(spec: SandboxSpec, image: str, command: list[str], *, name: str | None = None,
               gpu: bool = False, docker: str = "docker", user: str = "1000:1000") -> list[str]:
    """`docker run` argv for one agent execution."""
    check_image(image)
    a = [docker, "run", "--rm", "--init", "--read-only", "--cap-drop", "ALL",
         "--security-opt", "no-new-privileges", "--user", user,
         "--tmpfs", "/tmp:rw,nosuid,nodev,size=4g",
         "--mount", f"type=bind,source={Path(spec.public_dir).resolve()},target={DATA_INSIDE},readonly",
         "--mount", f"type=bind,source={Path(spec.workspace).resolve()},target={WORKSPACE_INSIDE}",
         "--workdir", WORKSPACE_INSIDE]
    if name:
        a += ["--name", name]
    if spec.max_procs:
        a += ["--pids-limit", str(spec.max_procs)]
    if spec.memory_mb:
        a += ["--memory", f"{spec.memory_mb}m", "--memory-swap", f"{spec.memory_mb}m"]
    if spec.max_file_mb:
        a += ["--ulimit", f"fsize={spec.max_file_mb * 1024 * 1024}"]
    a += ["--ulimit", "nofile=4096:4096"]
    if not spec.network:
        a += ["--network", "none"]
    if gpu:
        a += ["--gpus", "all"]
    for src, dst in spec.extra_ro_binds:
        a += ["--mount", f"type=bind,source={src},target={dst},readonly"]
    a += _env_args(agent_env(spec))
    return a + [image, *command]


def scoring_argv(image: str, workspace: Path, private_dir: Path, out_dir: Path, command: list[str],
                 *, docker: str = "docker") -> list[str]:
    """`docker run` argv for the scoring container: no network, workspace read-only, and
    the only container that ever sees the private references."""
    check_image(image)
    return [docker, "run", "--rm", "--read-only", "--network", "none", "--cap-drop", "ALL",
            "--security-opt", "no-new-privileges", "--tmpfs", "/tmp:rw,nosuid,nodev",
            "--mount", f"type=bind,source={Path(workspace).resolve()},target={WORKSPACE_INSIDE},readonly",
            "--mount", f"type=bind,source={Path(private_dir).resolve()},target={PRIVATE_INSIDE},readonly",
            "--mount", f"type=bind,source={Path(out_dir).resolve()},target=/scores",
            image, *command]


class DockerSandbox:
    name = "docker"
    isolated = True
    data_dir = DATA_INSIDE
    workspace_dir = WORKSPACE_INSIDE

    def __init__(self, spec: SandboxSpec, image: str | None = None, docker: str = "docker"):
        self.spec = spec
        self.image = check_image(image or os.environ.get("AUTOMEDBENCH_DOCKER_IMAGE", ""))
        ok, why = docker_available(docker)
        if not ok:
            raise SandboxError(f"docker backend unavailable: {why}")
        self.docker = shutil.which(docker) or docker
        self.gpu = spec.gpu and has_nvidia_gpu()
        Path(spec.workspace).mkdir(parents=True, exist_ok=True)

    def execute(self, language: str, code: str, timeout_s: float | None = None) -> ExecResult:
        name = f"amb-{uuid.uuid4().hex[:12]}"
        argv = agent_argv(self.spec, self.image, command_for(language, code, "python"), name=name,
                          gpu=self.gpu, docker=self.docker)
        result = run_process(argv, env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")}, cwd=None,
                             timeout_s=timeout_s or self.spec.timeout_s, cap=self.spec.output_cap)
        if result.timed_out:  # killing the CLI does not stop the container
            subprocess.run([self.docker, "rm", "-f", name], capture_output=True)
        result.warnings.extend(advisory.scan(language, code))
        return result

    def close(self) -> None:
        pass
