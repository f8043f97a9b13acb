import json

import pytest

from automedbench.agents.toolcall_parse import extract_text_tool_calls, repair_arguments


def test_valid_json_untouched():
    r = repair_arguments('{"language": "python", "code": "print(1)"}')
    assert r.value == {"language": "python", "code": "print(1)"} and r.repairs == [] and r.error is None


@pytest.mark.parametrize("raw,expected", [
    ('{"language": "python", "code": "print(1)\nprint(2)"}', {"language": "python", "code": "print(1)\nprint(2)"}),
    ('{"language": "bash", "code": "ls",}', {"language": "bash", "code": "ls"}),
    ("{'language': 'python', 'code': 'print(\"hi\")'}", {"language": "python", "code": 'print("hi")'}),
    ("{'code': 'it\\'s', 'language': 'bash'}", {"code": "it's", "language": "bash"}),
    ('```json\n{"language": "bash", "code": "ls"}\n```', {"language": "bash", "code": "ls"}),
    ('Here you go: {"language": "bash", "code": "ls"} done', {"language": "bash", "code": "ls"}),
    ('{language: "bash", code: "ls", "x": True}', {"language": "bash", "code": "ls", "x": True}),
    ('{"language": "python", "code": "import re; re.compile(\'\\d+\')"}',
     {"language": "python", "code": "import re; re.compile('\\d+')"}),
    ('{"language": "python", "code": "print(1)', {"language": "python", "code": "print(1)"}),
    ('{"language": "python", "items": [1, 2,', {"language": "python", "items": [1, 2]}),
    (json.dumps(json.dumps({"language": "bash", "code": "ls"})), {"language": "bash", "code": "ls"}),
    ("", {}),
    (None, {}),
])
def test_repairs(raw, expected):
    r = repair_arguments(raw)
    assert r.value == expected, (r.repairs, r.error)
    if raw:
        assert r.repairs, "a repaired input must say what was repaired"


def test_control_characters_tab_and_cr():
    r = repair_arguments('{"code": "a\tb\rc", "language": "bash"}')
    assert r.value == {"code": "a\tb\rc", "language": "bash"}


@pytest.mark.parametrize("raw", ["not json at all", "[1, 2, 3]", '"just a string"', "{{{{"])
def test_unrepairable(raw):
    r = repair_arguments(raw)
    assert r.value is None and r.error


def test_hermes_tool_call():
    text = ('I will list the data.\n<tool_call>\n{"name": "execute_code", "arguments": '
            '{"language": "bash", "code": "ls /data"}}\n</tool_call>')
    calls, rest = extract_text_tool_calls(text)
    assert len(calls) == 1
    assert calls[0].name == "execute_code" and calls[0].form == "tool_call_json"
    assert calls[0].arguments == {"language": "bash", "code": "ls /data"}
    assert rest == "I will list the data."


def test_hermes_arguments_as_string_and_two_calls():
    a = json.dumps({"name": "execute_code", "arguments": json.dumps({"language": "python", "code": "print(1)"})})
    text = f"<tool_call>{a}</tool_call><tool_call>{{\"name\": \"submit_results\", \"arguments\": {{}}}}</tool_call>"
    calls, rest = extract_text_tool_calls(text)
    assert [c.name for c in calls] == ["execute_code", "submit_results"]
    assert calls[0].arguments == {"language": "python", "code": "print(1)"}
    assert rest == ""


def test_function_tag_form():
    text = ("Let me check.\n<tool_call>\n<function=execute_code>\n<parameter=language>\npython\n</parameter>\n"
            "<parameter=code>\nfor i in range(2):\n    print(i)\n</parameter>\n</function>\n</tool_call>")
    calls, rest = extract_text_tool_calls(text)
    assert len(calls) == 1 and calls[0].form == "function_tag"
    assert calls[0].arguments == {"language": "python", "code": "for i in range(2):\n    print(i)"}
    assert rest == "Let me check."


def test_function_tag_without_tool_call_wrapper():
    text = "<function=submit_results></function>"
    calls, _ = extract_text_tool_calls(text)
    assert [(c.name, c.arguments) for c in calls] == [("submit_results", {})]


def test_invoke_form():
    text = ('<function_calls>\n<invoke name="execute_code">\n<parameter name="language">bash</parameter>\n'
            '<parameter name="code">echo "a < b"</parameter>\n</invoke>\n</function_calls>')
    calls, rest = extract_text_tool_calls(text)
    assert len(calls) == 1 and calls[0].form == "invoke_tag"
    assert calls[0].arguments == {"language": "bash", "code": 'echo "a < b"'}
    assert rest == ""


def test_bare_json_is_not_a_call():
    text = 'The config is {"name": "execute_code", "arguments": {"language": "bash", "code": "rm -rf /"}}.'
    calls, rest = extract_text_tool_calls(text)
    assert calls == [] and rest == text


def test_prose_mentioning_tags_in_backticks_is_not_json_call():
    calls, _ = extract_text_tool_calls("I could use a tool call but I will just answer.")
    assert calls == []


def test_broken_tool_call_block_reports_error():
    calls, _ = extract_text_tool_calls("<tool_call>this is not json</tool_call>")
    assert len(calls) == 1 and calls[0].arguments is None and calls[0].error
