import re
from collections import Counter

import pytest

from automedbench.prompts.render import PromptError, _fill, render_prompt
from automedbench.tasks import TIERS, TaskError, discover, get_task
from automedbench.tracks.segmentation import SegmentationTrack

BUILTIN_DIR = SegmentationTrack.tasks_dir


def test_builtin_tasks_are_discovered():
    tasks = discover()
    assert {"brain-lesion-seg", "brain-tissue-seg", "kits19-seg"} <= set(tasks)
    assert tasks["brain-lesion-seg"].track == "segmentation"


@pytest.mark.parametrize("tier", TIERS)
@pytest.mark.parametrize("task_id", sorted(discover()))
def test_every_task_and_tier_renders_cleanly(task_id, tier):
    text = render_prompt(get_task(task_id), tier)
    assert not re.search(r"\{[a-z_][a-z0-9_]*\}", text), "unreplaced placeholder"
    headings = [l for l in text.splitlines() if l.startswith("#")]
    dupes = [h for h, n in Counter(headings).items() if n > 1]
    assert not dupes, f"duplicated blocks: {dupes}"
    paragraphs = [p.strip() for p in text.split("\n\n") if len(p.strip()) > 40]
    assert len(paragraphs) == len(set(paragraphs)), "a paragraph appears twice"
    for stage in ("S1 Plan", "S2 Setup", "S3 Validate", "S4 Inference", "S5 Submit"):
        assert stage in text
    assert "/data/public" in text and "/workspace" in text


def test_tiers_differ_as_specified():
    t = get_task("brain-lesion-seg")
    lite, std, pro = (render_prompt(t, x) for x in TIERS)
    assert t.tiers.lite.model in lite and t.tiers.lite.model not in std
    assert all(c in std for c in t.tiers.standard.candidates)
    assert t.tiers.pro.background in pro and t.tiers.standard.candidates[0] not in pro
    assert "Skill (validation)" in lite and "Skill (validation)" not in std and "Skill (planning)" in std
    assert "Skill (planning)" not in pro
    assert "plan.png" in std and "plan.png" not in lite


def test_unknown_placeholder_is_an_error():
    with pytest.raises(PromptError, match="unknown placeholder"):
        _fill("hello {nope}", {}, "t")


def test_unknown_task_and_tier():
    with pytest.raises(TaskError, match="unknown task 'nope'"):
        get_task("nope")
    # a typo gets a did-you-mean; every unknown task gets the way to a task of one's own
    with pytest.raises(TaskError, match=r"unknown task 'brain-lesion-sge'; did you mean 'brain-lesion-seg' or 'brain-tissue-seg'\?; "
                                        r"a task of your own: pass --tasks-dir DIR .* AUTOMEDBENCH_TASKS"):
        get_task("brain-lesion-sge")
    with pytest.raises(TaskError, match="unknown tier"):
        render_prompt(get_task("brain-lesion-seg"), "expert")


def _user_task(tmp_path, text):
    d = tmp_path / "tasks" / "my-task"
    d.mkdir(parents=True)
    (d / "task.yaml").write_text(text)
    return tmp_path / "tasks"


def test_user_task_folder_via_env(tmp_path, monkeypatch):
    src = (BUILTIN_DIR / "brain-lesion-seg" / "task.yaml").read_text().replace("id: brain-lesion-seg", "id: my-task")
    root = _user_task(tmp_path, src)
    monkeypatch.setenv("AUTOMEDBENCH_TASKS", str(root))
    assert get_task("my-task").dataset == "mni-brain-lesion"


@pytest.mark.parametrize("mutate, field", [
    (lambda s: s.replace("track: segmentation\n", ""), "track"),
    (lambda s: s.replace("time_limit_s: 3600", "time_limit_s: soon"), "time_limit_s"),
    (lambda s: s.replace("id: my-task", "id: other"), "id"),
    (lambda s: s + "\nunexpected_key: 1\n", "unexpected_key"),
    (lambda s: s.replace("candidates:", "candidatez:"), "tiers.standard"),
    (lambda s: s + "\n  : [\n", "not valid YAML"),
])
def test_malformed_task_names_file_and_field(tmp_path, mutate, field):
    src = (BUILTIN_DIR / "brain-lesion-seg" / "task.yaml").read_text().replace("id: brain-lesion-seg", "id: my-task")
    root = _user_task(tmp_path, mutate(src))
    with pytest.raises(TaskError) as info:
        discover([root])
    msg = str(info.value)
    assert "my-task/task.yaml" in msg and field in msg
