"""Observed effects: each execution's files written / deleted / read (and network bytes),
recorded from the host with inotify, through the real sandboxes (docs/sandbox.md
"Observed effects")."""
from __future__ import annotations

import hashlib
import json
import os
import threading
import time

import pytest

from automedbench.sandbox import SandboxSpec, open_sandbox

from .conftest import needs_bwrap

WS, PUB = "/workspace", "/data/public"


def sha(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def written(result) -> dict[str, dict]:
    return {w["path"]: w for w in result.effects["written"]}


def ok(box, code: str, language: str = "python"):
    r = box.execute(language, code)
    assert r.exit_code == 0, r.stderr[-2000:]
    assert r.effects is not None and r.effects["recorder"] == "inotify" and r.effects["truncated"] is False
    return r


@needs_bwrap
@pytest.mark.bwrap
def test_created_then_modified_with_size_and_hash(box, world):
    ok(box, "import os; os.makedirs('outputs/case_000')")
    r = ok(box, "import numpy as np; np.save('outputs/case_000/x.npy', np.arange(5))")
    host = world.workspace / "outputs" / "case_000" / "x.npy"
    entry = written(r)[f"{WS}/outputs/case_000/x.npy"]
    assert entry == {"path": f"{WS}/outputs/case_000/x.npy", "op": "created", "size": host.stat().st_size,
                     "sha256": sha(host)}
    first = entry["sha256"]
    r = ok(box, "import numpy as np; np.save('outputs/case_000/x.npy', np.arange(7))")
    entry = written(r)[f"{WS}/outputs/case_000/x.npy"]
    assert entry["op"] == "modified" and entry["sha256"] == sha(host) != first
    assert entry["size"] == host.stat().st_size
    assert r.effects["read"] == [] and r.effects["deleted"] == []


@needs_bwrap
@pytest.mark.bwrap
def test_reads_of_public_and_workspace_files(box):
    ok(box, "open('notes.txt', 'w').write('plan')")
    r = ok(box, "for c in ('case_00000', 'case_00001'):\n    open(f'/data/public/{c}/imaging.txt').read()\n"
                "open('/workspace/notes.txt').read()\nimport os; os.listdir('/data/public')\n"
                "open('fresh.txt', 'w').write('x'); open('fresh.txt').read()")
    assert r.effects["read"] == [f"{PUB}/case_00000/imaging.txt", f"{PUB}/case_00001/imaging.txt",
                                 f"{WS}/notes.txt"]
    # a file written by the call is "written", not "read", even when read back
    assert list(written(r)) == [f"{WS}/fresh.txt"]
    # the same file read twice is listed once
    r = ok(box, "open('/data/public/case_00000/imaging.txt').read(); open('/data/public/case_00000/imaging.txt').read()",)
    assert r.effects["read"] == [f"{PUB}/case_00000/imaging.txt"]


@needs_bwrap
@pytest.mark.bwrap
def test_read_back_keeps_the_order_inside_one_call(box):
    """A script that writes a file and then reads it back is seen doing so (`read_back`); one
    that reads a file and then overwrites it, or only writes, is not (docs/sandbox.md)."""
    ok(box, "import os; os.makedirs('outputs/case_000'); open('old.txt', 'w').write('v1')")
    r = ok(box, "import numpy as np\nnp.save('outputs/case_000/x.npy', np.arange(5))\n"
                "print(np.load('outputs/case_000/x.npy').shape)\n"
                "open('old.txt').read(); open('old.txt', 'w').write('v2')\n"
                "open('only_written.txt', 'w').write('x')\n"
                "open('tmp.txt', 'w').write('y'); import os; os.replace('tmp.txt', 'renamed.txt')\n"
                "open('renamed.txt').read()")
    assert r.effects["read_back"] == [f"{WS}/outputs/case_000/x.npy", f"{WS}/renamed.txt"]
    assert set(written(r)) >= {f"{WS}/old.txt", f"{WS}/only_written.txt", f"{WS}/outputs/case_000/x.npy"}
    # a folder the call makes and writes into at once (the pilot's case folder): its files'
    # events are seen too, so the read-back is
    r = ok(box, "import os, numpy as np\nos.makedirs('outputs/case_001/sub')\n"
                "np.save('outputs/case_001/sub/y.npy', np.arange(3)); np.load('outputs/case_001/sub/y.npy')\n"
                "np.save('outputs/case_001/z.npy', np.arange(4))")
    assert r.effects["read_back"] == [f"{WS}/outputs/case_001/sub/y.npy"]
    assert f"{WS}/outputs/case_001/sub/y.npy" in written(r) and r.effects["read"] == []
    assert {w["op"] for w in r.effects["written"]} == {"created"}
    # the same from bash: a heredoc writes the file, cat reads it back
    r = ok(box, "cat > notes.md <<'EOF'\nline\nEOF\ncat notes.md", language="bash")
    assert r.effects["read_back"] == [f"{WS}/notes.md"] and r.stdout.strip() == "line"
    # a later call's read of it is a read, not a read-back
    r = ok(box, "print(open('notes.md').read())")
    assert r.effects["read"] == [f"{WS}/notes.md"] and r.effects["read_back"] == []


def steps(r) -> list[list[str]]:
    """The order's steps without the sizes (a size is there only where the close was seen in time)."""
    return [[s["op"], s["path"]] for s in r.effects["order"]]


@needs_bwrap
@pytest.mark.bwrap
def test_order_lists_writes_reads_and_read_backs_as_they_happened(box):
    """`order` (schema 1.7): one script reads an input, writes a pilot, reads it back, rewrites
    it (a fix), reads it again, then writes the rest; the record lists those steps in that
    order, a step again only when its kind changes (docs/sandbox.md "Order inside a call")."""
    ok(box, "open('input.txt', 'w').write('in')")
    # the pilot's folder is made first and given time to be watched: every event is seen
    r = ok(box, "import os, time\nopen('input.txt').read()\nos.makedirs('outputs/a'); time.sleep(0.5)\n"
                "open('outputs/a/p.txt', 'w').write('1'); open('outputs/a/p.txt', 'a').write('more')\n"
                "open('outputs/a/p.txt').read()\n"
                "open('outputs/a/p.txt', 'w').write('2'); open('outputs/a/p.txt').read()\n"
                "for c in 'bc':\n    os.makedirs(f'outputs/{c}'); open(f'outputs/{c}/p.txt', 'w').write(c)\n")
    p = f"{WS}/outputs/a/p.txt"
    assert steps(r) == [["r", f"{WS}/input.txt"], ["w", p], ["b", p], ["w", p], ["b", p],
                                  ["w", f"{WS}/outputs/b/p.txt"], ["w", f"{WS}/outputs/c/p.txt"]]
    # a file written (and read back) in a folder made the same instant, before any watch could
    # be placed: its steps are placed where its folder was made, before everything after it
    r = ok(box, "import os, time\nos.makedirs('outputs/d/e'); open('outputs/d/e/q.txt', 'w').write('1')\n"
                "open('outputs/d/e/q.txt').read(); time.sleep(0.3)\nopen('after.txt', 'w').write('x')")
    q = f"{WS}/outputs/d/e/q.txt"
    assert steps(r) == [["w", q], ["b", q], ["w", f"{WS}/after.txt"]]
    assert r.effects["order"][0]["size"] == 1     # its size when its folder was first watched
    # made the same instant, read back once watched, then rewritten (a batch redoing the pilot
    # case); an input read is a read, never a read-back
    r = ok(box, "import os, time\nos.makedirs('outputs/f'); open('outputs/f/q.txt', 'w').write('1')\n"
                "time.sleep(0.3); open('outputs/f/q.txt').read(); open('input.txt').read()\n"
                "open('outputs/f/q.txt', 'w').write('2')")
    q = f"{WS}/outputs/f/q.txt"
    assert steps(r) == [["w", q], ["b", q], ["r", f"{WS}/input.txt"], ["w", q]]
    # a write the recorder saw close while the call ran carries the size it had then: a cohort
    # file written with one row, looked at, then rewritten whole shows both sizes
    r = ok(box, "import time\nopen('outputs/rows.csv', 'w').write('id,label\\n1,a\\n'); time.sleep(0.3)\n"
                "open('outputs/rows.csv').read()\nopen('outputs/rows.csv', 'w').write('id,label\\n' + '1,a\\n' * 50)")
    rows = f"{WS}/outputs/rows.csv"
    assert [s.get("size") for s in r.effects["order"] if s["op"] == "w"][0] == 13
    assert steps(r) == [["w", rows], ["b", rows], ["w", rows]]
    # each step says how much output the harness had read when it was seen: what a script
    # printed before a write, and what it printed after
    r = ok(box, "import time\nprint('before', flush=True); time.sleep(0.3)\nopen('o.txt', 'w').write('x')\n"
                "time.sleep(0.3); print('after')")
    [step] = r.effects["order"]
    assert step["out"] == len("before\n") and r.stdout == "before\nafter\n"
    # every step names a file its list holds: the record can be checked against itself
    assert {x for op, x in steps(r) if op == "w"} == set(written(r))


@needs_bwrap
@pytest.mark.bwrap
def test_delete_and_rename(box):
    ok(box, "open('a.txt', 'w').write('1'); open('b.txt', 'w').write('2')")
    r = ok(box, "rm a.txt; mv b.txt c.txt", language="bash")
    assert r.effects["deleted"] == [f"{WS}/a.txt", f"{WS}/b.txt"]
    assert written(r)[f"{WS}/c.txt"]["op"] == "created"
    # an atomic rewrite (temporary file renamed over the output) is a modification
    r = ok(box, "import os; open('c.tmp', 'w').write('3'); os.replace('c.tmp', 'c.txt')")
    assert list(written(r)) == [f"{WS}/c.txt"] and written(r)[f"{WS}/c.txt"]["op"] == "modified"
    assert r.effects["deleted"] == []
    # a file created and removed within one call is written, "transient" (schema 1.8): nothing
    # of it is left to hash; a tool's (a dot-folder) is not listed
    r = ok(box, "import os; open('tmp.bin', 'wb').write(b'xyz'); os.remove('tmp.bin')\n"
                "os.makedirs('.cache/t'); open('.cache/t/a', 'w').write('1'); os.remove('.cache/t/a')")
    # (its size is the one seen when its write closed, 0 when the file was gone by then)
    [entry] = r.effects["written"]
    assert entry["path"] == f"{WS}/tmp.bin" and entry["op"] == "transient" and entry["size"] in (0, 3)
    assert entry["sha256"] is None
    assert r.effects["deleted"] == []


@needs_bwrap
@pytest.mark.bwrap
def test_a_folder_written_in_staging_and_moved_keeps_the_write_before_the_read_back(box):
    """A pilot written into staging/case_000, read back, then the folder renamed into outputs/:
    the file is at its new path, and its write comes before its read-back in the order (it was
    made where the folder was first made, not where it was moved)."""
    r = ok(box, "import os, pathlib\nos.makedirs('staging/case_000')\n"
                "pathlib.Path('staging/case_000/prediction.json').write_text('{\"boxes\": []}')\n"
                "print(pathlib.Path('staging/case_000/prediction.json').read_text())\n"
                "os.makedirs('outputs', exist_ok=True)\nos.replace('staging/case_000', 'outputs/case_000')")
    path = f"{WS}/outputs/case_000/prediction.json"
    assert path in written(r) and path in r.effects["read_back"]
    steps = [(s["op"], s["path"]) for s in r.effects["order"] if s["path"] == path]
    assert steps.index(("w", path)) < steps.index(("b", path)), r.effects["order"]


@needs_bwrap
@pytest.mark.bwrap
def test_a_pilot_in_a_folder_removed_by_the_same_call_is_written_transient(box):
    """A script that runs one case into scratch/pilot/ and removes the folder before it ends
    did write that output: the record says so (the judge sees the pilot ran, and that nothing
    is left to look at)."""
    # (the folder is made by an earlier call, so the recorder watches it: one made and removed
    # within a call is seen only if the recorder's thread watched it in between, which a loaded
    # machine may not do in time, docs/sandbox.md "Observed effects")
    ok(box, "import os\nos.makedirs('scratch/pilot/case_000')")
    r = ok(box, "import shutil\n"
                "open('scratch/pilot/case_000/organ.bin', 'wb').write(b'\\x01' * 64)\n"
                "shutil.rmtree('scratch/pilot')\nprint('pilot done, scratch cleaned')")
    assert f"{WS}/scratch/pilot/case_000/organ.bin" in written(r), r.effects
    entry = written(r)[f"{WS}/scratch/pilot/case_000/organ.bin"]
    assert entry["op"] == "transient" and entry["sha256"] is None and entry["size"] in (0, 64)
    assert r.effects["deleted"] == []
    steps = [(s["op"], s["path"]) for s in r.effects["order"]]
    assert ("w", f"{WS}/scratch/pilot/case_000/organ.bin") in steps


@needs_bwrap
@pytest.mark.bwrap
def test_new_nested_directory_written_in_the_same_call(box, world):
    r = ok(box, "import os; os.makedirs('outputs/case_001/deep/er'); "
                "open('outputs/case_001/deep/er/mask.bin', 'wb').write(b'\\x01' * 1000)")
    host = world.workspace / "outputs" / "case_001" / "deep" / "er" / "mask.bin"
    assert written(r) == {f"{WS}/outputs/case_001/deep/er/mask.bin": {
        "path": f"{WS}/outputs/case_001/deep/er/mask.bin", "op": "created", "size": 1000, "sha256": sha(host)}}
    # the new directories are watched from now on: a rewrite there is seen as such
    r = ok(box, "open('outputs/case_001/deep/er/mask.bin', 'wb').write(b'\\x02' * 10)")
    assert written(r)[f"{WS}/outputs/case_001/deep/er/mask.bin"]["op"] == "modified"
    # a renamed directory: its files are at their new paths, the old paths are gone
    r = ok(box, "mv outputs/case_001/deep outputs/case_001/moved", language="bash")
    assert list(written(r)) == [f"{WS}/outputs/case_001/moved/er/mask.bin"]
    assert r.effects["deleted"] == [f"{WS}/outputs/case_001/deep/er/mask.bin"]
    r = ok(box, "open('outputs/case_001/moved/er/mask.bin').read()")
    assert r.effects["read"] == [f"{WS}/outputs/case_001/moved/er/mask.bin"]


def _late_recorder_thread(box, monkeypatch, seconds: float = 0.4) -> None:
    """Make the recorder's thread late on purpose for every call from now on: its lock is held
    for the call's first `seconds` (what a loaded machine does at random, docs/sandbox.md)."""
    recorder = box.effects
    begin = recorder.begin

    def late_begin():
        begin()
        held = threading.Event()

        def hold():
            with recorder._pump_lock:
                held.set()
                time.sleep(seconds)
        threading.Thread(target=hold, daemon=True).start()
        held.wait(5)
    monkeypatch.setattr(recorder, "begin", late_begin)


PILOT = ("import os\nos.makedirs('outputs/case_000/sub')\nopen('outputs/case_000/sub/p.txt', 'w').write('1')\n"
         "print(open('outputs/case_000/sub/p.txt').read())\nopen('outputs/case_000/sub/p.txt', 'w').write('22')\n")


@needs_bwrap
@pytest.mark.bwrap
def test_a_late_recorder_thread_still_sees_the_pilot_read_back(box, monkeypatch):
    """docs/sandbox.md "Opens held until their folder is watched": a script makes a folder,
    writes a pilot in it, reads it back and writes it again while the recorder's thread is
    late; each open in the sandbox's workspace waits until its folder is watched, so all three
    steps are recorded (a root harness: fanotify)."""
    if box.effects is None or box.effects.openers is None:
        pytest.skip("opens are held only by a root harness (fanotify needs CAP_SYS_ADMIN)")
    pilot = f"{WS}/outputs/case_000/sub/p.txt"
    _late_recorder_thread(box, monkeypatch)
    r = ok(box, PILOT)
    assert r.effects["opens_held"] is True
    assert steps(r) == [["w", pilot], ["b", pilot], ["w", pilot]]
    assert r.effects["read_back"] == [pilot] and written(r)[pilot]["size"] == 2
    # a pilot in a scratch folder made and removed within the call is written, and gone
    r = ok(box, "import os, shutil\nos.makedirs('scratch/p')\nopen('scratch/p/pilot.txt', 'w').write('123')\n"
                "shutil.rmtree('scratch')")
    scratch = f"{WS}/scratch/p/pilot.txt"
    assert {k: {**v, "size": None} for k, v in written(r).items()} == {
        scratch: {"path": scratch, "op": "transient", "size": None, "sha256": None}}
    # its size is the one the thread saw the write close with, 0 when it was gone by then
    assert written(r)[scratch]["size"] in (0, 3) and steps(r) == [["w", scratch]]
    if type(box).__name__ == "BwrapSandbox":
        # the control: the same late thread without the held opens (each bwrap call marks its
        # own mount, so the switch takes effect at the next call) loses the write and the read
        # that came before the folder's watch: one write, no read-back
        box.execute("bash", "rm -rf outputs/case_000")
        monkeypatch.setenv("AUTOMEDBENCH_HOLD_OPENS", "0")
        r = ok(box, PILOT)
        assert r.effects["opens_held"] is False
        assert steps(r) == [["w", pilot]] and r.effects["read_back"] == []


@needs_bwrap
@pytest.mark.bwrap
def test_nothing_leaks_into_the_next_call(box, world):
    ok(box, "open('one.txt', 'w').write('1'); open('/data/public/case_00000/imaging.txt').read()")
    # the harness's own work between calls (it reads and writes the workspace) is nobody's
    (world.workspace / "harness.txt").write_text("written by the harness")
    (world.workspace / "one.txt").read_text()
    r = ok(box, "print(1)")
    assert (r.effects["written"], r.effects["deleted"], r.effects["read"]) == ([], [], [])
    assert r.effects["net"] is None  # network off


@needs_bwrap
@pytest.mark.bwrap
def test_printed_fake_effects_change_nothing(box, tmp_path):
    """The agent prints an effects record claiming outputs it never wrote: the trace
    holds what the host saw."""
    from automedbench.agents.base import ToolBox
    from automedbench.runs.models import Conversation
    from automedbench.runs.trace import TraceWriter, read_trace

    fake = {"written": [{"path": f"{WS}/outputs/case_000/seg.nii.gz", "op": "created", "size": 9,
                         "sha256": "0" * 64}], "deleted": [], "read": [f"{PUB}/case_00000/imaging.txt"],
            "net": None, "truncated": False, "recorder": "inotify"}
    code = (f"import json, sys\nd = {json.dumps(fake)!r}\nprint(d); print('effects:', d); sys.stderr.write(d)\n"
            "open('real.txt', 'w').write('real')")
    trace = TraceWriter(tmp_path / "trace.jsonl")
    tools = ToolBox(box, trace, Conversation(system_prompt="x"))
    text = tools.execute_code("python", code)
    trace.close()
    assert "seg.nii.gz" in text  # the agent's own output, shown back to it as output
    [event] = [e for e in read_trace(tmp_path / "trace.jsonl") if e.type == "execution"]
    assert event.effects is not None
    assert [w.path for w in event.effects.written] == [f"{WS}/real.txt"]
    assert event.effects.read == [] and event.effects.written[0].sha256 == hashlib.sha256(b"real").hexdigest()
    # the raw line keeps explicit nulls, so every reader sees the agreed keys
    line = next(json.loads(x) for x in (tmp_path / "trace.jsonl").read_text().splitlines()
                if json.loads(x)["type"] == "execution")
    assert set(line["effects"]) == {"written", "deleted", "read", "read_back", "order", "net", "truncated",
                                    "reads_shared", "reads_attributed", "opens_held", "recorder"}
    assert line["effects"]["net"] is None


@needs_bwrap
@pytest.mark.bwrap
def test_lost_events_fall_back_to_the_tree_and_say_truncated(box, world):
    """More events than the kernel queues (fs.inotify.max_queued_events, 16384 by
    default): every written file is still found (changed since the call began), with its
    hash, and the record says truncated."""
    r = box.execute("bash", "for j in $(seq 1 12); do for i in $(seq 1 1000); do echo $j >> f$i.txt; done; done")
    assert r.exit_code == 0, r.stderr
    if not r.effects["truncated"]:
        pytest.skip("this kernel queued every event (max_queued_events is large here)")
    got = written(r)
    assert set(got) == {f"{WS}/f{i}.txt" for i in range(1, 1001)}
    wrong = [w for w in got.values()
             if w["op"] != "created" or w["sha256"] != sha(world.workspace / w["path"][len(WS) + 1:])]
    assert wrong == []
    # the watches survived the overflow: the next call is exact again
    r = ok(box, "rm f*.txt; mkdir -p after/x; echo 1 > after/x/y.txt", language="bash")
    assert len(r.effects["deleted"]) == 1000 and list(written(r)) == [f"{WS}/after/x/y.txt"]


@needs_bwrap
@pytest.mark.bwrap
def test_recording_off_leaves_effects_none(world, tmp_path):
    from automedbench.sandbox.bwrap.backend import BwrapSandbox
    with BwrapSandbox(SandboxSpec(public_dir=world.public, workspace=tmp_path / "ws", record_effects=False)) as b:
        r = b.execute("bash", "echo x > y.txt")
        assert r.exit_code == 0 and r.effects is None and b.effects is None


@needs_bwrap
@pytest.mark.bwrap
def test_network_bytes_with_the_network_on(net_box):
    """Counted on the sandbox's interface (tap0) from the host; traffic itself is measured
    in test_network.py's pip download, the only test here that may leave the machine."""
    net = net_box.execute("bash", "ip -j link show tap0 >/dev/null; echo ok").effects["net"]
    assert set(net) == {"bytes_in", "bytes_out"} and all(isinstance(v, int) and v >= 0 for v in net.values())


def test_local_backend_records_host_paths(tmp_path):
    (tmp_path / "pub" / "case_0").mkdir(parents=True)
    (tmp_path / "pub" / "case_0" / "img.txt").write_text("in")
    box = open_sandbox("local", SandboxSpec(public_dir=tmp_path / "pub", workspace=tmp_path / "ws"))
    try:
        ws, pub = box.workspace_dir, box.data_dir
        r = box.execute("python", f"import os; os.makedirs('{ws}/out/c'); open('{ws}/out/c/x.txt', 'w').write('y');"
                                  f"open('{pub}/case_0/img.txt').read()")
        assert r.exit_code == 0, r.stderr
        assert r.effects["written"] == [{"path": f"{ws}/out/c/x.txt", "op": "created", "size": 1,
                                         "sha256": hashlib.sha256(b"y").hexdigest()}]
        assert r.effects["read"] == [f"{pub}/case_0/img.txt"] and r.effects["net"] is None
    finally:
        box.close()


@needs_bwrap
@pytest.mark.bwrap
def test_list_cap_and_symlinks(box):
    """At most 2,000 entries per list, then `truncated`; a symlink is not a written file
    (and the host never hashes what it points to)."""
    r = box.execute("bash", "mkdir many && for i in $(seq 1 2100); do : > many/f$i; done; "
                            "ln -s /etc/passwd link; ln -s /data/public/case_00000/imaging.txt link2")
    assert r.exit_code == 0, r.stderr
    assert len(r.effects["written"]) == 2000 and r.effects["truncated"] is True
    # which file comes first depends on whether the recorder's thread watched many/ before the
    # loop's first files (then f1, from its events) or after (the walk's sorted listing)
    first = r.effects["written"][0]
    assert first["path"].startswith(f"{WS}/many/f") and first["path"][len(f"{WS}/many/f"):].isdigit()
    assert (first["op"], first["size"], first["sha256"]) == ("created", 0, hashlib.sha256(b"").hexdigest())
    assert not any(w["path"].startswith(f"{WS}/link") for w in r.effects["written"])
    r = box.execute("bash", "rm -r many link link2")
    assert len(r.effects["deleted"]) == 2000 and r.effects["truncated"] is True
    assert ok(box, "print(1)").effects["deleted"] == []


def _concurrent_reads(tmp_path, backend: str):
    """Sandbox A reads an input while sandbox B, over the same dataset, lists the folder."""
    import threading
    (tmp_path / "pub" / "case_0").mkdir(parents=True)
    (tmp_path / "pub" / "case_0" / "img.txt").write_text("in")
    boxes = [open_sandbox(backend, SandboxSpec(public_dir=tmp_path / "pub", workspace=tmp_path / f"ws{i}"))
             for i in range(2)]
    try:
        a, b = boxes
        results = {}
        listing = threading.Thread(target=lambda: results.setdefault(
            "b", b.execute("bash", f"ls {b.data_dir}; sleep 1.5")))
        listing.start()
        import time
        time.sleep(0.5)   # B's call is under way
        results["a"] = a.execute("bash", f"cat {a.data_dir}/case_0/img.txt")
        listing.join()
        return results["a"], results["b"], a.data_dir
    finally:
        for box in boxes:
            box.close()


@pytest.mark.parametrize("backend", [pytest.param("bwrap", marks=[needs_bwrap, pytest.mark.bwrap]), "local"])
def test_a_concurrent_sandbox_over_the_same_dataset_does_not_lend_its_reads(tmp_path, backend):
    """docs/sandbox.md "Whose reads": each sandbox reads its own copy of the inputs."""
    a, b, data_dir = _concurrent_reads(tmp_path, backend)
    assert a.exit_code == 0 and b.exit_code == 0, (a.stderr, b.stderr)
    assert a.effects["read"] == [f"{data_dir}/case_0/img.txt"] and a.effects["reads_shared"] is False
    assert b.effects["read"] == [] and b.effects["reads_shared"] is False


def test_above_the_copy_cap_the_record_says_reads_are_shared(tmp_path, monkeypatch):
    monkeypatch.setenv("AUTOMEDBENCH_INPUT_COPY_MAX_MB", "0")
    a, b, data_dir = _concurrent_reads(tmp_path, "local")
    assert data_dir == str((tmp_path / "pub").resolve())
    assert a.effects["reads_shared"] is True and b.effects["reads_shared"] is True
    # the shared directory's watches fire for both; with the opener named (a root harness,
    # fanotify: docs/sandbox.md "Whose reads") B's record still holds only B's own reads ...
    if b.effects["reads_attributed"]:
        assert b.effects["read"] == [] and a.effects["read"] == [f"{data_dir}/case_0/img.txt"]
    else:   # ... without it, B's record holds A's read
        assert b.effects["read"] == [f"{data_dir}/case_0/img.txt"]


def test_the_judge_drops_shared_reads_the_call_does_not_name():
    """... and the judge's facts keep such a read only when the call's code names the file
    or its folder (scoring/judge/facts.py `_own_reads`)."""
    from automedbench.runs.models import TraceEvent
    from automedbench.scoring.judge.facts import collect_calls

    def call(i, code, shared):
        return [TraceEvent(type="tool_call", t=0.0, call_index=i, code=code, language="bash"),
                TraceEvent(type="execution", t=0.1, call_index=i, exit_code=0, stdout="x",
                           effects={"read": ["/data/public/case_0/img.txt", "/workspace/notes.txt"],
                                    "reads_shared": shared})]
    trace = [*call(1, "ls /data/public", True), *call(2, "cat /data/public/case_0/img.txt", True),
             *call(3, "for c in /data/public/*; do cat $c/img.txt; done", True), *call(4, "ls /data/public", False)]
    reads = {c.index: c.read for c in collect_calls(trace)}
    assert reads[1] == ["/workspace/notes.txt"]
    assert reads[2] == reads[3] == reads[4] == ["/data/public/case_0/img.txt", "/workspace/notes.txt"]


def test_doctor_says_whether_opens_are_held(monkeypatch):
    """`automedbench doctor` tells, before any run, whether records will say `opens_held: true`."""
    from automedbench.sandbox.doctor import machine_report

    def held_check():
        return {c["name"]: c for c in machine_report()["checks"]}["opens held until their folder is watched"]
    monkeypatch.delenv("AUTOMEDBENCH_HOLD_OPENS", raising=False)
    assert held_check()["ok"] is (os.geteuid() == 0)
    monkeypatch.setenv("AUTOMEDBENCH_HOLD_OPENS", "0")
    check = held_check()
    assert check["ok"] is False and ("AUTOMEDBENCH_HOLD_OPENS=0" in check["detail"] or os.geteuid() != 0)
