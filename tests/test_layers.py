"""The package's rooms and their order: no import goes up a room, and no import circle.

Every module under companion/, web/ and hardware/ is read with `ast` (not imported), and every
import in it is collected, at the top or inside a function alike. The rooms, lowest first:

- base: `companion.errors`, `companion.files` (and the bare packages `companion`, `companion.data`);
- `companion.referee`: cards, rules, effects, engine, scoring, store, leagues, simulator;
- `companion.vision`: camera to watcher; from the referee it uses the cards only;
- `companion.synth`: the synthetic-data factory for training and benchmarks;
- `web` (the phone page) and `hardware` (GPIO), beside each other above vision;
- the wiring: `companion.runner`, `tablebot`, `config`, `backup`, `cli` and `companion.commands`.

The runtime never imports synth: only the CLI commands that draw, train or benchmark may
(`SYNTH_COMMANDS`).
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("companion", "web", "hardware")

BASE = {"companion", "companion.errors", "companion.files", "companion.data"}
SYNTH_COMMANDS = {f"companion.commands.{name}" for name in (
    "bench_vision", "bench_watch", "eval_photos", "fit_sharpness", "make_video", "render", "train")}
# room -> the rooms it may import from (besides itself and base)
MAY_IMPORT = {
    "base": set(),
    "referee": set(),
    "vision": {"referee"},
    "synth": {"referee", "vision"},
    "web": {"referee", "vision"},
    "hardware": set(),
    "wiring": {"referee", "vision", "web", "hardware"},
}
# what a room may use of a lower one, where not all of it
ONLY = {("vision", "referee"): {"companion.referee", "companion.referee.cards"}}


def room(module: str) -> str:
    if module in BASE:
        return "base"
    top, _, rest = module.partition(".")
    if top in ("web", "hardware"):
        return top
    sub = rest.partition(".")[0]
    return sub if sub in ("referee", "vision", "synth") else "wiring"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in sorted((REPO / package).rglob("*.py")):
            found[module_name(path)] = path
    return found


def imports_of(module: str, path: Path, known: set[str]) -> set[str]:
    """The project modules `module` imports anywhere in its text: `from a.b import c` counts as
    an import of a.b.c when that is a module, else of a.b."""
    is_package = path.name == "__init__.py"
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = module.split(".")
                anchor = anchor[:len(anchor) - node.level + (1 if is_package else 0)]
                base = ".".join(anchor + ([base] if base else []))
            names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
        else:
            continue
        for name in names:
            # the nearest project module that is the name or holds it
            while name and name not in known:
                name = name.rpartition(".")[0]
            if name and name != module:
                out.add(name)
    return out


def graph() -> dict[str, set[str]]:
    found = modules()
    known = set(found)
    return {module: imports_of(module, path, known) for module, path in found.items()}


def upward(edges: dict[str, set[str]]) -> list[str]:
    bad = []
    for module, targets in sorted(edges.items()):
        mine = room(module)
        for target in sorted(targets):
            theirs = room(target)
            if theirs in ("base", mine):
                continue
            allowed = theirs in MAY_IMPORT[mine] or (theirs == "synth" and module in SYNTH_COMMANDS)
            only = ONLY.get((mine, theirs))
            if not allowed or (only is not None and target not in only):
                bad.append(f"{module} ({mine}) imports {target} ({theirs})")
    return bad


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return groups


def test_every_module_has_a_room_and_the_rooms_exist():
    edges = graph()
    rooms = {room(m) for m in edges}
    assert {"base", "referee", "vision", "synth", "web", "wiring"} <= rooms
    assert "companion.referee.engine" in edges and "companion.vision.watcher" in edges
    assert "companion.synth.render" in edges and "companion.runner" in edges


def test_no_import_goes_up_a_room():
    assert upward(graph()) == []


def test_no_import_circle():
    assert cycles(graph()) == []


def test_the_runtime_imports_nothing_from_synth():
    """run, watch, recognize, the page and the demo bot: nothing they reach imports synth."""
    edges = graph()
    seen, todo = set(), ["companion.commands.run", "companion.commands.watch", "companion.commands.recognize",
                         "companion.runner", "companion.tablebot", "web", "web.serve"]
    while todo:
        module = todo.pop()
        if module not in seen:
            seen.add(module)
            todo.extend(edges.get(module, ()))
    assert sorted(m for m in seen if room(m) == "synth") == []


@pytest.mark.parametrize("planted, expected", [
    ({"companion.referee.engine": {"companion.vision.watcher"}}, "upward"),
    ({"companion.vision.detector": {"companion.synth.cardcrops"}}, "upward"),
    ({"companion.vision.watcher": {"companion.referee.engine"}}, "upward"),
    ({"web.api": {"companion.synth.tablevideo"}}, "upward"),
    ({"companion.commands.run": {"companion.synth.tablevideo"}}, "upward"),
    ({"companion.referee.cards": {"companion.referee.engine"}}, "cycle"),
])
def test_the_checks_catch_a_planted_import(planted, expected):
    edges = {m: set(t) for m, t in graph().items()}
    for module, targets in planted.items():
        edges[module] |= targets
    if expected == "upward":
        assert upward(edges)
    else:
        assert cycles(edges)
