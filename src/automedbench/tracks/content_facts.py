"""Facts about a file's content, computed by the harness, and which of them a call printed
(docs/judge.md "Content facts").

Reading a file is not looking at it: printing its sha256, its size or its name opens it and
prints something, yet says nothing of what it holds. So the judge compares what a call printed
with facts the harness computes itself from the file:

  volume (.nii, .nii.gz)   shape, dtype, voxel spacing
  array (.npy)             shape, dtype
  image (.png .jpg .jpeg .tif .tiff .bmp)  size (width, height; either order, channels may
                           follow), mode
  table (.csv .tsv)        number of data rows, column names
  object (.json)           keys (top level and one level in), the length of its list, a
                           sample of its values

A fact is *specific* when guessing it is unlikely (a shape, an image size, a row count, the
column or key names); dtype, mode and spacing are supporting facts only ("float32" is a good
guess for any CT). A number is matched only as a whole token (not inside a hex digest: `a64b`
holds no 64), and a shape only as its numbers in order (or reversed) with only brackets,
commas, spaces or `x` between them.
"""
from __future__ import annotations

import csv
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import numpy as np

SPECIFIC = ("shape", "size", "rows", "columns", "keys", "length", "values")
MAX_TABLE_BYTES = 64 << 20      # larger tables are not read for their row count
_SEP = r"[\s,x×*\[\]()]+"
_IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".tif", ".tiff", ".bmp")


@dataclass(frozen=True)
class ContentFacts:
    kind: str                                   # volume | array | image | table | object
    facts: dict[str, Any] = field(default_factory=dict)


def suffix_of(path: Path) -> str:
    """A file's kind as its suffix, lower-cased; `.nii.gz` whole."""
    name = path.name.lower()
    return ".nii.gz" if name.endswith(".nii.gz") else path.suffix.lower()


def describe(path: Path) -> ContentFacts | None:
    """The content facts of the file at `path` (a host path), or None when its kind has no
    describer or it cannot be read."""
    try:
        return _describe(path, suffix_of(path))
    except Exception:   # unreadable, truncated, not what its suffix says: nothing to compare with
        return None


def _describe(path: Path, suffix: str) -> ContentFacts | None:
    if suffix in (".nii", ".nii.gz"):
        import nibabel as nib      # the harness's own dependency; loaded only for volumes
        img = cast(nib.Nifti1Image, nib.load(str(path)))
        zooms = tuple(round(float(z), 4) for z in img.header.get_zooms()[:3])
        return ContentFacts("volume", {"shape": tuple(int(d) for d in img.shape),
                                       "dtype": str(img.get_data_dtype()), "spacing": zooms})
    if suffix == ".npy":
        arr = np.load(path, mmap_mode="r", allow_pickle=False)
        return ContentFacts("array", {"shape": tuple(int(d) for d in arr.shape), "dtype": str(arr.dtype)})
    if suffix in _IMAGE_SUFFIXES:
        from PIL import Image
        with Image.open(path) as im:
            return ContentFacts("image", {"size": tuple(int(d) for d in im.size), "mode": im.mode})
    if suffix in (".csv", ".tsv"):
        if path.stat().st_size > MAX_TABLE_BYTES:
            return None
        with open(path, newline="", errors="replace") as fh:
            rows = list(csv.reader(fh, delimiter="\t" if suffix == ".tsv" else ","))
        header = [c.strip() for c in rows[0]] if rows else []
        return ContentFacts("table", {"rows": max(len(rows) - 1, 0), "columns": tuple(c for c in header if c)})
    if suffix == ".json":
        return _json_facts(json.loads(path.read_text(errors="replace")))
    return None


def _array(path: Path, suffix: str) -> np.ndarray | None:
    if suffix in (".nii", ".nii.gz"):
        import nibabel as nib
        return np.asarray(cast(nib.Nifti1Image, nib.load(str(path))).dataobj)
    if suffix == ".npy":
        return np.asarray(np.load(path, allow_pickle=False))
    if suffix in _IMAGE_SUFFIXES:
        from PIL import Image
        with Image.open(path) as im:
            return np.asarray(im)
    return None


def same_kind(a: Path, b: Path) -> bool:
    """Whether two files are of one kind by their suffixes (a compressed and a plain volume
    count as one)."""
    ka, kb = suffix_of(a), suffix_of(b)
    return ka == kb or {ka, kb} <= {".nii", ".nii.gz"}


# words shaped like method names that name file formats, modalities or libraries instead
# (scoring/judge/plan_facts.py: they are not candidate methods)
NOT_METHOD_NAMES = frozenset({"nifti", "dicom", "json", "csv", "png", "jpeg", "numpy", "scipy", "pytorch", "torch",
                              "mri", "ct", "gpu", "cpu", "cuda", "t1", "t2", "flair", "s1", "s2", "s3", "s4", "s5",
                              "id", "ids", "2d", "3d", "2-d", "3-d", "x4", "float32", "uint8", "int64", "rgb", "hu",
                              "roi", "api", "ipython", "matplotlib", "nibabel", "pandas", "skimage", "sklearn",
                              "opencv", "pil"})


def same_content(a: Path, b: Path) -> bool:
    """Whether two files of the same kind hold the same array (a volume re-saved, an image
    re-encoded): what an output that is the input copied looks like after a save. False when
    either cannot be read or their kinds differ."""
    if not same_kind(a, b):
        return False
    kind_a, kind_b = suffix_of(a), suffix_of(b)
    try:
        x, y = _array(a, kind_a), _array(b, kind_b)
    except Exception:   # unreadable: not the same content as far as anyone can tell
        return False
    return x is not None and y is not None and x.shape == y.shape and bool(np.array_equal(x, y))


def _json_leaves(x: Any, out: list[str], depth: int = 0) -> None:
    """A sample of the scalar values (numbers of 2+ digits, strings of 3+ characters)."""
    if len(out) >= 30 or depth > 3 or isinstance(x, bool) or x is None:
        return
    if isinstance(x, dict):
        for v in x.values():
            _json_leaves(v, out, depth + 1)
    elif isinstance(x, list):
        for v in x[:10]:
            _json_leaves(v, out, depth + 1)
    elif isinstance(x, (int, float)) and len(f"{x:g}".lstrip("-").replace(".", "")) >= 2:
        out.append(f"{x:g}")
    elif isinstance(x, str) and len(x) >= 3:
        out.append(x)


def _json_keys_and_length(data: dict[str, Any] | list[Any]) -> tuple[list[str], int | None]:
    """Keys at the top and one level in (a dict's dict values, a list's first dict), and the
    length of the top-level list or of the first list value."""
    if isinstance(data, list):
        return ([str(k) for k in data[0]] if data and isinstance(data[0], dict) else []), len(data)
    keys, length = [str(k) for k in data], None
    for v in data.values():
        inner = v[0] if isinstance(v, list) and v else v
        if isinstance(inner, dict):
            keys += [str(k) for k in inner if str(k) not in keys]
        if isinstance(v, list) and length is None:
            length = len(v)
    return keys, length


def _json_facts(data: Any) -> ContentFacts | None:
    if not isinstance(data, (dict, list)):
        return None
    keys, length = _json_keys_and_length(data)
    values: list[str] = []
    _json_leaves(data, values)
    facts: dict[str, Any] = {}
    if keys:
        facts["keys"] = tuple(keys[:50])
    if length is not None:
        facts["length"] = length
    if values:
        facts["values"] = tuple(dict.fromkeys(values))
    return ContentFacts("object", facts)


def _number(value: float | int) -> str:
    text = f"{value:g}" if isinstance(value, float) else str(value)
    return rf"(?<![\w.]){re.escape(text)}(?:\.0+)?(?![\w.])" if "." not in text else \
        rf"(?<![\w.]){re.escape(text)}0*(?![\w.])"


def _sequence(values: tuple[int, ...], text: str) -> bool:
    """The numbers in order (or reversed), only separators between them; the first and the last
    not glued to a word (inside, an `x` separator may touch them: 99x117x95)."""
    if not values:
        return False
    for order in (values, tuple(reversed(values))):
        inner = _SEP.join(r"(?<!\d)" + str(v) + r"(?!\d)" for v in order)
        if re.search(r"(?<![\w.])" + inner + r"(?![\w.])", text):
            return True
    return False


def printed(text: str, content: ContentFacts) -> list[str]:
    """The names of `content`'s facts that `text` (what a call printed) states."""
    found = []
    f = content.facts
    for name in ("shape", "size"):
        dims = f.get(name)
        if dims and len(dims) >= 2 and _sequence(tuple(dims), text):
            found.append(name)
    if "dtype" in f and re.search(rf"(?<![\w]){re.escape(f['dtype'])}(?![\w])", text):
        found.append("dtype")
    if "mode" in f and re.search(rf"mode\W{{0,4}}{re.escape(f['mode'])}(?![\w])", text):
        found.append("mode")
    if "spacing" in f and len(f["spacing"]) >= 2 and all(re.search(_number(z), text) for z in f["spacing"]):
        found.append("spacing")
    if f.get("rows") and re.search(_number(int(f["rows"])), text):
        found.append("rows")
    names = [c for c in f.get("columns", f.get("keys", ())) if len(c) >= 2]
    if len(names) >= 2 and sum(1 for c in names if c in text) >= min(2, len(names)):
        found.append("columns" if "columns" in f else "keys")
    if "length" in f and f["length"] > 1 and re.search(_number(int(f["length"])), text):
        found.append("length")
    elif "length" in f and _small_length_named(text, int(f["length"]), f.get("keys", ())):
        found.append("length")
    vals = f.get("values", ())
    if len(vals) >= 2 and sum(1 for v in vals if re.search(rf"(?<![\w.]){re.escape(v)}(?![\w])", text)) >= 2:
        found.append("values")
    return found


def _small_length_named(text: str, n: int, keys: Any) -> bool:
    """A length of 0 or 1 (an empty output: its only fact) is stated only beside the name of
    what it counts, one of the object's keys: "0 boxes", "boxes: 0", `{'boxes': []}`. A bare 0
    or 1 is printed by chance too often to count."""
    for key in (k for k in keys if len(k) >= 3):
        k = re.escape(key)
        if re.search(rf"(?<![\w.]){n}\s+{k}\b|\b{k}\W{{0,4}}{n}(?![\w.])", text) or \
                (n == 0 and re.search(rf"\b{k}\W{{0,4}}\[\]", text)):
            return True
    return False


def looked_at(text: str, content: ContentFacts | None) -> list[str]:
    """The facts printed, when at least one of them is specific; else [] (a dtype alone, or
    nothing about the content)."""
    if content is None:
        return []
    found = printed(text, content)
    return found if any(n in SPECIFIC for n in found) else []
