"""Staging folders a killed harness left are removed by the next sandbox, and nothing else is
(sandbox/stage.py, docs/sandbox.md "Staging folders")."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from automedbench.sandbox.stage import _pid_namespace, make_stage, sweep_orphans

PREFIX = "amb-test-stage-"
MAKE_AND_DIE = ("import os, sys; from automedbench.sandbox.stage import make_stage; "
                "d = make_stage(sys.argv[1]); (d / 'public').mkdir(); (d / 'public' / 'x.nii.gz').write_bytes(b'0' * 4096); "
                "print(d, flush=True); os._exit(0) if sys.argv[2] == 'exit' else __import__('time').sleep(600)")


def _maker(tmp: Path, mode: str, makers: list) -> tuple[subprocess.Popen, Path]:
    proc = subprocess.Popen([sys.executable, "-c", MAKE_AND_DIE, PREFIX, mode], stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "TMPDIR": str(tmp)})
    makers.append(proc)
    return proc, Path(proc.stdout.readline().strip())


def test_a_killed_makers_folder_goes_and_a_live_ones_stays(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr("tempfile.tempdir", None)         # read TMPDIR again
    makers = []
    try:
        exited, exited_dir = _maker(tmp_path, "exit", makers)   # ends without closing its sandbox
        exited.wait(timeout=60)
        assert exited_dir.name.startswith(f"{PREFIX}{_pid_namespace()}-{exited.pid}-")
        assert (exited_dir / "public" / "x.nii.gz").is_file()
        killed, killed_dir = _maker(tmp_path, "sleep", makers)  # the next maker sweeps the first's folder
        assert not exited_dir.exists() and killed_dir.is_dir()
        killed.kill()                                            # SIGKILL: nothing of it runs again
        killed.wait(timeout=60)
        live, live_dir = _maker(tmp_path, "sleep", makers)
        assert not killed_dir.exists() and live_dir.is_dir()
        other_ns = tmp_path / f"{PREFIX}{int(_pid_namespace()) + 1}-{exited.pid}-abc"   # a pid of another namespace
        unnamed = tmp_path / f"{PREFIX}legacyname"                                        # not ours to judge
        stray_file = tmp_path / f"{PREFIX}{_pid_namespace()}-{exited.pid}-file"           # not a folder
        for d in (other_ns, unnamed):
            d.mkdir()
        stray_file.write_text("x")
        mine = make_stage(PREFIX)
        assert live_dir.is_dir() and other_ns.is_dir() and unnamed.is_dir() and stray_file.is_file()
        assert sweep_orphans(PREFIX) == [] and mine.is_dir()   # its own folder is never swept
        live.kill()
        live.wait(timeout=60)
        assert sweep_orphans(PREFIX, tmp_path) == [live_dir] and not live_dir.exists()   # its maker is gone now
    finally:
        for proc in makers:                                      # a failed check leaves no sleeper behind
            proc.kill()
            proc.wait(timeout=60)


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to make a folder another user owns")
def test_another_users_folder_is_never_touched(tmp_path):
    proc = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead = int(proc.stdout)
    theirs = tmp_path / f"{PREFIX}{_pid_namespace()}-{dead}-xyz"
    theirs.mkdir()
    os.chown(theirs, 12345, 12345)
    assert sweep_orphans(PREFIX, tmp_path) == [] and theirs.is_dir()
