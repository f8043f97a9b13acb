"""What this machine supports, before any run (`automedbench doctor`, docs/sandbox.md "Doctor").

One report of checks, each `{"name", "ok", "detail"}` plus facts: the harness's user, the
bwrap backend (binary, user namespaces, the privilege drop of a root harness), network on for
this harness *and* for the other kind of harness (root / non-root: the TUN device decides),
whether decoy accesses and reads are attributed to the sandbox (root only), GPUs, and the Docker engine and agent image. Everything is read or probed locally and quickly
(a stat, a device open, `docker info`); nothing is built and nothing leaves the machine.
"""
from __future__ import annotations

import os
from typing import Any

from .bwrap.backend import find_bwrap
from .docker.backend import check_image, find_engine
from .docker.image import recorded_image
from .inside import gpu_dev_nodes, has_nvidia_gpu
from .netcheck import FIX_MODE, network_support, tun_problem, userns_problems
from .observe import mount_gate
from .privilege import HOST_UID, probe_drop


def _check(name: str, ok: bool | None, detail: str, **facts: Any) -> dict[str, Any]:
    """ok None: not applicable / not checked here (said in `detail`)."""
    return {"name": name, "ok": ok, "detail": detail, **facts}


def _bwrap(root: bool) -> dict[str, Any]:
    try:
        path = find_bwrap()
    except Exception as exc:  # noqa: BLE001 -- any failure is what the report says
        return _check("bwrap backend", False, f"{exc}; without it runs fall back to the 'local' backend, "
                                              "which isolates nothing")
    problems = [] if root else userns_problems()
    if problems:
        return _check("bwrap backend", False, "; ".join(problems), path=path)
    if root:
        dropped = probe_drop(path)
        return _check("bwrap backend", True,
                      f"{path}; a root harness runs each sandbox as an unprivileged host uid "
                      f"(from {HOST_UID})" if dropped else
                      f"{path}; could NOT drop to an unprivileged host uid: sandboxes run as host root, "
                      "without RLIMIT_NPROC", path=path, privilege_drop=dropped)
    return _check("bwrap backend", True, f"{path}; a non-root harness maps the agent into a user namespace",
                  path=path)


def _network(root: bool) -> list[dict[str, Any]]:
    support = network_support()
    here = "root" if root else "non-root"
    this = _check(f"network on ({here} harness, this one)", support.ok,
                  "available" if support.ok else "; ".join(support.problems), network=support.to_dict())
    tun = support.tun
    # the other kind of harness: read off the device's mode (this process cannot become it)
    if root:
        why = None if tun.exists and tun.others_rw else (
            tun_problem(tun, 1) if not tun.exists else
            f"{tun.path} is {tun.listing} (mode {tun.mode}): an unprivileged uid cannot open it, so a "
            f"non-root harness gets a user error for --network on; the usual fix is `chmod {FIX_MODE} "
            f"{tun.path}` by an administrator, or run with the network off")
        other = _check("network on (a non-root harness)", why is None,
                       f"{tun.path} is {tun.listing}: usable by any uid" if why is None else why)
    else:
        other = _check("network on (a root harness)", tun.exists,
                       f"{tun.path} exists: a root harness can open it" if tun.exists else
                       tun_problem(tun, 0) or "")
    return [this, other]


def _docker() -> list[dict[str, Any]]:
    host, why = find_engine()
    engine = _check("docker engine", not why, why or f"answers{' at ' + host if host else ''}")
    pinned = os.environ.get("AUTOMEDBENCH_DOCKER_IMAGE", "")
    built = recorded_image()
    if pinned:
        try:
            check_image(pinned)
            image = _check("docker agent image", True, f"AUTOMEDBENCH_DOCKER_IMAGE={pinned}")
        except Exception as exc:  # noqa: BLE001 -- reported
            image = _check("docker agent image", False, str(exc))
    else:
        image = _check("docker agent image", False,
                       (f"built here ({built}) but not selected: export AUTOMEDBENCH_DOCKER_IMAGE={built}"
                        if built else "none built: `automedbench sandbox build-image`, then export "
                                      "AUTOMEDBENCH_DOCKER_IMAGE=<the id it prints>"), built=built)
    return [engine, image]


def _attribution(root: bool) -> dict[str, Any]:
    """Whether a sandbox's decoy accesses can be told from host processes' (docs/sandbox.md
    "Whose decoy accesses")."""
    name = "attribution of decoy accesses and reads"
    if root:
        return _check(name, True,
                      "the decoy is a tmpfs only the sandbox's mount namespace reaches (bwrap: the staging "
                      "namespace; docker: the container): host processes never touch it; reads are named by "
                      "fanotify (a read counts only when the sandbox's own process opened the file)",
                      attributed=True)
    return _check(name, False,
                  "a non-root harness has no private mount namespace for the decoy and no fanotify: the decoy "
                  "lies in a 0700 staging folder (other users cannot enter, root can) and its accesses are "
                  "`private_access_unattributed` warnings, never violations; effects say reads_attributed: "
                  "false and the judge credits no read. Run the harness as root to attribute both",
                  attributed=False)


def _held_opens(root: bool) -> dict[str, Any]:
    """Whether a call's opens in the workspace wait until the recorder watches their folder
    (docs/sandbox.md "Opens held until their folder is watched")."""
    name = "opens held until their folder is watched"
    if not root:
        return _check(name, False, "a non-root harness has no fanotify: a folder a call makes is watched when "
                                   "the recorder's thread reaches it, and on a loaded machine what the call did "
                                   "there first can be missing (effects say opens_held: false)", held=False)
    if not mount_gate.enabled():
        return _check(name, False, "turned off by AUTOMEDBENCH_HOLD_OPENS=0 (bwrap); unset it to hold them",
                      held=False)
    return _check(name, True, "each open in the sandbox's workspace waits until its folder is watched "
                              "(bwrap: each call's mount; docker: the container's); effects say opens_held: true",
                  held=True)


def _gpu() -> dict[str, Any]:
    nodes = gpu_dev_nodes()
    if has_nvidia_gpu(nodes):
        return _check("GPU", True, f"NVIDIA device nodes bound into sandboxes: {' '.join(nodes)}", nodes=nodes)
    return _check("GPU", None, "no GPU device nodes (/dev/nvidia*, /dev/dri/renderD*): runs use the CPU"
                  if not nodes else f"render nodes only: {' '.join(nodes)}", nodes=nodes)


def machine_report() -> dict[str, Any]:
    """Every check, in the order `automedbench doctor` prints them."""
    root = os.geteuid() == 0
    checks = [_check("harness user", True, f"uid {os.geteuid()}" + (" (root)" if root else " (non-root)")),
              _bwrap(root), _attribution(root), _held_opens(root), *_network(root), _gpu(), *_docker(),
              _check("Debian python3 (the interpreter inside the sandbox)", os.access("/usr/bin/python3", os.X_OK),
                     "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK)
                     else "missing: `apt-get install python3`")]
    return {"uid": os.geteuid(), "root": root, "checks": checks}
