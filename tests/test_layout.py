"""The folders show the architecture (issue 11, item 7): the rules are pure and stand alone, the
adapters know the rules but not the box, and no module imports itself back through others."""
import ast
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "assistant"

# what each layer may import from the project (its own folder is always allowed)
ALLOWED = {
    "rules": set(),
    "hw": {"rules", "repeated"},
    "box": {"rules", "hw", "repeated", "textfile", "cli", "club"},
    "sim": {"rules", "hw", "box", "cli", "club", "textfile"},
    "web": {"rules", "hw", "box", "cli", "repeated"},
    "club": {"rules", "hw", "box", "web", "sim", "cli", "repeated", "textfile"},
}


def modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        name = ".".join(("assistant",) + path.relative_to(PACKAGE).with_suffix("").parts)
        yield name.removesuffix(".__init__"), path


def imports(path, name):
    """Every project module ``path`` imports, at the top or inside a function."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("assistant"))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = name.split(".")[: -node.level]
                base = ".".join(parts + ([base] if base else []))
            if base.startswith("assistant"):
                known = dict(modules())
                for a in node.names:
                    found.add(f"{base}.{a.name}" if f"{base}.{a.name}" in known else base)
    return found


def test_rules_import_nothing_but_the_standard_library():
    """The engines are pure: no I/O library (gpiozero, luma, serial, paho) and no adapter."""
    for name, path in modules():
        if not name.startswith("assistant.rules"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                top = (node.module or "").split(".")[0] if isinstance(node, ast.ImportFrom) else None
                names = [top] if top is not None else [a.name.split(".")[0] for a in node.names]
                for n in names:
                    if n == "" and node.level:
                        continue
                    assert n in sys.stdlib_module_names or n == "assistant", f"{name} imports {n}"


def test_each_layer_imports_only_the_layers_below_it():
    for name, path in modules():
        parts = name.split(".")
        if len(parts) < 3:
            continue
        layer = parts[1]
        for target in imports(path, name):
            other = target.split(".")[1] if "." in target else ""
            if other and other != layer:
                assert other in ALLOWED[layer], f"{name} ({layer}/) imports {target}"


def test_no_import_cycles():
    graph = {name: imports(path, name) for name, path in modules()}
    graph = {n: {t for t in ts if t in graph and t != n} for n, ts in graph.items()}
    seen = set()

    def visit(node, path):
        if node in path:
            cycle = path[path.index(node):] + [node]
            raise AssertionError("import cycle: " + " -> ".join(cycle))
        if node in seen:
            return
        path.append(node)
        for nxt in sorted(graph[node]):
            visit(nxt, path)
        path.pop()
        seen.add(node)

    for node in sorted(graph):
        visit(node, [])
