"""Structure numbers of the source tree, re-measurable (docs/architecture.md, "Layers").

    python bench/code_stats.py [src] [package] [pyproject.toml]

Prints, counting every import statement wherever it sits (an import inside a function is still
a dependency):
- import cycles: strongly connected sets of more than one module;
- imports inside functions: all of them, and those of the package's own modules;
- upward imports: an import from a module of a lower layer to one of a higher layer, with the
  layers read from the first `layers` contract of `[tool.importlinter]` in pyproject.toml
  (a module outside every layer is not counted).
- sizes: the largest modules of the package, and the largest functions and modules of the
  engine room (SIZE_AREAS: the run lifecycle, the scoring path, the agent loop) against its
  limits (a function at most 80 lines, a module at most 600; tests/test_layers.py holds them).
Complexity is measured with ruff: `ruff check --select C901 --config 'lint.mccabe.max-complexity=15' src`.
"""
from __future__ import annotations

import ast
import os
import sys
import tomllib
from collections import Counter
from pathlib import Path


def modules(src: Path, pkg: str) -> dict[str, Path]:
    found = {}
    for d, _, files in os.walk(src / pkg):
        for f in files:
            if f.endswith(".py"):
                p = Path(d) / f
                name = ".".join(p.relative_to(src).with_suffix("").parts)
                found[name.removesuffix(".__init__")] = p
    return found


def imports(mods: dict[str, Path]) -> list[tuple[str, str, bool]]:
    """(importer, imported module of the package or outside name, inside a function?)."""
    out = []
    for name, path in mods.items():
        tree = ast.parse(path.read_text())
        in_func: set[ast.AST] = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                in_func.update(n for n in ast.walk(node) if n is not node)
        base = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    parts = base.split(".")[: len(base.split(".")) - node.level + 1]
                    root = ".".join(parts + ([node.module] if node.module else []))
                else:
                    root = node.module or ""
                targets = [f"{root}.{a.name}" if f"{root}.{a.name}" in mods else root for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            for t in targets:
                while t not in mods and "." in t:
                    t = t.rpartition(".")[0]
                out.append((name, t, node in in_func))
    return out


# the engine room (docs/architecture.md "Small functions"): modules (or packages) whose size is held
SIZE_AREAS = {
    "lifecycle": ["lifecycle"],
    "rl environment": ["rl"],
    "scoring path": ["scoring.score_run", "scoring.task_score", "scoring.stages", "scoring.overall",
                     "scoring.error_codes", "scoring.container_entry", "scoring.output_checks"],
    "agent loop": ["agents.base", "agents.llm", "agents.replies", "agents.toolcall_parse"],
}
MAX_FUNCTION_LINES = 80
MAX_MODULE_LINES = 600


def functions(path: Path) -> list[tuple[str, int]]:
    """(qualified name, lines) of every function and method of `path`, decorators excluded."""
    out: list[tuple[str, int]] = []

    def walk(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out.append((prefix + child.name, (child.end_lineno or child.lineno) - child.lineno + 1))
                walk(child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.ClassDef):
                walk(child, f"{prefix}{child.name}.")
    walk(ast.parse(path.read_text()), "")
    return out


def area_modules(mods: dict[str, Path], pkg: str, area: list[str]) -> dict[str, Path]:
    names = [f"{pkg}.{a}" for a in area]
    return {m: p for m, p in mods.items() if any(m == n or m.startswith(n + ".") for n in names)}


def size_report(mods: dict[str, Path], pkg: str) -> list[str]:
    """Lines printed under "sizes"; the over-limit ones start with "OVER"."""
    lines_of = {m: len(p.read_text().splitlines()) for m, p in mods.items()}
    out = ["largest modules: " + ", ".join(f"{m.removeprefix(pkg + '.')} {n}"
                                            for m, n in sorted(lines_of.items(), key=lambda kv: -kv[1])[:5])]
    for area, names in SIZE_AREAS.items():
        ms = area_modules(mods, pkg, names)
        funcs = sorted(((f"{m.removeprefix(pkg + '.')}:{f}", n) for m, p in ms.items() for f, n in functions(p)),
                       key=lambda fn: -fn[1])
        big_mod = max(ms, key=lambda m: lines_of[m])
        out.append(f"{area}: {len(ms)} modules, largest {big_mod.removeprefix(pkg + '.')} ({lines_of[big_mod]} lines); "
                   f"largest functions: " + ", ".join(f"{f} {n}" for f, n in funcs[:3]))
        out += [f"OVER {area}: function {f} has {n} lines (> {MAX_FUNCTION_LINES})" for f, n in funcs
                if n > MAX_FUNCTION_LINES]
        out += [f"OVER {area}: module {m} has {lines_of[m]} lines (> {MAX_MODULE_LINES})" for m in ms
                if lines_of[m] > MAX_MODULE_LINES]
    return out


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def strong(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in graph:
        if v not in index:
            strong(v)
    return found


def layer_of(layers: list[list[str]], module: str) -> int | None:
    for rank, names in enumerate(layers):      # rank 0 = the highest layer
        if any(module == n or module.startswith(n + ".") for n in names):
            return rank
    return None


def read_layers(pyproject: Path) -> list[list[str]]:
    config = tomllib.loads(pyproject.read_text()).get("tool", {}).get("importlinter", {})
    for contract in config.get("contracts", []):
        if contract.get("type") == "layers":
            container = (contract.get("containers") or [""])[0]
            return [[f"{container}.{n.strip()}" if container else n.strip()
                     for n in layer.replace(":", "|").split("|")] for layer in contract["layers"]]
    return []


def main(src: Path, pkg: str, pyproject: Path) -> None:
    mods = modules(src, pkg)
    edges = imports(mods)
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for a, b, _ in edges:
        if b in mods and b != a:
            graph[a].add(b)
    found = cycles(graph)
    for c in found:
        print(f"cycle ({len(c)}): {', '.join(c)}")
    print(f"import cycles: {len(found)} among {len(mods)} modules")
    for line in size_report(mods, pkg):
        print(line)
    inner = [(a, b) for a, b, f in edges if f]
    own = [(a, b) for a, b in inner if b in mods]
    print(f"imports inside functions: {len(inner)} ({len(own)} of {pkg}'s own modules)")
    layers = read_layers(pyproject)
    if not layers:
        print("upward imports: no layers contract in pyproject.toml")
        return
    upward = Counter()
    for a, b, _ in edges:
        ra, rb = layer_of(layers, a), layer_of(layers, b)
        if ra is not None and rb is not None and rb < ra:
            upward[(a, b)] += 1
    for (a, b), n in sorted(upward.items()):
        print(f"upward: {a} -> {b} ({n})")
    pairs = {(layer_of(layers, a), layer_of(layers, b)) for a, b in upward}
    print(f"upward imports: {sum(upward.values())} statements, {len(upward)} module pairs, {len(pairs)} layer pairs")


if __name__ == "__main__":
    args = sys.argv[1:] + ["src", "automedbench", "pyproject.toml"][len(sys.argv) - 1:]
    main(Path(args[0]), args[1], Path(args[2]))
