"""The experiments' mutant memo (docs/judge.md "What replays cost"): the same mutant on the same
names and bytes is applied once and laid down from memory after, leaving exactly the files the
mutant itself leaves; anything else (other bytes, another mutant object of the same name, a file
it did not touch) is never served from it. Real mutants on real files."""
from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path

import nibabel as nib
import numpy as np

from automedbench.lifecycle.experiments import MutantMemo
from automedbench.runs.blobs import BlobStore, WorkspaceState
from automedbench.tracks.mutants import BENIGN, INPUT_MUTANTS, GENERIC_MALIGN, Mutant, each, any_file


def _volume(path: Path, seed: int) -> Path:
    data = np.random.default_rng(seed).integers(0, 3, size=(8, 9, 6)).astype(np.uint8)
    nib.save(nib.Nifti1Image(data, np.eye(4)), str(path))
    return path


def _unit(folder: Path, seed: int = 0) -> dict[str, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "info.json").write_text(json.dumps({"spacing": [1.0, 1.0, 2.5], "boxes": [{"x": 1}, {"x": 2}]}))
    return {"mask.nii.gz": _volume(folder / "mask.nii.gz", seed), "info.json": folder / "info.json"}


def _bytes(files: dict[str, Path]) -> dict[str, bytes | None]:
    return {k: p.read_bytes() if p.is_file() else None for k, p in files.items()}


def test_a_hit_leaves_the_bytes_the_mutant_leaves(tmp_path: Path) -> None:
    for mutant in [*BENIGN, *INPUT_MUTANTS, *GENERIC_MALIGN]:
        fresh = _unit(tmp_path / mutant.name / "fresh")
        expected_flag = mutant.apply(fresh)
        expected = _bytes(fresh)
        memo = MutantMemo(64 << 20)
        first = _unit(tmp_path / mutant.name / "first")
        assert memo.apply(mutant, first) == expected_flag
        assert _bytes(first) == expected and memo.hits == 0
        again = _unit(tmp_path / mutant.name / "again")      # the same names and bytes, another folder
        assert memo.apply(mutant, again) == expected_flag
        assert memo.hits == 1, mutant.name
        assert _bytes(again) == expected, mutant.name
        # the mutant changed something: the memo is no record of the original bytes
        assert any(expected[k] != v for k, v in _bytes(_unit(tmp_path / mutant.name / "orig")).items())


def test_other_bytes_or_another_mutant_object_never_hit(tmp_path: Path) -> None:
    memo = MutantMemo(64 << 20)
    rescaled = INPUT_MUTANTS[1]
    memo.apply(rescaled, _unit(tmp_path / "a", seed=0))
    other = _unit(tmp_path / "b", seed=1)                    # other voxels
    memo.apply(rescaled, other)
    assert memo.hits == 0
    twin = Mutant(rescaled.name, rescaled.description, each(any_file, lambda p: False), aspect=rescaled.aspect)
    same = _unit(tmp_path / "c", seed=0)
    before = _bytes(same)
    assert memo.apply(twin, same) is False and memo.hits == 0
    assert _bytes(same) == before                            # the twin's own apply ran: it changes nothing


def test_untouched_files_are_not_rewritten_and_a_failing_mutant_is_laid_down_alike(tmp_path: Path) -> None:
    def volume_only(files: dict[str, Path]) -> bool:
        path = files["mask.nii.gz"]
        path.write_bytes(gzip.compress(gzip.decompress(path.read_bytes()), compresslevel=9, mtime=0))
        raise ValueError("a file the mutant cannot read")    # after writing one file: a partial change
    mutant = Mutant("half_done", "writes the volume, then fails", volume_only)
    memo = MutantMemo(64 << 20)
    first = _unit(tmp_path / "a")
    assert memo.apply(mutant, first) is False                # a failing mutant answers False, as before
    left = _bytes(first)
    again = _unit(tmp_path / "b")
    info_stat = again["info.json"].stat()
    assert memo.apply(mutant, again) is False and memo.hits == 1
    assert _bytes(again) == left
    assert again["info.json"].stat().st_mtime_ns == info_stat.st_mtime_ns   # not touched: not rewritten


def test_the_memo_keeps_within_its_bytes(tmp_path: Path) -> None:
    memo = MutantMemo(max_bytes=4 * 1024, max_entries=2)
    for seed in range(4):
        memo.apply(BENIGN[0], _unit(tmp_path / str(seed), seed=seed))
        assert memo.size <= 4 * 1024 and len(memo.entries) <= 2
    assert memo.size == sum(m.size for m in memo.entries.values())


def test_the_missing_bytes_are_known_without_laying_the_workspace_down(tmp_path: Path) -> None:
    """A replayed call's unkept bytes are named from the state alone (runs/blobs.py), as laying it
    down would name them: the replays no longer lay the workspace down once more to learn it."""
    ws = tmp_path / "ws"
    (ws / "outputs" / "case_000").mkdir(parents=True)
    kept = ws / "outputs" / "case_000" / "organ.nii.gz"
    kept.write_bytes(b"kept bytes")
    sha = hashlib.sha256(b"kept bytes").hexdigest()
    store = BlobStore(tmp_path / "blobs", ws, "/workspace")
    assert store.keep({"written": [{"path": "/workspace/outputs/case_000/organ.nii.gz", "sha256": sha, "size": 10}]}) == 1
    effects = [(1, {"written": [{"path": "/workspace/outputs/case_000/organ.nii.gz", "sha256": sha, "size": 10},
                                {"path": "/workspace/big.npy", "sha256": "0" * 64, "size": 10},
                                {"path": "/workspace/unhashed.txt", "sha256": None, "size": 3},
                                {"path": "/elsewhere/x", "sha256": None, "size": 1}]})]
    state = WorkspaceState.before(effects, 2)
    assert state.missing(store) == ["/workspace/big.npy", "/workspace/unhashed.txt"]
    assert state.missing(store) == state.materialise(store, tmp_path / "copy")
