"""Demo builder and official stagers (on small local trees laid out like the sources)."""
import csv
import gzip
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from automedbench.data import DatasetError, DatasetPaths, verify_manifest
from automedbench.datasets import all_datasets
from automedbench.scoring.task_score import aggregate_cases
from automedbench.tracks.base import (
    CaseRecord,
    CaseStatus,
    ScoringContext,
    SubmittedCase,
)
from automedbench.tracks.registry import get_track
from automedbench.tracks.reportgen.data import DATASETS
from automedbench.tracks.reportgen.data.demo import build_cxr_report_demo
from automedbench.tracks.reportgen.data.official import (
    stage_chexpert_plus,
    stage_iu_xray,
    stage_mimic_cxr,
    stage_pathcap,
)

TRACK = get_track("report-generation")


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    root = tmp_path_factory.mktemp("cxr-report-demo")
    manifest = build_cxr_report_demo(DatasetPaths(root), n_cases=12, seed=0)
    return DatasetPaths(root), manifest


def _score(paths: DatasetPaths, outputs: Path, options=None) -> tuple:
    options = TRACK.parse_options(options)
    recs = []
    for case in paths.load_manifest()["cases"]:
        ref, meta = TRACK.load_reference(paths.private / case["case_id"], case, options)
        d = outputs / case["case_id"]
        if not d.is_dir():
            recs.append(CaseRecord(case["case_id"], case, CaseStatus.MISSING, reference=ref))
            continue
        check = TRACK.check_case(SubmittedCase(case["case_id"], d), meta, options)
        status = CaseStatus.OK if check.valid else CaseStatus.INVALID
        score = TRACK.score_case(check.prediction, ref, options, ScoringContext()) if check.valid else None
        recs.append(CaseRecord(case["case_id"], case, status, score, check.reason, check.prediction, ref))
    return aggregate_cases(TRACK, recs, options, ScoringContext()), recs


def test_datasets_are_declared():
    names = {d.name for d in TRACK.datasets()}
    assert names == {"cxr-report-demo", "mimic-cxr", "iu-xray", "chexpert-plus", "pathcap"}
    # the data registry lists them as this track's, and every builder path resolves to a function
    registered = all_datasets()
    assert all(registered[d.name].track == "report-generation" for d in DATASETS)
    assert all(callable(d.builder) for d in DATASETS)


def test_demo_layout_multiview_and_reports_follow_findings(demo):
    paths, manifest = demo
    assert len(manifest["cases"]) == 12 and verify_manifest(paths) == []
    assert any(c["n_views"] == 2 for c in manifest["cases"]) and any(c["n_views"] == 1 for c in manifest["cases"])
    assert {c["body_part"] for c in manifest["cases"]} == {"CHEST", "LEG"}
    for case in manifest["cases"]:
        pub = paths.public / case["case_id"]
        study = json.loads((pub / "manifest.json").read_text())
        assert [v["file"] for v in study["views"]] == sorted(p.name for p in pub.glob("view*.png"))
        assert not (pub / "report.txt").exists() and not (pub / "findings.json").exists()
        report = (paths.private / case["case_id"] / "report.txt").read_text()
        assert report.startswith("FINDINGS:\n") and "\nIMPRESSION:\n" in report
        findings = json.loads((paths.private / case["case_id"] / "findings.json").read_text())
        text = report.lower()
        for f in findings:
            assert f["kind"] in text            # nodule / consolidation / effusion / fracture
            if "side" in f:
                assert f["side"] in text
        if case["body_part"] == "CHEST" and not findings:
            assert "no pleural effusion" in text or "there is no pleural effusion" in text
        img = np.asarray(Image.open(pub / "view1.png"))
        assert img.dtype == np.uint8 and img.ndim == 2 and img.shape[1] == 512 and img.std() > 10


def test_demo_same_seed_identical_files(tmp_path):
    a = build_cxr_report_demo(DatasetPaths(tmp_path / "a"), n_cases=3, seed=7)
    b = build_cxr_report_demo(DatasetPaths(tmp_path / "b"), n_cases=3, seed=7)
    c = build_cxr_report_demo(DatasetPaths(tmp_path / "c"), n_cases=3, seed=8)
    digests = [sorted(h for case in m["cases"] for h in case["files"].values()) for m in (a, b, c)]
    assert digests[0] == digests[1] and digests[0] != digests[2]


def test_gold_submission_scores_the_metric_ceiling(demo, tmp_path):
    paths, _ = demo
    out = tmp_path / "outputs"
    TRACK.gold_submission(paths.root, out, TRACK.parse_options({}))
    agg, _ = _score(paths, out)
    assert agg.metrics["bleu"] == pytest.approx(1.0) and agg.metrics["rougeL"] == pytest.approx(1.0)
    # METEOR's fragmentation penalty: a verbatim copy of an m-word report scores 1 - 0.5/m^3
    assert 1 - 1e-4 < agg.metrics["meteor"] < 1.0 and 1 - 5e-5 < agg.score <= 1.0


def _run(code: str, cwd: Path) -> str:
    r = subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=300, check=False)
    assert r.returncode == 0, r.stderr
    return r.stdout


@pytest.mark.slow
def test_scripted_reference_solves_the_demo_and_careless_scores_lower(demo, tmp_path):
    paths, _manifest = demo
    methods = TRACK.scripted_methods(TRACK.parse_options({}))
    assert len(methods.plan_steps()) >= 4
    results = {}
    for careless in (False, True):
        ws = tmp_path / ("careless" if careless else "reference")
        ws.mkdir()
        data = str(paths.public)
        assert "views" in _run(methods.setup_code(data), ws)
        if not careless:
            assert "wrote 1 report" in _run(methods.pilot_code(data), ws)
            assert "sections ok" in _run(methods.inspect_code(data), ws)
        assert "wrote 12 report(s)" in _run(methods.batch_code(data, careless), ws)
        assert "12 of 12 reports written" in _run(methods.verify_code(data), ws)
        results[careless], _ = _score(paths, ws / "outputs")
    assert results[False].score > 0.5
    assert results[True].score < results[False].score


# ---- official stagers on local trees ---------------------------------------------------------------
def _png(path: Path, value: int = 100) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(np.full((8, 8), value, np.uint8)).save(path)


def _csv(path: Path, rows: list[dict], gz: bool = False) -> None:
    opener = gzip.open if gz else open
    with opener(path, "wt", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def _check_staged(paths: DatasetPaths, n: int) -> list[dict]:
    m = paths.load_manifest()
    assert len(m["cases"]) == n and verify_manifest(paths) == []
    for case in m["cases"]:
        study = json.loads((paths.public / case["case_id"] / "manifest.json").read_text())
        assert study["views"] and all((paths.public / case["case_id"] / v["file"]).is_file() for v in study["views"])
        ref, _ = TRACK.load_reference(paths.private / case["case_id"], case, TRACK.parse_options({}))
        assert ref.section_found and ref.tokens
    return m["cases"]


def test_stage_mimic_cxr(tmp_path):
    src = tmp_path / "mimic"
    studies = {("10000032", "50414267"): ["d1", "d2"], ("10000032", "53189527"): ["d3"],
               ("10000764", "57375967"): ["d4"]}
    split, meta = [], []
    for (subj, study), dicoms in studies.items():
        folder = src / "files" / f"p{subj[:2]}" / f"p{subj}" / f"s{study}"
        for k, d in enumerate(dicoms):
            _png(folder / f"{d}.jpg")
            split.append({"dicom_id": d, "study_id": study, "subject_id": subj, "split": "test"})
            meta.append({"dicom_id": d, "subject_id": subj, "study_id": study, "ViewPosition": ["PA", "LATERAL"][k]})
    split.append({"dicom_id": "d9", "study_id": "59999999", "subject_id": "10000764", "split": "train"})
    _csv(src / "mimic-cxr-2.0.0-split.csv.gz", split, gz=True)
    _csv(src / "mimic-cxr-2.0.0-metadata.csv.gz", meta, gz=True)
    reports = src / "files" / "p10"
    (reports / "p10000032" / "s50414267.txt").write_text(
        "                                 FINAL REPORT\n EXAMINATION:  CHEST (PA AND LAT)\n\n"
        " FINDINGS:\n \n There is no focal consolidation, pleural effusion or pneumothorax.\n\n"
        " IMPRESSION:\n \n No acute cardiopulmonary process.\n")
    (reports / "p10000032" / "s53189527.txt").write_text("IMPRESSION: no change.\n")   # no findings: skipped
    (reports / "p10000764" / "s57375967.txt").write_text("Findings: Small left effusion.\nImpression: effusion")
    paths = DatasetPaths(tmp_path / "staged")
    manifest = stage_mimic_cxr(paths, source=str(src))
    cases = _check_staged(paths, 2)
    assert manifest["provenance"]["skipped"] == {"no findings section": 1}
    first = json.loads((paths.public / cases[0]["case_id"] / "manifest.json").read_text())
    assert [v["view_position"] for v in first["views"]] == ["PA", "LATERAL"]
    assert (paths.private / "s50414267" / "report.txt").read_text() == (
        "FINDINGS:\nThere is no focal consolidation, pleural effusion or pneumothorax.\n\n"
        "IMPRESSION:\nNo acute cardiopulmonary process.\n")
    with pytest.raises(DatasetError, match="not a folder"):
        stage_mimic_cxr(DatasetPaths(tmp_path / "x"), source=str(tmp_path / "nope"))


def test_stage_iu_xray(tmp_path):
    src = tmp_path / "iu"
    xml = """<?xml version="1.0"?><eCitation><MedlineCitation><Article><Abstract>
      <AbstractText Label="INDICATION">Chest pain</AbstractText>
      <AbstractText Label="FINDINGS">{f}</AbstractText>
      <AbstractText Label="IMPRESSION">Normal chest</AbstractText></Abstract></Article></MedlineCitation>
      {imgs}</eCitation>"""
    (src / "ecgen-radiology").mkdir(parents=True)
    (src / "ecgen-radiology" / "1.xml").write_text(xml.format(
        f="The heart is normal in size. The lungs are clear.",
        imgs='<parentImage id="CXR1_1_IM-0001-3001"/><parentImage id="CXR1_1_IM-0001-4001"/>'))
    (src / "ecgen-radiology" / "2.xml").write_text(xml.format(f="", imgs='<parentImage id="CXR2_1_IM-0652-1001"/>'))
    (src / "ecgen-radiology" / "3.xml").write_text("<not xml")
    for name in ("CXR1_1_IM-0001-3001", "CXR1_1_IM-0001-4001", "CXR2_1_IM-0652-1001"):
        _png(src / "NLMCXR_png" / f"{name}.png")
    paths = DatasetPaths(tmp_path / "staged")
    manifest = stage_iu_xray(paths, source=str(src))
    (case,) = _check_staged(paths, 1)
    assert case["n_views"] == 2 and manifest["provenance"]["skipped"] == {"no findings section": 1, "unreadable xml": 1}
    assert json.loads((paths.public / case["case_id"] / "manifest.json").read_text())["indication"] == "Chest pain"


def test_stage_chexpert_plus(tmp_path):
    src = tmp_path / "chexpert"
    rows = []
    for patient, study, view, split, findings in [
            ("patient00001", "study1", "view1_frontal", "valid", "Lungs are clear."),
            ("patient00001", "study1", "view2_lateral", "valid", "Lungs are clear."),
            ("patient00002", "study1", "view1_frontal", "valid", ""),
            ("patient00003", "study2", "view1_frontal", "train", "Effusion.")]:
        rel = f"{split}/{patient}/{study}/{view}.jpg"
        _png(src / "PNG" / rel.replace(".jpg", ".png"))
        rows.append({"path_to_image": rel, "split": split, "frontal_lateral": view.split("_")[1].capitalize(),
                     "section_findings": findings, "section_impression": "No acute disease."})
    _csv(src / "df_chexpert_plus_240401.csv", rows)
    paths = DatasetPaths(tmp_path / "staged")
    stage_chexpert_plus(paths, source=str(src))
    (case,) = _check_staged(paths, 1)
    assert case["case_id"] == "patient00001_study1" and case["n_views"] == 2


def test_stage_pathcap_json_and_jsonl(tmp_path):
    src = tmp_path / "pathcap"
    _png(src / "images" / "a.png")
    _png(src / "images" / "b.png")
    pairs = [{"image": "images/a.png", "caption": "Hematoxylin and eosin stain showing a well-differentiated adenocarcinoma."},
             {"image": "images/b.png", "caption": ""}, {"image": "images/missing.png", "caption": "x"}]
    (src / "pathcap.jsonl").write_text("\n".join(json.dumps(p) for p in pairs) + "\n")
    paths = DatasetPaths(tmp_path / "staged")
    manifest = stage_pathcap(paths, source=str(src))
    _check_staged(paths, 1)
    assert manifest["provenance"]["skipped"] == {"empty caption": 1, "image missing": 1}
    (src / "pathcap.jsonl").unlink()
    (src / "PathCap.json").write_text(json.dumps(pairs[:1]))
    stage_pathcap(DatasetPaths(tmp_path / "staged2"), source=str(src), limit=1)
    _check_staged(DatasetPaths(tmp_path / "staged2"), 1)
    (src / "PathCap.json").write_text("{broken")
    with pytest.raises(DatasetError, match="not JSON"):
        stage_pathcap(DatasetPaths(tmp_path / "staged3"), source=str(src))
