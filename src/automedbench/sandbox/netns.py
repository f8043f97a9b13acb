"""Network on, host off: the sandbox's own network namespace with user-mode networking.

With `network: true` the agent gets internet egress (pip, model hubs) and nothing of the
host. bwrap used to share the host's network namespace, which let agent code reach
services on the host's 127.0.0.1 (a local LLM server, the harness), other host addresses
and cloud metadata (169.254.169.254). Now each sandbox gets:

  * a fresh network namespace, built once at open by a short-lived child and pinned by an
    nsfs fd (privilege.NamespaceHolder); every call's child joins it before exec'ing bwrap
    (`--share-net` then means *this* namespace). A non-root harness makes it inside a user
    namespace of its own (its uid mapped to root there), which the child joins first;
  * `slirp4netns` (Debian package) attached to it: a user-mode TCP/IP stack that turns the
    namespace's packets into ordinary sockets of an unprivileged host process, started
    with `--disable-host-loopback` (10.0.2.2 does not lead to the host's 127.0.0.1),
    `--enable-sandbox` and `--enable-seccomp` (slirp itself confined);
  * a routing table in which private, link-local, shared, benchmark, multicast and
    reserved ranges and every address of the host are `unreachable` (the kernel of the
    namespace refuses them before a packet exists), slirp's own subnet is removed except
    the DNS forwarder 10.0.2.3, and the default route leads out through slirp. With an
    allowlist there is no default route: only a /32 route per allowed address.

The agent runs as uid 1000 in a user namespace that bwrap makes *below* the owner of this
network namespace, with every capability dropped: it cannot change routes or interfaces.
The policy can be read back (`routes()`, `describe()`), which the tests do instead of
sending traffic to the blocked ranges.
"""
from __future__ import annotations

import functools
import ipaddress
import json
import os
import select
import shutil
import socket
import subprocess
import sys
import time
from typing import Any

from .base import SandboxError
from .netcheck import check_network_on
from .privilege import (
    CLONE_NEWNET,
    CLONE_NEWUSER,
    NamespaceHolder,
    own_userns_and_netns,
    setns,
    unshare,
)

SLIRP_CIDR = "10.0.2.0/24"
SLIRP_GATEWAY = "10.0.2.2"
SLIRP_DNS = "10.0.2.3"
TAP = "tap0"
MTU = 65520
# IPv4 ranges where the host's neighbours live, never the internet (RFC 6890, condensed):
# private (RFC 1918), link-local (cloud metadata 169.254.169.254), shared/CGNAT, loopback,
# "this network", IETF protocol assignments, benchmarking, multicast, reserved. The
# documentation ranges (192.0.2/24, 198.51.100/24, 203.0.113/24) are not listed: the
# internet never routes them, and a lab network that does (an egress proxy there, as on
# the machines this was built on) means them as egress. The host's own addresses and
# subnets are added at open whatever their range.
BLOCKED_RANGES = ("0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16",
                  "172.16.0.0/12", "192.0.0.0/24", "192.168.0.0/16", "198.18.0.0/15",
                  "224.0.0.0/4", "240.0.0.0/4")
INSTALL_HINT = "slirp4netns is not installed: `apt-get install slirp4netns` (network on needs it)"
READY_TIMEOUT_S = 20


def find_slirp4netns() -> str:
    path = shutil.which("slirp4netns") or ("/usr/bin/slirp4netns" if os.access("/usr/bin/slirp4netns", os.X_OK)
                                            else None)
    if not path:
        raise SandboxError(INSTALL_HINT)
    return path


def host_addresses() -> list[ipaddress.IPv4Interface]:
    """Every IPv4 address of the host (with its prefix), from `ip -j addr`."""
    try:
        out = subprocess.run(["ip", "-j", "-4", "addr", "show"], capture_output=True, text=True,
                             timeout=10, check=True).stdout
        return [ipaddress.IPv4Interface(f"{a['local']}/{a['prefixlen']}")
                for link in json.loads(out) for a in link.get("addr_info", []) if a.get("family") == "inet"]
    except (OSError, subprocess.SubprocessError, ValueError, KeyError):
        return []


def resolve_allowlist(hosts: list[str]) -> dict[str, list[str]]:
    """host -> its IPv4 addresses (an IP literal stands for itself). Resolved once, at open,
    on the host; an allowed name that resolves into a blocked range is refused."""
    out: dict[str, list[str]] = {}
    for host in hosts:
        try:
            addrs = [str(ipaddress.IPv4Address(host))]
        except ValueError:
            try:
                infos = socket.getaddrinfo(host, None, socket.AF_INET, socket.SOCK_STREAM)
            except OSError as exc:
                raise SandboxError(f"network allowlist: cannot resolve {host!r}: {exc}") from exc
            addrs = sorted({str(i[4][0]) for i in infos})
        out[host] = addrs
    return out


def route_script(host_nets: list[ipaddress.IPv4Interface], allow: dict[str, list[str]] | None) -> list[str]:
    """The `ip -batch` lines that turn slirp's default setup into the policy. Pure."""
    lines = [f"route del {SLIRP_CIDR} dev {TAP}",
             f"route add {SLIRP_DNS}/32 dev {TAP}"]
    if allow is None:
        lines.append(f"route replace default via {SLIRP_GATEWAY} dev {TAP} onlink")
    else:
        lines.append(f"route del default dev {TAP}")
        for ip in sorted({a for addrs in allow.values() for a in addrs}):
            lines.append(f"route replace {ip}/32 via {SLIRP_GATEWAY} dev {TAP} onlink")
    blocked = [ipaddress.IPv4Network(r) for r in BLOCKED_RANGES]
    for iface in host_nets:
        if iface.ip.is_loopback:
            continue
        for net in (iface.network, ipaddress.IPv4Network(f"{iface.ip}/32")):
            if not any(net.subnet_of(b) for b in blocked):
                blocked.append(net)
    allowed = {a for addrs in (allow or {}).values() for a in addrs}
    for net in blocked:
        hit = [a for a in allowed if ipaddress.IPv4Address(a) in net]
        if hit:
            raise SandboxError(f"network allowlist: {hit[0]} is in the blocked range {net}")
        lines.append(f"route add unreachable {net}")
    return lines


@functools.lru_cache(maxsize=4)
def _pip_config_list(python: str) -> str:
    try:
        return subprocess.run([python, "-m", "pip", "config", "list"], capture_output=True,
                              text=True, timeout=30, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return ""


def pip_index_env(python: str | None = None) -> dict[str, str]:
    """pip's index settings on the host (`pip config list`, which merges pip's config files
    and PIP_* variables), as PIP_* variables for the sandbox: so `pip install` inside uses
    the same index as the host's pip. Only http(s) URLs pass (a file:// index or a
    find-links directory of the host is not in the sandbox)."""
    out = _pip_config_list(python or sys.executable)  # ~0.5 s, once per process
    found: dict[str, str] = {}
    for line in out.splitlines():
        key, _, value = line.partition("=")
        name = key.rsplit(".", 1)[-1]
        value = value.strip().strip("'\"")
        if name in ("index-url", "extra-index-url", "trusted-host") and value:
            found[name] = value  # later lines (env) override files, as pip does
    env: dict[str, str] = {}
    for name in ("index-url", "extra-index-url"):
        urls = [u for u in found.get(name, "").split() if u.startswith(("http://", "https://"))]
        if urls:
            env["PIP_" + name.upper().replace("-", "_")] = " ".join(urls)
    if found.get("trusted-host"):
        env["PIP_TRUSTED_HOST"] = found["trusted-host"]
    return env


class SandboxNetwork:
    """One sandbox's network namespace, its slirp4netns and its routes. `fd` is the
    namespace a call's child joins (setns) before exec'ing bwrap."""

    def __init__(self, allow_hosts: list[str] | None = None, *, target_pid: int | None = None):
        """`target_pid`: attach to that process's network namespace (a docker container's)
        instead of building a new one."""
        # a non-root harness owns its network namespace through a user namespace of its own
        self.rootless = os.geteuid() != 0
        # what the machine must allow, as a user error naming the fix (netcheck.py)
        check_network_on(container=target_pid is not None)
        self.slirp_bin = find_slirp4netns()
        self.allow = resolve_allowlist(allow_hosts) if allow_hosts is not None else None
        self.holder: NamespaceHolder | None = None
        self.slirp: subprocess.Popen | None = None
        self._exit_w = -1
        self._target_fd = -1
        self.userns_fd: int | None = None
        try:
            if target_pid is None:
                uid, gid = os.getuid(), os.getgid()
                setup = (lambda: own_userns_and_netns(uid, gid)) if self.rootless \
                    else (lambda: unshare(CLONE_NEWNET, "CLONE_NEWNET"))
                self.holder = NamespaceHolder(setup, "net", keep_child=True)
                self.pid = self.holder.pid
                if self.rootless:
                    self.userns_fd = os.open(f"/proc/{self.pid}/ns/user", os.O_RDONLY | os.O_CLOEXEC)
            else:
                self.pid = target_pid
                self._target_fd = os.open(f"/proc/{target_pid}/ns/net", os.O_RDONLY | os.O_CLOEXEC)
            self._start_slirp()
            self.script = route_script(host_addresses(), self.allow)
            self._ip(["-batch", "-"], "\n".join(self.script) + "\n")
        except BaseException:
            self.close()
            raise

    @property
    def fd(self) -> int:
        return self.holder.fd if self.holder is not None else self._target_fd

    @property
    def options(self) -> list[str]:
        opts = ["--configure", f"--mtu={MTU}", f"--cidr={SLIRP_CIDR}", "--disable-host-loopback",
                "--enable-sandbox", "--enable-seccomp"]
        if self.rootless:
            opts.append(f"--userns-path=/proc/{self.pid}/ns/user")
        return opts

    def _start_slirp(self) -> None:
        ready_r, ready_w = os.pipe()
        exit_r, self._exit_w = os.pipe()
        os.set_inheritable(self._exit_w, False)
        try:
            self.slirp = subprocess.Popen(
                [self.slirp_bin, *self.options, f"--ready-fd={ready_w}", f"--exit-fd={exit_r}",
                 str(self.pid), TAP],
                pass_fds=(ready_w, exit_r), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE, start_new_session=True)
        finally:
            os.close(ready_w)
            os.close(exit_r)
        try:
            deadline = time.monotonic() + READY_TIMEOUT_S
            while True:
                left = deadline - time.monotonic()
                if left <= 0 or self.slirp.poll() is not None:
                    err = self.slirp.stderr.read().decode(errors="replace")[-300:] \
                        if self.slirp.poll() is not None and self.slirp.stderr else "timed out"
                    raise SandboxError(f"slirp4netns did not start: {err.strip()}")
                if select.select([ready_r], [], [], min(left, 0.5))[0]:
                    if os.read(ready_r, 1) == b"1":
                        return
        finally:
            os.close(ready_r)

    def _ip(self, args: list[str], stdin: str | None = None) -> str:
        fd, userns = self.fd, self.userns_fd

        def enter() -> None:
            if userns is not None:
                setns(userns, CLONE_NEWUSER, "user namespace of the sandbox network")
            setns(fd, CLONE_NEWNET, "sandbox network namespace")

        res = subprocess.run(["ip", *args], input=stdin, capture_output=True, text=True, timeout=30,
                             preexec_fn=enter)
        if res.returncode != 0:
            raise SandboxError(f"configuring the sandbox network failed: ip {' '.join(args)}: "
                               f"{res.stderr.strip()[:300]}")
        return res.stdout

    def hosts_entries(self) -> str:
        """/etc/hosts lines pinning each allowed name to the addresses that were routed."""
        return "".join(f"{a} {h}\n" for h, addrs in (self.allow or {}).items() for a in addrs
                       if a != h)

    def routes(self) -> list[dict[str, Any]]:
        """The namespace's IPv4 routing table as `ip -j route` gives it."""
        return json.loads(self._ip(["-j", "-4", "route", "show"]) or "[]")

    def describe(self) -> dict[str, Any]:
        return {"mode": "slirp4netns", "options": self.options, "dns": SLIRP_DNS,
                "allow": self.allow, "blocked": [line.split()[-1] for line in self.script
                                                  if line.startswith("route add unreachable")]}

    def close(self) -> None:
        if self._exit_w >= 0:
            os.close(self._exit_w)  # slirp4netns exits when this pipe closes
            self._exit_w = -1
        if self.slirp is not None:
            try:
                self.slirp.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.slirp.kill()
                self.slirp.wait()
            if self.slirp.stderr:
                self.slirp.stderr.close()
            self.slirp = None
        if self.holder is not None:
            self.holder.close()
            self.holder = None
        if self._target_fd >= 0:
            os.close(self._target_fd)
            self._target_fd = -1
        if self.userns_fd is not None:
            os.close(self.userns_fd)
            self.userns_fd = None
