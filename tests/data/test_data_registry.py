"""Dataset registry: known datasets, reuse, forced and failed re-stages are atomic."""
from __future__ import annotations

import pytest

from automedbench.data import DatasetError, write_manifest
from automedbench import datasets as registry

CALLS: list[dict] = []


def fake_builder(paths, *, progress=None, n_cases=2, fail=False):
    CALLS.append({"n_cases": n_cases})
    cases = []
    for i in range(n_cases):
        cid = f"case_{i:03d}"
        (paths.public / cid).mkdir(parents=True)
        (paths.private / cid).mkdir(parents=True)
        (paths.public / cid / "image.txt").write_text(f"image {i} of {n_cases}")
        (paths.private / cid / "ref.txt").write_text(f"ref {i}")
        cases.append({"case_id": cid})
        if progress:
            progress(i + 1, n_cases, cid)
        if fail and i == 0:
            raise RuntimeError("builder crashed half-way")
    return write_manifest(paths, dataset="fake", description="fake", cases=cases, provenance={})


@pytest.fixture()
def fake(monkeypatch):
    CALLS.clear()
    info = registry.DatasetInfo(name="fake", description="test double", kind="demo",
                                builder=fake_builder,
                                options={"n_cases": "", "fail": ""})
    monkeypatch.setitem(registry.DATASETS, "fake", info)
    return info


def test_registered_datasets():
    assert {"mni-brain-lesion", "mni-brain-tissue", "kits19"} <= set(registry.DATASETS)
    assert registry.DATASETS["kits19"].kind == "official"
    assert registry.DATASETS["mni-brain-lesion"].kind == "demo"
    for info in registry.DATASETS.values():
        # the builder is the function the track imported (no "module:function" string resolved
        # at stage time), defined in that track's data/ package
        assert callable(info.builder), info.name
        if info.track in ("segmentation", "enhancement", "synthesis", "detection", "classification", "vqa"):
            assert info.builder.__module__.startswith(f"automedbench.tracks.{info.track}.data."), info.name
    assert "simulated" in registry.DATASETS["mni-brain-lesion"].description
    assert [row["name"] for row in registry.describe()] == list(registry.DATASETS)


def test_unknown_name_and_option(tmp_path, fake):
    with pytest.raises(DatasetError, match="unknown dataset"):
        registry.stage("nope", tmp_path)
    with pytest.raises(DatasetError, match="unknown option"):
        registry.stage("fake", tmp_path, colour="blue")


def test_reuse_force_and_failed_restage(tmp_path, fake):
    paths = registry.stage("fake", tmp_path, quiet=True, n_cases=2)
    assert paths.case_ids() == ["case_000", "case_001"] and len(CALLS) == 1
    assert paths.load_manifest()["stage_options"] == {"n_cases": 2}
    # staged -> reused, builder not called
    assert registry.stage("fake", tmp_path, quiet=True).case_ids() == ["case_000", "case_001"]
    assert registry.stage("fake", tmp_path, quiet=True, n_cases=2).case_ids() == \
        ["case_000", "case_001"]
    assert len(CALLS) == 1
    # different options without force: an error, not a silent reuse
    with pytest.raises(DatasetError, match="force=True"):
        registry.stage("fake", tmp_path, quiet=True, n_cases=3)
    # force -> rebuilt and swapped in
    assert registry.stage("fake", tmp_path, force=True, quiet=True, n_cases=3).case_ids() == \
        ["case_000", "case_001", "case_002"]
    # a crashing forced re-stage keeps the previous version and leaves no temp folder
    with pytest.raises(RuntimeError, match="half-way"):
        registry.stage("fake", tmp_path, force=True, quiet=True, n_cases=4, fail=True)
    assert paths.case_ids() == ["case_000", "case_001", "case_002"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fake"]


def test_crash_on_first_stage_leaves_nothing(tmp_path, fake):
    with pytest.raises(RuntimeError):
        registry.stage("fake", tmp_path, quiet=True, fail=True)
    assert list(tmp_path.iterdir()) == []


def test_progress_bar_path(tmp_path, fake, capsys):
    registry.stage("fake", tmp_path, quiet=False, n_cases=2)
    assert "fake" in capsys.readouterr().out


def test_dataset_lacking_a_required_case_field_is_refused_at_staging(tmp_path, monkeypatch):
    """docs/scoring.md#segmentation-rules: a dataset that does not say which cases are lesion-positive is refused when it is
    staged, never guessed at scoring time; nothing half-staged is left behind."""
    info = registry.DatasetInfo(name="fake-flags", description="test double", kind="demo",
                                builder=fake_builder, options={"n_cases": ""},
                                required_case_fields=("lesion_positive",))
    monkeypatch.setitem(registry.DATASETS, "fake-flags", info)
    with pytest.raises(DatasetError, match="case_000.*lesion_positive.*refused"):
        registry.stage("fake-flags", tmp_path, quiet=True)
    assert list(tmp_path.iterdir()) == []



def test_progress_bar_shows_the_name_whatever_rich_s_shared_console_was_made_with(tmp_path, fake, capsys,
                                                                                    monkeypatch):
    """rich's shared console keeps the width it was first made with: made under a narrow
    terminal (another test, a CLI run at 20 columns), it cut the bar's name to nothing; the
    staging bar has its own console, sized now."""
    import rich
    import rich.console
    monkeypatch.setattr(rich, "_console", None)
    monkeypatch.setenv("COLUMNS", "8")
    rich.get_console()                      # made narrow, kept for the process
    monkeypatch.setenv("COLUMNS", "120")
    registry.stage("fake", tmp_path, quiet=False, n_cases=2)
    assert "fake" in capsys.readouterr().out
