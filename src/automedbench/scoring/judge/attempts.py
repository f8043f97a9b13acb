"""Environment attempts before the first output, and which of them failed, hidden installs
included (docs/judge.md "Model and setup facts": "Setup work", s2d)."""
from __future__ import annotations

import re
from functools import lru_cache

from .calls import CallFacts, Fact

# a failed environment attempt as the interpreter, pip, apt or shell report it: what was tried and
# how tell attempts apart (installing X and importing X are two; docs/judge.md "Setup work")
_HOW = {"mod": "import", "name": "import", "req": "install", "dist": "install", "apt": "install", "cmd": "run"}
_FAILED_ATTEMPT = re.compile(
    r"No module named '?(?P<mod>[\w.]+)|cannot import name '(?P<name>\w+)'|"
    r"Could not find a version that satisfies the requirement (?P<req>\S+)|"
    r"No matching distribution found for (?P<dist>\S+)|Unable to locate package (?P<apt>\S+)|"
    r"^(?:\S*sh: )?(?:line \d+: )?(?P<cmd>[\w.\-]+): command not found", re.MULTILINE)
# the phrases the pattern needs: outputs without any are not searched (long logs)
_FAILURE_WORDS = ("No module named", "cannot import name", "satisfies the requirement", "No matching distribution",
                  "Unable to locate package", "command not found")

# any other error pip reports in a call that installs is an attempt that failed, told apart by its
# words ("Could not open requirements file"); the resolver's note after a good install is none
_PIP_ERROR = re.compile(r"^ERROR: (?!pip's dependency resolver)(.{1,120})", re.MULTILINE)


def failed_attempts(text: str, installs: bool = False) -> set[str]:
    """The distinct attempts a call's output reports failed, as "how what" ("install bm3d")."""
    found: set[str] = set()
    if any(w in text for w in _FAILURE_WORDS):
        found = {f"{_HOW[k]} {v}" for m in _FAILED_ATTEMPT.finditer(text) for k, v in m.groupdict().items() if v}
    if installs and "ERROR: " in text:
        found |= {f"install {line}" for line in _PIP_ERROR.findall(text) if _FAILED_ATTEMPT.search(line) is None}
    return found


def setup_facts(calls: list[CallFacts]) -> tuple[Fact, Fact, int]:
    """The setup calls, those with failed environment attempts, and how many (docs/judge.md "Setup work")."""
    first_write = next((pos for pos, c in enumerate(calls) if c.produced), None)
    setup = calls if first_write is None else calls[:first_write]
    named: dict[int, set[str]] = {}
    failed: dict[int, bool] = {}
    # a hidden install of a module that a call that worked imports did not fail (docs/judge.md "Setup work")
    imported = {package_key(m) for c in calls if c.ok for m in _IMPORT.findall(c.code)}
    for c in setup:
        named.setdefault(c.index, set()).update(failed_attempts(c.text, INSTALL.search(c.code) is not None))
        named[c.index].update(f"install {p}" for p in hidden_attempts(c.code) - imported)
        failed[c.index] = failed.get(c.index, False) or not c.ok
    counts = {i: max(len(named[i]), int(failed[i])) for i in named}
    fails = [i for i in counts if counts[i]]
    n = sum(counts.values())
    return (Fact(bool(setup), list(dict.fromkeys(c.index for c in setup))),
            Fact(bool(fails), fails, note=f"{n} failed attempt(s) in {len(fails)} of {len(named)} setup calls"), n)


# an install command, and what hides its outcome: output discarded, status ignored
INSTALL = re.compile(r"\b(?:pip3?|python3?\s+-m\s+pip|uv\s+pip|conda|mamba|apt(?:-get)?)\s+install\b(?P<args>[^\n;|&>]*)")
_DISCARDED = re.compile(r"(?:&>|>)\s*/dev/null")
_IGNORED = re.compile(r"\|\|\s*(?:true|:)\b")
_FOR = re.compile(r"\bfor\s+(?P<var>\w+)\s+in\s+(?P<items>[^;\n]+?)\s*;?\s*(?:\n\s*)?do\b(?P<body>.*?)\bdone\b", re.DOTALL)
_DO = re.compile(r"do\b")
_IMPORT = re.compile(r"^\s*(?:import|from)\s+([A-Za-z_][\w]*)", re.MULTILINE)


@lru_cache(maxsize=4096)     # every import of every call, on each judging (bench/experiments_cost.py)
def package_key(name: str) -> str:
    """A package or module name compared loosely: `opencv-python` and `opencv_python` alike."""
    return re.sub(r"[-_.]+", "_", name.strip("'\"").split("==")[0].split(">=")[0].lower())


def hidden_attempts(code: str) -> set[str]:
    """The packages a shell script installs with the outcome hidden: output discarded and status
    ignored on the same line (or the loop that runs it over a list of packages)."""
    found: set[str] = set()
    if "install" not in code:   # what _INSTALL needs, in a loop's body or elsewhere: nothing to find
        return found
    # both branches need a line that discards output and ignores the status: without either
    # anywhere in the code there is none (cutting the loops out, below, only joins text around
    # them; this skips the loop scan, most of a judging's time on long scripts)
    if _DISCARDED.search(code) is None or _IGNORED.search(code) is None:
        return found
    # what _FOR needs ("do" ending a word, then "done"): without them the code is its own rest
    loops = "done" in code and _DO.search(code) is not None
    for loop in (_FOR.finditer(code) if loops else ()):
        body = loop.group("body")
        for m in INSTALL.finditer(body):
            line = body[m.start():].split("\n", 1)[0]
            if f"${loop.group('var')}" in m.group("args") + line and _DISCARDED.search(line) and _IGNORED.search(line):
                found |= {package_key(p) for p in loop.group("items").split()}
    rest = _FOR.sub(" ", code) if loops else code
    for m in INSTALL.finditer(rest):
        line = rest[m.start():].split("\n", 1)[0]
        if _DISCARDED.search(line) and _IGNORED.search(line):
            # the packages it names: its arguments less options and shell variables
            found |= {package_key(p) for p in m.group("args").split() if not p.startswith("-") and "$" not in p}
    return found


# a look that died of one of these failed on its own code, not on what it looked at: no finding
# about the output (docs/judge.md "Units, pilot, batch": "found a problem")
CODE_FAULTS = frozenset({"NameError", "UnboundLocalError", "SyntaxError", "IndentationError", "TabError",
                         "ModuleNotFoundError", "ImportError"})
_RAISED = re.compile(r"^(\w+(?:Error|Exception)):", re.MULTILINE)


def own_fault(text: str) -> bool:
    """Whether the last exception a call's output reports is a fault of its own code."""
    raised = _RAISED.findall(text)
    return bool(raised) and raised[-1] in CODE_FAULTS
