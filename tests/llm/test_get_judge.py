import pytest

from automedbench.errors import UserError
from automedbench.scoring.judge import get_judge
from automedbench.scoring.judge.llm import LLMJudge
from automedbench.scoring.judge.panel import JudgePanel


@pytest.fixture
def judges_file(tmp_path):
    p = tmp_path / "judges.yaml"
    p.write_text("agents:\n"
                 "  - {name: j1, model: m1, base_url: 'http://127.0.0.1:9/v1'}\n"
                 "  - {name: j2, model: m2, base_url: 'http://127.0.0.1:9/v1', vision: true}\n")
    return p


def test_one_name_is_llm_judge(judges_file, tmp_path):
    j = get_judge(["j1"], [judges_file], cache_dir=tmp_path)
    assert isinstance(j, LLMJudge) and j.model == "m1" and j.backend == "llm"


def test_builtin_registry_name():
    j = get_judge(["gpt-4.1-mini-judge"], use_cache=False)
    assert isinstance(j, LLMJudge) and j.config.vision


def test_several_names_is_panel(judges_file):
    p = get_judge(["j1", "j2"], [judges_file])
    assert isinstance(p, JudgePanel) and p.names == ["j1", "j2"] and p.model == "m1,m2"


def test_unknown_name(judges_file):
    # a user error (one line, exit 2 in the CLI) naming what is known
    with pytest.raises(UserError, match="unknown agent/judge 'nope'.*heuristic.*j1"):
        get_judge(["nope"], [judges_file])


def test_default_is_heuristic():
    pytest.importorskip("automedbench.scoring.judge.heuristic")
    for names in (None, [], ["heuristic"]):
        assert get_judge(names).backend == "heuristic"
