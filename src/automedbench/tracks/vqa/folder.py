"""VQA's folder layouts (docs/your-task.md section 2, "VQA"), in detection order:

table  DIR/questions.csv or DIR/questions.json (a JSON list of objects, as VQA-RAD, SLAKE and
       PMC-VQA ship them) + the images at DIR/images/<image> or DIR/<image>

One row = one question = one case. Columns (the first name found wins, see COLUMNS):
question_id, image (several: `;`-separated or a JSON list), question, answer, and optionally
answer_type, question_type, and either `options` (a JSON object {"A": "text", ...}) or columns
A, B, C, D (E): then the question is multiple choice and `answer` is a letter or an option's text.
Each case gets public/<qid>/question.json {question_id, question, images, options?,
question_type?} + its images, and private/<qid>/answer.json {question_id, question, answer,
alternatives: [], answer_type, question_type, options + label (MCQ)} as the track reads them.
A row without an answer is skipped ("no answer"), one whose image is missing too ("no image").
Question ids are kept as given (0 is "0"); a row without one is named q<row number>, and the
staging summary says which.

slake    [Slake1.0/]<split>.json + imgs/<folder>/source.jpg (English questions)
vqa-rad  "VQA_RAD Dataset Public.json" + "VQA_RAD Image Folder/" (test = phrase_type test_*)
pathvqa  [pvqa/]qas/<split>/<split>_qa.pkl + images/<split>/<image>.jpg

The three releases as they ship, read by the official stagers' readers (data/official.py) and
written as they write them (case ids slake_<qid>, vqarad_<qid>, pathvqa_<split>_<n>; images
image_0.jpg, ...); --split picks the split (default test). A file the layout needs and the
folder lacks is named in the refusal.
"""
from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ...data import DatasetError
from ...data.tables import column, find_table, image_names, table_rows
from ...data.from_folder import GENERIC_LAYOUT, FolderCases, FolderLayout, StagingFolder
from .data import official
from .data.official import QARecord, safe_id, write_record
from .options import ANSWER_FILE

TABLES = ("questions.csv", "questions.json")
COLUMNS = {   # field -> the names public VQA sets use for it
    "question_id": ("question_id", "qid", "id"),
    "image": ("image", "images", "image_name", "img_name", "image_path", "figure_path"),
    "question": ("question",),
    "answer": ("answer", "gt_answer"),
    "answer_type": ("answer_type",),
    "question_type": ("question_type", "content_type"),
    "options": ("options", "choices"),
}
LETTERS = ("A", "B", "C", "D", "E")


def _table(src: Path) -> Path | None:
    return find_table(src, TABLES)


def _get(row: dict[str, Any], field: str) -> Any:
    return column(row, COLUMNS[field])


def _options(row: dict[str, Any]) -> dict[str, str]:
    raw = _get(row, "options")
    if isinstance(raw, str) and raw.strip():
        raw = json.loads(raw)
    if isinstance(raw, dict):
        return {str(k): str(v) for k, v in raw.items()}
    if isinstance(raw, list):
        return {LETTERS[i]: str(v) for i, v in enumerate(raw[: len(LETTERS)])}
    return {k: str(row[k]) for k in LETTERS if row.get(k) not in (None, "")}


def _table_layout(src: Path, dest: StagingFolder, options: Any) -> FolderCases:
    path = _table(src)
    if path is None:
        raise DatasetError(f"layout 'table': {src} has neither {' nor '.join(TABLES)}; fix: put the questions "
                           "there (columns question_id, image, question, answer)")
    rows = table_rows(path)
    missing = [f for f in ("question", "image") if rows and _get(rows[0], f) is None]
    if missing:
        raise DatasetError(f"layout 'table': {path.name} has no {' or '.join(missing)} column; fix: name the "
                           f"columns {', '.join(COLUMNS[missing[0]][:3])} (any of them)")
    out = FolderCases()
    numbered: list[str] = []
    for n, row in enumerate(rows, 1):
        qid = _question_id(row, n, path.name)
        if _get(row, "question_id") is None:
            numbered.append(qid)
        answer = _get(row, "answer")
        names = image_names(_get(row, "image"))
        files = [next((p for p in (src / "images" / nm, src / nm) if p.is_file()), None) for nm in names]
        if answer is None:
            out.skipped[qid] = "no answer"
            continue
        if not names or None in files:
            out.skipped[qid] = "no image"
            continue
        if qid in {c["case_id"] for c in out.cases}:
            raise DatasetError(f"layout 'table': question id {qid!r} appears twice in {path.name}; fix: make the "
                               "question_id column unique")
        opts = _options(row)
        public: dict[str, Any] = {"question_id": qid, "question": str(_get(row, "question")),
                  "images": [Path(nm).name for nm in names]}
        private: dict[str, Any] = {"question_id": qid, "question": public["question"], "answer": str(answer),
                                   "alternatives": [], "answer_type": str(_get(row, "answer_type") or "open")}
        if _get(row, "question_type"):
            public["question_type"] = private["question_type"] = str(_get(row, "question_type"))
        if opts:
            label = str(answer) if str(answer) in opts else next((k for k, v in opts.items() if v == str(answer)), None)
            if label is None:
                raise DatasetError(f"question {qid!r}: answer {answer!r} is neither a letter nor the text of one of "
                                   f"its options {sorted(opts)}; fix: that row's answer")
            public["options"] = opts
            private.update(options=opts, label=label, answer=opts[label], answer_type="mcq")
        for f in files:
            assert f is not None
            dest.place(f, dest.public / qid / f.name)
        (dest.public / qid / "question.json").write_text(json.dumps(public, indent=1) + "\n", encoding="utf-8")
        (dest.private / qid).mkdir(parents=True, exist_ok=True)
        (dest.private / qid / ANSWER_FILE).write_text(json.dumps(private, indent=1) + "\n", encoding="utf-8")
        out.cases.append({"case_id": qid, "answer_type": private["answer_type"],
                          "question_type": private.get("question_type", "unknown")})
    out.facts = {"table": path.name}
    if numbered:   # said, never silent (docs/your-task.md section 2, "VQA")
        out.notes.append(f"{len(numbered)} question(s) without a question_id were named by their row in "
                         f"{path.name}: {', '.join(numbered[:5])}{' …' if len(numbered) > 5 else ''}")
    return out


def _question_id(row: dict[str, Any], n: int, table: str) -> str:
    """The row's question id as given (0 stays "0"; a JSON 12 and a CSV "12" are both "12"),
    or q<row number> for a row without one. An id that cannot be a case folder is refused."""
    raw = _get(row, "question_id")
    if raw is None:
        return f"q{n:05d}"
    qid = str(raw).strip()
    if not qid or "/" in qid or "\\" in qid or qid.startswith((".", "_")):
        raise DatasetError(f"layout 'table': {table} row {n}: question id {raw!r} cannot name a case folder "
                           "(empty, a path, or starting with '.' or '_'); fix: that row's question_id")
    return qid


# ---- the releases as they ship (their readers are the official stagers', data/official.py) ----

def _write_records(records: Iterable[QARecord], dest: StagingFolder, layout: str) -> FolderCases:
    """The records as cases, named and written as the official stager names and writes them."""
    out = FolderCases()
    for rec in records:
        qid = safe_id(rec.qid)
        missing = [p for p in rec.images if isinstance(p, Path) and not p.is_file()]
        if not (rec.answer or rec.label):
            out.skipped[qid] = "no answer"
        elif not rec.images or missing:
            out.skipped[qid] = "no image"
        elif qid in {c["case_id"] for c in out.cases}:
            raise DatasetError(f"layout {layout!r}: question id {qid!r} appears twice; fix: make the ids unique")
        else:
            out.cases.append(write_record(rec, qid, dest.public / qid, dest.private / qid, dest.place))
    return out


def _one_of(path: Path, what: str, layout: str, fix: str) -> Path:
    """`path` when it exists; else the refusal naming it."""
    if not path.exists():
        raise DatasetError(f"layout {layout!r}: {path} is missing ({what}); fix: {fix}")
    return path


def _slake_root(src: Path) -> Path:
    return src / "Slake1.0" if (src / "Slake1.0").is_dir() else src


SLAKE_SPLITS = ("train", "validate", "test")


def _looks_slake(src: Path) -> bool:
    root = _slake_root(src)
    return (root / "imgs").is_dir() and any((root / f"{s}.json").is_file() for s in SLAKE_SPLITS)


def _slake(src: Path, dest: StagingFolder, options: Any) -> FolderCases:
    root, split = _slake_root(src), dest.split or "test"
    have = ", ".join(f"{s}.json" for s in SLAKE_SPLITS if (root / f"{s}.json").is_file()) or "none of them"
    _one_of(root / f"{split}.json", f"SLAKE's {split} questions; it has {have}", "slake",
            "--split with one it has (train, validate, test)")
    _one_of(root / "imgs", "SLAKE's image folders, imgs/<folder>/source.jpg", "slake", "put imgs/ beside it")
    rows = official.read_slake(root, split)
    out = _write_records(rows, dest, "slake")
    out.facts = {"release": "SLAKE", "split": split}
    out.notes.append("English questions only (q_lang en); case ids as the official stager names them (slake_<qid>)")
    return out


VQA_RAD_JSON, VQA_RAD_IMAGES = "VQA_RAD Dataset Public.json", "VQA_RAD Image Folder"


def _vqa_rad_root(src: Path) -> Path:
    return next((d for d in (src, *sorted(p for p in src.iterdir() if p.is_dir())) if (d / VQA_RAD_JSON).is_file()),
                src)


def _vqa_rad(src: Path, dest: StagingFolder, options: Any) -> FolderCases:
    root, split = _vqa_rad_root(src), dest.split or "test"
    if split not in ("test", "train", "all"):
        raise DatasetError(f"layout 'vqa-rad': --split {split}: VQA-RAD's splits are test (phrase_type test_*), "
                           "train (the others) and all; fix: --split test, train or all")
    _one_of(root / VQA_RAD_JSON, "VQA-RAD's questions", "vqa-rad", f"put {VQA_RAD_JSON!r} there")
    _one_of(root / VQA_RAD_IMAGES, "VQA-RAD's images", "vqa-rad", f"put {VQA_RAD_IMAGES!r}/ beside the JSON")
    out = _write_records(official.read_vqa_rad(root, split), dest, "vqa-rad")
    out.facts = {"release": "VQA-RAD", "split": split}
    return out


def _pathvqa_root(src: Path) -> Path:
    return src / "pvqa" if (src / "pvqa").is_dir() else src


def _pathvqa(src: Path, dest: StagingFolder, options: Any) -> FolderCases:
    root, split = _pathvqa_root(src), dest.split or "test"
    qa = root / "qas" / split / f"{split}_qa.pkl"
    _one_of(qa, f"PathVQA's {split} questions", "pathvqa", "--split train, val or test, as qas/ holds them")
    _one_of(root / "images" / split, f"PathVQA's {split} images", "pathvqa", f"put images/{split}/ beside qas/")
    out = _write_records(official.read_pathvqa(root, split), dest, "pathvqa")
    out.facts = {"release": "PathVQA", "split": split}
    return out


LAYOUTS = [
    FolderLayout("table", "questions.csv or questions.json (question_id, image, question, answer[, A-D]) + images/",
                 lambda src: _table(src) is not None, _table_layout),
    FolderLayout("slake", "[Slake1.0/] test.json (train.json, validate.json) + imgs/<folder>/source.jpg",
                 _looks_slake, _slake, splits="test (default), validate or train: NAME.json"),
    FolderLayout("vqa-rad", f"{VQA_RAD_JSON!r} + {VQA_RAD_IMAGES!r}/", lambda src: (_vqa_rad_root(src) / VQA_RAD_JSON).is_file(),
                 _vqa_rad, splits="test (default: phrase_type test_*), train or all"),
    FolderLayout("pathvqa", "[pvqa/] qas/<split>/<split>_qa.pkl + images/<split>/<image>.jpg",
                 lambda src: (_pathvqa_root(src) / "qas").is_dir() and (_pathvqa_root(src) / "images").is_dir(),
                 _pathvqa, splits="test (default), val or train"),
    GENERIC_LAYOUT,
]
