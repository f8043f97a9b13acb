"""Stagers for official medical VQA datasets, from a LOCAL copy of each release (never
downloaded or redistributed here). One shared pattern: a per-dataset reader turns the release's
own files into `QARecord`s, and `stage_records` writes public/<qid>/question.json + image(s),
private/<qid>/answer.json and manifest.json.

Covered (reader -> expected local layout under `source`):
  vqa-rad      `VQA_RAD Dataset Public.json` + `VQA_RAD Image Folder/` (OSF release; test split =
               phrase_type test_freeform / test_para)
  slake-en     `Slake1.0/{train,validate,test}.json` + `Slake1.0/imgs/<img_name>`; English only
  pathvqa      `pvqa/qas/<split>/<split>_qa.pkl` + `pvqa/images/<split>/<image>.jpg` (the pickle is
               read with a restricted unpickler: plain containers and strings only)
  pmc-vqa      `test_2.csv` (or `test.csv`) + `images/` (or `figures/`); MCQ, choices "A:text"
  medxpertqa-mm `MM/test.jsonl` (or `test.jsonl`) + `images/`; MCQ, options {A..E}
  omnimedvqa   `QA_information/Open-access/*.json` + image paths relative to the release root; MCQ
Hugging Face parquet releases (need the optional `pyarrow`: pip install 'automedbench[parquet]';
images are embedded as {bytes, path} structs and written out as files):
  kvasir-vqa   `**/*.parquet` with image, question, answer, img_id (open-ended; no official split)
  medframeqa   `**/test-*.parquet` with question, options (list), correct_answer, image_1..image_5
  mmmu-med     `<Subject>/<split>-*.parquet` for the Health & Medicine subjects (Basic Medical
               Science, Clinical Medicine, Diagnostics and Laboratory Medicine, Pharmacy, Public
               Health); options = a Python-literal list, answer = letter (MCQ) or text (open);
               default split `validation` (the test answers are not public)
"""
from __future__ import annotations

import ast
import csv
import io
import json
import pickle
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ....data import DatasetError, DatasetPaths, link_or_copy, source_root, write_manifest

Progress = Callable[[int, int, str], None]
YES_NO = {"yes", "no"}


@dataclass
class QARecord:
    qid: str
    question: str
    images: list[Path | bytes]         # files, or image bytes embedded in the release (parquet)
    answer: str
    question_type: str = "unknown"
    answer_type: str = "open"          # open | closed (yes/no) | mcq
    options: dict[str, str] | None = None
    label: str | None = None
    alternatives: list[str] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)


def safe_id(text: str) -> str:
    """A question id that can name a case folder (others' characters become _)."""
    return re.sub(r"[^A-Za-z0-9_.-]", "_", str(text)).strip("._") or "q"


def stage_records(paths: DatasetPaths, dataset: str, records: Iterable[QARecord], *,
                  description: str, provenance: dict[str, Any], progress: Progress | None = None,
                  limit: int | None = None, link: bool = True) -> dict[str, Any]:
    """Write the records in the benchmark layout. Records whose image is missing are skipped
    and counted in the manifest; duplicate question ids are an error."""
    cases: list[dict[str, Any]] = []
    skipped: list[str] = []
    seen: set[str] = set()
    records = list(records)
    total = len(records) if limit is None else min(limit, len(records))
    for rec in records:
        if limit is not None and len(cases) >= limit:
            break
        qid = safe_id(rec.qid)
        if qid in seen:
            raise DatasetError(f"{dataset}: duplicate question id {qid!r} in the source")
        missing = [str(p) for p in rec.images if not isinstance(p, bytes) and not Path(p).is_file()]
        if not rec.images or missing or not (rec.answer or rec.label):
            skipped.append(qid)
            continue
        seen.add(qid)
        public, private = paths.public / qid, paths.private / qid
        public.mkdir(parents=True)
        private.mkdir(parents=True)
        cases.append(write_record(rec, qid, public, private, lambda src, dst: link_or_copy(src, dst, link)))
        if progress:
            progress(len(cases), total, qid)
    if not cases:
        raise DatasetError(f"{dataset}: no usable question found in the source "
                           f"({len(skipped)} skipped for missing images/answers)")
    return write_manifest(paths, dataset=dataset, description=description, cases=cases,
                          provenance={**provenance, "n_skipped": len(skipped),
                                      "skipped_examples": skipped[:20]})


def write_record(rec: QARecord, qid: str, public: Path, private: Path,
                 place: Callable[[Path, Path], object]) -> dict[str, Any]:
    """One question's files: public/<qid>/question.json + its images (image_0.jpg, ...; `place`
    puts a file of the release there) and private/<qid>/answer.json; returns its manifest entry.
    The folder layouts of these releases write through it too (vqa/folder.py)."""
    public.mkdir(parents=True, exist_ok=True)
    private.mkdir(parents=True, exist_ok=True)
    names = []
    for i, img in enumerate(rec.images):
        if isinstance(img, bytes):
            name = f"image_{i}{_image_suffix(img)}"
            (public / name).write_bytes(img)
        else:
            name = f"image_{i}{Path(img).suffix.lower() or '.img'}"
            place(Path(img), public / name)
        names.append(name)
    q: dict[str, Any] = {"question_id": qid, "question": rec.question, "images": names,
                         "question_type": rec.question_type}
    ref: dict[str, Any] = {"question_id": qid, "question": rec.question, "answer": rec.answer,
                           "alternatives": rec.alternatives, "question_type": rec.question_type,
                           "answer_type": rec.answer_type}
    if rec.options:
        q["options"] = rec.options
        ref.update(options=rec.options, label=rec.label, answer_type="mcq",
                   answer=rec.answer or rec.options.get(rec.label or "", ""))
    (public / "question.json").write_text(json.dumps(q, indent=1, ensure_ascii=False) + "\n")
    (private / "answer.json").write_text(json.dumps(ref, indent=1, ensure_ascii=False) + "\n")
    return {"case_id": qid, "question_type": rec.question_type, "answer_type": ref["answer_type"], **rec.meta}


def _image_suffix(data: bytes) -> str:
    for magic, suffix in ((b"\x89PNG", ".png"), (b"\xff\xd8", ".jpg"), (b"GIF8", ".gif"),
                          (b"BM", ".bmp"), (b"II*\x00", ".tif"), (b"MM\x00*", ".tif")):
        if data.startswith(magic):
            return suffix
    return ".img"


def _find(root: Path, *candidates: str) -> Path:
    """The first candidate that exists under root (tried directly, then searched for)."""
    for c in candidates:
        if (root / c).exists():
            return root / c
    for c in candidates:
        hits = sorted(root.glob(f"**/{c}"))
        if hits:
            return hits[0]
    raise DatasetError(f"{root}: none of {list(candidates)} found (is this the official layout?)")


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8-sig"))
    except (OSError, ValueError) as exc:
        raise DatasetError(f"{path}: unreadable JSON ({exc})") from None


def _closed(answer: str) -> str:
    return "closed" if str(answer).strip().lower() in YES_NO else "open"


# ---- readers ----------------------------------------------------------------------------------
def read_vqa_rad(root: Path, split: str = "test") -> Iterator[QARecord]:
    data = _read_json(_find(root, "VQA_RAD Dataset Public.json"))
    images = _find(root, "VQA_RAD Image Folder")
    for item in data:
        phrase = str(item.get("phrase_type", ""))
        if split == "test" and not phrase.startswith("test"):
            continue
        if split == "train" and phrase.startswith("test"):
            continue
        answer = str(item.get("answer", "")).strip()
        yield QARecord(qid=f"vqarad_{item.get('qid')}", question=str(item.get("question", "")),
                       images=[images / str(item.get("image_name", ""))], answer=answer,
                       question_type=str(item.get("question_type", "unknown")).lower(),
                       answer_type="closed" if str(item.get("answer_type", "")).upper() == "CLOSED"
                       else _closed(answer), meta={"image_organ": item.get("image_organ")})


def read_slake(root: Path, split: str = "test") -> Iterator[QARecord]:
    qa = _find(root, f"Slake1.0/{split}.json", f"{split}.json")
    images = _find(root, "Slake1.0/imgs", "imgs")
    for item in _read_json(qa):
        if item.get("q_lang", "en") != "en":
            continue
        answer = str(item.get("answer", "")).strip()
        yield QARecord(qid=f"slake_{item.get('qid')}", question=str(item.get("question", "")),
                       images=[images / str(item.get("img_name", ""))], answer=answer,
                       question_type=str(item.get("content_type", "unknown")).lower(),
                       answer_type="closed" if str(item.get("answer_type", "")).upper() == "CLOSED"
                       else _closed(answer),
                       meta={"modality": item.get("modality"), "location": item.get("location")})


class _PlainUnpickler(pickle.Unpickler):
    """Refuses every global: a data pickle holds only lists, dicts, strings and numbers."""

    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"refusing to load {module}.{name} from a data pickle")


def read_pathvqa(root: Path, split: str = "test") -> Iterator[QARecord]:
    qa = _find(root, f"pvqa/qas/{split}/{split}_qa.pkl", f"qas/{split}/{split}_qa.pkl", f"{split}_qa.pkl")
    try:
        items = _PlainUnpickler(io.BytesIO(qa.read_bytes())).load()
    except (pickle.UnpicklingError, EOFError, ValueError) as exc:
        raise DatasetError(f"{qa}: not a plain data pickle ({exc})") from None
    image_dir = _find(root, f"pvqa/images/{split}", f"images/{split}")
    for i, item in enumerate(items):
        stem = str(item.get("image", ""))
        image = next((image_dir / f"{stem}{ext}" for ext in ("", ".jpg", ".png", ".jpeg")
                      if (image_dir / f"{stem}{ext}").is_file()), image_dir / f"{stem}.jpg")
        answer = str(item.get("answer", "")).strip()
        yield QARecord(qid=f"pathvqa_{split}_{i:05d}", question=str(item.get("question", "")),
                       images=[image], answer=answer, question_type=_closed(answer) + "_ended",
                       answer_type=_closed(answer))


def _strip_choice(text: str, label: str) -> str:
    return re.sub(rf"^\s*{label}\s*[:.)]\s*", "", str(text)).strip()


def read_pmc_vqa(root: Path, split: str = "test") -> Iterator[QARecord]:
    table = _find(root, f"{split}_2.csv", f"{split}.csv")
    images = _find(root, "images", "figures")
    with open(table, newline="", encoding="utf-8-sig") as fh:
        for i, row in enumerate(csv.DictReader(fh)):
            options = {k: _strip_choice(row.get(f"Choice {k}", ""), k) for k in "ABCD" if row.get(f"Choice {k}")}
            label = str(row.get("Answer_label", "")).strip().upper()[:1]
            if label not in options:
                continue
            yield QARecord(qid=f"pmcvqa_{split}_{i:06d}", question=str(row.get("Question", "")).strip(),
                           images=[images / str(row.get("Figure_path", ""))],
                           answer=options[label], options=options, label=label,
                           question_type="pmc_figure", answer_type="mcq")


def read_medxpertqa_mm(root: Path, split: str = "test") -> Iterator[QARecord]:
    table = _find(root, f"MM/{split}.jsonl", f"{split}.jsonl")
    images = _find(root, "images")
    for line_no, line in enumerate(table.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except ValueError:
            raise DatasetError(f"{table}:{line_no}: malformed JSON line") from None
        options = {str(k).upper(): str(v) for k, v in (item.get("options") or {}).items()}
        label = str(item.get("label", "")).strip().upper()
        if label not in options:
            continue
        yield QARecord(qid=f"medxpertqa_{item.get('id')}", question=str(item.get("question", "")),
                       images=[images / str(n) for n in item.get("images") or []],
                       answer=options[label], options=options, label=label,
                       question_type=str(item.get("question_type", "unknown")).lower(), answer_type="mcq",
                       meta={"medical_task": item.get("medical_task"), "body_system": item.get("body_system")})


def read_omnimedvqa(root: Path, split: str = "open-access") -> Iterator[QARecord]:
    qa_dir = _find(root, "QA_information/Open-access" if split == "open-access" else "QA_information/Restricted-access")
    base = qa_dir.parent.parent
    for file in sorted(qa_dir.glob("*.json")):
        for item in _read_json(file):
            options = {k: str(item[f"option_{k}"]) for k in "ABCDE" if item.get(f"option_{k}") not in (None, "")}
            gt = str(item.get("gt_answer", "")).strip()
            label = next((k for k, v in options.items() if v.strip() == gt), None)
            if label is None:
                continue
            yield QARecord(qid=f"omnimedvqa_{item.get('question_id')}", question=str(item.get("question", "")),
                           images=[base / str(item.get("image_path", ""))], answer=gt, options=options,
                           label=label, question_type=str(item.get("question_type", "unknown")).lower(),
                           answer_type="mcq", meta={"modality": item.get("modality_type"),
                                                    "source_dataset": item.get("dataset")})


# ---- Hugging Face parquet releases -------------------------------------------------------------
MMMU_HEALTH_SUBJECTS = ("Basic_Medical_Science", "Clinical_Medicine", "Diagnostics_and_Laboratory_Medicine",
                        "Pharmacy", "Public_Health")


def _parquet_rows(files: list[Path]) -> Iterator[dict[str, Any]]:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise DatasetError("reading parquet releases needs pyarrow: pip install 'automedbench[parquet]'") from None
    if not files:
        raise DatasetError("no parquet file found (is this the official layout?)")
    for f in files:
        try:
            table = pq.read_table(f)
        except Exception as exc:  # noqa: BLE001 — any pyarrow failure is a bad source file
            raise DatasetError(f"{f}: unreadable parquet ({exc})") from None
        yield from table.to_pylist()


def _image_bytes(cell: Any) -> bytes | None:
    """An HF `Image` cell: {"bytes": ..., "path": ...} (or raw bytes)."""
    if isinstance(cell, (bytes, bytearray)):
        return bytes(cell)
    if isinstance(cell, dict) and cell.get("bytes"):
        return bytes(cell["bytes"])
    return None


def _letters(options: list[str]) -> dict[str, str]:
    return {chr(65 + i): str(o) for i, o in enumerate(options)}


def read_kvasir_vqa(root: Path, split: str = "all") -> Iterator[QARecord]:
    files = sorted(root.glob("**/*.parquet")) if split == "all" else sorted(root.glob(f"**/{split}-*.parquet"))
    for i, row in enumerate(_parquet_rows(files)):
        image = _image_bytes(row.get("image"))
        answer = str(row.get("answer", "")).strip()
        yield QARecord(qid=f"kvasir_{i:06d}_{row.get('img_id', '')}", question=str(row.get("question", "")),
                       images=[image] if image else [], answer=answer, question_type="open_ended",
                       answer_type=_closed(answer), meta={"source_dataset": row.get("source")})


def read_medframeqa(root: Path, split: str = "test") -> Iterator[QARecord]:
    for i, row in enumerate(_parquet_rows(sorted(root.glob(f"**/{split}-*.parquet")))):
        options = _letters(list(row.get("options") or []))
        correct = str(row.get("correct_answer", "")).strip()
        label = correct.upper() if correct.upper() in options else \
            next((k for k, v in options.items() if v.strip() == correct), None)
        if label is None:
            continue
        images: list[Path | bytes] = [b for b in (_image_bytes(row.get(f"image_{k}")) for k in range(1, 6)) if b]
        yield QARecord(qid=f"medframeqa_{row.get('question_id', i)}", question=str(row.get("question", "")),
                       images=images, answer=options[label], options=options, label=label,
                       question_type=str(row.get("modality") or "multi_frame").lower(), answer_type="mcq",
                       meta={"system": row.get("system"), "organ": row.get("organ")})


def read_mmmu_med(root: Path, split: str = "validation") -> Iterator[QARecord]:
    for subject in MMMU_HEALTH_SUBJECTS:
        files = sorted((root / subject).glob(f"{split}-*.parquet")) if (root / subject).is_dir() \
            else sorted(root.glob(f"**/{subject}/{split}-*.parquet"))
        if not files:
            continue
        for row in _parquet_rows(files):
            try:
                raw_options = ast.literal_eval(str(row.get("options") or "[]"))
            except (ValueError, SyntaxError):
                raw_options = []
            options = _letters([str(o) for o in raw_options]) if isinstance(raw_options, list) else {}
            answer = str(row.get("answer", "")).strip()
            images: list[Path | bytes] = [b for b in (_image_bytes(row.get(f"image_{k}")) for k in range(1, 8)) if b]
            meta = {"subject": subject, "subfield": row.get("subfield"), "img_type": row.get("img_type")}
            if options and answer.upper() in options:
                yield QARecord(qid=f"mmmu_{row.get('id')}", question=str(row.get("question", "")), images=images,
                               answer=options[answer.upper()], options=options, label=answer.upper(),
                               question_type=subject.lower(), answer_type="mcq", meta=meta)
            elif not options and answer and answer != "?":
                yield QARecord(qid=f"mmmu_{row.get('id')}", question=str(row.get("question", "")), images=images,
                               answer=answer, question_type=subject.lower(), answer_type=_closed(answer), meta=meta)


READERS: dict[str, tuple[Callable[..., Iterator[QARecord]], str, str]] = {
    # name -> (reader, default split, description)
    "vqa-rad": (read_vqa_rad, "test", "VQA-RAD radiology VQA (open + closed)"),
    "slake-en": (read_slake, "test", "SLAKE bilingual medical VQA, English questions"),
    "pathvqa": (read_pathvqa, "test", "PathVQA pathology VQA (open + yes/no)"),
    "pmc-vqa": (read_pmc_vqa, "test", "PMC-VQA figure VQA (multiple choice)"),
    "medxpertqa-mm": (read_medxpertqa_mm, "test", "MedXpertQA multimodal subset (multiple choice)"),
    "omnimedvqa": (read_omnimedvqa, "open-access", "OmniMedVQA open-access subset (multiple choice)"),
    "kvasir-vqa": (read_kvasir_vqa, "all", "Kvasir-VQA gastrointestinal endoscopy VQA (open + yes/no)"),
    "medframeqa": (read_medframeqa, "test", "MedFrameQA multi-frame medical VQA (multiple choice)"),
    "mmmu-med": (read_mmmu_med, "validation", "MMMU Health & Medicine subjects (multiple choice + open)"),
}


def stage_official(name: str, paths: DatasetPaths, progress: Progress | None = None, source: Any = None,
                   split: str | None = None, limit: int | None = None, link: bool = True) -> dict[str, Any]:
    reader, default_split, description = READERS[name]
    root = source_root(source, name)
    split = split or default_split
    return stage_records(paths, name, reader(root, split), description=(
        f"{description}, staged from a local copy of the official release (not redistributed)."),
        provenance={"source": str(root), "split": split, "stager": f"{__name__}.{reader.__name__}"},
        progress=progress, limit=None if limit is None else int(limit), link=link)


def _stager(name: str) -> Callable[..., dict[str, Any]]:
    def stage(paths: DatasetPaths, progress: Progress | None = None, **options: Any) -> dict[str, Any]:
        return stage_official(name, paths, progress, **options)
    stage.__name__ = "stage_" + name.replace("-", "_")
    return stage


stage_vqa_rad = _stager("vqa-rad")
stage_slake_en = _stager("slake-en")
stage_pathvqa = _stager("pathvqa")
stage_pmc_vqa = _stager("pmc-vqa")
stage_medxpertqa_mm = _stager("medxpertqa-mm")
stage_omnimedvqa = _stager("omnimedvqa")
stage_kvasir_vqa = _stager("kvasir-vqa")
stage_medframeqa = _stager("medframeqa")
stage_mmmu_med = _stager("mmmu-med")
