"""Imports flow one way (docs/architecture.md): the app (mjtable/) -> vision -> scoring -> the leaves.

Every module's imports are read from its source (ast: those inside functions and ``if TYPE_CHECKING`` too, since
a lazy import is still a dependency), resolved to module names of the installed package ``mjtable`` (the
folders are mapped as pyproject.toml maps them), and checked against the layer each module is in:

* the leaves (mjtable.errors, mjtable.outputs, mjtable.system_files) import only leaves: anyone may import them;
* scoring imports scoring and the leaves: no vision, no app, no datasets or scripts;
* vision imports vision, scoring and the leaves: no app (the pipeline, the CLI, the web server, the archive,
  ``mjtable`` itself), no datasets or scripts;
* the app, datasets and models may import anything below them;
* scripts (scripts/, not installed: ``python -m scripts.NAME`` from a checkout) import the package and never one
  another, and no module of the package imports a script.

Module-level imports (the ones run when a module loads) must not form a cycle anywhere in the package.
"""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = {"mjtable": "mjtable", "vision": "mjtable.vision", "scoring": "mjtable.scoring",
           "datasets": "mjtable.datasets", "models": "mjtable.models", "scripts": "scripts"}
# mjtable/* modules that import nothing of the package but each other: below every layer
LEAVES = {"mjtable.errors", "mjtable.outputs", "mjtable.system_files"}
# deprecated aliases kept for one release: the old name is the new module (vision/pipeline.py -> mjtable.pipeline)
ALIASES = {"mjtable.vision.pipeline": {"mjtable", "mjtable.pipeline"}}


def _modules() -> dict[str, Path]:
    out = {}
    for folder, package in FOLDERS.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = path.relative_to(ROOT / folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join((package, *parts))] = path
    return out


MODULES = _modules()


def _layer(name: str) -> str:
    if name in LEAVES:
        return "leaf"
    if name == "scripts" or name.startswith("scripts."):
        return "scripts"
    for layer in ("scoring", "vision", "datasets", "models"):
        if name == f"mjtable.{layer}" or name.startswith(f"mjtable.{layer}."):
            return layer
    return "app"                       # mjtable itself, mjtable.pipeline, mjtable.cli, mjtable.web, mjtable.archive ...


ALLOWED = {"leaf": {"leaf"}, "scoring": {"leaf", "scoring"}, "vision": {"leaf", "scoring", "vision"}}


def _imports(name: str, top_only: bool = False) -> set[str]:
    """The package's modules that module ``name`` imports (``top_only``: only those run when it loads)."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes = _top_level(tree.body) if top_only else ast.walk(tree)
    found = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")
            base = base[:len(base) - node.level + 1] if node.level else []
            mod = ".".join([*base, *(node.module.split(".") if node.module else [])])
            found.add(mod)
            found.update(f"{mod}.{a.name}" for a in node.names if f"{mod}.{a.name}" in MODULES)
    return {m for m in found if m in MODULES}


def _top_level(body):
    """The import statements run when a module loads: not in functions, nor under ``if TYPE_CHECKING``."""
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, ast.If) and "TYPE_CHECKING" not in ast.unparse(node.test):
            yield from _top_level(node.body + node.orelse)
        elif isinstance(node, ast.Try):
            yield from _top_level(node.body + node.orelse + node.finalbody +
                                  [n for h in node.handlers for n in h.body])


def test_the_layers_are_where_the_rule_expects_them():
    for name in ("mjtable.pipeline", "mjtable.cli", "mjtable.web.app", "mjtable.archive.items",
                 "mjtable.vision.locate", "mjtable.vision.video", "mjtable.scoring.audit", *LEAVES):
        assert name in MODULES, name
    assert _layer("mjtable.pipeline") == "app" and _layer("mjtable.vision.locate") == "vision"


def test_the_leaves_import_only_leaves():
    for name in LEAVES:
        assert _imports(name) <= LEAVES, (name, _imports(name) - LEAVES)


def test_imports_only_flow_down():
    wrong = []
    for name in MODULES:
        layer = _layer(name)
        if layer not in ALLOWED:
            continue
        for dep in sorted(_imports(name) - ALIASES.get(name, set())):
            if _layer(dep) not in ALLOWED[layer]:
                wrong.append(f"{name} ({layer}) imports {dep} ({_layer(dep)})")
    assert not wrong, "imports against the layering (docs/architecture.md):\n" + "\n".join(wrong)


def test_scripts_import_no_script_and_the_package_imports_none():
    """A script is an entry point: what two scripts (or a script and a test) share lives in the package."""
    assert "scripts.bench_e2e" in MODULES and _layer("scripts.bench_e2e") == "scripts"
    assert not any(name.startswith("mjtable.scripts") for name in MODULES)
    needle = "from mjtable." + "scripts"          # spelt so that this file does not match itself
    old = [str(path.relative_to(ROOT)) for path in [*MODULES.values(), *sorted((ROOT / "tests").glob("*.py"))]
           if needle in path.read_text(encoding="utf-8")]
    assert not old, f"mjtable.scripts is not a package any more: {old}"
    wrong = [f"{name} imports {dep}" for name in MODULES for dep in sorted(_imports(name))
             if _layer(dep) == "scripts" and dep != "scripts"]
    assert not wrong, "\n".join(wrong)


def test_no_cycle_of_module_level_imports():
    graph = {name: _imports(name, top_only=True) - {name} for name in MODULES}
    # a submodule's import also runs its packages' __init__: that is no cycle of the code's making
    for name, deps in graph.items():
        graph[name] = {d for d in deps if not name.startswith(d + ".")}
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(n: str):
        state[n] = 1
        path.append(n)
        for d in sorted(graph[n]):
            if state.get(d) == 1:
                raise AssertionError("import cycle: " + " -> ".join(path[path.index(d):] + [d]))
            if d not in state:
                visit(d)
        path.pop()
        state[n] = 2

    for n in sorted(graph):
        if n not in state:
            visit(n)


def test_the_rule_catches_a_wrong_import(tmp_path, monkeypatch):
    """The checker itself: vision importing the pipeline, or scoring importing vision, is reported."""
    bad_vision = tmp_path / "bad_vision.py"
    bad_vision.write_text("def f():\n    from mjtable import pipeline\n")
    bad_scoring = tmp_path / "bad_scoring.py"
    bad_scoring.write_text("from ..vision import types\n")
    monkeypatch.setitem(MODULES, "mjtable.vision.bad_vision", bad_vision)
    monkeypatch.setitem(MODULES, "mjtable.scoring.bad_scoring", bad_scoring)
    assert _imports("mjtable.vision.bad_vision") == {"mjtable", "mjtable.pipeline"}
    assert _imports("mjtable.scoring.bad_scoring") == {"mjtable.vision", "mjtable.vision.types"}
    try:
        test_imports_only_flow_down()
    except AssertionError as e:
        assert "mjtable.vision.bad_vision (vision) imports mjtable.pipeline (app)" in str(e)
        assert "mjtable.scoring.bad_scoring (scoring) imports mjtable.vision.types (vision)" in str(e)
    else:
        raise AssertionError("the wrong imports were not caught")
