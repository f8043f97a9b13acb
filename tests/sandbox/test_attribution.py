"""Charged only for what its own processes did (docs/sandbox.md "Whose decoy accesses"):
host processes -- root and another user -- walking and reading the system temp folder, the
sandbox's staging folder, its public copy and its workspace during a call never become a
violation; two sandboxes of one task never see each other's decoy accesses."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path

import pytest

from automedbench.sandbox.base import SandboxSpec

from .conftest import needs_bwrap

OTHER_USER = "nobody"
# a call long enough for the host walkers to go over everything several times
QUIET_CALL = "import time; time.sleep(2.0); print('done')"


class HostWalker:
    """Host processes walking the system temp folder (`find`, what the issue's walker did) and
    walking and reading every file of `roots` in a loop until stopped, as root and as
    OTHER_USER (what another user's job does)."""

    def __init__(self, roots: list[Path]):
        self.roots = [str(r) for r in roots]
        self.stop = threading.Event()
        self.walks = 0
        self.thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self) -> None:
        as_other = ["setpriv", f"--reuid={OTHER_USER}", f"--regid={OTHER_USER}", "--clear-groups"]
        while not self.stop.is_set():
            for prefix in ([], as_other):
                subprocess.run([*prefix, "find", tempfile.gettempdir(), "-maxdepth", "3"], capture_output=True)
                subprocess.run([*prefix, "find", *self.roots, "-type", "f", "-exec", "cat", "{}", "+"],
                               capture_output=True)
                self.walks += 1

    def __enter__(self) -> HostWalker:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(timeout=120)


def _roots(box) -> list[Path]:
    """What a host walker can reach of this sandbox: its staging folder (in the system temp
    folder), its public copy and its workspace."""
    return [box._stage, Path(box.public), Path(box.workspace)]


@needs_bwrap
@pytest.mark.bwrap
def test_host_walks_are_never_charged(box):
    (Path(box.workspace) / "notes.txt").write_text("the agent's notes\n")
    quiet = box.execute("python", QUIET_CALL)
    assert quiet.violations == [] and quiet.exit_code == 0
    with HostWalker(_roots(box)) as walker:
        busy = box.execute("python", QUIET_CALL)
    assert walker.walks >= 2, "the host walker never ran during the call"
    assert busy.violations == [], busy.violations
    assert not busy.blocked
    assert [w for w in busy.warnings if "private_access" in w.get("kind", "")] == []
    assert (busy.exit_code, busy.stdout) == (quiet.exit_code, quiet.stdout)
    # the host's reads of the public copy and the workspace are not the call's reads
    assert busy.effects is not None and busy.effects["reads_attributed"] is True
    assert busy.effects == quiet.effects, busy.effects
    assert busy.effects["read"] == []
    # ... while the sandbox's own reads still are, with the host reading the same files at once
    with HostWalker(_roots(box)):
        own = box.execute("bash", "sleep 1; cat /workspace/notes.txt; ls /data/public/*/ >/dev/null; "
                                  "cat /data/public/case_00000/*")
    assert own.effects is not None and "/workspace/notes.txt" in own.effects["read"]
    assert any(p.startswith("/data/public/case_00000/") for p in own.effects["read"])
    assert all(p.startswith(("/workspace/notes.txt", "/data/public/case_00000/")) for p in own.effects["read"]), \
        own.effects["read"]
    # the decoy is no host path: what the host sees at the staging point is an empty folder
    assert not (box._stage / "decoy").exists() or os.listdir(box._stage / "decoy") == []
    # ... and the sandbox still sees it, and is charged for touching it
    caught = box.execute("bash", "cat /data/private/manifest.json")
    assert '"decoy": true' in caught.stdout
    assert [v["kind"] for v in caught.violations] == ["private_access"] and caught.blocked


def _decoy_through_proc(box) -> Path:
    """The decoy as host root reaches it: through the process root of its namespace."""
    return Path(box.watcher.host_root)


@needs_bwrap
@pytest.mark.bwrap
def test_host_root_reading_the_decoy_through_proc_is_not_the_call(box):
    """Host root can still reach the decoy through /proc/<pid>/root (find does not follow it,
    a deliberate `cat` does): fanotify names the opener, which is not the call's, so the call
    is not charged -- a violation whose process is not the call's would be a defect."""
    decoy = _decoy_through_proc(box)
    assert str(decoy).startswith("/proc/")
    done = threading.Event()

    def read() -> None:
        threading.Event().wait(0.5)
        subprocess.run(["cat", str(decoy / "manifest.json")], capture_output=True)
        subprocess.run(["ls", "-R", str(decoy)], capture_output=True)
        done.set()

    t = threading.Thread(target=read)
    t.start()
    r = box.execute("bash", "sleep 1.5; echo ok")
    t.join()
    assert done.is_set() and r.stdout == "ok\n"
    assert r.violations == [] and not r.blocked
    seen = [w for w in r.warnings if w["kind"] == "private_access_not_the_call"]
    assert seen and all(not p["of_call"] for p in seen[0]["processes"]), r.warnings
    assert {p["cmdline"].split()[0] for p in seen[0]["processes"]} <= {"cat", "ls"}


@needs_bwrap
@pytest.mark.bwrap
def test_host_walk_between_calls_is_nobody_s(box):
    """A walk between two calls lands in no call (each call drains what came before it)."""
    with HostWalker(_roots(box)) as walker:
        while walker.walks < 2:
            threading.Event().wait(0.1)
    r = box.execute("bash", "echo ok")
    assert r.violations == [] and r.stdout == "ok\n"


def _open(backend: str, request, spec: SandboxSpec):
    if backend == "docker":
        from automedbench.sandbox.docker.backend import DockerSandbox
        return DockerSandbox(spec, image=request.getfixturevalue("docker_image"))
    from automedbench.sandbox.bwrap.backend import BwrapSandbox
    return BwrapSandbox(spec)


@needs_bwrap
@pytest.mark.bwrap
@pytest.mark.parametrize("backend", ["bwrap", "docker"])
def test_parallel_sandboxes_of_one_task(backend, request, world, tmp_path, monkeypatch):
    """Two sandboxes of the same task at once, bound to the one shared public directory
    (copy cap 0): one reads its decoy and the public files while the other lists them; only
    the reader is charged, and only the reader's record holds the reads."""
    monkeypatch.setenv("AUTOMEDBENCH_INPUT_COPY_MAX_MB", "0")
    boxes = []
    for name in ("a", "b"):
        ws = tmp_path / name
        ws.mkdir()
        boxes.append(_open(backend, request, SandboxSpec(public_dir=world.public, workspace=ws, timeout_s=30,
                                                         max_procs=128, memory_mb=4096, max_file_mb=256)))
    try:
        results: dict[str, object] = {}

        def run(key: str, box, code: str) -> None:
            results[key] = box.execute("bash", code)

        threads = [threading.Thread(target=run, args=("reader", boxes[0],
                                                      "for i in 1 2 3 4 5; do cat /data/private/*/* /data/public/*/* >/dev/null;"
                                                      " ls -R /data/private >/dev/null; sleep 0.3; done")),
                   threading.Thread(target=run, args=("quiet", boxes[1], "for i in 1 2 3 4 5 6 7; do ls -R /data/public >/dev/null; sleep 0.3; done; echo quiet"))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        reader, quiet = results["reader"], results["quiet"]
        assert [v["kind"] for v in reader.violations] == ["private_access"]   # type: ignore[attr-defined]
        assert quiet.violations == [] and quiet.stdout == "quiet\n"           # type: ignore[attr-defined]
        assert quiet.effects["reads_shared"] is True                          # type: ignore[attr-defined]
        assert quiet.effects["read"] == []                                    # type: ignore[attr-defined]
        assert "/data/public/case_00000/imaging.txt" in reader.effects["read"]  # type: ignore[attr-defined]
    finally:
        for b in boxes:
            b.close()


def test_unattributed_reads_are_never_credited():
    """An effects record without fanotify (`reads_attributed: false`) gives the judge no read."""
    from automedbench.runs.models import TraceEvent
    from automedbench.scoring.judge.facts import collect_calls

    def trace(attributed: bool | None) -> list[TraceEvent]:
        eff = {"written": [], "deleted": [], "read": ["/data/public/case_000/image.nii.gz"], "net": None,
               "truncated": False, "reads_shared": False, "reads_attributed": attributed, "recorder": "inotify"}
        return [TraceEvent.model_validate({"type": "tool_call", "t": 0.0, "call_index": 1, "language": "bash",
                                           "code": "cat /data/public/case_000/image.nii.gz"}),
                TraceEvent.model_validate({"type": "execution", "t": 0.1, "call_index": 1, "exit_code": 0,
                                           "effects": eff})]
    assert collect_calls(trace(False))[0].read == []
    assert collect_calls(trace(True))[0].read and collect_calls(trace(None))[0].read


def test_unattributed_decoy_events_are_never_charged():
    """A decoy on a host path (a non-root harness, no private mount namespace) is reachable by
    any host process: its events are an unattributed warning, never a violation."""
    from automedbench.sandbox.base import ExecResult
    from automedbench.sandbox.observe.decoy import charge
    r = ExecResult(0, "", "", 0.0)
    charge(r, [("OPEN,ISDIR", "/data/private"), ("ACCESS,ISDIR", "/data/private")], attributed=False)
    assert r.violations == [] and not r.blocked
    assert [w["kind"] for w in r.warnings] == ["private_access_unattributed"]
    charge(r, [("OPEN,ISDIR", "/data/private")], attributed=True)
    assert [v["kind"] for v in r.violations] == ["private_access"] and r.blocked


NON_ROOT_PROBE = """
import json, os, sys
from pathlib import Path
from automedbench.sandbox import SandboxSpec
from automedbench.sandbox.bwrap.backend import BwrapSandbox
root = Path(sys.argv[1])
(root / "pub" / "case_0").mkdir(parents=True, exist_ok=True)
(root / "pub" / "case_0" / "img.txt").write_text("x")
with BwrapSandbox(SandboxSpec(public_dir=root / "pub", workspace=root / "ws"), runtime_dir=root / "rt") as box:
    r = box.execute("bash", "cat /data/private/manifest.json; cat /data/public/case_0/img.txt")
    print(json.dumps({"mode": box.mode, "attributed": box.watcher.attributed, "stdout": r.stdout,
                      "violations": r.violations, "blocked": r.blocked, "warnings": r.warnings,
                      "effects": r.effects, "stage_mode": oct(os.stat(box._stage).st_mode & 0o777)}))
"""
NON_ROOT_UID = 63990


@needs_bwrap
@pytest.mark.skipif(os.geteuid() != 0, reason="switches to an unprivileged uid (setpriv) to be a non-root harness")
def test_a_non_root_harness_charges_nothing_it_cannot_attribute(tmp_path):
    """A real non-root harness (no private mount namespace, no fanotify): its decoy stays on a
    0700 host path, a touch of it is an unattributed warning (never a violation), and its reads
    say reads_attributed: false -- the case `automedbench doctor` reports before a run."""
    root = tmp_path / "nonroot"
    (root / "rt" / "bin").mkdir(parents=True)
    (root / "rt" / "boot").mkdir()
    (root / "rt" / "bin" / "python").symlink_to("/usr/bin/python3")
    src_copy = root / "src"
    shutil.copytree(Path(__file__).resolve().parents[2] / "src" / "automedbench", src_copy / "automedbench",
                    ignore=shutil.ignore_patterns("__pycache__"))
    for dirpath, _dirs, files in os.walk(root):
        os.chown(dirpath, NON_ROOT_UID, NON_ROOT_UID)
        for f in files:
            os.chown(os.path.join(dirpath, f), NON_ROOT_UID, NON_ROOT_UID, follow_symlinks=False)
    for p in [*tmp_path.parents][:3] + [tmp_path]:
        if p != Path("/"):
            os.chmod(p, os.stat(p).st_mode | 0o005)   # the unprivileged uid must traverse to it
    res = subprocess.run(["setpriv", f"--reuid={NON_ROOT_UID}", f"--regid={NON_ROOT_UID}", "--clear-groups",
                          "/usr/bin/python3", "-c", NON_ROOT_PROBE, str(root)],
                         env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "PYTHONPATH": str(src_copy),
                              "HOME": str(root), "AUTOMEDBENCH_HOME": str(root / "home"), "TMPDIR": str(root)},
                         capture_output=True, text=True, timeout=180)
    assert res.returncode == 0, res.stderr[-2000:]
    out = json.loads(res.stdout.strip().splitlines()[-1])
    assert out["mode"] == "user" and out["attributed"] is False and out["stage_mode"] == "0o700"
    assert '"decoy": true' in out["stdout"]
    assert out["violations"] == [] and out["blocked"] is False
    kinds = [w["kind"] for w in out["warnings"]]
    assert "private_access_unattributed" in kinds and "attribution_unavailable" in kinds, kinds
    assert out["effects"]["reads_attributed"] is False


# ---- the listener never leaves an opener waiting (sandbox/observe/fanotify.py) ------------------------
def _open_in_child(path: Path, timeout_s: float = 20) -> subprocess.CompletedProcess:
    """Open `path` from another process (the listener's own thread must not be the opener)."""
    return subprocess.run(["cat", str(path)], capture_output=True, text=True, timeout=timeout_s)


def _listener(is_ours):
    from automedbench.sandbox.observe.fanotify import OpenerLog
    if os.geteuid() != 0:
        pytest.fail("fanotify permission events need a root harness (make test runs as root)")
    log = OpenerLog.start(is_ours)
    if log is None:
        pytest.fail("fanotify_init was refused to root here")
    return log


def test_a_failed_look_up_answers_the_open_and_the_listener_goes_on(tmp_path):
    (tmp_path / "f.txt").write_text("content")
    calls = {"n": 0}

    def flaky(pid: int) -> bool:
        calls["n"] += 1
        if calls["n"] == 1:
            raise RuntimeError("/proc vanished")
        return True
    log = _listener(flaky)
    try:
        assert log.mark(str(tmp_path))
        assert _open_in_child(tmp_path / "f.txt").stdout == "content"     # answered despite the error
        assert log.errors == 1 and "vanished" in log.last_error and log.failed is None
        assert _open_in_child(tmp_path / "f.txt").stdout == "content"     # still serving
        assert log.take(), "the second open was attributed"
    finally:
        log.close()


def test_a_listener_that_stops_lets_every_open_through_and_says_so(tmp_path):
    (tmp_path / "f.txt").write_text("content")

    def fatal(pid: int) -> bool:
        raise SystemExit("the listener thread ends")
    log = _listener(fatal)
    try:
        assert log.mark(str(tmp_path))
        # without the group closed, this open would wait forever for an answer
        assert _open_in_child(tmp_path / "f.txt").stdout == "content"
        assert _open_in_child(tmp_path / "f.txt").stdout == "content"
        assert log.failed and "SystemExit" in log.failed and log.fd == -1
    finally:
        log.close()


def test_an_open_made_before_the_calls_pid_is_known_waits_for_it():
    """The call's first opens can come before run_process hands the harness its pid (a fast
    `ls /data/private` under load): they wait for it instead of being judged not the call's."""
    from automedbench.sandbox.observe.fanotify import CallProcess
    call = CallProcess()
    me = os.getpid()
    assert call.is_ours(me) is False                     # no call running: nobody's
    call.begin()
    answers: list[bool] = []
    asked = threading.Thread(target=lambda: answers.append(call.is_ours(me)))
    asked.start()
    asked.join(timeout=0.3)
    assert asked.is_alive() and not answers              # held until the pid is known...
    call.started(me)
    asked.join(timeout=5)
    assert answers == [True]                             # ...then judged the call's
    call.end()
    assert call.is_ours(me) is False


def test_a_symlinked_folder_in_a_new_folder_is_neither_marked_nor_a_gap(tmp_path):
    """A folder the call made holds a symlink to a directory outside the roots: the walk of the
    new folder does not mark what the link points at (opens there are nobody's), and the
    record is not cut short for it (docs/sandbox.md "Observed effects")."""
    from automedbench.sandbox.observe.effects import EffectsRecorder
    if os.geteuid() != 0:
        pytest.fail("fanotify permission events need a root harness (make test runs as root)")
    ws, pub, outside = tmp_path / "ws", tmp_path / "pub", tmp_path / "outside"
    for d in (ws, pub, outside):
        d.mkdir()
    (outside / "f.txt").write_text("elsewhere")
    rec = EffectsRecorder((str(ws), "/workspace"), (str(pub), "/data/public"), is_ours=lambda pid: True)
    try:
        assert rec.openers is not None, "fanotify_init was refused to root here"
        rec.begin()
        with rec._pump_lock:      # the folder and its link exist before the thread looks
            (ws / "new").mkdir()
            (ws / "new" / "link").symlink_to(outside, target_is_directory=True)
        fx = rec.end()
        assert fx["truncated"] is False and not rec.incomplete
        assert _open_in_child(outside / "f.txt").stdout == "elsewhere"
        assert rec.openers.take() == {}, "the link's target was marked"
        assert str(ws / "new") in rec.watched and str(ws / "new" / "link") not in rec.watched
    finally:
        rec.close()
