"""Silent checks: an assert that ran on a property of the data and could have failed (docs/judge.md
"Content facts": silent check; vacuous tests, swallowed asserts and uncalled code are none)."""
from __future__ import annotations

import ast
import functools
import io
import re
import tokenize

# a bash call that feeds a script to Python: python3 - <<'EOF' ... EOF
_HEREDOC = re.compile(r"python3?\s+-\s*<<-?\s*['\"]?(\w+)['\"]?[^\n]*\n(.*?)\n\s*\1\s*$", re.DOTALL | re.MULTILINE)
# the properties of the data an assert may read (attribute or function names)
PROPERTY_ATTRS = {"shape", "dtype", "ndim", "size", "header", "affine", "mode", "columns", "get_zooms", "min",
                  "max", "mean", "std", "sum", "any", "all", "unique", "count_nonzero", "isfinite", "percentile",
                  "nunique", "value_counts", "keys", "width", "height", "kind", "itemsize"}
PROPERTY_CALLS = {"len", "min", "max", "sum", "set", "sorted", "abs", "all", "any", "isinstance"}
NON_NEGATIVE = {"len", "abs", "sum", "count_nonzero", "size", "nunique"}
_LINE = re.compile(r"^\s*assert\b[^\n]*(?:\.shape|\.dtype|\.ndim|\.size\b|get_zooms|\.header|\.affine|"
                   r"\.min\(|\.max\(|\bmin\(|\bmax\(|\blen\(|\.mode\b|\.columns)", re.MULTILINE)


def silent_check(code: str, called_from: frozenset[str] = frozenset(), as_tests: bool = False) -> bool:
    """Whether the code runs a non-vacuous assert on a property of the data (module doc).
    `called_from`: names the script that ran this code calls (a module's function it imported);
    `as_tests`: the code ran as a test file (pytest, unittest), whose `test*` functions run."""
    return bool(check_offsets(code, called_from, as_tests))


def called_names(code: str) -> frozenset[str]:
    """The function and method names a script calls (`verify(...)`, `checks.verify(...)`)."""
    tree = parse_python(code)
    if tree is None:
        return frozenset(re.findall(r"\b(\w+)\(", code))
    return frozenset(name for n in ast.walk(tree) if isinstance(n, ast.Call) and (name := _func_name(n)))


def check_offsets(code: str, called_from: frozenset[str] = frozenset(), as_tests: bool = False) -> list[int]:
    """Where in `code` (character offsets of their lines) the silent checks are, in order."""
    pieces = [(0, code), *((m.start(2), m.group(2)) for m in _HEREDOC.finditer(code))]
    trees = [(at, text, t) for at, text in pieces if (t := parse_python(text)) is not None]
    if not trees:
        return [m.start() for m in _LINE.finditer(code)]
    found: list[int] = []
    for at, text, tree in trees:
        starts = _line_starts(text)
        found += [at + starts[n.lineno - 1] for n in _checks(tree, _called(tree) | called_from, as_tests)]
    return sorted(found)


def _line_starts(text: str) -> list[int]:
    """The character offset at which each line of `text` starts (and its end, last)."""
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    return starts


def _func_name(call: ast.Call) -> str:
    """The name a call calls: `f(...)` and `m.f(...)` -> "f"; "" for anything else."""
    f = call.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


def _only_arg(e: ast.expr, *names: str) -> ast.expr | None:
    """`name(x)`, a plain call of one of `names` with one argument -> x; else None."""
    if isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and e.func.id in names and len(e.args) == 1:
        return e.args[0]
    return None


@functools.lru_cache(maxsize=2048)
def parse_python(code: str) -> ast.Module | None:
    """The syntax tree of `code`, or None when it is not Python (bash, a fragment). Cached: one
    script is read by several rules, and `judge-eval` judges variants of the same calls; the
    tree is shared, so no caller may change it."""
    try:
        return ast.parse(code)
    except (SyntaxError, ValueError):
        return None


def _called(tree: ast.Module) -> set[str]:
    """Functions the script calls: by name, or handed to something that calls them later
    (`atexit.register(look)`, `Thread(target=look)`: held-out sealed-10)."""
    called = set()
    for n in ast.walk(tree):
        if not isinstance(n, ast.Call):
            continue
        if isinstance(n.func, ast.Name):
            called.add(n.func.id)
        if _func_name(n) == "register" and n.args and isinstance(n.args[0], ast.Name):
            called.add(n.args[0].id)
        called |= {k.value.id for k in n.keywords if k.arg == "target" and isinstance(k.value, ast.Name)}
    return called


def _runs(child: ast.AST, called: set[str] | frozenset[str], as_tests: bool) -> bool:
    """Whether a definition's body runs: a function something calls; in a test file, `test*`
    functions and the TestCase classes that hold them (the runner calls them)."""
    if isinstance(child, ast.ClassDef):
        return as_tests
    if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return child.name in called or (as_tests and child.name.startswith(("test", "setUp")))
    return True


_CATCH_ALL = {None, "Exception", "BaseException", "AssertionError"}


def _swallows(t: ast.Try) -> bool:
    """A `try` whose handler catches a failed assert and does not raise again: a check that
    cannot stop the script (`except AssertionError: pass`)."""
    for h in t.handlers:
        caught = h.type.id if isinstance(h.type, ast.Name) else (None if h.type is None else "")
        if caught in _CATCH_ALL and not any(isinstance(n, ast.Raise) for n in ast.walk(h)):
            return True
    return False


def _checks(node: ast.AST, called: set[str] | frozenset[str], as_tests: bool = False) -> list[ast.stmt]:
    found: list[ast.stmt] = []
    for child in ast.iter_child_nodes(node):
        if not _runs(child, called, as_tests):
            continue
        if isinstance(child, ast.Try) and _swallows(child):
            for part in (*child.handlers, *child.orelse, *child.finalbody):
                found += _checks(part, called, as_tests)
            continue
        if isinstance(child, ast.Assert) and _reads_property(child.test) and not _vacuous(child.test):
            found.append(child)
        elif isinstance(child, ast.Expr) and _assert_call(child.value):
            found.append(child)
        found += _checks(child, called, as_tests)
    return found


def _assert_call(e: ast.expr) -> bool:
    """`self.assertEqual(m.shape, x.shape)`, `np.testing.assert_array_equal(...)`: a checking call
    on a property of the data, not the same expression on both sides."""
    if not isinstance(e, ast.Call):
        return False
    name = _func_name(e)
    if not name.lower().startswith("assert") or not e.args:
        return False
    if len(e.args) >= 2 and ast.dump(e.args[0]) == ast.dump(e.args[1]):
        return False
    if name in ("assertIsNotNone", "assertTrue", "assert_") and len(e.args) == 1 and _vacuous(e.args[0]):
        return False
    return any(_reads_property(a) for a in e.args)


def _reads_property(test: ast.expr) -> bool:
    for n in ast.walk(test):
        if isinstance(n, ast.Attribute) and n.attr in PROPERTY_ATTRS:
            return True
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in PROPERTY_CALLS:
            return True
        if isinstance(n, ast.Subscript):      # b['x1'], info['output_shape'], row['label']
            return True
    return False


# properties whose truth value holds for any loaded file (a shape tuple, a dtype, a header)
ALWAYS_TRUE_ATTRS = {"shape", "dtype", "header", "affine", "mode", "kind", "itemsize"}


def _isinstance(e: ast.expr) -> bool:
    return isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and e.func.id == "isinstance" and bool(e.args)


def _vacuous(test: ast.expr) -> bool:
    """A test that holds whatever the data: see the module doc."""
    if isinstance(test, ast.Constant):
        return True
    if isinstance(test, ast.Attribute) and test.attr in ALWAYS_TRUE_ATTRS:
        return True       # `assert m.shape`: a loaded array always has one
    if isinstance(test, ast.Call) and _isinstance(test) and isinstance(test.args[0], ast.Name):
        return True       # `assert isinstance(m, np.ndarray)`: the type of what was loaded, not its content
    each = _only_arg(test, "all", "any")
    if isinstance(each, (ast.GeneratorExp, ast.ListComp)):
        elt = each.elt       # `all(isinstance(r["label"], str) for r in rows)`: each item's type
        return _isinstance(elt) or _vacuous(elt)
    if isinstance(test, ast.BoolOp):
        return all(_vacuous(v) for v in test.values)
    if not isinstance(test, ast.Compare):
        return False
    left = test.left
    for op, right in zip(test.ops, test.comparators):
        if not _vacuous_pair(left, op, right):
            return False
        left = right
    return True


def _vacuous_pair(left: ast.expr, op: ast.cmpop, right: ast.expr) -> bool:
    if isinstance(op, (ast.IsNot, ast.NotEq)) and isinstance(right, ast.Constant) and right.value is None:
        return True
    if isinstance(op, (ast.Eq, ast.GtE, ast.LtE, ast.Is)) and ast.dump(left) == ast.dump(right):
        return True
    if isinstance(op, ast.LtE) and _distinct_of(left) is not None and _distinct_of(left) == _len_of(right):
        return True       # len(set(x)) <= len(x): the distinct values of x are never more than x
    small, large = (left, right) if isinstance(op, ast.LtE) else (right, left) if isinstance(op, ast.GtE) else (None, None)
    # np.count_nonzero(a) <= a.size or len(a): a count of a's elements is never more than a's
    if small is not None and large is not None and _part_of(small) is not None and \
            _part_of(small) == (_attr_of(large, "size") or _len_of(large)):
        return True
    if isinstance(op, ast.Eq) and {_attr_of(left, "ndim"), _attr_of(right, "ndim")} & {_len_of_shape(left),
                                                                                      _len_of_shape(right)} - {None}:
        return True       # a.ndim == len(a.shape): the same number twice
    bound = right.value if isinstance(right, ast.Constant) and isinstance(right.value, (int, float)) else None
    if bound is not None and ((isinstance(op, ast.GtE) and bound <= 0) or (isinstance(op, ast.Gt) and bound < 0)):
        return _non_negative(left)
    return False


def _attr_of(e: ast.expr, attr: str) -> str | None:
    """`x.<attr>` -> the source of x."""
    return ast.dump(e.value) if isinstance(e, ast.Attribute) and e.attr == attr else None


def _len_of_shape(e: ast.expr) -> str | None:
    """`len(x.shape)` -> the source of x."""
    x = _only_arg(e, "len")
    return _attr_of(x, "shape") if x is not None else None


def _part_of(e: ast.expr) -> str | None:
    """`np.count_nonzero(x)` (a count of some of x's elements) -> the source of x."""
    if isinstance(e, ast.Call) and len(e.args) == 1 and not e.keywords and _func_name(e) == "count_nonzero":
        return ast.dump(e.args[0])
    return None


def _len_of(e: ast.expr) -> str | None:
    """`len(x)` -> the source of x."""
    x = _only_arg(e, "len")
    return ast.dump(x) if x is not None else None


def _distinct_of(e: ast.expr) -> str | None:
    """`len(set(x))` or `len({... for r in x})` -> the source of x."""
    inner = _only_arg(e, "len")
    if inner is None:
        return None
    if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and inner.func.id == "set" and inner.args:
        return ast.dump(inner.args[0])
    if isinstance(inner, (ast.SetComp, ast.DictComp)) and len(inner.generators) == 1:
        return ast.dump(inner.generators[0].iter)
    return None


def _non_negative(e: ast.expr) -> bool:
    if isinstance(e, ast.Call):
        return _func_name(e) in NON_NEGATIVE
    return isinstance(e, ast.Attribute) and e.attr in {"size", "ndim", "itemsize"}


# a bash heredoc that writes a file (cat > f <<'EOF' ... EOF): its body is the file's text, not run
_FILE_HEREDOC = re.compile(r"\b(?:cat|tee)\b[^\n]*<<-?\s*['\"]?(\w+)['\"]?[^\n]*\n(.*?)\n\s*\1\s*$",
                           re.DOTALL | re.MULTILINE)


def first_mention(code: str, names: list[str]) -> int | None:
    """Where the executed code first names one of `names` (None: nowhere), comments, multi-line strings
    and file-writing heredocs skipped: text it only carries (docs/judge.md "Order inside a call")."""
    skip = _carried_text(code)
    found = [m.start() for n in names if n for m in re.finditer(re.escape(n), code)
             if not any(a <= m.start() < b for a, b in skip)]
    return min(found) if found else None


def _carried_text(code: str) -> list[tuple[int, int]]:
    """Spans of `code` that are comments or multi-line string literals (Python, also inside a
    bash call's Python heredocs) or the bodies of heredocs that write files."""
    if parse_python(code) is not None:
        return _python_carried(code, 0)
    spans = [(m.start(2), m.end(2)) for m in _FILE_HEREDOC.finditer(code)]
    for m in _HEREDOC.finditer(code):
        if parse_python(m.group(2)) is not None:
            spans += _python_carried(m.group(2), m.start(2))
    return spans


def _python_carried(text: str, at: int) -> list[tuple[int, int]]:
    starts = _line_starts(text)
    spans: list[tuple[int, int]] = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            multi = tok.type == tokenize.STRING and ("\n" in tok.string or "\\n" in tok.string)
            if tok.type == tokenize.COMMENT or multi:
                (r0, c0), (r1, c1) = tok.start, tok.end
                spans.append((at + starts[r0 - 1] + c0, at + starts[r1 - 1] + c1))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return spans
    return spans
