"""Imported first by the sweep's fork server (`set_forkserver_preload`, runs/executors.py): the
server asks the kernel to SIGKILL it when the sweep process that started it dies
(`PR_SET_PDEATHSIG`), so a `kill -9` of the sweep's leader takes the server, and with it the
workers (each dies with its parent, `_die_with_parent`) and then the resource tracker (its pipe
closes), instead of leaving them to init.

It arms only in the process whose parent is the leader named by $AUTOMEDBENCH_SWEEP_LEADER (the
fork server); the leader drops the variable once the server has started, so no later child of
the leader arms. The leader itself, or anything else that imports this module, is left alone."""
from __future__ import annotations

import ctypes
import os
import signal

LEADER_ENV = "AUTOMEDBENCH_SWEEP_LEADER"
PR_SET_PDEATHSIG = 1


def arm() -> bool:
    """Die with the leader, when this process is the leader's child; whether it armed."""
    leader = os.environ.get(LEADER_ENV, "")
    if not leader.isdigit() or os.getppid() != int(leader):
        return False
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        return False
    if os.getppid() != int(leader):   # the leader died before the request took effect
        os._exit(1)
    return True


ARMED = arm()
