"""The effects record from lists of events (effects_record.py, the recorder's pure half): each
sequence is written down as the watcher would hand it over, with the files' state once the call
ended and their digests given as values, so no disk, thread or kernel decides which sequence
is checked (docs/sandbox.md "Observed effects", "Order inside a call"). The real recorder on
real files is tested in test_effects.py, test_attribution.py and test_interrupt_window.py."""
from __future__ import annotations

from typing import Any

from automedbench.sandbox.observe.record import (
    HASH_MAX_BYTES,
    MAX_ENTRIES,
    After,
    Changed,
    DirGone,
    DirMade,
    DirMoved,
    FileEvent,
    Found,
    Missing,
    MovedUnseen,
    Outcome,
    Overflow,
    Roots,
    Stat,
    build_record,
    fold,
)
from automedbench.sandbox.observe.inotify import (
    IN_CLOSE_NOWRITE,
    IN_CLOSE_WRITE,
    IN_CREATE,
    IN_DELETE,
    IN_MODIFY,
    IN_MOVED_FROM,
    IN_MOVED_TO,
    IN_OPEN,
)

WS, PUB = "/host/ws", "/host/pub"
ROOTS = Roots(((WS, "/workspace"), (PUB, "/data/public")))


def ws(rel: str) -> str:
    return f"{WS}/{rel}"


def st(ino: int, size: int = 1, *, atime: int = 0, mtime: int = 0, regular: bool = True) -> Stat:
    return Stat(dev=7, ino=ino, size=size, regular=regular, atime_ns=atime, mtime_ns=mtime)


def build(events: list[Any], *, known: set[str] | frozenset[str] = frozenset(), **after: Any) -> Outcome:
    call = fold(events, known, PUB)
    return build_record(call, After(known=known, **after), ROOTS)


def record(events: list[Any], *, known: set[str] | frozenset[str] = frozenset(), **after: Any) -> dict[str, Any]:
    """The record as the recorder writes it: built once to learn which files to hash, then
    with those files' digests (here: 'h:' + the path)."""
    out = build(events, known=known, **after)
    if out.hash_wanted:
        after["digests"] = {p: "h:" + p for p in out.hash_wanted}
        out = build(events, known=known, **after)
    a = After(known=known, **after)
    return out.effects.as_dict(None, False, a.opened is not None, a.opens_held)


def written(rec: dict[str, Any]) -> list[tuple[str, str]]:
    return [(w["path"], w["op"]) for w in rec["written"]]


def steps(rec: dict[str, Any]) -> list[tuple[str, str]]:
    assert rec["order"] is not None
    return [(s["op"], s["path"]) for s in rec["order"]]


def write_events(path: str, size: int, *, create: bool = True) -> list[FileEvent]:
    first = [FileEvent(path, IN_CREATE), FileEvent(path, IN_OPEN)] if create else [FileEvent(path, IN_OPEN)]
    return [*first, FileEvent(path, IN_MODIFY), FileEvent(path, IN_CLOSE_WRITE, size=size)]


def read_events(path: str) -> list[FileEvent]:
    return [FileEvent(path, IN_OPEN), FileEvent(path, IN_CLOSE_NOWRITE)]


def test_a_file_created_is_written_created_with_its_size_digest_and_step():
    rec = record(write_events(ws("outputs/a.json"), 5), stats={ws("outputs/a.json"): st(1, 5)})
    assert rec["written"] == [{"path": "/workspace/outputs/a.json", "op": "created", "size": 5,
                               "sha256": "h:" + ws("outputs/a.json")}]
    assert rec["deleted"] == rec["read"] == rec["read_back"] == []
    assert steps(rec) == [("w", "/workspace/outputs/a.json")]
    assert rec["order"][0]["size"] == 5 and rec["truncated"] is False


def test_a_known_file_written_is_modified_and_stays_known():
    path = ws("notes.txt")
    out = build(write_events(path, 9, create=False), known={path}, stats={path: st(2, 9)})
    assert [(w["path"], w["op"]) for w in out.effects.written] == [("/workspace/notes.txt", "modified")]
    assert out.hash_wanted == [path]
    assert out.known_changes == [(path, st(2, 9))]


def test_a_known_file_deleted_is_deleted_and_forgotten():
    path = ws("old.txt")
    out = build([FileEvent(path, IN_DELETE)], known={path}, stats={path: None})
    assert out.effects.deleted == ["/workspace/old.txt"] and out.effects.written == []
    assert out.known_changes == [(path, None)]


def test_a_file_renamed_is_deleted_under_its_old_name_and_created_under_the_new():
    old, new = ws("a.txt"), ws("b.txt")
    rec = record([FileEvent(old, IN_MOVED_FROM), FileEvent(new, IN_MOVED_TO)], known={old},
                 stats={old: None, new: st(3, 4)})
    assert written(rec) == [("/workspace/b.txt", "created")]
    assert rec["deleted"] == ["/workspace/a.txt"]


def test_a_rename_over_a_known_file_is_a_modification():
    tmp, dest = ws("out.tmp"), ws("out.json")
    rec = record([*write_events(tmp, 3), FileEvent(tmp, IN_MOVED_FROM), FileEvent(dest, IN_MOVED_TO)],
                 known={dest}, stats={tmp: None, dest: st(4, 3)})
    assert written(rec) == [("/workspace/out.json", "modified")]
    assert rec["deleted"] == []   # the temporary name was the call's own, moved away, not deleted


def test_a_rename_chain_leaves_one_created_file_under_its_last_name():
    a, b, c = ws("x/a"), ws("x/b"), ws("x/c")
    rec = record([*write_events(a, 2), FileEvent(a, IN_MOVED_FROM), FileEvent(b, IN_MOVED_TO),
                  FileEvent(b, IN_MOVED_FROM), FileEvent(c, IN_MOVED_TO)],
                 stats={a: None, b: None, c: st(5, 2)})
    assert written(rec) == [("/workspace/x/c", "created")]
    assert rec["deleted"] == []
    assert steps(rec) == [("w", "/workspace/x/c")]


def test_a_file_written_then_deleted_in_one_call_is_transient_with_its_closed_size():
    path = ws("outputs/pilot.nii.gz")
    rec = record([*write_events(path, 123), FileEvent(path, IN_DELETE)], stats={path: None})
    assert rec["written"] == [{"path": "/workspace/outputs/pilot.nii.gz", "op": "transient", "size": 123,
                               "sha256": None}]
    assert rec["deleted"] == []


def test_a_tools_temporary_file_is_not_listed():
    path = ws(".cache/pip/tmp123")
    rec = record([*write_events(path, 10), FileEvent(path, IN_DELETE)], stats={path: None})
    assert rec["written"] == [] and rec["deleted"] == []


def test_reads_count_unattributed_and_only_the_sandboxs_opens_with_attribution():
    mine, other = f"{PUB}/case1.nii", f"{PUB}/case2.nii"
    events = [*read_events(mine), *read_events(other)]
    stats = {mine: st(10), other: st(11)}
    assert record(events, known={mine, other}, stats=stats)["read"] == [
        "/data/public/case1.nii", "/data/public/case2.nii"]
    rec = record(events, known={mine, other}, stats=stats, opened={(7, 10): 1})
    assert rec["read"] == ["/data/public/case1.nii"] and rec["reads_attributed"] is True
    assert steps(rec) == [("r", "/data/public/case1.nii")]


def test_a_read_of_a_file_the_call_then_deleted_is_matched_by_its_remembered_identity():
    path = ws("inputs/copy.bin")
    rec = record([*read_events(path), FileEvent(path, IN_DELETE)], known={path}, stats={path: None},
                 identity={path: (7, 42)}, opened={(7, 42): 1})
    assert rec["read"] == ["/workspace/inputs/copy.bin"] and rec["deleted"] == ["/workspace/inputs/copy.bin"]


def test_an_unknown_public_file_is_read_not_read_back():
    path = f"{PUB}/new_case.nii"
    rec = record(read_events(path), stats={path: st(12)})
    assert rec["read"] == ["/data/public/new_case.nii"] and rec["read_back"] == []
    assert steps(rec) == [("r", "/data/public/new_case.nii")]


def test_a_file_written_then_read_is_read_back_after_its_write():
    path = ws("outputs/pred.json")
    events = [*write_events(path, 8), *read_events(path)]
    rec = record(events, stats={path: st(13, 8)})
    assert rec["read_back"] == ["/workspace/outputs/pred.json"]
    assert steps(rec) == [("w", "/workspace/outputs/pred.json"), ("b", "/workspace/outputs/pred.json")]
    # with attribution a created file read back needs two opens of the sandbox's: the write's and the read's
    assert record(events, stats={path: st(13, 8)}, opened={(7, 13): 1})["read_back"] == []
    assert record(events, stats={path: st(13, 8)}, opened={(7, 13): 2})["read_back"] == [
        "/workspace/outputs/pred.json"]


def test_a_write_held_open_across_a_call_boundary_is_created_then_modified():
    """A process of call 1 opened the file and wrote without closing; call 2 closed it. Call 1's
    record says created (from its size now); call 2, which begins knowing the file, says modified."""
    path = ws("log.txt")
    first = build([FileEvent(path, IN_CREATE), FileEvent(path, IN_OPEN), FileEvent(path, IN_MODIFY)],
                  stats={path: st(14, 100)})
    assert [(w["op"], w["size"]) for w in first.effects.written] == [("created", 100)]
    known = {p for p, change in first.known_changes if change is not None}
    assert known == {path}
    rec = record([FileEvent(path, IN_MODIFY), FileEvent(path, IN_CLOSE_WRITE, size=250)], known=known,
                 stats={path: st(14, 250)})
    assert rec["written"] == [{"path": "/workspace/log.txt", "op": "modified", "size": 250, "sha256": "h:" + path}]
    assert rec["order"][0]["size"] == 250


def test_opens_held_count_the_writes_open_of_a_known_file_too():
    path = ws("plan/plan.md")
    events = [*write_events(path, 3, create=False), *read_events(path)]
    # a known file: its write's open was seen either way, so two opens are asked
    assert record(events, known={path}, stats={path: st(15, 3)}, opened={(7, 15): 1}, opens_held=True)["read_back"] == []
    assert record(events, known={path}, stats={path: st(15, 3)}, opened={(7, 15): 2},
                  opens_held=True)["read_back"] == ["/workspace/plan/plan.md"]


def test_files_found_in_a_new_folder_are_created_and_placed_where_the_folder_was_made():
    """The folder was made before its watch: its files have no event. Found at the end, each is
    created; one whose access time is after its modification was read back (relatime)."""
    d = ws("outputs/case_000")
    mask, other = f"{d}/mask.bin", ws("inputs/a.bin")
    rec = record([*read_events(other), DirMade(ws("outputs"), (10, 0)), DirMade(d, (20, 0)),
                  Found(mask)],
                 known={other}, stats={other: st(16), mask: st(17, 64, atime=2, mtime=1)},
                 found_size={mask: 64})
    assert written(rec) == [("/workspace/outputs/case_000/mask.bin", "created")]
    assert rec["read_back"] == ["/workspace/outputs/case_000/mask.bin"]
    assert steps(rec) == [("r", "/workspace/inputs/a.bin"), ("w", "/workspace/outputs/case_000/mask.bin"),
                          ("b", "/workspace/outputs/case_000/mask.bin")]
    assert rec["order"][1]["out"] == 20 and rec["order"][1]["size"] == 64


def test_a_file_found_in_a_new_folder_and_gone_by_the_end_is_transient():
    d = ws("scratch")
    f = f"{d}/tmp.npy"
    rec = record([DirMade(d)], stats={f: None}, found_size={f: 77})
    assert rec["written"] == [{"path": "/workspace/scratch/tmp.npy", "op": "transient", "size": 77, "sha256": None}]


def test_a_folder_renamed_before_its_watch_places_its_file_at_the_first_name():
    staging, final = ws("staging/case_000"), ws("outputs/case_000")
    f = f"{final}/prediction.json"
    rec = record([DirMade(ws("staging")), DirMade(ws("outputs")),
                  DirMoved(staging, final), MovedUnseen(staging, final), Found(f)],
                 stats={f: st(18, 12)})
    assert written(rec) == [("/workspace/outputs/case_000/prediction.json", "created")]
    assert steps(rec) == [("w", "/workspace/outputs/case_000/prediction.json")]


def test_a_removed_folders_known_files_are_deleted_once_each():
    """rm -r old/: a.txt's delete has an event, b.txt's is told only by its folder going. The
    watcher forgets a removed folder's known files before building (After.known lacks them)."""
    a, b = ws("old/a.txt"), ws("old/b.txt")
    call = fold([FileEvent(a, IN_DELETE), DirGone(ws("old"))], {a, b}, PUB)
    assert call.gone_dirs == [ws("old")] and call.paths[a].existed_before
    out = build_record(call, After(known=set(), stats={a: None}, gone=[a, b]), ROOTS)
    assert out.effects.deleted == ["/workspace/old/a.txt", "/workspace/old/b.txt"]
    assert out.effects.written == []


def test_lost_events_fall_back_to_the_rescan_and_keep_no_order():
    changed, missing = ws("big/out.bin"), ws("gone.txt")
    rec = record([*write_events(ws("first.txt"), 1), Overflow(), Changed(changed), Missing(missing)],
                 known={missing}, stats={ws("first.txt"): st(19), changed: st(20, 30), missing: None})
    assert written(rec) == [("/workspace/first.txt", "created"), ("/workspace/big/out.bin", "created")]
    assert rec["deleted"] == ["/workspace/gone.txt"]
    assert rec["truncated"] is True and rec["order"] is None


def test_an_incomplete_watch_truncates_every_record():
    path = ws("a.txt")
    rec = record(write_events(path, 1), stats={path: st(21)}, incomplete=True)
    assert rec["truncated"] is True and rec["order"] is None and written(rec) == [("/workspace/a.txt", "created")]


def test_hashing_stops_at_the_size_cap_and_the_files_beyond_are_listed_without_digest():
    big, small = ws("big.bin"), ws("small.bin")
    out = build([*write_events(big, HASH_MAX_BYTES + 1), *write_events(small, 5)],
                stats={big: st(22, HASH_MAX_BYTES + 1), small: st(23, 5)})
    assert out.hash_wanted == [small]
    assert [out.effects.written[i]["path"] for i in out.hash_slots] == ["/workspace/small.bin"]
    rec = record([*write_events(big, HASH_MAX_BYTES + 1), *write_events(small, 5)],
                 stats={big: st(22, HASH_MAX_BYTES + 1), small: st(23, 5)})
    assert [w["sha256"] for w in rec["written"]] == [None, "h:" + small]


def test_more_writes_than_the_list_holds_truncate_it():
    paths = [ws(f"o/{i}") for i in range(MAX_ENTRIES + 1)]
    events = [FileEvent(p, IN_CREATE) for p in paths]
    rec = record(events, stats={p: st(i, 1) for i, p in enumerate(paths)})
    assert len(rec["written"]) == MAX_ENTRIES and rec["truncated"] is True


def test_a_symlink_written_is_not_listed():
    path = ws("link")
    rec = record([FileEvent(path, IN_CREATE)], stats={path: st(24, regular=False)})
    assert rec["written"] == [] and rec["deleted"] == []


def test_building_twice_gives_the_same_record_and_changes_nothing_it_was_given():
    path = ws("a.txt")
    known = {ws("k.txt")}
    call = fold([*write_events(path, 1), FileEvent(ws("k.txt"), IN_DELETE)], known, PUB)
    after = After(known=known, stats={path: st(25), ws("k.txt"): None})
    one, two = build_record(call, after, ROOTS), build_record(call, after, ROOTS)
    assert one.effects == two.effects and one.known_changes == two.known_changes
    assert known == {ws("k.txt")}   # the watcher applies the changes; the builder does not


def test_a_folder_removed_and_made_again_before_its_watch_has_its_files_modified():
    """`rm -rf outputs/case_000 && python run.py case_000` (blind-12's `notice_and_fix`): the known
    file's delete has an event, the folder is made again and written before its new watch, so the
    new file has no event and is only found. It is the same path written again: modified, not
    nothing (docs/sandbox.md "Observed effects")."""
    d = ws("outputs/case_000")
    mask = f"{d}/mask.bin"
    rec = record([FileEvent(mask, IN_DELETE), DirGone(d), DirMade(d, (5, 0)), Found(mask)],
                 known={mask}, stats={mask: st(21, 64)}, found_size={mask: 64})
    assert written(rec) == [("/workspace/outputs/case_000/mask.bin", "modified")]
    assert rec["deleted"] == []
    assert steps(rec) == [("w", "/workspace/outputs/case_000/mask.bin")]
