"""The small things of a researcher's first hour (issue 21 part 5), each pinned."""
from __future__ import annotations

import pytest

from automedbench import datasets
from automedbench.data import DatasetError
from automedbench.data.from_folder import stage_summary
from automedbench.llm.registry import load_agent_configs


def test_an_entry_merges_over_the_builtin_one(tmp_path):
    over = tmp_path / "mine.yaml"
    over.write_text("agents:\n  - name: vllm-local\n    base_url: http://127.0.0.1:8001/v1\n"
                    "    limits: {max_turns: 20}\n")
    builtin = load_agent_configs()["vllm-local"]
    merged = load_agent_configs([over])["vllm-local"]
    assert merged.base_url == "http://127.0.0.1:8001/v1" and merged.limits.max_turns == 20
    # everything it did not set is the built-in's, mappings key by key
    assert merged.model == builtin.model and merged.temperature == builtin.temperature
    assert merged.limits.wall_time_s == builtin.limits.wall_time_s and merged.source == str(over)


def test_a_new_entry_still_needs_its_required_fields(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("agents:\n  - name: brand-new\n    base_url: http://127.0.0.1:9/v1\n")
    from automedbench.llm.registry import LLMConfigError
    with pytest.raises(LLMConfigError, match="bad.yaml: agents\\[0\\] \\(name 'brand-new'\\): field 'model'"):
        load_agent_configs([bad])


def test_automedbench_home_moves_every_cache(tmp_path, monkeypatch):
    from automedbench.data import data_root
    from automedbench.sandbox.docker.image import docker_cache_root
    from automedbench.sandbox.runtime import cache_root
    from automedbench.llm.cache import default_cache_dir
    monkeypatch.delenv("AUTOMEDBENCH_DATA", raising=False)
    monkeypatch.delenv("AUTOMEDBENCH_JUDGE_CACHE", raising=False)
    monkeypatch.setenv("AUTOMEDBENCH_HOME", str(tmp_path / "h"))
    for where in (data_root(), default_cache_dir(), cache_root(), docker_cache_root()):
        assert where.is_relative_to(tmp_path / "h"), where


def test_stage_mismatch_names_the_cli_flag(tmp_path, monkeypatch):
    from automedbench.data import DatasetInfo
    built = {"n": 0}

    def builder(paths, progress=None, size=1):
        from automedbench.data import write_manifest
        built["n"] += 1
        for side in ("public", "private"):
            (getattr(paths, side) / "c1").mkdir(parents=True)
            (getattr(paths, side) / "c1" / "f.txt").write_text(str(size))
        write_manifest(paths, dataset="toy-ds", description="", cases=[{"case_id": "c1"}], provenance={})
    datasets.DATASETS["toy-ds"] = DatasetInfo("toy-ds", "", "demo", builder, options={"size": "n"})
    try:
        datasets.stage("toy-ds", tmp_path, size=1, quiet=True)
        with pytest.raises(DatasetError) as exc:
            datasets.stage("toy-ds", tmp_path, size=2, quiet=True)
        assert "pass --force to rebuild it" in str(exc.value)
    finally:
        del datasets.DATASETS["toy-ds"]


def test_a_failed_stage_leaves_no_folder(tmp_path):
    with pytest.raises(DatasetError):
        datasets.stage("kits19", tmp_path / "data", source=tmp_path / "nowhere", quiet=True)
    assert not (tmp_path / "data").exists()   # not even the data root it would have created


def test_stage_summary_reads_either_skip_record():
    m = {"cases": [{"case_id": "a"}, {"case_id": "b"}],
         "provenance": {"skipped": [{"case_id": "c", "reason": "no segmentation"}]}}
    assert stage_summary(m) == "2 cases staged, 1 skipped: no segmentation (c)"
    assert stage_summary({"cases": [{"case_id": "a"}]}) == "1 case staged"
