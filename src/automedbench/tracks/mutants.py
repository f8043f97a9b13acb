"""Mutants: broken (malign) and re-encoded (benign) versions of one unit's output files.

The judge decides whether a call looked at an output by experiment (docs/judge.md "Experiments"):
the call is replayed on copies of the workspace in which the unit files it read were replaced
by mutants. A benign mutant holds the same content in other bytes (re-compressed, re-indented,
rows reordered where order means nothing); a malign mutant is what a track's experts would call
broken (an empty mask, an image in the wrong units, boxes outside the image). A track declares
its malign mutants as data (`Track.mutants`, a list of `Mutant`); the benign ones follow from
the file kinds and are the same for every track.

A mutant edits the files of one unit in place: `apply(files)` receives the unit's files by their
contract name (host paths in a throwaway copy) and returns whether it changed anything (a mutant
that cannot apply -- one class for all on a one-row file -- changes nothing and is left out).
"""
from __future__ import annotations

import csv
import gzip
import io
import json
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

_deflate: ModuleType
try:
    from isal import isal_zlib as _deflate
except ImportError:  # pragma: no cover - isal is a dependency; it ships wheels for the usual platforms
    _deflate = zlib

UnitFiles = dict[str, Path]        # contract file name -> host path of the file in the copy
Apply = Callable[[UnitFiles], bool]
VoxelEdit = Callable[[np.ndarray], "np.ndarray | None"]


@dataclass(frozen=True)
class Mutant:
    name: str                      # short id, e.g. "empty", "flipped_z"
    description: str               # what is broken, in an expert's words (docs and verdicts show it)
    apply: Callable[[UnitFiles], bool]
    malign: bool = True
    # what the mutant breaks: "content" (values, labels, answers, boxes) or "form" (the grid, the
    # shape, how many items a list holds, whether there is anything at all, which id an answer is
    # filed under). Killing only form mutants is a look at the shape, not at the content: no
    # inspection (docs/judge.md "Verdicts")
    aspect: str = "content"


# ---- file editors: decode, change the content, encode the same way --------------------------

def _is_volume(p: Path) -> bool:
    return p.name.endswith((".nii", ".nii.gz"))


def edit_volume(path: Path, fn: Callable[[np.ndarray], np.ndarray | None], affine: Any = None) -> bool:
    """Replace a NIfTI volume's voxels with `fn(voxels)` (None: leave it), keeping its header,
    affine and data type (or `affine` when given: a wrong grid)."""
    import nibabel as nib

    img: Any = nib.load(str(path))
    data = np.asanyarray(img.dataobj)
    new = fn(data)
    if new is None:
        return False
    header = img.header.copy()
    out = nib.Nifti1Image(np.asarray(new).astype(data.dtype, copy=False),
                          img.affine if affine is None else affine, header)
    if affine is not None:
        out.set_qform(affine)
        out.set_sform(affine)
    before = path.read_bytes()
    save_volume(out, path)
    return path.read_bytes() != before


def gzip_bytes(raw: bytes) -> bytes:
    """`raw` as a gzip file of one member, without a name or a time (a mutant is a function of
    its files' bytes: no clock), deflated by ISA-L at its level 1 where installed: about ten
    times zlib's level 1 on a 10 MB volume, which was most of a volume mutant's cost
    (docs/judge.md "What replays cost")."""
    comp = _deflate.compressobj(1, zlib.DEFLATED, -15)
    body = comp.compress(raw) + comp.flush()
    trailer = zlib.crc32(raw).to_bytes(4, "little") + (len(raw) & 0xFFFFFFFF).to_bytes(4, "little")
    return b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff" + body + trailer


def save_volume(img: Any, path: Path) -> None:
    """A NIfTI image written as `nib.save` writes it, a .nii.gz compressed by `gzip_bytes`."""
    if path.name.lower().endswith(".gz"):
        path.write_bytes(gzip_bytes(img.to_bytes()))
        return
    import nibabel as nib
    nib.save(img, str(path))


def every_second_slice(path: Path) -> bool:
    """A volume moved to another grid: every second slice along z, its z spacing doubled (a
    form mutant: a look at the shape or the affine sees it; docs/judge.md "Experiments")."""
    import nibabel as nib

    img: Any = nib.load(str(path))
    if len(img.shape) != 3 or img.shape[2] < 2:
        return False
    affine = np.array(img.affine, dtype=np.float64)
    affine[:3, 2] *= 2.0
    return edit_volume(path, lambda a: np.ascontiguousarray(a[:, :, ::2]), affine=affine)


def edit_array(path: Path, fn: Callable[[np.ndarray], np.ndarray | None]) -> bool:
    data = np.load(path, allow_pickle=False)
    new = fn(data)
    if new is None:
        return False
    np.save(path, np.asarray(new).astype(data.dtype, copy=False))
    return True


def edit_json(path: Path, fn: Callable[[Any], Any]) -> bool:
    """Replace a JSON document with `fn(document)`; None or the same document: no change."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    new = fn(json.loads(json.dumps(doc)))
    if new is None or new == doc:
        return False
    path.write_text(json.dumps(new), encoding="utf-8")
    return True


def edit_csv(path: Path, fn: Callable[[list[str], list[dict[str, str]]], list[dict[str, str]] | None]) -> bool:
    """Replace a CSV's data rows with `fn(header, rows)`; the header is kept."""
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        header = list(reader.fieldnames or [])
        rows = list(reader)
    new = fn(header, [dict(r) for r in rows])
    if new is None or new == rows:
        return False
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=header, lineterminator="\n")
    writer.writeheader()
    writer.writerows(new)
    path.write_text(buf.getvalue(), encoding="utf-8")
    return True


def edit_text(path: Path, fn: Callable[[str], str | None]) -> bool:
    text = path.read_text(encoding="utf-8", errors="replace")
    new = fn(text)
    if new is None or new == text:
        return False
    path.write_text(new, encoding="utf-8")
    return True


def each(kind: Callable[[Path], bool], edit: Callable[[Path], bool]) -> Callable[[UnitFiles], bool]:
    """A mutant's `apply` that edits every file of the unit for which `kind(path)` holds."""
    def apply(files: UnitFiles) -> bool:
        changed = False
        for p in files.values():
            if kind(p):
                changed = edit(p) or changed
        return changed
    return apply


def any_file(p: Path) -> bool:
    return True


# ---- benign: the same content in other bytes (every track) ------------------------------------

def _recompress(path: Path) -> bool:
    """A gzip file decompressed and compressed again at another level, without a name or time:
    the same content, other bytes."""
    raw = gzip.decompress(path.read_bytes())
    old = path.read_bytes()
    new = gzip_bytes(raw)
    if new != old:
        path.write_bytes(new)
        return True
    for level in (1, 6, 9, 3):
        new = gzip.compress(raw, compresslevel=level, mtime=0)
        if new != old:
            path.write_bytes(new)
            return True
    # the same bytes at every level: a raw deflate stream in a gzip member with a comment flag
    comp = zlib.compressobj(1, zlib.DEFLATED, -15)
    body = comp.compress(raw) + comp.flush()
    header = b"\x1f\x8b\x08\x10\x00\x00\x00\x00\x00\xff" + b"re-encoded\x00"
    trailer = zlib.crc32(raw).to_bytes(4, "little") + (len(raw) & 0xFFFFFFFF).to_bytes(4, "little")
    path.write_bytes(header + body + trailer)
    return True


def _reencode(path: Path) -> bool:
    """The file's content in other bytes, by its kind; False when the kind has no such encoding."""
    name = path.name.lower()
    if name.endswith(".gz"):
        return _recompress(path)
    if name.endswith(".nii"):
        # bytes after the voxel data are never read: the same volume, another file
        path.write_bytes(path.read_bytes() + b"\0" * 16)
        return True
    if name.endswith(".npy"):
        a = np.load(path, allow_pickle=False)
        if a.ndim < 2:
            return False
        np.save(path, np.asfortranarray(a))
        return True
    if name.endswith(".png"):
        from PIL import Image
        old = path.read_bytes()
        with Image.open(path) as im:
            im.load()
            for level in (1, 9, 3):
                im.save(path, format="PNG", compress_level=level)
                if path.read_bytes() != old:
                    return True
        return False
    if name.endswith(".json"):
        doc = json.loads(path.read_text(encoding="utf-8"))
        path.write_text(json.dumps(_reordered(doc), indent=3, sort_keys=True) + "\n", encoding="utf-8")
        return True
    if name.endswith((".csv", ".tsv")):
        lines = path.read_text(encoding="utf-8").splitlines()
        if len(lines) < 2:
            return False
        path.write_text("\r\n".join([lines[0], *reversed(lines[1:])]) + "\r\n", encoding="utf-8")
        return True
    if name.endswith((".txt", ".md")):
        text = path.read_text(encoding="utf-8", errors="replace")
        path.write_text(text.replace("\r\n", "\n").replace("\n", "\r\n") + "\r\n", encoding="utf-8")
        return True
    return False


PAD_BYTES = 8192     # enough to change a file's size by whole disk blocks


def _one_member(data: bytes) -> tuple[bytes, bytes] | None:
    """A gzip file of one member as its deflate stream and its trailer (CRC-32 and size, checked
    against the stream inflated), or None (several members, or not a gzip file this reads)."""
    if len(data) < 18 or data[:3] != b"\x1f\x8b\x08":
        return None
    flags, at = data[3], 10
    try:
        if flags & 4:                                   # FEXTRA
            at += 2 + int.from_bytes(data[at:at + 2], "little")
        for flag in (8, 16):                            # FNAME, FCOMMENT: zero-terminated
            if flags & flag:
                at = data.index(b"\0", at) + 1
        if flags & 2:                                   # FHCRC
            at += 2
        inflate = zlib.decompressobj(-15)
        raw = inflate.decompress(data[at:]) + inflate.flush()
    except (ValueError, zlib.error):
        return None
    trailer = data[len(data) - 8:]
    if not inflate.eof or inflate.unused_data != trailer or trailer != (
            zlib.crc32(raw).to_bytes(4, "little") + (len(raw) & 0xFFFFFFFF).to_bytes(4, "little")):
        return None
    return data[at:len(data) - 8], trailer


def _padded(path: Path) -> bool:
    """The file's content with room added that every reader skips: a gzip extra field, bytes
    after a volume's voxels, spaces in an array's header, indentation, quotes, blank lines. A
    second benign mutant, so a value that follows the bytes (a size, a block count) changes
    under some benign mutant even where the first kept it."""
    name = path.name.lower()
    if name.endswith(".gz"):
        data = path.read_bytes()
        # the file's own compressed stream kept (nothing compressed again: a large volume's
        # deflate is most of what this mutant would cost); a file of several members is one again
        member = _one_member(data)
        if member is None:
            raw = gzip.decompress(data)
            comp = zlib.compressobj(6, zlib.DEFLATED, -15)
            member = (comp.compress(raw) + comp.flush(),
                      zlib.crc32(raw).to_bytes(4, "little") + (len(raw) & 0xFFFFFFFF).to_bytes(4, "little"))
        extra = b"AB" + PAD_BYTES.to_bytes(2, "little") + b"\0" * PAD_BYTES
        header = b"\x1f\x8b\x08\x04\x00\x00\x00\x00\x00\xff" + len(extra).to_bytes(2, "little") + extra
        path.write_bytes(header + member[0] + member[1])
        return True
    if name.endswith(".nii"):
        path.write_bytes(path.read_bytes() + b"\0" * PAD_BYTES)
        return True
    if name.endswith(".npy"):
        a = np.load(path, allow_pickle=False)
        if a.dtype.hasobject:
            return False
        a = np.ascontiguousarray(a)
        text = repr({"descr": np.lib.format.dtype_to_descr(a.dtype), "fortran_order": False, "shape": a.shape})
        size = len(text) + PAD_BYTES
        size += (64 - (10 + size + 1) % 64) % 64
        header = (text + " " * (size - len(text)) + "\n").encode("latin1")
        path.write_bytes(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header + a.tobytes())
        return True
    if name.endswith(".json"):
        doc = json.loads(path.read_text(encoding="utf-8"))
        path.write_text(json.dumps(doc, indent=8) + "\n" * 64, encoding="utf-8")
        return True
    if name.endswith((".csv", ".tsv")):
        delimiter = "\t" if name.endswith(".tsv") else ","
        with open(path, newline="", encoding="utf-8") as fh:
            rows = list(csv.reader(fh, delimiter=delimiter))
        buf = io.StringIO()
        csv.writer(buf, delimiter=delimiter, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(rows)
        path.write_text(buf.getvalue(), encoding="utf-8")
        return True
    if name.endswith((".txt", ".md")):
        text = path.read_text(encoding="utf-8", errors="replace")
        path.write_text("\n" * 8 + text.rstrip() + "\n" * 64, encoding="utf-8")
        return True
    return False


def _reordered(doc: Any) -> Any:
    """Lists of objects (boxes, rows) in reverse order: their order means nothing."""
    if isinstance(doc, dict):
        return {k: _reordered(v) for k, v in doc.items()}
    if isinstance(doc, list) and len(doc) > 1 and all(isinstance(x, dict) for x in doc):
        return [_reordered(x) for x in reversed(doc)]
    return doc


BENIGN: list[Mutant] = [
    Mutant("re_encoded", "the same content in other bytes (re-compressed, re-indented, rows reordered, "
           "CRLF line ends)", each(any_file, _reencode), malign=False),
    Mutant("padded", "the same content with room every reader skips (a gzip extra field, header spaces, "
           "indentation, quotes, blank lines)", each(any_file, _padded), malign=False),
]


# ---- malign defaults for a track that declares none ------------------------------------------

def _emptied(path: Path) -> bool:
    name = path.name.lower()
    if _is_volume(path):
        return edit_volume(path, lambda a: np.zeros_like(a) if a.any() else None)
    if name.endswith(".npy"):
        return edit_array(path, lambda a: np.zeros_like(a) if a.any() else None)
    if name.endswith(".json"):
        return edit_json(path, lambda d: {} if isinstance(d, dict) else [])
    if name.endswith((".csv", ".tsv")):
        return edit_csv(path, lambda h, rows: [])
    return edit_text(path, lambda t: "")


GENERIC_MALIGN: list[Mutant] = [
    Mutant("emptied", "every value zero, no rows, no text", each(any_file, _emptied)),
]


# ---- inputs: what a compatibility check should notice (docs/judge.md "Experiments": s2b) ------------

def _halved(doc: Any) -> Any:
    """A JSON document with every list and every object of more than one entry cut to its first
    half: the same kind of document, another structure (its `options`, its `images`)."""
    if isinstance(doc, list):
        return [_halved(x) for x in doc[: max(1, len(doc) // 2)]]
    if isinstance(doc, dict):
        keys = list(doc)[: max(1, len(doc) // 2)] if len(doc) > 1 else list(doc)
        return {k: _halved(doc[k]) for k in keys}
    return doc


def _altered(doc: Any) -> Any:
    """A JSON document with every number x2 + 100 and every string reversed: its values, not its
    structure, changed."""
    if isinstance(doc, list):
        return [_altered(x) for x in doc]
    if isinstance(doc, dict):
        return {k: _altered(v) for k, v in doc.items()}
    if isinstance(doc, bool) or doc is None:
        return doc
    if isinstance(doc, (int, float)):
        return doc * 2 + 100
    return doc[::-1] if isinstance(doc, str) else doc


def _resliced(path: Path) -> bool:
    """The input on another grid: every second slice (volumes; z spacing doubled), every second
    row (arrays), the left half (images), half of each list and object (a JSON document)."""
    name = path.name.lower()
    if name.endswith(".json"):
        return edit_json(path, _halved)
    if _is_volume(path):
        import nibabel as nib
        img: Any = nib.load(str(path))
        if len(img.shape) < 3 or img.shape[2] < 2:
            return False
        affine = np.array(img.affine, dtype=np.float64)
        affine[:3, 2] *= 2.0
        return edit_volume(path, lambda a: np.ascontiguousarray(a[:, :, ::2]), affine=affine)
    if name.endswith(".npy"):
        return edit_array(path, lambda a: np.ascontiguousarray(a[::2]) if a.ndim and a.shape[0] > 1 else None)
    if name.endswith((".png", ".jpg", ".jpeg", ".tif", ".tiff", ".bmp")):
        from PIL import Image
        with Image.open(path) as im:
            im.load()
            if im.width < 2:
                return False
            im.crop((0, 0, im.width // 2, im.height)).save(path, format=im.format)
        return True
    return False


def _rescaled(path: Path) -> bool:
    """The input in other units: values x2 + 100 (volumes, arrays, a JSON document's numbers, its
    strings reversed), inverted (images)."""
    name = path.name.lower()
    if name.endswith(".json"):
        return edit_json(path, _altered)
    if _is_volume(path):
        import nibabel as nib
        img: Any = nib.load(str(path))
        data = np.asanyarray(img.dataobj).astype(np.float32) * 2 + 100
        header = img.header.copy()
        header.set_data_dtype(np.float32)
        save_volume(nib.Nifti1Image(data, img.affine, header), path)
        return True
    if name.endswith(".npy"):
        a = np.load(path, allow_pickle=False)
        if a.dtype.kind not in "iuf":
            return False
        np.save(path, (a.astype(np.float64) * 2 + 100).astype(a.dtype if a.dtype.kind == "f" else np.float32))
        return True
    if name.endswith((".png", ".jpg", ".jpeg", ".tif", ".tiff", ".bmp")):
        from PIL import Image, ImageOps
        with Image.open(path) as im:
            im.load()
            fmt = im.format
            out = ImageOps.invert(im.convert("RGB")).convert(im.mode) if im.mode in ("L", "RGB") else None
        if out is None:
            return False
        out.save(path, format=fmt)
        return True
    return False


INPUT_MUTANTS: list[Mutant] = [
    Mutant("input_resliced", "the input on another grid (every second slice, row, or half the image; half of "
           "each list and object of a JSON document)",
           each(any_file, _resliced), aspect="form"),
    Mutant("input_rescaled", "the input in other units (values x2 + 100, or an image inverted; a JSON "
           "document's numbers x2 + 100 and strings reversed)",
           each(any_file, _rescaled)),
]
