"""The record's `order` built from the events one call left (effects_record.build_order), for
the event sequences a late recorder thread produces. The bwrap tests in test_effects.py run the
real thing, where which sequence arrives depends on how loaded the machine is; here each
sequence is given as the queue left it, so every one is checked every time
(docs/sandbox.md "Order inside a call")."""
from __future__ import annotations

from automedbench.sandbox.observe.record import Call as _Call
from automedbench.sandbox.observe.record import Effects as _Effects
from automedbench.sandbox.observe.record import build_order

HOST = "/host/ws"
WS = "/workspace"


def inside_of(path: str) -> str | None:
    return WS + path[len(HOST):] if path.startswith(HOST + "/") else None


def host_of(path: str) -> str | None:
    return HOST + path[len(WS):] if path.startswith(WS + "/") else None


def order_of(steps: list[tuple[str, str]], moved: list[tuple[str, str]], written: list[str],
             read_back: list[str]) -> list[tuple[str, str]]:
    call = _Call(order=[(op, HOST + "/" + p) for op, p in steps], output_at=[(0, 0)] * len(steps),
                 moved_dirs=[(HOST + "/" + a, HOST + "/" + b) for a, b in moved])
    fx = _Effects(written=[{"path": f"{WS}/{p}"} for p in written], read_back=[f"{WS}/{p}" for p in read_back])
    order = build_order(call, fx, inside_of, host_of, {})
    assert order is not None
    return [(s["op"], s["path"][len(WS) + 1:]) for s in order]


def test_a_renamed_folder_whose_first_name_was_found_by_a_walk_places_its_write_before_the_read():
    # staging/ made; the thread watched it late and found case_000 already in it (no step of its
    # own), then saw the read under the folder's new name; the write has no event at all
    got = order_of([("d", "staging"), ("b", "outputs/case_000/prediction.json"), ("d", "outputs"),
                    ("d", "outputs/case_000")], moved=[("staging/case_000", "outputs/case_000")],
                   written=["outputs/case_000/prediction.json"], read_back=["outputs/case_000/prediction.json"])
    assert got == [("w", "outputs/case_000/prediction.json"), ("b", "outputs/case_000/prediction.json")]


def test_a_renamed_folder_with_a_step_of_its_own_places_its_write_there():
    got = order_of([("d", "staging"), ("d", "staging/case_000"), ("b", "outputs/case_000/prediction.json"),
                    ("d", "outputs"), ("d", "outputs/case_000")],
                   moved=[("staging/case_000", "outputs/case_000")],
                   written=["outputs/case_000/prediction.json"], read_back=["outputs/case_000/prediction.json"])
    assert got == [("w", "outputs/case_000/prediction.json"), ("b", "outputs/case_000/prediction.json")]


def test_a_folder_made_in_place_keeps_its_write_where_it_was_made_not_earlier():
    # no rename: the unseen write goes to its own folder's step, after an earlier unrelated read
    got = order_of([("r", "inputs/a.bin"), ("d", "outputs"), ("d", "outputs/case_000"),
                    ("b", "outputs/case_000/mask.bin")], moved=[],
                   written=["outputs/case_000/mask.bin"], read_back=["outputs/case_000/mask.bin"])
    assert got == [("w", "outputs/case_000/mask.bin"), ("b", "outputs/case_000/mask.bin")]


def test_a_write_under_a_folder_not_made_by_the_call_cannot_be_placed():
    # written, no event, and no folder made around it: the order is dropped rather than guessed
    call = _Call(order=[("r", HOST + "/inputs/a.bin")], output_at=[(0, 0)])
    fx = _Effects(written=[{"path": f"{WS}/outputs/x.bin"}])
    assert build_order(call, fx, inside_of, host_of, {}) is None


# -- the real recorder, its thread held back at chosen moments -------------------------------
# The recorder's thread takes events under _pump_lock; holding the lock while this test makes
# files is a thread that woke late, on purpose. The files are real, the events the kernel's.

def _wait_watched(rec, path, timeout=5.0) -> None:
    import time
    end = time.monotonic() + timeout
    while str(path) not in rec.watched:
        assert time.monotonic() < end, f"the recorder never watched {path}"
        time.sleep(0.01)


def test_a_rename_the_recorder_learns_from_a_watch_not_an_event(tmp_path):
    """staging/case_000 is watched (found by the walk of staging), its file read back, then the
    folder moved into outputs/ before outputs/ is watched: no MOVED_TO event exists. The move
    is learnt when the walk of outputs/ finds the same directory: the file is one created file
    at its new path (no phantom 'transient' under the old one), written before it was read."""
    from automedbench.sandbox.observe.effects import EffectsRecorder
    ws, pub = tmp_path / "ws", tmp_path / "pub"
    ws.mkdir(), pub.mkdir()
    rec = EffectsRecorder((str(ws), WS), (str(pub), "/data/public"))
    try:
        rec.begin()
        with rec._pump_lock:
            (ws / "staging" / "case_000").mkdir(parents=True)
            (ws / "staging" / "case_000" / "prediction.json").write_text('{"boxes": []}')
        _wait_watched(rec, ws / "staging" / "case_000")
        assert (ws / "staging" / "case_000" / "prediction.json").read_text() == '{"boxes": []}'
        with rec._pump_lock:
            (ws / "outputs").mkdir()
            (ws / "staging" / "case_000").rename(ws / "outputs" / "case_000")
        _wait_watched(rec, ws / "outputs" / "case_000")
        fx = rec.end()
    finally:
        rec.close()
    path = f"{WS}/outputs/case_000/prediction.json"
    assert [(w["path"], w["op"]) for w in fx["written"]] == [(path, "created")]
    assert fx["read_back"] == [path] and fx["truncated"] is False
    assert [(s["op"], s["path"]) for s in fx["order"]] == [("w", path), ("b", path)]
