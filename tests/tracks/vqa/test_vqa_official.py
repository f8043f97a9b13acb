"""Official VQA stagers, offline, against small local trees laid out like each release."""
from __future__ import annotations

import csv
import json
import pickle

import numpy as np
import pytest
from PIL import Image

from automedbench.data import DatasetError, DatasetPaths, verify_manifest
from automedbench.data import DatasetInfo
from automedbench.tracks.vqa import TRACK
from automedbench.tracks.vqa.data import official
from .helpers import score_outputs


def _img(path, seed=0, ext="jpg"):
    path.parent.mkdir(parents=True, exist_ok=True)
    arr = np.random.default_rng(seed).integers(0, 255, (24, 32, 3), dtype=np.uint8)
    Image.fromarray(arr).save(path)
    return path


def tree_vqa_rad(root):
    _img(root / "VQA_RAD Image Folder" / "synpic1.jpg")
    _img(root / "VQA_RAD Image Folder" / "synpic2.jpg", 1)
    items = [
        {"qid": 1, "image_name": "synpic1.jpg", "question": "Is there a pneumothorax?", "answer": "No",
         "answer_type": "CLOSED", "question_type": "PRES", "phrase_type": "test_freeform", "image_organ": "CHEST"},
        {"qid": 2, "image_name": "synpic2.jpg", "question": "What modality is used?", "answer": "CT",
         "answer_type": "OPEN", "question_type": "MODALITY", "phrase_type": "test_para", "image_organ": "HEAD"},
        {"qid": 3, "image_name": "synpic2.jpg", "question": "Where is the lesion?", "answer": "left frontal lobe",
         "answer_type": "OPEN", "question_type": "POS", "phrase_type": "freeform", "image_organ": "HEAD"},
        {"qid": 4, "image_name": "missing.jpg", "question": "Is this normal?", "answer": "yes",
         "answer_type": "CLOSED", "question_type": "ABN", "phrase_type": "test_freeform"},
    ]
    (root / "VQA_RAD Dataset Public.json").write_text(json.dumps(items))
    return {"n": 2, "ids": {"vqarad_1", "vqarad_2"}, "mcq": False}


def tree_slake(root):
    base = root / "Slake1.0"
    _img(base / "imgs" / "xmlab1" / "source.jpg")
    items = [
        {"qid": 11, "img_name": "xmlab1/source.jpg", "question": "Which organ is abnormal?", "answer": "Lung",
         "q_lang": "en", "answer_type": "OPEN", "content_type": "Organ", "modality": "CT", "location": "Chest"},
        {"qid": 12, "img_name": "xmlab1/source.jpg", "question": "图片中有肺吗?", "answer": "是",
         "q_lang": "zh", "answer_type": "CLOSED", "content_type": "Organ"},
        {"qid": 13, "img_name": "xmlab1/source.jpg", "question": "Is the lung healthy?", "answer": "No",
         "q_lang": "en", "answer_type": "CLOSED", "content_type": "Abnormality"},
    ]
    (base / "test.json").write_text(json.dumps(items, ensure_ascii=False))
    return {"n": 2, "ids": {"slake_11", "slake_13"}, "mcq": False}


def tree_pathvqa(root):
    _img(root / "pvqa" / "images" / "test" / "test_0001.jpg")
    _img(root / "pvqa" / "images" / "test" / "test_0002.jpg", 2)
    items = [{"image": "test_0001", "question": "what is present?", "answer": "necrosis"},
             {"image": "test_0002", "question": "is this an infarct?", "answer": "yes"}]
    qa = root / "pvqa" / "qas" / "test"
    qa.mkdir(parents=True)
    (qa / "test_qa.pkl").write_bytes(pickle.dumps(items))
    return {"n": 2, "ids": {"pathvqa_test_00000", "pathvqa_test_00001"}, "mcq": False}


def tree_pmc_vqa(root):
    _img(root / "images" / "PMC1_fig1.jpg")
    _img(root / "images" / "PMC2_fig3.jpg", 3)
    with open(root / "test_2.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, ["Figure_path", "Question", "Answer", "Choice A", "Choice B", "Choice C",
                                "Choice D", "Answer_label"])
        w.writeheader()
        w.writerow({"Figure_path": "PMC1_fig1.jpg", "Question": "What imaging technique is shown?",
                    "Answer": "MRI", "Choice A": "A:CT ", "Choice B": "B:MRI ", "Choice C": "C:PET ",
                    "Choice D": "D:X-ray ", "Answer_label": "B"})
        w.writerow({"Figure_path": "PMC2_fig3.jpg", "Question": "Where is the mass?", "Answer": "Liver",
                    "Choice A": "A: Liver", "Choice B": "B: Spleen", "Choice C": "C: Kidney",
                    "Choice D": "D: Pancreas", "Answer_label": "A"})
    return {"n": 2, "ids": {"pmcvqa_test_000000", "pmcvqa_test_000001"}, "mcq": True}


def tree_medxpertqa(root):
    _img(root / "images" / "MM-1-a.jpeg")
    _img(root / "images" / "MM-1-b.jpeg", 4)
    lines = [{"id": "MM-1", "question": "Which diagnosis fits both images?",
              "options": {"A": "Gout", "B": "Sarcoidosis", "C": "Lymphoma", "D": "TB", "E": "Lupus"},
              "label": "B", "images": ["MM-1-a.jpeg", "MM-1-b.jpeg"], "medical_task": "Diagnosis",
              "body_system": "Respiratory", "question_type": "Reasoning"}]
    (root / "MM").mkdir(parents=True)
    (root / "MM" / "test.jsonl").write_text("\n".join(json.dumps(x) for x in lines) + "\n\n")
    return {"n": 1, "ids": {"medxpertqa_MM-1"}, "mcq": True, "images": 2}


def tree_omnimedvqa(root):
    _img(root / "Images" / "Chest CT Scan" / "a.png", ext="png")
    qa = root / "QA_information" / "Open-access"
    qa.mkdir(parents=True)
    items = [{"dataset": "Chest CT Scan", "question_id": "Chest CT Scan_0001", "question_type": "Modality Recognition",
              "question": "What modality is shown?", "gt_answer": "CT", "image_path": "Images/Chest CT Scan/a.png",
              "option_A": "MRI", "option_B": "CT", "option_C": "X-ray", "option_D": "PET", "modality_type": "CT"}]
    (qa / "Chest CT Scan.json").write_text(json.dumps(items))
    return {"n": 1, "ids": {"omnimedvqa_Chest_CT_Scan_0001"}, "mcq": True}


def _png_bytes(seed: int) -> bytes:
    import io
    buf = io.BytesIO()
    Image.fromarray(np.random.default_rng(seed).integers(0, 255, (20, 20), dtype=np.uint8)).save(buf, format="PNG")
    return buf.getvalue()


def _write_parquet(path, rows):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows), path)


def tree_kvasir(root):
    rows = [{"image": {"bytes": _png_bytes(i), "path": f"img{i}.jpg"}, "source": "hyper-kvasir",
             "question": q, "answer": a, "img_id": f"img{i}"}
            for i, (q, a) in enumerate([("Are there any polyps?", "Yes"), ("What type of procedure is it?", "Colonoscopy")])]
    rows.append({"image": {"bytes": None, "path": None}, "source": "x", "question": "?", "answer": "no", "img_id": "z"})
    _write_parquet(root / "data" / "raw-00000-of-00001.parquet", rows)
    return {"n": 2, "ids": {"kvasir_000000_img0", "kvasir_000001_img1"}, "mcq": False}


def tree_medframeqa(root):
    row = {"question_id": "mf1", "question": "Across these frames, where is the lesion?",
           "options": ["Liver", "Spleen", "Kidney", "Pancreas", "Bowel", "Lung"], "correct_answer": "C",
           "image_1": {"bytes": _png_bytes(1), "path": "a.png"}, "image_2": {"bytes": _png_bytes(2), "path": "b.png"},
           "image_3": None, "image_4": None, "image_5": None, "modality": "CT", "system": "GI", "organ": "kidney"}
    _write_parquet(root / "data" / "test-00000-of-00001.parquet", [row])
    return {"n": 1, "ids": {"medframeqa_mf1"}, "mcq": True, "images": 2}


def tree_mmmu(root):
    base = {"explanation": "", "img_type": "['Photographs']", "topic_difficulty": "Easy", "subfield": "x",
            **{f"image_{k}": None for k in range(2, 8)}}
    rows = [{**base, "id": "validation_Clinical_Medicine_1", "question": "<image 1> Most likely diagnosis?",
             "options": "['Gout', 'Psoriasis', 'Lupus', 'Eczema']", "answer": "B",
             "image_1": {"bytes": _png_bytes(5), "path": "x.png"}, "question_type": "multiple-choice"},
            {**base, "id": "validation_Clinical_Medicine_2", "question": "<image 1> Name the stain.",
             "options": "[]", "answer": "H&E", "image_1": {"bytes": _png_bytes(6), "path": "y.png"},
             "question_type": "open"}]
    _write_parquet(root / "Clinical_Medicine" / "validation-00000-of-00001.parquet", rows)
    _write_parquet(root / "Art" / "validation-00000-of-00001.parquet", [{**rows[0], "id": "validation_Art_1"}])
    return {"n": 2, "ids": {"mmmu_validation_Clinical_Medicine_1", "mmmu_validation_Clinical_Medicine_2"},
            "mcq": None}


TREES = {"vqa-rad": tree_vqa_rad, "slake-en": tree_slake, "pathvqa": tree_pathvqa, "pmc-vqa": tree_pmc_vqa,
         "medxpertqa-mm": tree_medxpertqa, "omnimedvqa": tree_omnimedvqa, "kvasir-vqa": tree_kvasir,
         "medframeqa": tree_medframeqa, "mmmu-med": tree_mmmu}


@pytest.mark.parametrize("name", sorted(TREES))
def test_stager_writes_the_benchmark_layout_and_gold_scores_one(name, tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    want = TREES[name](src)
    info = {d.name: d for d in TRACK.datasets()}[name]
    assert isinstance(info, DatasetInfo) and info.kind == "official" and info.track == "vqa"
    paths = DatasetPaths(tmp_path / "staged")
    paths.root.mkdir()
    manifest = info.builder(paths, source=src)
    assert {c["case_id"] for c in manifest["cases"]} == want["ids"] and len(manifest["cases"]) == want["n"]
    assert verify_manifest(paths) == []
    for case in manifest["cases"]:
        q = json.loads((paths.public / case["case_id"] / "question.json").read_text())
        ref = json.loads((paths.private / case["case_id"] / "answer.json").read_text())
        assert len(q["images"]) == want.get("images", 1)
        assert all((paths.public / case["case_id"] / i).is_file() for i in q["images"])
        assert "answer" not in q and "label" not in q
        if want["mcq"] is not None:      # None: a release that mixes MCQ and open questions
            assert bool(q.get("options")) is want["mcq"]
        if q.get("options"):
            assert ref["label"] in q["options"] and q["options"][ref["label"]] == ref["answer"]
    TRACK.gold_submission(paths.root, tmp_path / "gold", {})
    agg, _ = score_outputs(paths, tmp_path / "gold")
    assert agg.score == pytest.approx(1.0)


def test_stager_details(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    tree_vqa_rad(src)
    paths = DatasetPaths(tmp_path / "rad")
    paths.root.mkdir()
    manifest = official.stage_vqa_rad(paths, source=src)
    assert manifest["provenance"]["n_skipped"] == 1                    # the missing image
    ref = json.loads((paths.private / "vqarad_1" / "answer.json").read_text())
    assert ref["answer_type"] == "closed" and ref["answer"] == "No"
    # all splits; a limit
    paths2 = DatasetPaths(tmp_path / "rad-all")
    paths2.root.mkdir()
    assert len(official.stage_vqa_rad(paths2, source=src, split="all", limit=3)["cases"]) == 3
    pmc = tmp_path / "pmc"
    pmc.mkdir()
    tree_pmc_vqa(pmc)
    paths3 = DatasetPaths(tmp_path / "pmc-out")
    paths3.root.mkdir()
    official.stage_pmc_vqa(paths3, source=pmc)
    q = json.loads((paths3.public / "pmcvqa_test_000000" / "question.json").read_text())
    assert q["options"] == {"A": "CT", "B": "MRI", "C": "PET", "D": "X-ray"}   # "A:" prefixes stripped


def test_stager_errors_are_clear(tmp_path):
    paths = DatasetPaths(tmp_path / "x")
    paths.root.mkdir()
    with pytest.raises(DatasetError, match="pass source="):
        official.stage_slake_en(paths)
    with pytest.raises(DatasetError, match="does not exist"):
        official.stage_slake_en(paths, source=tmp_path / "nope")
    (tmp_path / "empty").mkdir()
    with pytest.raises(DatasetError, match="official layout"):
        official.stage_pathvqa(paths, source=tmp_path / "empty")
    # a pickle that would import and call code is refused, not executed
    evil = tmp_path / "evil"
    tree_pathvqa(evil)
    (evil / "pvqa" / "qas" / "test" / "test_qa.pkl").write_bytes(pickle.dumps([{"image": print}]))
    with pytest.raises(DatasetError, match="not a plain data pickle"):
        official.stage_pathvqa(paths, source=evil)
    # duplicate question ids in a source
    dup = tmp_path / "dup"
    tree_slake(dup)
    items = json.loads((dup / "Slake1.0" / "test.json").read_text())
    (dup / "Slake1.0" / "test.json").write_text(json.dumps(items + items[:1], ensure_ascii=False))
    paths2 = DatasetPaths(tmp_path / "y")
    paths2.root.mkdir()
    with pytest.raises(DatasetError, match="duplicate question id"):
        official.stage_slake_en(paths2, source=dup)
