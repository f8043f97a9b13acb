"""A baseline beside your agent (docs/your-task.md section 5): the `reference` agent runs a
track's classical method on any task its options allow; `tasks show` lists the methods; where
none fits, the refusal says what is missing in the words of the command that was run."""
from __future__ import annotations

import pytest

from automedbench import api
from automedbench.runs.options import RunOptions
from automedbench.runs.preflight import ImpossibleCellError, check_scripted_methods
from automedbench.runs.sweep import Cell
from automedbench.tasks import get_task


def test_a_run_is_refused_with_what_the_method_needs_and_the_run_way_out(my_tasks_dir):
    with pytest.raises(ImpossibleCellError) as exc:
        api.prepare_run("my-cls", "lite", "reference", RunOptions(tasks_dirs=[str(my_tasks_dir)]))
    msg = str(exc.value)
    assert msg.startswith("`automedbench run --agent reference` cannot run here")
    assert "patch_classifier.py needs labelled examples: set `examples_per_class: N` in track_options" in msg
    assert "--agent NAME" in msg and "exclude:" not in msg


def test_a_sweep_cell_is_refused_in_the_words_of_a_sweep(my_tasks_dir):
    task = get_task("my-cls", [my_tasks_dir])
    with pytest.raises(ImpossibleCellError) as exc:
        check_scripted_methods([Cell("my-cls", "lite", "careless", 0)], {"my-cls": task})
    msg = str(exc.value)
    assert msg.startswith("cell(s) my-cls/lite/careless#0") and "exclude:" in msg and "examples_per_class" in msg


def test_tasks_show_lists_each_method_what_it_needs_and_which_runs(my_tasks_dir):
    seg = {m["method"]: m for m in api.task_info(get_task("my-msd", [my_tasks_dir]))["reference_methods"]}
    assert seg["intensity_classes.py"]["runs_as_reference"] and seg["intensity_classes.py"]["fits"] == "yes"
    assert seg["brain_tissue_classical.py"]["needs"].startswith("a skull-stripped T1-like brain MRI")
    assert not seg["brain_tissue_classical.py"]["runs_as_reference"]
    det = api.task_info(get_task("my-det", [my_tasks_dir]))["reference_methods"]
    assert [(m["method"], m["fits"], m["runs_as_reference"]) for m in det] == [("marker_detector.py", "yes", True)]
    cls = api.task_info(get_task("my-cls", [my_tasks_dir]))["reference_methods"]
    assert cls[0]["fits"].startswith("no: needs labelled examples") and not cls[0]["runs_as_reference"]
    # a built-in task naming its method keeps it
    assert [m["method"] for m in api.task_info(get_task("brain-lesion-seg"))["reference_methods"]
            if m["runs_as_reference"]] == ["brain_lesion_classical.py"]


def test_the_classification_method_says_what_it_needs_instead_of_crashing(tmp_path):
    from automedbench.tracks.classification.methods import patch_classifier
    (tmp_path / "c1").mkdir()
    with pytest.raises(SystemExit, match=r"_examples/labels.csv is missing: this few-shot method needs labelled "
                                         r"examples .*examples_per_class"):
        patch_classifier.classify(tmp_path, [tmp_path / "c1"])
