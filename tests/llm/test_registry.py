import pytest

from automedbench.agents import get_agent
from automedbench.agents.listing import list_agents
from automedbench.llm.registry import AgentConfigError, load_agent_configs, load_agent_file


def write(tmp_path, text, name="agents.yaml"):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_builtins_load_and_cover_the_examples():
    cfgs = load_agent_configs()
    urls = {c.base_url for c in cfgs.values()}
    assert "https://api.openai.com/v1" in urls
    assert any("11434" in u for u in urls)                 # Ollama
    assert any(":8000" in u for u in urls)                 # vLLM
    assert "https://openrouter.ai/api/v1" in urls
    assert "https://integrate.api.nvidia.com/v1" in urls
    assert cfgs["gpt-4.1"].pricing.input_per_mtok > 0 and cfgs["gpt-4.1"].api_key_env == "OPENAI_API_KEY"


def test_user_file_overrides_and_adds(tmp_path, monkeypatch):
    p = write(tmp_path, """
agents:
  - name: vllm-local
    model: my/model
    base_url: http://10.0.0.5:8000/v1/
    limits: {max_turns: 7}
  - name: mine
    model: m
    base_url: http://127.0.0.1:9/v1
""")
    cfgs = load_agent_configs([p])
    assert cfgs["vllm-local"].model == "my/model" and cfgs["vllm-local"].limits.max_turns == 7
    assert cfgs["vllm-local"].base_url == "http://10.0.0.5:8000/v1"
    monkeypatch.setenv("AUTOMEDBENCH_AGENTS", str(p))
    assert "mine" in load_agent_configs()
    pytest.importorskip("automedbench.agents.scripted")   # get_agent lists scripted agents first
    agent = get_agent("mine")
    assert agent.name == "mine" and agent.model == "m"


def test_literal_api_key_rejected_with_hint(tmp_path):
    p = write(tmp_path, "agents:\n  - {name: x, model: m, base_url: 'http://h/v1', api_key: sk-123}\n")
    with pytest.raises(AgentConfigError) as ei:
        load_agent_file(p)
    msg = str(ei.value)
    assert str(p) in msg and "api_key" in msg and "api_key_env" in msg and "sk-123" not in msg


def test_key_value_in_api_key_env_rejected(tmp_path):
    p = write(tmp_path, "agents:\n  - {name: x, model: m, base_url: 'http://h/v1', api_key_env: 'sk-abc-123'}\n")
    with pytest.raises(AgentConfigError, match="api_key_env"):
        load_agent_file(p)


def test_literal_authorization_header_rejected(tmp_path):
    p = write(tmp_path, "agents:\n  - {name: x, model: m, base_url: 'http://h/v1', headers: {Authorization: 'Bearer sk-1'}}\n")
    with pytest.raises(AgentConfigError, match="headers"):
        load_agent_file(p)
    ok = write(tmp_path, "agents:\n  - {name: x, model: m, base_url: 'http://h/v1', headers: {Authorization: 'Bearer ${TOK}'}}\n", "ok.yaml")
    assert load_agent_file(ok)["x"].headers["Authorization"] == "Bearer ${TOK}"


@pytest.mark.parametrize("body,field", [
    ("agents:\n  - {name: x, model: m, base_url: 'http://h/v1', pricing: {input_per_mtok: -1}}\n", "pricing.input_per_mtok"),
    ("agents:\n  - {name: x, model: m, base_url: 'http://h/v1', limits: {max_turn: 3}}\n", "limits.max_turn"),
    ("agents:\n  - {name: x, base_url: 'http://h/v1'}\n", "model"),
    ("agents:\n  - {name: x, model: m, base_url: 'h/v1'}\n", "base_url"),
])
def test_errors_name_file_and_field(tmp_path, body, field):
    p = write(tmp_path, body)
    with pytest.raises(AgentConfigError) as ei:
        load_agent_file(p)
    assert str(p) in str(ei.value) and f"'{field}'" in str(ei.value) and "agents[0]" in str(ei.value)


def test_not_a_list_and_duplicates(tmp_path):
    with pytest.raises(AgentConfigError, match="agents:"):
        load_agent_file(write(tmp_path, "name: x\n"))
    dup = "agents:\n  - {name: x, model: m, base_url: 'http://h/v1'}\n  - {name: x, model: m, base_url: 'http://h/v1'}\n"
    with pytest.raises(AgentConfigError, match="duplicate"):
        load_agent_file(write(tmp_path, dup, "d.yaml"))


def test_list_agents_rows():
    rows = {r["name"]: r for r in list_agents()}
    assert rows["gpt-4.1"]["kind"] == "llm" and rows["gpt-4.1"]["api_key_env"] == "OPENAI_API_KEY"
    assert rows["vllm-local"]["key_set"] is None
