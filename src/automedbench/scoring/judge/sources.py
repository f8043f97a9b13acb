"""The code a call ran that is not in its own text: scripts the agent wrote, then ran or imported
(docs/judge.md "Content facts": "Check scripts written earlier")."""
from __future__ import annotations

import ast
import doctest
import re
from functools import lru_cache

from .asserts import called_names, parse_python, silent_check
from .calls import CallFacts

_BASH_FILE = re.compile(
    r"\b(?:cat|tee)\b(?:\s+-a)?\s*(?:>\s*(?P<a>[^\s<>;|&]+)\s*)?<<-?\s*['\"]?(?P<tag>\w+)['\"]?"
    r"(?:\s*>\s*(?P<b>[^\s<>;|&]+))?[^\n]*\n(?P<body>.*?)\n\s*(?P=tag)\s*$", re.DOTALL | re.MULTILINE)
_TEE = re.compile(r"\btee\s+(?:-a\s+)?(?P<f>[^\s<>;|&-][^\s<>;|&]*)")
SOURCE_TYPES = (".py",)


@lru_cache(maxsize=512)     # the steps of one call share its code (bench/judge_throughput.py)
def written_sources(code: str) -> dict[str, str]:
    """Files (as named, relative or absolute) whose text `code` writes from a literal."""
    if ".py" not in code:
        return {}                # every source file named ends so (SOURCE_TYPES)
    found: dict[str, str] = {}
    for m in _BASH_FILE.finditer(code):
        target = m.group("a") or m.group("b")
        if target is None:
            tee = _TEE.search(code, m.start(), m.end("tag"))
            target = tee.group("f") if tee else None
        if target:
            found[target.strip("'\"")] = m.group("body")
    tree = parse_python(code)
    if tree is not None:
        for node in ast.walk(tree):
            found.update(_python_writes(node))
    return {k: v for k, v in found.items() if k.endswith(SOURCE_TYPES)}


def _text(e: ast.expr) -> str | None:
    return e.value if isinstance(e, ast.Constant) and isinstance(e.value, str) else None


def _python_writes(node: ast.AST) -> dict[str, str]:
    """`Path('f').write_text('...')`, `open('f', 'w').write('...')`, `{'f.py': '...'}`."""
    if isinstance(node, ast.Dict):
        pairs = [(_text(k) if k is not None else None, _text(v)) for k, v in zip(node.keys, node.values)]
        return {k: v for k, v in pairs if k and v is not None and k.endswith(SOURCE_TYPES)}
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args):
        return {}
    body = _text(node.args[0])
    target = node.func.value
    if body is None or not isinstance(target, ast.Call) or not target.args:
        return {}
    name = _text(target.args[0])
    opener = target.func.id if isinstance(target.func, ast.Name) else ""
    if name and (node.func.attr == "write_text" or (node.func.attr == "write" and opener == "open")):
        return {name: body}
    return {}


class RanSources:
    """The source files the agent wrote, by inside path, as the calls are walked in order."""

    def __init__(self, workspace: str) -> None:
        self.workspace = workspace
        self.text: dict[str, str] = {}
        self.history: dict[str, list[str]] = {}     # every text each file was written with, in order

    def _inside(self, name: str) -> str:
        return name if name.startswith("/") else f"{self.workspace}/{name.removeprefix('./')}"

    def walk(self, c: CallFacts) -> None:
        """Remember the sources step `c`'s code writes, then note those it ran (`c.ran`)."""
        for name, body in dict(written_sources(c.code)).items():
            self.text[self._inside(name)] = body
            texts = self.history.setdefault(self._inside(name), [])
            if body not in texts:
                texts.append(body)
        opened = dict.fromkeys((*c.held, *c.read, *c.read_back))
        c.ran = [(p, self.text[p]) for p in opened if p in self.text]

    def drop_methods(self, calls: list[CallFacts]) -> None:
        """Drop the method's own code from every `ran` (docs/judge.md "Check scripts written earlier")."""
        method: set[str] = set()
        for c in calls:
            if not c.unit_writes:
                continue
            units = {w.path for w in c.unit_writes}
            before = set(c.held)
            if c.order is None:
                before |= set(c.read)
            else:
                for op, path, *_ in c.order:
                    if op == "w" and path in units:
                        break
                    if op == "r":
                        before.add(path)
            method |= before & set(self.text)
        for c in calls:
            c.ran = [(p, t) for p, t in c.ran if p not in method]


_DOCTEST_RUN = re.compile(r"-m\s+doctest\b|\bdoctest\.test(?:mod|file)\b|\bpytest\b[^\n]*--doctest-modules")


def doctest_checks(text: str) -> str:
    """A file's doctest examples as the asserts the doctest runner makes of them (docs/judge.md "Check
    scripts written earlier"); an expected output that is no Python value (a printed array) is left out."""
    lines = []
    for ex in doctest.DocTestParser().get_examples(text):
        source = ex.source.strip()
        # an example at the end of a docstring: its expected output runs up to the closing quotes
        want = re.split(r"^\s*(?:\"\"\"|\'\'\')", ex.want, maxsplit=1, flags=re.MULTILINE)[0].strip()
        line = f"assert ({source}) == ({want})" if want else source
        if parse_python(line) is not None:
            lines.append(line)
    return "\n".join(lines) + "\n"


def ran_check(c: CallFacts) -> bool:
    """A silent check in a source file the step ran (see the module doc); a file run by the
    doctest runner checks what its examples compare."""
    if not c.ran:
        return False
    calls = called_names(c.code)
    runner = bool(re.search(r"\b(?:pytest|unittest)\b", c.code))
    doctests = bool(_DOCTEST_RUN.search(c.code))
    for path, text in c.ran:
        name = path.rpartition("/")[2]
        as_tests = runner or name.startswith("test_") or name.endswith("_test.py")
        if silent_check(text, calls, as_tests) or (doctests and silent_check(doctest_checks(text))):
            return True
    return False
