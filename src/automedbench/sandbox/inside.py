"""The sandbox as the agent sees it, shared by every isolating backend (bwrap, docker):
the inside paths, the scrubbed environment, and GPU discovery on the host.

Keeping these in one place means the prompt's paths, the environment an agent gets and
the GPU devices handed to it cannot drift apart between backends.
"""
from __future__ import annotations

import glob
import os
from collections.abc import Callable, Mapping

from ..agent_paths import DATA_INSIDE, PRIVATE_INSIDE, WORKSPACE_INSIDE  # noqa: F401 - re-exported to the backends
from .base import SandboxSpec, base_env

SANDBOX_UID = 1000                 # the agent's uid (and gid) inside
TMP_INSIDE = "/tmp"
CA_BUNDLE_INSIDE = "/etc/ssl/certs/ca-certificates.crt"

# Driver paths for GPU pass-through. Those under /usr are already visible through the
# recursive /usr bind (bwrap) or the image, and are NOT bound again: binding onto a path
# that is a symlink inside the new root fails (seen on the lent GPU machine:
# /usr/local/cuda -> cuda-13.0).
GPU_LIB_GLOBS = ("/usr/local/nvidia", "/usr/local/cuda", "/usr/lib/x86_64-linux-gnu/libcuda*",
                 "/usr/lib/x86_64-linux-gnu/libnvidia*", "/usr/lib64/libcuda*",
                 "/usr/lib64/libnvidia*", "/run/nvidia-persistenced", "/usr/share/nvidia")
# GPU config under /etc (ICD files for OpenCL/Vulkan)
ETC_GPU = ("OpenCL", "vulkan", "nvidia")
GPU_ENV_PASS = ("CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES", "NVIDIA_DRIVER_CAPABILITIES")
_GPU_LIBDIRS = ("/usr/local/nvidia/lib64", "/usr/local/nvidia/lib", "/usr/local/cuda/lib64")


def agent_env(spec: SandboxSpec, *, runtime_inside: str | None = None,
              gpu_env: Mapping[str, str] | None = None, ca_bundle: str | None = None,
              pip_env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The whole environment of agent code: rebuilt from an allow-list (no host secret can
    pass), caches pointing into the workspace, the agent runtime first on PATH, GPU
    variables, and, when the network is on, the system CA bundle and the package index
    (`pip_env`). The task's own `extra_env` is applied last and wins."""
    env = base_env(spec, home=WORKSPACE_INSIDE, tmp=TMP_INSIDE)
    env.setdefault("LANG", "C.UTF-8")
    gpu_env = dict(gpu_env or {})
    extra_path = gpu_env.pop("AMB_EXTRA_PATH", None)
    if runtime_inside:
        env["PATH"] = f"{runtime_inside}/bin:" + env["PATH"]
        env["PYTHONPATH"] = f"{runtime_inside}/boot"
    if extra_path:
        env["PATH"] += f":{extra_path}"
    env.update(gpu_env)
    env.update({"PIP_BREAK_SYSTEM_PACKAGES": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1",
                "USER": "agent", "LOGNAME": "agent", "SHELL": "/bin/bash"})
    if spec.network and ca_bundle:
        # the system trust store (pip/requests otherwise use their own bundles, which
        # miss site CAs such as a TLS-inspecting egress proxy's)
        for var in ("PIP_CERT", "REQUESTS_CA_BUNDLE", "SSL_CERT_FILE", "CURL_CA_BUNDLE"):
            env[var] = ca_bundle
    if spec.network and pip_env:
        env.update(pip_env)
    env.update(spec.extra_env)
    return env


# ---------------------------------------------------------------------------- GPU discovery
def gpu_dev_nodes() -> list[str]:
    """The host's GPU device nodes (NVIDIA and DRM render nodes)."""
    return sorted(glob.glob("/dev/nvidia*")) + sorted(glob.glob("/dev/dri/renderD*"))


def has_nvidia_gpu(dev_nodes: list[str] | None = None) -> bool:
    """An NVIDIA device node exists (what `docker --gpus` needs)."""
    nodes = gpu_dev_nodes() if dev_nodes is None else dev_nodes
    return any(n.startswith("/dev/nvidia") and n[len("/dev/nvidia"):].isdigit() for n in nodes)


def gpu_nodes_only(dev_nodes: list[str]) -> list[str]:
    return [n for n in dev_nodes if n.startswith(("/dev/nvidia", "/dev/dri/"))]


def gpu_driver_paths(exists: Callable[[str], bool] = os.path.exists,
                     globber: Callable[[str], list[str]] = glob.glob) -> list[str]:
    """Host driver paths a GPU program needs, in a stable order, each once."""
    seen: list[str] = []
    for pattern in GPU_LIB_GLOBS:
        for path in sorted(globber(pattern)):
            if path not in seen and exists(path):
                seen.append(path)
    return seen


def gpu_env(driver_paths: list[str], host_env: Mapping[str, str] | None = None) -> dict[str, str]:
    """GPU variables for the agent: the host's device selection passes, nothing else.
    `AMB_EXTRA_PATH` is a PATH suffix for the backend, not a variable to set."""
    host_env = os.environ if host_env is None else host_env
    env = {var: host_env[var] for var in GPU_ENV_PASS if host_env.get(var)}
    env.setdefault("NVIDIA_VISIBLE_DEVICES", "all")
    libdirs = [d for d in _GPU_LIBDIRS
               if d in driver_paths or any(d.startswith(s + "/") for s in driver_paths)]
    if libdirs:
        env["LD_LIBRARY_PATH"] = ":".join(libdirs)
    if "/usr/local/nvidia" in driver_paths:
        env["AMB_EXTRA_PATH"] = "/usr/local/nvidia/bin"
    return env
