"""Pure functions that make models' tool calls usable.

1. `repair_arguments(raw)`: tool-call arguments as the model wrote them -> a dict, fixing
   the usual damage (raw control characters inside strings, trailing commas, single-quoted
   strings, Python literals, bare keys, code fences, junk around the object, a truncated
   tail, double encoding). Returns `Repaired(value, repairs, error)`; `value is None`
   means unrepairable and `error` says why (fed back to the model so it can retry).

2. `extract_text_tool_calls(text)`: tool calls that a model wrote into its *text* instead
   of the structured `tool_calls` field, in three forms:
     <tool_call>{"name": ..., "arguments": {...}}</tool_call>                 (Hermes / Qwen)
     <function=NAME><parameter=KEY>value</parameter></function>               (Qwen3-Coder)
     <invoke name="NAME"><parameter name="KEY">value</parameter></invoke>     (XML style)
   Only when the wrapper tag is really present: a bare JSON object in prose is never
   taken for a call.

3. `extract_fenced_json_calls(text, tool_names)`: a fenced block holding exactly one
   object `{"name": TOOL, "arguments": {...}}` (common in small models). Recovered only
   when the name is one of `tool_names` and the arguments parse without closing a
   truncated object; otherwise it is *rejected* (returned with `error` set), never run.

4. `tool_call_like(text)`: reasons why a text that produced no call still looks like an
   attempted tool call (a bare `{"name", "arguments"}` object, an unterminated
   `<tool_call>`, ...) - the harness records it and tells the model, it never runs it.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Repaired:
    value: dict[str, Any] | None
    repairs: list[str] = field(default_factory=list)
    error: str | None = None


@dataclass
class TextToolCall:
    name: str
    arguments: dict[str, Any] | None
    raw: str                       # the matched span
    form: str                      # tool_call_json | function_tag | invoke_tag
    repairs: list[str] = field(default_factory=list)
    error: str | None = None


_FENCE = re.compile(r"^\s*```[a-zA-Z0-9_-]*\s*\n?(.*?)\n?\s*```\s*$", re.DOTALL)
_CTRL_ESC = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}


def _loads_dict(text: str, strict: bool = True) -> Any:
    return json.loads(text, strict=strict)


def repair_arguments(raw: str | dict | None) -> Repaired:
    """Arguments string -> dict, with the list of repairs applied (empty when it was valid)."""
    if isinstance(raw, dict):
        return Repaired(raw)
    if raw is None or not str(raw).strip():
        return Repaired({}, ["empty arguments read as {}"])
    text = str(raw)
    repairs: list[str] = []
    try:
        value = _loads_dict(text)
    except json.JSONDecodeError:
        value = _MISSING
        try:
            value = _loads_dict(text, strict=False)
            repairs.append("escaped control characters inside strings")
        except json.JSONDecodeError:
            pass
    if value is _MISSING:
        value = _repair_text(text, repairs)
        if value is _MISSING:
            return Repaired(None, repairs, "tool-call arguments are not valid JSON and could not be repaired; "
                                           "send a JSON object such as {\"language\": \"python\", \"code\": \"...\"}")
    # double encoding: "{\"code\": ...}"
    for _ in range(2):
        if isinstance(value, str) and value.strip().startswith("{"):
            inner = repair_arguments(value)
            if inner.value is not None:
                repairs += ["decoded double-encoded JSON"] + inner.repairs
                value = inner.value
        else:
            break
    if not isinstance(value, dict):
        return Repaired(None, repairs, f"tool-call arguments must be a JSON object, got {type(value).__name__}")
    return Repaired(value, repairs)


class _Missing:
    pass


_MISSING = _Missing()


def _repair_text(text: str, repairs: list[str]) -> Any:
    s = text.strip()
    m = _FENCE.match(s)
    if m:
        s = m.group(1).strip()
        repairs.append("removed a code fence")
        try:
            return _loads_dict(s, strict=False)
        except json.JSONDecodeError:
            pass
    start = s.find("{")
    if start > 0:
        s = s[start:]
        repairs.append("dropped text before the object")
    elif start < 0:
        return _MISSING
    fixed, notes = _normalise(s)
    repairs += notes
    for candidate in (fixed, _close_truncated(fixed, repairs)):
        if candidate is None:
            continue
        try:
            return _loads_dict(candidate, strict=False)
        except json.JSONDecodeError as exc:
            # junk after a complete object
            if exc.msg == "Extra data":
                try:
                    value = _loads_dict(candidate[: exc.pos], strict=False)
                    repairs.append("dropped text after the object")
                    return value
                except json.JSONDecodeError:
                    pass
    return _MISSING


_BARE_WORDS = {"True": "true", "False": "false", "None": "null"}


def _normalise(s: str) -> tuple[str, list[str]]:
    """One pass over the text, string-aware: single -> double quotes, control characters
    escaped, trailing commas dropped, Python literals and bare keys fixed. Each rule is one of
    the readers below; what is outside a string, a trailing comma or a word is kept as is."""
    out: list[str] = []
    notes: set[str] = set()
    i, n = 0, len(s)
    while i < n:
        c = s[i]
        if c in "\"'":
            text, i = _read_string(s, i, notes)
        elif c == "," and _closes_next(s, i + 1):
            notes.add("removed trailing commas")
            text, i = "", i + 1
        elif c.isalpha() or c == "_":
            text, i = _read_word(s, i, notes)
        else:
            text, i = c, i + 1
        out.append(text)
    return "".join(out), sorted(notes)


def _read_string(s: str, i: int, notes: set[str]) -> tuple[str, int]:
    """The string that opens at s[i] (either quote) as a JSON string, and the index after it:
    a single-quoted string becomes double-quoted, a double quote inside it is escaped, control
    characters are escaped; an unterminated string is returned unclosed (_close_truncated)."""
    quote, n = s[i], len(s)
    if quote == "'":
        notes.add("converted single-quoted strings")
    buf = ['"']
    i += 1
    while i < n:
        ch = s[i]
        if ch == "\\" and i + 1 < n:
            buf.append(_escape(quote, s[i + 1], notes))
            i += 2
        elif ch == quote:
            buf.append('"')
            return "".join(buf), i + 1
        else:
            buf.append(_string_char(ch, notes))
            i += 1
    return "".join(buf), i


def _escape(quote: str, nxt: str, notes: set[str]) -> str:
    """A backslash followed by `nxt` inside a string: \\' in a single-quoted string is a plain
    quote, JSON's own escapes stay, any other (\\d in a regex) keeps its backslash literally."""
    if quote == "'" and nxt == "'":
        return "'"
    if nxt in "\"\\/bfnrtu":
        return "\\" + nxt
    notes.add("escaped stray backslashes")
    return "\\\\" + (_CTRL_ESC[nxt] if nxt in _CTRL_ESC else nxt)


def _string_char(ch: str, notes: set[str]) -> str:
    """One character inside a string: a double quote (only possible inside a single-quoted
    string) is escaped, a control character is written as its escape."""
    if ch == '"':
        return '\\"'
    if ch in _CTRL_ESC or ord(ch) < 0x20:
        notes.add("escaped control characters inside strings")
        return _CTRL_ESC.get(ch, f"\\u{ord(ch):04x}")
    return ch


def _closes_next(s: str, j: int) -> bool:
    """Whether the next character from j on, after blanks, closes an object or array: the comma
    before it is a trailing comma, which JSON refuses."""
    n = len(s)
    while j < n and s[j] in " \t\r\n":
        j += 1
    return j < n and s[j] in "}]"


def _read_word(s: str, i: int, notes: set[str]) -> tuple[str, int]:
    """The bare word at s[i] and the index after it: followed by a colon it is a key and gets
    quotes (JSON's own literals excepted); True/False/None become JSON literals; any other
    word is kept."""
    n = len(s)
    j = i
    while j < n and (s[j].isalnum() or s[j] == "_"):
        j += 1
    word = s[i:j]
    k = j
    while k < n and s[k] in " \t":
        k += 1
    if k < n and s[k] == ":" and word not in ("true", "false", "null"):
        notes.add("quoted bare keys")
        return f'"{word}"', j
    if word in _BARE_WORDS:
        notes.add("converted Python literals")
        return _BARE_WORDS[word], j
    return word, j


def _close_truncated(s: str, repairs: list[str]) -> str | None:
    """Close an unterminated string and open brackets (a reply cut at max_tokens)."""
    stack: list[str] = []
    in_str = False
    i = 0
    while i < len(s):
        c = s[i]
        if in_str:
            if c == "\\":
                i += 2
                continue
            if c == '"':
                in_str = False
        elif c == '"':
            in_str = True
        elif c in "{[":
            stack.append("}" if c == "{" else "]")
        elif c in "}]":
            if stack:
                stack.pop()
        i += 1
    if not in_str and not stack:
        return None
    tail = ('"' if in_str else "") + "".join(reversed(stack))
    repairs.append("closed a truncated object")
    return s.rstrip().rstrip(",") + tail if not in_str else s + tail


# ---- tool calls written as text -------------------------------------------------------

_TOOL_CALL_BLOCK = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|\Z)", re.DOTALL)
_FUNCTION_BLOCK = re.compile(r"<function=([A-Za-z0-9_.\-]+)>(.*?)(?:</function>|\Z)", re.DOTALL)
_FUNCTION_PARAM = re.compile(r"<parameter=([A-Za-z0-9_.\-]+)>(.*?)(?:</parameter>|(?=<parameter=)|\Z)", re.DOTALL)
_INVOKE_BLOCK = re.compile(r"<invoke\s+name=[\"']([A-Za-z0-9_.\-]+)[\"']\s*>(.*?)(?:</invoke>|\Z)", re.DOTALL)
_INVOKE_PARAM = re.compile(r"<parameter\s+name=[\"']([A-Za-z0-9_.\-]+)[\"']\s*>(.*?)(?:</parameter>|\Z)", re.DOTALL)
_WRAPPERS = re.compile(r"</?(?:function_calls|antml:function_calls|tool_calls)>")


def _strip_value(v: str) -> str:
    # the tag formats put values on their own lines: drop exactly one leading/trailing newline
    if v.startswith("\n"):
        v = v[1:]
    if v.endswith("\n"):
        v = v[:-1]
    return v


def _params(block: str, pattern: re.Pattern) -> dict[str, Any]:
    return {m.group(1): _strip_value(m.group(2)) for m in pattern.finditer(block)}


def _from_json_block(body: str, span: str) -> TextToolCall | None:
    body = body.strip()
    if body.startswith("<function="):
        m = _FUNCTION_BLOCK.search(body)
        if m:
            return TextToolCall(m.group(1), _params(m.group(2), _FUNCTION_PARAM), span, "function_tag")
    rep = repair_arguments(body)
    if rep.value is None:
        return TextToolCall("", None, span, "tool_call_json", rep.repairs,
                            "the <tool_call> block is not valid JSON: " + (rep.error or ""))
    obj = rep.value
    function = obj.get("function")
    fn: dict[str, Any] = function if isinstance(function, dict) else {}
    name = obj.get("name") or fn.get("name")
    args = next((a for a in (obj.get("arguments"), obj.get("parameters"), obj.get("args"), fn.get("arguments"))
                 if a is not None), None)
    if not isinstance(name, str) or not name:
        return TextToolCall("", None, span, "tool_call_json", rep.repairs, "the <tool_call> block has no \"name\"")
    inner = repair_arguments(args if args is not None else {})
    return TextToolCall(name, inner.value, span, "tool_call_json", rep.repairs + inner.repairs, inner.error)


def extract_text_tool_calls(text: str | None) -> tuple[list[TextToolCall], str]:
    """(calls in order of appearance, the text with the call markup removed)."""
    if not text:
        return [], text or ""
    found: list[tuple[int, int, TextToolCall]] = []

    def free(a: int, b: int) -> bool:
        return all(b <= s or a >= e for s, e, _ in found)

    for m in _TOOL_CALL_BLOCK.finditer(text):
        call = _from_json_block(m.group(1), m.group(0))
        if call is not None:
            found.append((m.start(), m.end(), call))
    for m in _FUNCTION_BLOCK.finditer(text):
        if free(m.start(), m.end()):
            found.append((m.start(), m.end(), TextToolCall(m.group(1), _params(m.group(2), _FUNCTION_PARAM),
                                                           m.group(0), "function_tag")))
    for m in _INVOKE_BLOCK.finditer(text):
        if free(m.start(), m.end()):
            found.append((m.start(), m.end(), TextToolCall(m.group(1), _params(m.group(2), _INVOKE_PARAM),
                                                           m.group(0), "invoke_tag")))
    if not found:
        return [], text
    found.sort(key=lambda t: t[0])
    rest, pos = [], 0
    for s, e, _ in found:
        rest.append(text[pos:s])
        pos = e
    rest.append(text[pos:])
    remaining = _WRAPPERS.sub("", "".join(rest)).strip()
    return [c for _, _, c in found], remaining


# ---- fenced JSON calls and tool-call-like text ------------------------------------------

_FENCED = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[ \t]*\n(.*?)\n?[ \t]*```", re.DOTALL)
_NAME_ARGS = re.compile(r"[{,]\s*[\"']name[\"']\s*:\s*[\"']([^\"']*)[\"'].*?[\"'](?:arguments|parameters)[\"']\s*:",
                        re.DOTALL)
TRUNCATION_REPAIR = "closed a truncated object"


def extract_fenced_json_calls(text: str | None, tool_names: set[str] | frozenset[str]
                              ) -> tuple[list[TextToolCall], str]:
    """(calls found in ``` fences, text without those fences). A returned call with
    `error` set was rejected (unknown tool, unparseable or truncated JSON): never run it."""
    if not text:
        return [], text or ""
    calls: list[TextToolCall] = []
    rest, pos = [], 0
    for m in _FENCED.finditer(text):
        lang, body = m.group(1).lower(), m.group(2).strip()
        if lang not in ("", "json", "json5", "tool_call", "tool", "function") or not body.startswith("{"):
            continue
        named = _NAME_ARGS.search(body)
        if not named:
            continue
        rest.append(text[pos:m.start()])
        pos = m.end()
        name = named.group(1)
        rep = repair_arguments(body)
        if rep.value is None or TRUNCATION_REPAIR in rep.repairs:
            why = ("the JSON is incomplete (cut off)" if rep.value is not None else
                   "it is not valid JSON" + (" (a Python triple-quoted string is not JSON: put the code in one "
                                             "JSON string with \\n escapes)" if '"""' in body or "'''" in body else ""))
            calls.append(TextToolCall(name, None, m.group(0), "fenced_json", rep.repairs,
                                      f"a fenced tool call for {name!r} was not executed: {why}"))
            continue
        obj = rep.value
        args: Any = next((a for a in (obj.get("arguments"), obj.get("parameters")) if a is not None), {})
        inner = repair_arguments(args)
        if name not in tool_names:
            calls.append(TextToolCall(name, None, m.group(0), "fenced_json", rep.repairs,
                                      f"{name!r} is not a tool; the tools are {', '.join(sorted(tool_names))}"))
        elif inner.value is None or TRUNCATION_REPAIR in inner.repairs:
            calls.append(TextToolCall(name, None, m.group(0), "fenced_json", rep.repairs + inner.repairs,
                                      f"the arguments of the fenced call to {name!r} are not a complete JSON object"))
        else:
            calls.append(TextToolCall(name, inner.value, m.group(0), "fenced_json", rep.repairs + inner.repairs))
    rest.append(text[pos:])
    return calls, "".join(rest).strip()


_TOOL_TAGS = re.compile(r"<tool_call>|<function=|<invoke\s+name=|<\|python_tag\|>|\[TOOL_CALLS\]")


def tool_call_like(text: str | None) -> str | None:
    """Why `text` (which yielded no usable call) looks like an attempted tool call, or None."""
    if not text:
        return None
    m = _TOOL_TAGS.search(text)
    if m:
        return f"tool-call markup {m.group(0)!r} that could not be read as a call"
    m = _NAME_ARGS.search(text)
    if m:
        return (f"a JSON object naming {m.group(1)!r} with arguments, written as text; "
                "text is never executed")
    return None
