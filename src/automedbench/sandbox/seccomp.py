"""The seccomp filter agent code runs under: which syscalls are refused, and the classic
BPF program bwrap loads (`bwrap --seccomp FD`).

It refuses, with EPERM, the syscalls that let a process inspect or steer another one or
reach kernel state shared with the host: ptrace (attaching to the sandbox's own pid 1
would freeze the call), process_vm_readv/writev, the keyring calls, perf_event_open, bpf,
userfaultfd, kexec, open_by_handle_at. Other architectures' ABIs (x32, i386 on x86_64)
get EPERM for everything. bwrap already sets no_new_privs. `AUTOMEDBENCH_SECCOMP=0` turns
the filter off.
"""
from __future__ import annotations

import errno
import os
import platform
import struct

DENIED = ("ptrace", "process_vm_readv", "process_vm_writev", "add_key", "request_key", "keyctl",
          "perf_event_open", "bpf", "userfaultfd", "kexec_load", "kexec_file_load",
          "open_by_handle_at")

_ARCH = {
    # machine: (AUDIT_ARCH, {name: nr})
    "x86_64": (0xC000003E, {"ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311,
                            "add_key": 248, "request_key": 249, "keyctl": 250, "perf_event_open": 298,
                            "bpf": 321, "userfaultfd": 323, "kexec_load": 246, "kexec_file_load": 320,
                            "open_by_handle_at": 304}),
    "aarch64": (0xC00000B7, {"ptrace": 117, "process_vm_readv": 270, "process_vm_writev": 271,
                             "add_key": 217, "request_key": 218, "keyctl": 219, "perf_event_open": 241,
                             "bpf": 280, "userfaultfd": 282, "kexec_load": 104, "kexec_file_load": 294,
                             "open_by_handle_at": 265}),
}
AUDIT_ARCH_X86_64 = 0xC000003E
X32_SYSCALL_BIT = 0x40000000
SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO = 0x7FFF0000, 0x00050000
_BPF = struct.Struct("=HBBI")
# classic BPF opcodes
_LD_W_ABS, _JEQ_K, _JGE_K, _RET_K = 0x20, 0x15, 0x35, 0x06


def enabled() -> bool:
    return os.environ.get("AUTOMEDBENCH_SECCOMP", "1") != "0"


def seccomp_program(machine: str | None = None) -> bytes | None:
    """The filter as bytes for `bwrap --seccomp`, or None on an unknown architecture."""
    arch = _ARCH.get(machine or platform.machine())
    if arch is None:
        return None
    audit_arch, numbers = arch
    deny = SECCOMP_RET_ERRNO | errno.EPERM
    nrs = sorted({numbers[name] for name in DENIED})
    prog = [(_LD_W_ABS, 0, 0, 4),                      # A = arch
            (_JEQ_K, 1, 0, audit_arch),                # native arch? skip the deny
            (_RET_K, 0, 0, deny),
            (_LD_W_ABS, 0, 0, 0)]                      # A = syscall nr
    if audit_arch == AUDIT_ARCH_X86_64:
        prog.append((_JGE_K, len(nrs) + 1, 0, X32_SYSCALL_BIT))  # x32 ABI -> deny
    for i, nr in enumerate(nrs):
        prog.append((_JEQ_K, len(nrs) - i, 0, nr))     # a match jumps to the deny at the end
    prog += [(_RET_K, 0, 0, SECCOMP_RET_ALLOW), (_RET_K, 0, 0, deny)]
    return b"".join(_BPF.pack(*ins) for ins in prog)


# Docker: a profile in Docker's JSON format (`--security-opt seccomp=FILE`) refusing the same
# syscalls, plus what bwrap's own flags prevent there (--disable-userns, no mount): new
# namespaces, mount, io_uring. It replaces Docker's default profile; with every capability
# dropped, the syscalls that default profile adds need capabilities anyway.
DOCKER_EXTRA_DENIED = ("unshare", "setns", "mount", "umount2", "pivot_root", "move_mount", "open_tree",
                       "fsopen", "fsmount", "io_uring_setup", "io_uring_enter", "io_uring_register")
CLONE_NS_FLAGS = (0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000)


def docker_profile() -> dict:
    """The docker backend's seccomp profile (default allow, EPERM for the denied set)."""
    eperm = {"action": "SCMP_ACT_ERRNO", "errnoRet": errno.EPERM}
    rules: list[dict] = [{"names": sorted(DENIED + DOCKER_EXTRA_DENIED), **eperm},
                         # clone3 passes flags in memory seccomp cannot read: ENOSYS makes libc
                         # fall back to clone, whose flags are checked below
                         {"names": ["clone3"], "action": "SCMP_ACT_ERRNO", "errnoRet": errno.ENOSYS}]
    for flag in CLONE_NS_FLAGS:
        rules.append({"names": ["clone"], **eperm,
                      "args": [{"index": 0, "value": flag, "valueTwo": flag, "op": "SCMP_CMP_MASKED_EQ"}]})
    return {"defaultAction": "SCMP_ACT_ALLOW",
            "architectures": ["SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32", "SCMP_ARCH_AARCH64",
                              "SCMP_ARCH_ARM"],
            "syscalls": rules}
