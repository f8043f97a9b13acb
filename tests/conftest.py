"""Fixtures every test directory may use. Shared helpers are plain modules of the `tests`
package (`from tests.helpers import ...`); the test-only plug-in track in tests/toy_track/ is
put on the path by pytest itself (`pythonpath` in pyproject.toml), so its entry point is seen
like an installed distribution's."""
import contextlib
import fcntl
import os
import re
import shutil
from pathlib import Path
from typing import Any, Callable

import pytest

from automedbench.data import DatasetPaths
from automedbench.datasets import stage
from automedbench.tracks.segmentation import SegmentationTrack
from tests.helpers import tiny_lesion_dataset


def pytest_collection_modifyitems(config, items):
    """Files with a `slow` test first, each file's tests kept together and in order: under
    `--dist loadfile --no-loadscope-reorder` (the Makefile) xdist hands files out in this
    order, so a long file never starts last and leaves the other core idle (docs/testing.md)."""
    slow_files = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.path not in slow_files)   # stable: the rest keep their order


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """Tests whose branch depends on the machine (e.g. /dev/net/tun's mode, issue 31) record it
    as a `branch` property; the summary names the branch each one took, so none is silent.
    Properties travel with xdist's reports, so this works from the controller."""
    lines = [f"{rep.nodeid}: {value}" for key in ("passed", "failed") for rep in terminalreporter.stats.get(key, [])
             if getattr(rep, "when", "call") == "call" for name, value in getattr(rep, "user_properties", [])
             if name == "branch"]
    if lines:
        terminalreporter.section("branches taken on this machine")
        for line in lines:
            terminalreporter.write_line(line)


@pytest.fixture(scope="session", autouse=True)
def _shared_calibration_data(tmp_path_factory):
    """The embedded datasets `judge-eval` builds for content facts (scoring/judge_eval),
    once for every worker of this run instead of once per test home (~15 s each)."""
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent                      # the folder every worker of this run shares
    os.environ["AUTOMEDBENCH_CALIBRATION_DATA"] = str(shared / "calibration-data")
    yield


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory, monkeypatch):
    """Keep every test away from the user's real data/cache directories."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("AUTOMEDBENCH_DATA", str(home / "data"))
    monkeypatch.setenv("AUTOMEDBENCH_JUDGE_CACHE", str(home / "judge-cache"))
    monkeypatch.delenv("AUTOMEDBENCH_TASKS", raising=False)
    # the analysis page's matplotlib figures (~2 s per site build) are drawn by the tests of
    # that page (tests/report/test_analyze.py, the site fixture), not by every CLI run
    # that ends in a leaderboard (docs/leaderboard.md)
    monkeypatch.setenv("AUTOMEDBENCH_ANALYSIS_PLOTS", "0")
    yield


@contextlib.contextmanager
def _run_lock(path: Path):
    """An exclusive lock shared by every pytest-xdist worker of this run (flock on `path`)."""
    with open(path, "a+") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


@pytest.fixture(scope="session")
def staged_once(tmp_path_factory) -> Callable[..., DatasetPaths]:
    """`staged_once(name, root, **options)`: the embedded dataset `name`, as `stage(name, root,
    **options)` writes it, built once per test run however many files and workers ask for it.

    The first caller stages it into a cache folder of this run (keyed on name and options,
    under a lock in the run's temp folder that every xdist worker shares); every caller gets
    its own copy under `root`, so a test may damage its files. The builders are seeded, so the
    copy is what `stage` would have written with these options (byte for byte where a builder
    is byte-reproducible, e.g. the MNI brains: test_data_demo_brain.py). Tests of a builder
    itself call `stage`."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    cache = shared / "staged-once"
    cache.mkdir(exist_ok=True)

    def staged(name: str, root: Path | str, **options: Any) -> DatasetPaths:
        key = "-".join([name, *(f"{k}={options[k]}" for k in sorted(options))])
        with _run_lock(cache / f"{key}.lock"):
            built = stage(name, cache / key, quiet=True, **options)   # atomic: staged whole or not at all
        target = DatasetPaths(Path(root) / name)
        if not target.is_staged():   # like `stage`: a dataset already under root is kept
            shutil.copytree(built.root, target.root)
        return target

    return staged


@pytest.fixture(scope="session")
def reference_run_once(tmp_path_factory, staged_once) -> Callable[[str], tuple[Path, Any]]:
    """`reference_run_once(task_id)`: the built-in `reference` agent's lite run of `task_id`
    through the real loop and bwrap sandbox (network off, every malign mutant replayed:
    AUTOMEDBENCH_EXPERIMENTS=all), made once per test run however many files and xdist workers
    ask for it (under a lock in the run's shared temp folder, as `staged_once` builds data):
    (its run folder, its DetailReport). The judge's experiments tests and the plausibility tests
    both read this run (docs/testing.md "Build once"); the folder is shared, so a test reads it
    and never changes it (one that re-scores or replays makes a run of its own)."""
    from automedbench import api
    from automedbench.runs.models import DetailReport
    from automedbench.tasks import get_task

    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    cache = shared / "reference-runs"
    cache.mkdir(exist_ok=True)

    def run(task_id: str) -> tuple[Path, Any]:
        where, done = cache / task_id, cache / f"{task_id}.run_dir"
        with _run_lock(cache / f"{task_id}.lock"):
            if not done.exists():
                shutil.rmtree(where, ignore_errors=True)    # left by a caller that failed half-way
                staged_once(get_task(task_id).dataset, where / "data")
                before = os.environ.get("AUTOMEDBENCH_EXPERIMENTS")
                os.environ["AUTOMEDBENCH_EXPERIMENTS"] = "all"
                try:
                    report = api.run_one(task_id, "lite", "reference", where / "runs",
                                         api.RunOptions(sandbox="bwrap", data_root=where / "data", network=False))
                finally:
                    if before is None:
                        os.environ.pop("AUTOMEDBENCH_EXPERIMENTS", None)
                    else:
                        os.environ["AUTOMEDBENCH_EXPERIMENTS"] = before
                done.write_text(str(report.run_dir))
        run_dir = Path(done.read_text())
        return run_dir, DetailReport.model_validate_json((run_dir / "detail_report.json").read_text())

    return run


@pytest.fixture
def tiny(tmp_path):
    """A user task folder + a staged tiny dataset, wired through env vars as a user would."""
    data = tmp_path / "data"
    tiny_lesion_dataset(data / "tiny-lesion")
    tasks = tmp_path / "tasks"
    (tasks / "tiny-seg").mkdir(parents=True)
    src = (SegmentationTrack.tasks_dir / "brain-lesion-seg" / "task.yaml").read_text()
    (tasks / "tiny-seg" / "task.yaml").write_text(
        src.replace("id: brain-lesion-seg", "id: tiny-seg").replace("dataset: mni-brain-lesion", "dataset: tiny-lesion"))
    return {"AUTOMEDBENCH_DATA": str(data), "AUTOMEDBENCH_TASKS": str(tasks)}, tmp_path


# ---- a researcher's own data: plain folders and the tasks of docs/your-task.md -------------

def _doc_task_yaml(task_id: str) -> str:
    """The task.yaml printed in docs/your-task.md for `task_id` (the docs are what is tested)."""
    text = (Path(__file__).parents[1] / "docs" / "your-task.md").read_text()
    for block in re.findall(r"```yaml\n(.*?)```", text, re.DOTALL):
        if block.startswith(f"id: {task_id}\n"):
            return block
    raise AssertionError(f"docs/your-task.md has no task.yaml for {task_id}")


DOC_TASKS = ("my-seg", "my-cls", "my-msd", "my-det", "my-vqa")


@pytest.fixture
def my_tasks_dir(tmp_path):
    """tasks/my-seg, my-cls, my-msd, my-det, my-vqa exactly as docs/your-task.md writes them."""
    tasks = tmp_path / "tasks"
    for tid in DOC_TASKS:
        (tasks / tid).mkdir(parents=True)
        (tasks / tid / "task.yaml").write_text(_doc_task_yaml(tid))
    return tasks


@pytest.fixture
def seg_folder(tmp_path):
    """images/ + labels/ (0 background, 1 organ, 2 lesion): 4 labelled cases (one without a
    lesion) and case_05, an image without a label map."""
    import numpy as np

    from automedbench.tracks.nifti_io import make_nifti, save_nifti_gz
    root = tmp_path / "seg-folder"
    rng = np.random.default_rng(0)
    affine = np.diag([2.0, 2.0, 2.0, 1.0])
    for i in range(1, 6):
        cid = f"case_{i:02d}"
        label = np.zeros((12, 12, 8), np.uint8)
        label[3:9, 3:9, 2:6] = 1
        if i != 2:
            label[5:7, 5:7, 3:5] = 2
        image = (label * 40 + rng.normal(0, 5, label.shape)).astype(np.float32)
        save_nifti_gz(make_nifti(image, affine), root / "images" / f"{cid}.nii.gz")
        if i != 5:
            save_nifti_gz(make_nifti(label, affine), root / "labels" / f"{cid}.nii.gz")
    return root


@pytest.fixture
def cls_folder(tmp_path):
    """images/<case_id>.png + labels.csv (normal/abnormal): 4 cases, img_5 without a row."""
    import numpy as np
    from PIL import Image
    root = tmp_path / "cls-folder"
    (root / "images").mkdir(parents=True)
    rows = ["case_id,label"]
    for i in range(1, 6):
        value = 200 if i % 2 else 40
        Image.fromarray(np.full((8, 8), value, np.uint8)).save(root / "images" / f"img_{i}.png")
        if i != 5:
            rows.append(f"img_{i},{'abnormal' if i % 2 else 'normal'}")
    (root / "labels.csv").write_text("\n".join(rows) + "\n")
    return root


# ---- the public layouts a researcher's data already has (docs/your-task.md section 2) -------

@pytest.fixture
def msd_folder(tmp_path):
    """MSD / nnU-Net: dataset.json (two channels, labels 1 and 2), imagesTr/<case>_0000 + _0001,
    labelsTr/, two imagesTs/ cases and hu_04 without a label map."""
    import json

    import numpy as np

    from automedbench.tracks.nifti_io import make_nifti, save_nifti_gz
    root = tmp_path / "Task05_Prostate"
    rng = np.random.default_rng(1)
    affine = np.diag([1.5, 1.5, 3.0, 1.0])
    (root).mkdir(parents=True)
    (root / "dataset.json").write_text(json.dumps({
        "name": "Prostate", "channel_names": {"0": "T2", "1": "ADC"},
        "labels": {"background": 0, "peripheral zone": 1, "transition zone": 2}, "file_ending": ".nii.gz"}))
    for i in range(1, 5):
        cid = f"hu_{i:02d}"
        label = np.zeros((14, 14, 6), np.uint8)
        label[3:11, 3:11, 1:5] = 1
        label[5:9, 5:9, 2:4] = 2
        t2 = (label * 60 + 20 + rng.normal(0, 3, label.shape)).astype(np.float32)
        adc = (100 - label * 20 + rng.normal(0, 3, label.shape)).astype(np.float32)
        save_nifti_gz(make_nifti(t2, affine), root / "imagesTr" / f"{cid}_0000.nii.gz")
        save_nifti_gz(make_nifti(adc, affine), root / "imagesTr" / f"{cid}_0001.nii.gz")
        if i != 4:
            save_nifti_gz(make_nifti(label, affine), root / "labelsTr" / f"{cid}.nii.gz")
    for i in (7, 8):
        save_nifti_gz(make_nifti(np.zeros((14, 14, 6), np.float32), affine), root / "imagesTs" / f"hu_{i:02d}_0000.nii.gz")
    return root


@pytest.fixture
def imagefolder(tmp_path):
    """ImageFolder: normal/ (dark) and abnormal/ (bright) RGB images, 4 of each."""
    import numpy as np
    from PIL import Image
    root = tmp_path / "patches"
    rng = np.random.default_rng(2)
    for label, level in (("normal", 50), ("abnormal", 190)):
        (root / label).mkdir(parents=True)
        for i in range(4):
            arr = np.clip(rng.normal(level, 12, (16, 16, 3)), 0, 255).astype(np.uint8)
            Image.fromarray(arr).save(root / label / f"{label[:3]}_{i}.png")
    return root


def spot_image(size, spots):
    """A dark noisy image with bright discs at (cx, cy, r)."""
    import numpy as np
    yy, xx = np.mgrid[:size, :size]
    img = np.random.default_rng(size + len(spots)).normal(30, 4, (size, size))
    for cx, cy, r in spots:
        img[(xx - cx) ** 2 + (yy - cy) ** 2 <= r * r] = 220
    return np.clip(img, 0, 255).astype(np.uint8)


@pytest.fixture
def coco_folder(tmp_path):
    """COCO: annotations.json + images/: three 64x64 images with bright spots, one without any."""
    import json

    from PIL import Image
    root = tmp_path / "spots-coco"
    (root / "images").mkdir(parents=True)
    spots = {"s1.png": [(20, 20, 5)], "s2.png": [(40, 24, 6), (16, 44, 5)], "s3.png": []}
    images, anns = [], []
    for iid, (name, discs) in enumerate(spots.items(), 1):
        Image.fromarray(spot_image(64, discs)).save(root / "images" / name)
        images.append({"id": iid, "file_name": name, "width": 64, "height": 64})
        anns += [{"id": len(anns) + 1, "image_id": iid, "category_id": 1,
                  "bbox": [cx - r, cy - r, 2 * r + 1, 2 * r + 1]} for cx, cy, r in discs]
    (root / "annotations.json").write_text(json.dumps(
        {"images": images, "annotations": anns, "categories": [{"id": 1, "name": "spot"}]}))
    return root


@pytest.fixture
def vqa_folder(tmp_path):
    """questions.csv + images/: two open questions, one multiple choice (columns A-D), one row without an answer."""
    from PIL import Image
    root = tmp_path / "my-vqa"
    (root / "images").mkdir(parents=True)
    Image.fromarray(spot_image(64, [(30, 30, 6)])).save(root / "images" / "a.png")
    Image.fromarray(spot_image(64, [])).save(root / "images" / "b.png")
    (root / "questions.csv").write_text(
        "qid,image_name,question,answer,answer_type,A,B,C,D\n"
        "v1,a.png,Is there a bright spot?,yes,closed,,,,\n"
        "v2,b.png,How many bright spots are there?,0,open,,,,\n"
        "v3,a.png,Is there a bright spot?,A,,yes,no,,\n"
        "v4,b.png,What is this?,,,,,,\n")
    return root


@pytest.fixture(scope="module")
def browser():
    """One headless chromium per test module. Not per session: while Playwright's sync API is
    open it marks an event loop as running on the main thread, so any later test in the same
    worker that calls asyncio.run (the RL env's asyncio.gather test) fails with "cannot be
    called from a running event loop" (CI did, when xdist put both files on one worker)."""
    import asyncio.events
    from tests.report.browser import ARGS, CHROMIUM, sync_playwright
    if sync_playwright is None:
        pytest.skip("the playwright package is not installed")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()
    assert asyncio.events._get_running_loop() is None, "Playwright left an event loop running"
