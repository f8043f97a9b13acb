"""A minimal MetaImage (.mha / .mhd) reader for the SynthRAD stager — no SimpleITK needed.

Supports what SynthRAD2025 ships: a text header (``Key = Value`` lines) ending with
``ElementDataFile = LOCAL`` (data follows in the same file) or a file name (.raw/.zraw next
to the header), MET_{U,}{CHAR,SHORT,INT,FLOAT,DOUBLE} element types, little/big endian,
``CompressedData = True`` (zlib). Returns voxels in (x, y, z) order and the NIfTI (RAS)
affine built from Offset, ElementSpacing and TransformMatrix (MetaImage is LPS).
"""
from __future__ import annotations

import zlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np

_TYPES = {"MET_UCHAR": "u1", "MET_CHAR": "i1", "MET_USHORT": "u2", "MET_SHORT": "i2",
          "MET_UINT": "u4", "MET_INT": "i4", "MET_FLOAT": "f4", "MET_DOUBLE": "f8"}
MAX_VOXELS = 1_000_000_000


class MetaImageError(ValueError):
    pass


def read_mha(path: Path | str) -> tuple[np.ndarray, np.ndarray]:
    path = Path(path)
    raw = path.read_bytes()
    header: dict[str, str] = {}
    pos = 0
    while True:
        end = raw.find(b"\n", pos)
        if end < 0:
            raise MetaImageError(f"{path.name}: header has no ElementDataFile line")
        line = raw[pos:end].decode("latin-1").strip()
        pos = end + 1
        if "=" in line:
            k, v = (s.strip() for s in line.split("=", 1))
            header[k] = v
            if k == "ElementDataFile":
                break
        if pos > 65536:
            raise MetaImageError(f"{path.name}: not a MetaImage header")
    try:
        dims = [int(d) for d in header["DimSize"].split()]
        dtype = np.dtype(_TYPES[header["ElementType"]])
    except KeyError as exc:
        raise MetaImageError(f"{path.name}: missing or unsupported header field {exc}") from None
    if header.get("ElementNumberOfChannels", "1") != "1":
        raise MetaImageError(f"{path.name}: multi-channel images are not supported")
    if header.get("BinaryDataByteOrderMSB", header.get("ElementByteOrderMSB", "False")).lower() == "true":
        dtype = dtype.newbyteorder(">")
    count = int(np.prod(dims))
    if not 0 < count <= MAX_VOXELS:
        raise MetaImageError(f"{path.name}: implausible DimSize {dims}")
    data_file = header["ElementDataFile"]
    data = raw[pos:] if data_file == "LOCAL" else (path.parent / data_file).read_bytes()
    if header.get("CompressedData", "False").lower() == "true":
        try:
            data = zlib.decompress(data)
        except zlib.error as exc:
            raise MetaImageError(f"{path.name}: corrupt compressed data: {exc}") from None
    if len(data) < count * dtype.itemsize:
        raise MetaImageError(f"{path.name}: truncated voxel data ({len(data)} of {count * dtype.itemsize} bytes)")
    arr = np.frombuffer(data, dtype=dtype, count=count).reshape(dims[::-1]).transpose()  # (x, y, z)
    spacing = [float(s) for s in header.get("ElementSpacing", " ".join(["1"] * len(dims))).split()]
    offset = [float(s) for s in header.get("Offset", header.get("Position", " ".join(["0"] * len(dims)))).split()]
    tm = header.get("TransformMatrix", header.get("Rotation"))
    direction = np.array([float(s) for s in tm.split()]).reshape(3, 3).T if tm else np.eye(3)
    lps = np.eye(4)
    lps[:3, :3] = direction[: len(dims), : len(dims)] * np.array(spacing[:3])
    lps[:3, 3] = offset[:3]
    ras = np.diag([-1.0, -1.0, 1.0, 1.0]) @ lps
    return np.asarray(arr), ras


def write_mha(path: Path | str, volume: np.ndarray, spacing: Sequence[float] = (1.0, 1.0, 1.0),
              offset: Sequence[float] = (0.0, 0.0, 0.0),
              compressed: bool = True) -> None:
    """Write a MetaImage (used by tests to lay out a SynthRAD-like tree)."""
    types = {v: k for k, v in _TYPES.items()}
    vol = np.asarray(volume)
    body = np.ascontiguousarray(vol.transpose()).astype(vol.dtype.newbyteorder("<")).tobytes()
    if compressed:
        body = zlib.compress(body)
    head = ["ObjectType = Image", "NDims = 3", "BinaryData = True", "BinaryDataByteOrderMSB = False",
            f"CompressedData = {compressed}", "TransformMatrix = 1 0 0 0 1 0 0 0 1",
            f"Offset = {' '.join(map(str, offset))}", f"ElementSpacing = {' '.join(map(str, spacing))}",
            f"DimSize = {' '.join(map(str, vol.shape))}", f"ElementType = {types[vol.dtype.str.lstrip('<>|=')]}",
            "ElementDataFile = LOCAL"]
    Path(path).write_bytes(("\n".join(head) + "\n").encode() + body)
