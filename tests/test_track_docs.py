"""docs/tracks.md matches the seam: every member its tables document exists on the protocol the
table names, every member of the protocols is documented, and the members documented
*required* are exactly those without a default (docs/tracks.md "The seam")."""
from __future__ import annotations

import ast
import inspect
import re
import textwrap
from pathlib import Path

from automedbench.tracks.base import ScriptedMethods, TrackAssets, TrackContract, TrackScoring

DOC = Path(__file__).resolve().parents[1] / "docs" / "tracks.md"
PROTOCOLS = {"TrackContract": TrackContract, "TrackScoring": TrackScoring, "TrackAssets": TrackAssets,
             "ScriptedMethods": ScriptedMethods}


def documented(text: str) -> dict[str, dict[str, str]]:
    """{protocol: {member: its default cell (or "" for a table without one)}} from each table
    under a bold heading naming a protocol (`**`TrackScoring[O]`: ...**`)."""
    found: dict[str, dict[str, str]] = {}
    current = None
    for line in text.splitlines():
        heading = re.match(r"\*\*`(\w+)(?:\[O\])?`", line)
        if heading:
            current = heading.group(1) if heading.group(1) in PROTOCOLS else None
            continue
        row = re.match(r"\| `(\w+)[^`]*` \|(.*)", line)
        if current and row:
            cells = [c.strip() for c in row.group(2).split(" | ")]
            found.setdefault(current, {})[row.group(1)] = cells[0] if current != "ScriptedMethods" else ""
        elif current and line.strip() and not line.startswith("|"):
            current = None
    return found


def members(protocol: type) -> set[str]:
    own = vars(protocol)
    return {*own.get("__annotations__", {}), *(n for n, v in own.items() if not n.startswith("_") and callable(v))}


def required(protocol: type) -> set[str]:
    """Members without a default: an annotation with no value, or a method whose body is `...`."""
    own = vars(protocol)
    out = {n for n in own.get("__annotations__", {}) if n not in own}
    for name, value in own.items():
        if name.startswith("_") or not callable(value):
            continue
        func = ast.parse(textwrap.dedent(inspect.getsource(value))).body[0]
        assert isinstance(func, ast.FunctionDef)
        body = [s for s in func.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)
                                             and isinstance(s.value.value, str))]
        if len(body) == 1 and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and body[0].value.value is Ellipsis:
            out.add(name)
    return out


def test_every_documented_member_exists_and_every_member_is_documented():
    docs = documented(DOC.read_text())
    assert set(docs) == set(PROTOCOLS), f"tables found for {sorted(docs)}"
    for name, protocol in PROTOCOLS.items():
        assert set(docs[name]) - members(protocol) == set(), f"{name}: documented but not in the code"
        assert members(protocol) - set(docs[name]) == set(), f"{name}: in the code but not documented"


def test_required_members_are_documented_required_and_the_kit_has_none():
    docs = documented(DOC.read_text())
    for name in ("TrackContract", "TrackScoring", "TrackAssets"):
        marked = {m for m, default in docs[name].items() if default == "required"}
        assert marked == required(PROTOCOLS[name]), name
    assert required(TrackAssets) == set()          # the kit is optional, all of it
    assert required(TrackContract) == {"name", "options_model", "submission"}


def test_the_parser_sees_a_missing_and_a_stale_member():
    """The check itself: a table without one member, and with one the code lacks."""
    text = DOC.read_text()
    dropped = "\n".join(line for line in text.splitlines() if not line.startswith("| `logic_drop` |"))
    assert "logic_drop" not in documented(dropped)["TrackScoring"]
    stale = text.replace("| `logic_drop` |", "| `from_folder(src, dest, options)` | x |\n| `logic_drop` |", 1)
    assert "from_folder" in documented(stale)["TrackScoring"]
    assert "from_folder" not in members(TrackScoring)
