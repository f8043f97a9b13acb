"""How mutants encode gzip files (tracks/mutants.py, docs/judge.md "What replays cost").

The benign `padded` mutant keeps the file's own deflate stream and only adds room, so a large
volume is not compressed again; the content is the same, the bytes and size are not; a file of
several members, or a stream whose trailer does not match, is compressed again as before. A
volume a mutant rewrites is the image `nib.save` would write, compressed by `gzip_bytes` (ISA-L
where installed): the same decompressed bytes, the same bytes every time (no name, no clock)."""
from __future__ import annotations

import gzip
import zlib

import nibabel as nib
import numpy as np

from automedbench.tracks.mutants import BENIGN, PAD_BYTES, _one_member, every_second_slice, gzip_bytes, save_volume

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


def test_a_rewritten_volume_is_what_nibabel_writes_in_other_gzip_bytes(tmp_path):
    volume = np.random.default_rng(1).integers(-1000, 2000, size=(18, 14, 10)).astype(np.int16)
    img = nib.Nifti1Image(volume, np.diag([0.8, 0.8, 3.0, 1.0]))
    nib.save(img, str(tmp_path / "by_nibabel.nii.gz"))
    save_volume(img, tmp_path / "ours.nii.gz")
    save_volume(img, tmp_path / "again.nii.gz")
    ours = (tmp_path / "ours.nii.gz").read_bytes()
    assert gzip.decompress(ours) == gzip.decompress((tmp_path / "by_nibabel.nii.gz").read_bytes())
    assert ours == (tmp_path / "again.nii.gz").read_bytes() and ours[4:8] == b"\0\0\0\0"   # no time
    assert gzip_bytes(b"") and gzip.decompress(gzip_bytes(b"")) == b""
    # an uncompressed volume is written by nibabel itself
    save_volume(img, tmp_path / "plain.nii")
    assert np.array_equal(np.asanyarray(nib.load(str(tmp_path / "plain.nii")).dataobj), volume)
    # a form mutant through it: every second slice, z spacing doubled, read back by nibabel
    assert every_second_slice(tmp_path / "ours.nii.gz")
    moved = nib.load(str(tmp_path / "ours.nii.gz"))
    assert moved.shape == (18, 14, 5) and np.array_equal(np.asanyarray(moved.dataobj), volume[:, :, ::2])
    assert np.allclose(moved.affine, np.diag([0.8, 0.8, 6.0, 1.0]))


def test_the_re_encoded_volume_holds_the_same_content_in_other_bytes(tmp_path):
    re_encoded = next(m for m in BENIGN if m.name == "re_encoded")
    path = tmp_path / "mask.nii.gz"
    nib.save(nib.Nifti1Image((np.arange(600).reshape(10, 6, 10) % 3).astype(np.uint8), np.eye(4)), str(path))
    before = path.read_bytes()
    assert re_encoded.apply({"mask.nii.gz": path})
    assert path.read_bytes() != before and gzip.decompress(path.read_bytes()) == gzip.decompress(before)
