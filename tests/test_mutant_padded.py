"""The benign `padded` mutant on gzip files (tracks/mutants.py, docs/judge.md "What replays
cost"): the file's own deflate stream is kept and only room is added, so a large volume is not
compressed again; the content is the same, the bytes and size are not; a file of several
members, or a stream whose trailer does not match, is compressed again as before."""
from __future__ import annotations

import gzip
import zlib

import nibabel as nib
import numpy as np

from automedbench.tracks.mutants import BENIGN, PAD_BYTES, _one_member

PADDED = next(m for m in BENIGN if m.name == "padded")


def test_a_volume_keeps_its_stream_and_gains_room(tmp_path):
    path = tmp_path / "sct.nii.gz"
    volume = np.random.default_rng(0).normal(size=(24, 20, 16)).astype(np.float32)
    nib.save(nib.Nifti1Image(volume, np.diag([0.5, 0.5, 2.0, 1.0])), str(path))
    before = path.read_bytes()
    stream, trailer = _one_member(before)
    assert PADDED.apply({"sct.nii.gz": path})
    after = path.read_bytes()
    assert after != before and len(after) > len(before) + PAD_BYTES - 64
    assert stream in after and after.endswith(trailer)          # nothing compressed again
    assert gzip.decompress(after) == gzip.decompress(before)
    img = nib.load(str(path))
    assert np.array_equal(img.get_fdata(), volume) and np.allclose(img.affine, np.diag([0.5, 0.5, 2.0, 1.0]))


def test_several_members_or_a_broken_trailer_are_compressed_again(tmp_path):
    two = gzip.compress(b"first member ", mtime=0) + gzip.compress(b"second member", mtime=0)
    assert _one_member(two) is None
    one = gzip.compress(b"x" * 5000, mtime=0)
    assert _one_member(one) is not None
    broken = one[:-8] + zlib.crc32(b"other").to_bytes(4, "little") + one[-4:]
    assert _one_member(broken) is None and _one_member(b"not a gzip file at all") is None
    for data in (two, broken[:-8] + one[-8:]):
        path = tmp_path / "rows.csv.gz"
        path.write_bytes(data)
        assert PADDED.apply({"rows.csv.gz": path})
        assert gzip.decompress(path.read_bytes()) == gzip.decompress(data)
        assert _one_member(path.read_bytes()) is not None       # one member now, room in its header
