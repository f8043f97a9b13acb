import gzip

import nibabel as nib
import numpy as np
import pytest
from tests.helpers import save_nii, truncate

from automedbench.tracks.nifti_io import NiftiReadError, read_nifti


def test_matches_nibabel_exactly(tmp_path):
    data = np.random.default_rng(0).integers(0, 3, (17, 9, 5)).astype(np.uint8)
    aff = np.diag([0.8, 0.8, 2.5, 1])
    p = save_nii(tmp_path / "a.nii.gz", data, aff)
    arr, affine = read_nifti(p)
    assert arr.dtype == np.uint8
    np.testing.assert_array_equal(arr, nib.load(str(p)).get_fdata().astype(np.uint8))
    np.testing.assert_allclose(affine, aff)


def test_uncompressed_nii(tmp_path):
    data = np.arange(24, dtype=np.int16).reshape(2, 3, 4)
    p = save_nii(tmp_path / "a.nii", data)
    np.testing.assert_array_equal(read_nifti(p)[0], data)


def test_scaled_data_is_applied(tmp_path):
    img = nib.Nifti1Image(np.arange(8, dtype=np.int16).reshape(2, 2, 2), np.eye(4))
    img.header.set_slope_inter(2.0, 1.0)
    p = tmp_path / "s.nii.gz"
    nib.save(img, str(p))
    np.testing.assert_allclose(read_nifti(p)[0], nib.load(str(p)).get_fdata())


@pytest.mark.parametrize("keep", [0.1, 0.5, 0.95])
def test_truncated_gzip_is_a_clear_error(tmp_path, keep):
    p = save_nii(tmp_path / "t.nii.gz", np.ones((30, 30, 30), np.uint8) * np.arange(30, dtype=np.uint8))
    truncate(p, keep)
    with pytest.raises(NiftiReadError, match="truncated|gzip|short"):
        read_nifti(p)


def test_garbage_and_non_nifti(tmp_path):
    (tmp_path / "g.nii.gz").write_bytes(b"\x1f\x8bnot really gzip")
    with pytest.raises(NiftiReadError):
        read_nifti(tmp_path / "g.nii.gz")
    (tmp_path / "t.nii.gz").write_bytes(gzip.compress(b"hello" * 200))
    with pytest.raises(NiftiReadError, match="NIfTI|shape"):
        read_nifti(tmp_path / "t.nii.gz")
    with pytest.raises(NiftiReadError, match="cannot read"):
        read_nifti(tmp_path / "missing.nii.gz")


def test_header_promising_more_than_file_holds(tmp_path):
    p = save_nii(tmp_path / "a.nii", np.zeros((4, 4, 4), np.uint8))
    raw = bytearray(p.read_bytes())
    p.write_bytes(bytes(raw[:-10]))
    with pytest.raises(NiftiReadError, match="truncated voxel data"):
        read_nifti(p)
