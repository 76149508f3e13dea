"""The shape of the source (issue 42): lines per subpackage, modules, docstring share, internal
imports at module top vs inside functions, import cycles and imports that climb a floor.

Floors (GUIDE.md's layers, data flows down): 0 the base modules at the package root (errors,
atomic, registry, runtime, progress, metrics); 1 ``audio``, ``hub``; 2 ``asr``, ``tts``,
``diarize``, ``transcript``; 3 ``batch``, ``finetune``, ``dictation``, ``doctor``; 4 ``worker``,
``api``, ``cli``, ``__main__`` and every subcommand module outside ``gui`` (``*.cli``, ``*_cli``); 5 ``gui``. An
import of a higher floor from a lower one is "up".
Cycles are strongly connected components of the module import graph (every import, wherever it
sits), found with networkx.

Usage: ``python bench/house.py [--list] [--draw] [--root DIR]`` (``--list``: print each upward import
and cycle; ``--draw``: the house as a Mermaid diagram, one box per floor with its subpackages and an
arrow per subpackage import, an arrow up drawn red; ``--root``: another checkout's ``speechstudio``
folder, e.g. a ``git worktree`` of an older commit).
"""
from __future__ import annotations

import argparse
import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "speechstudio"
FLOORS = {"audio": 1, "hub": 1, "asr": 2, "tts": 2, "diarize": 2, "transcript": 2, "batch": 3, "finetune": 3,
          "dictation": 3, "doctor": 3, "worker": 4, "api": 4, "cli": 4, "__main__": 4, "gui": 5}


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def floor(module: str) -> int:
    parts = module.split(".")
    if len(parts) > 1 and parts[1] != "gui" and (parts[-1] == "cli" or parts[-1].endswith("_cli")):
        return 4                    # a subcommand's parser and printing: the CLI layer, wherever it sits
    return FLOORS.get(parts[1], 0) if len(parts) > 1 else 0


def docstring_lines(tree: ast.AST) -> int:
    n = 0
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = getattr(node, "body", [])
            if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant) \
                    and isinstance(body[0].value.value, str):
                n += body[0].end_lineno - body[0].lineno + 1
    return n


def imports(tree: ast.AST, module: str, is_package: bool, modules: dict) -> list[tuple[str, bool]]:
    """``(imported speechstudio module, at module top)`` for each internal import (``from pkg import
    sub`` depends on ``pkg.sub``, and on ``pkg`` only for names that are not its submodules)."""
    out = []
    top = set(id(n) for n in tree.body)
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names if a.name.startswith("speechstudio")]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                base = base[: len(base) - node.level + (1 if is_package else 0)]
                src = ".".join(base + ([node.module] if node.module else []))
            else:
                src = node.module or ""
            if src.startswith("speechstudio"):
                subs = [f"{src}.{a.name}" for a in node.names if f"{src}.{a.name}" in modules]
                names = subs + ([src] if len(subs) < len(node.names) else [])
        for name in names:
            out.append((name, id(node) in top))
    return out


def draw(graph) -> str:
    """Mermaid ``flowchart TB`` of subpackage imports (module edges folded), floors as subgraphs."""
    def unit(module: str) -> str:     # a subpackage; every subcommand module outside gui is in "cli"
        parts = module.split(".")
        if len(parts) > 1 and floor(module) == 4 and FLOORS.get(parts[1]) != 4:
            return "cli"
        return parts[1] if len(parts) > 2 or parts[1] in FLOORS else "base"
    floors = {0: "base (errors, atomic, registry, runtime, progress, metrics)", 1: "1 audio, hub",
              2: "2 engines", 3: "3 jobs", 4: "4 entry points", 5: "5 gui"}
    units = {unit(m): 4 if unit(m) == "cli" else FLOORS.get(unit(m), 0) for m in graph.nodes if m != "speechstudio"}
    edges = sorted({(unit(a), unit(b)) for a, b in graph.edges} - {(u, u) for u in units})
    out = ["flowchart TB"]
    for f in sorted(floors, reverse=True):
        out.append(f'  subgraph F{f}["{floors[f]}"]')
        out += [f"    {u}" for u in sorted(units) if units[u] == f]
        out.append("  end")
    red = []
    for k, (a, b) in enumerate(edges):
        out.append(f"  {a} --> {b}")
        if units.get(b, 0) > units.get(a, 0):
            red.append(k)
    if red:
        out.append(f"  linkStyle {','.join(map(str, red))} stroke:red")
    return "\n".join(out)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--draw", action="store_true", help="print the house as a Mermaid diagram")
    ap.add_argument("--root", type=Path, default=ROOT, help="the speechstudio package folder to measure")
    args = ap.parse_args()
    root = args.root.resolve()
    import networkx as nx

    files = sorted(root.rglob("*.py"))
    modules = {module_name(p, root): p for p in files}
    lines = defaultdict(int)
    total = doc = 0
    graph = nx.DiGraph()
    at_top = inside = 0
    up = []
    for name, path in modules.items():
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text)
        n = len(text.splitlines())
        parts = name.split(".")
        lines[parts[1] if len(parts) > 2 or (len(parts) == 2 and path.name == "__init__.py") else "(root)"] += n
        total += n
        doc += docstring_lines(tree)
        graph.add_node(name)
        for target, top in imports(tree, name, path.name == "__init__.py", modules):
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if not target or target == name or target == "speechstudio":
                continue
            graph.add_edge(name, target)
            at_top += top
            inside += not top
            if floor(target) > floor(name):
                up.append((name, target))
    cycles = [c for c in nx.strongly_connected_components(graph) if len(c) > 1]
    print("| subpackage | lines |\n|---|---|")
    for k in sorted(lines, key=lambda k: -lines[k]):
        print(f"| {k} | {lines[k]} |")
    print(f"| **all** | **{total}** |")
    print(f"modules {len(modules)}; docstrings {doc / total:.1%} of the lines; internal imports {at_top + inside}, "
          f"{inside / max(1, at_top + inside):.0%} inside functions; import cycles {len(cycles)} "
          f"(largest {max((len(c) for c in cycles), default=0)} modules); upward imports {len(set(up))}")
    if args.draw:
        print(draw(graph))
    if args.list:
        for a, b in sorted(set(up)):
            print(f"up: {a} (floor {floor(a)}) -> {b} (floor {floor(b)})")
        for c in cycles:
            print("cycle:", ", ".join(sorted(c)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
