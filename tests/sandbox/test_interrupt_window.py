"""A Ctrl-C / SIGTERM that reaches the harness while an agent process is being started
(after its exec, before `Popen` returns) still kills that process (docs/faults.md:
`interrupted` runs leave nothing running). Real processes, a real signal."""
import os
import signal
import threading
import time
from pathlib import Path

import pytest

from automedbench.sandbox.base import run_process


class Stopped(Exception):
    pass


def _alive(token: str) -> bool:
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                if token.encode() in (p / "cmdline").read_bytes():
                    return True
            except OSError:
                pass
    return False


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(),
                    reason="signal handlers belong to the main thread")
def test_signal_during_start_up_kills_the_new_process():
    token = f"amb-window-{os.getpid()}"

    def on_term(signum, frame):
        raise Stopped()
    previous = signal.signal(signal.SIGTERM, on_term)
    try:
        # the child signals its parent from between fork and exec: the parent is inside Popen
        with pytest.raises(Stopped):
            run_process(["/bin/bash", "-c", f"sleep 60; echo {token}"], env={"PATH": "/usr/bin:/bin"},
                        cwd=None, timeout_s=60, cap=1024,
                        preexec=lambda: os.kill(os.getppid(), signal.SIGTERM))
        assert signal.getsignal(signal.SIGTERM) is on_term, "the caller's handler is restored"
        deadline = time.monotonic() + 10
        while _alive(token) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(token), "the agent's process outlived the interrupt"
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_no_signal_leaves_handlers_as_they_were():
    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    result = run_process(["/bin/echo", "ok"], env={"PATH": "/usr/bin:/bin"}, cwd=None, timeout_s=10, cap=1024)
    assert result.stdout.strip() == "ok" and result.exit_code == 0
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before
