"""The package's layers point one way: read from the package's own imports (every ``import`` and
``from ... import`` in a module, at the top or inside a function; a name imported for type hints
only, under ``if TYPE_CHECKING:``, loads nothing and is left out), no module imports one of a
higher layer, no modules import each other round a circle, only the command line sees the parsed
options, and no module is over 800 lines unless its docstring says why it is one piece.
docs/architecture.md draws the same layers."""

import ast
import shutil
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "groundlab"

#: The layers, bottom first: a module may import modules of its own layer and of those below.
#: A module belongs to the longest prefix that names it.
LAYERS = [
    ("core", ["groundlab.core"]),
    ("judges", ["groundlab.judges"]),
    ("measure", ["groundlab.measure"]),
    ("importers", ["groundlab.importers"]),
    ("engines", ["groundlab.engines"]),
    ("production", ["groundlab.production"]),
    ("presentation", ["groundlab.present"]),
    ("labeling", ["groundlab.labeling"]),
    ("command line", ["groundlab.cli"]),
    ("public API", ["groundlab", "groundlab.__main__", "groundlab._moved"]),
]


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _type_only(tree: ast.AST) -> set:
    """The nodes under ``if TYPE_CHECKING:``."""
    nodes = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                nodes.update(id(n) for n in ast.walk(child))
    return nodes


def read_package(root: Path):
    """``{module: [(line, imported module), ...]}`` for every module of the package at ``root``,
    and ``{module: (path, tree)}``."""
    trees = {}
    for path in sorted(root.rglob("*.py")):
        if "data" in path.relative_to(root).parts:
            continue
        trees[module_name(path, root)] = (path, ast.parse(path.read_text(encoding="utf-8")))
    graph = {}
    for name, (path, tree) in trees.items():
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        skip = _type_only(tree)
        edges = []
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = ".".join(package[:len(package) - node.level + 1])
                    source = f"{base}.{node.module}" if node.module else base
                else:
                    source = node.module or ""
                # "from package import module" imports the module; "from module import name" the module
                targets = [f"{source}.{a.name}" if f"{source}.{a.name}" in trees else source for a in node.names]
            else:
                continue
            for target in targets:
                while target and target not in trees and "." in target:
                    target = target.rsplit(".", 1)[0]
                if target in trees and target != name:
                    edges.append((node.lineno, target))
        graph[name] = edges
    return graph, trees


def layer_of(module: str) -> int:
    best, found = -1, None
    for k, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best:
                best, found = len(prefix), k
    if found is None:
        raise LookupError(module)
    return found


def upward_imports(graph) -> list:
    """One sentence for each import from a module to one of a higher layer."""
    out = []
    for module, edges in sorted(graph.items()):
        for line, target in edges:
            if layer_of(target) > layer_of(module):
                out.append(f"{module} (line {line}) imports {target}: {LAYERS[layer_of(module)][0]} may not "
                           f"import {LAYERS[layer_of(target)][0]}, a layer above it")
    return out


def circles(graph) -> list:
    """Each group of modules that import one another round a circle (Tarjan's strongly connected
    components of more than one module, or a module importing itself)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for _, w in graph.get(v, ()):
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
                found.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def options_below_the_command_line(trees) -> list:
    """Modules outside ``groundlab.cli`` that import argparse or read attributes of ``args``."""
    out = []
    for module, (path, tree) in sorted(trees.items()):
        if module == "groundlab.cli" or module.startswith("groundlab.cli."):
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
                if "argparse" in names:
                    out.append(f"{module} (line {node.lineno}) imports argparse")
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "args":
                out.append(f"{module} (line {node.lineno}) reads args.{node.attr}")
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr"
                  and node.args and isinstance(node.args[0], ast.Name) and node.args[0].id == "args"):
                out.append(f"{module} (line {node.lineno}) reads getattr(args, ...)")
    return out


@pytest.fixture(scope="module")
def package():
    return read_package(PACKAGE)


def test_every_module_has_a_layer(package):
    graph, _ = package
    unplaced = []
    for module in graph:
        try:
            layer_of(module)
        except LookupError:
            unplaced.append(module)
    assert not unplaced, f"give these modules a layer in LAYERS and docs/architecture.md: {unplaced}"
    assert len(graph) > 60  # the whole package was read


def test_no_import_runs_back_up_a_layer(package):
    graph, _ = package
    assert upward_imports(graph) == []


def test_core_is_the_ground_floor(package):
    """Nothing in ``core`` imports a module outside it: the judges and the measuring layer above
    them stand on it, never under it."""
    graph, _ = package
    climbing = [f"{module} (line {line}) imports {target}" for module, edges in sorted(graph.items())
                if module == "groundlab.core" or module.startswith("groundlab.core.")
                for line, target in edges if not target.startswith("groundlab.core")]
    assert climbing == []
    assert layer_of("groundlab.measure.evaluate") > layer_of("groundlab.judges") > layer_of("groundlab.core.claims")
    assert layer_of("groundlab.measure.counts") < layer_of("groundlab.importers")


def test_no_modules_import_each_other_round_a_circle(package):
    graph, _ = package
    assert circles(graph) == []


def test_only_the_command_line_sees_the_parsed_options(package):
    _, trees = package
    assert options_below_the_command_line(trees) == []


def test_the_reader_sees_function_level_imports(package):
    """The lazy imports count: evaluate imports the counts inside a function only."""
    graph, _ = package
    assert "groundlab.measure.counts" in {t for _, t in graph["groundlab.measure.evaluate"]}
    assert "groundlab.production.guard" in {t for _, t in graph["groundlab"]}


def test_the_checks_flag_a_planted_upward_import_a_circle_and_args(tmp_path):
    root = tmp_path / "groundlab"
    for path in PACKAGE.rglob("*.py"):
        if "data" not in path.relative_to(PACKAGE).parts:
            target = root / path.relative_to(PACKAGE)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
    records = root / "core" / "records.py"
    records.write_text(records.read_text(encoding="utf-8") + "\n\ndef _planted():\n"
                       "    from ..present.report import markdown_text\n\n    return markdown_text\n",
                       encoding="utf-8")
    metrics = root / "core" / "metrics.py"  # the ground floor reaching up to the measuring layer
    metrics.write_text(metrics.read_text(encoding="utf-8") + "\n\ndef _planted():\n"
                       "    from ..measure.counts import counts_of\n\n    return counts_of\n", encoding="utf-8")
    rules = root / "judges" / "rules.py"  # a judge reaching up to what runs the judges
    rules.write_text(rules.read_text(encoding="utf-8") + "\nfrom ..measure.evaluate import evaluate  # noqa\n",
                     encoding="utf-8")
    stats = root / "core" / "stats.py"
    stats.write_text(stats.read_text(encoding="utf-8") + "\n\ndef _planted(args):\n"
                     "    from .kinds import claim_kinds\n\n    return args.judge, claim_kinds\n", encoding="utf-8")
    kinds = root / "core" / "kinds.py"
    kinds.write_text(kinds.read_text(encoding="utf-8") + "\nfrom .stats import Rate  # noqa\n", encoding="utf-8")
    graph, trees = read_package(root)
    up = upward_imports(graph)
    assert any(s.startswith("groundlab.core.records (line ") and "imports groundlab.present.report: core may not "
               "import presentation" in s for s in up), up
    assert any(s.startswith("groundlab.core.metrics (line ") and "imports groundlab.measure.counts: core may not "
               "import measure" in s for s in up), up
    assert any(s.startswith("groundlab.judges.rules (line ") and "imports groundlab.measure.evaluate: judges may not "
               "import measure" in s for s in up), up
    found = circles(graph)
    assert any({"groundlab.core.kinds", "groundlab.core.stats"} <= set(group) for group in found), found
    assert any(s.startswith("groundlab.core.stats (line ") and s.endswith("reads args.judge")
               for s in options_below_the_command_line(trees))


def test_the_checks_on_a_small_module_map():
    graph = {"groundlab.core.records": [], "groundlab.judges": [(3, "groundlab.core.records")],
             "groundlab.measure.evaluate": [(4, "groundlab.judges")],
             "groundlab.judges.rules": [(9, "groundlab.measure.evaluate")]}
    assert upward_imports(graph) == ["groundlab.judges.rules (line 9) imports groundlab.measure.evaluate: judges may "
                                     "not import measure, a layer above it"]
    graph["groundlab.core.records"] = [(2, "groundlab.judges")]
    assert circles(graph) == [["groundlab.core.records", "groundlab.judges"]]


# ---------------------------------------------------------------- rooms of one job

#: The most lines a module of the package holds, unless its docstring says why it is one piece.
MAX_LINES = 800

#: What a module's docstring says, followed by why, when it must be one piece over MAX_LINES.
ONE_PIECE = "one piece:"

#: Modules over MAX_LINES not split yet, each with the seams it is to be split along. The list only
#: shrinks: a module on it that falls under the limit, or is gone, fails the test below.
TO_SPLIT: dict = {}  # none left: every module over the limit says why it is one piece


def oversized_modules(trees, allowed=TO_SPLIT) -> list:
    """One sentence for each module over :data:`MAX_LINES` lines whose docstring does not say
    :data:`ONE_PIECE` and why, and which is not in ``allowed``."""
    out = []
    for module, (path, tree) in sorted(trees.items()):
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines <= MAX_LINES or module in allowed:
            continue
        doc = ast.get_docstring(tree) or ""
        said = doc.lower().find(ONE_PIECE)
        if said < 0 or not doc[said + len(ONE_PIECE):].strip():
            out.append(f"{module} has {lines} lines, more than {MAX_LINES}: split it along its seams, or say in "
                       f"its docstring \"{ONE_PIECE} ...\" why it must stay whole")
    return out


def test_no_module_is_over_the_limit_unless_it_says_why_it_is_one_piece(package):
    _, trees = package
    assert oversized_modules(trees) == []
    # what is still to split is still over the limit: a module split or gone leaves the list
    for module in TO_SPLIT:
        assert module in trees, f"{module} is gone: take it off TO_SPLIT"
        path = trees[module][0]
        assert len(path.read_text(encoding="utf-8").splitlines()) > MAX_LINES, \
            f"{module} is within {MAX_LINES} lines now: take it off TO_SPLIT"


def test_the_limit_flags_a_long_module_until_its_docstring_says_why(tmp_path):
    root = tmp_path / "groundlab"
    root.mkdir()
    body = "\n".join(f"x{k} = {k}" for k in range(MAX_LINES)) + "\n"
    (root / "short.py").write_text('"""Short."""\n' + "\n".join(body.splitlines()[:10]) + "\n", encoding="utf-8")
    long = root / "long.py"
    long.write_text('"""Long."""\n' + body, encoding="utf-8")
    _, trees = read_package(root)
    assert oversized_modules(trees, {}) == [
        f"groundlab.long has {MAX_LINES + 1} lines, more than {MAX_LINES}: split it along its seams, or say in its "
        f"docstring \"{ONE_PIECE} ...\" why it must stay whole"]
    long.write_text('"""Long.\n\nOne piece:"""\n' + body, encoding="utf-8")  # the phrase without a reason
    assert len(oversized_modules(read_package(root)[1], {})) == 1
    long.write_text('"""Long.\n\nOne piece: every line reads the one before."""\n' + body, encoding="utf-8")
    assert oversized_modules(read_package(root)[1], {}) == []
    long.write_text('"""Long."""\n' + body, encoding="utf-8")
    assert oversized_modules(read_package(root)[1], {"groundlab.long": "why"}) == []


# ---------------------------------------------------------------- the old module paths


def test_every_old_module_path_is_the_module_at_its_new_home():
    import importlib

    import groundlab
    from groundlab._moved import MOVED

    for old, new in MOVED.items():
        assert importlib.import_module(f"groundlab.{old}") is importlib.import_module(f"groundlab.{new}"), old
    assert callable(groundlab.evaluate) and callable(groundlab.guard)  # still the functions, not the modules
    assert groundlab.metrics is importlib.import_module("groundlab.core.metrics")  # gl.metrics, as notebook 03 reads


def test_a_pickle_that_names_an_old_path_loads():
    """What ``groundlab run`` pickled before the move (its judged results name
    ``groundlab.workbook`` and ``groundlab.stats`` classes) loads after it."""
    import importlib
    import inspect
    import pickle

    from groundlab._moved import MOVED
    from groundlab.core.stats import Rate

    old = pickle.dumps(Rate(3, 7), protocol=0).replace(b"groundlab.core.stats", b"groundlab.stats")
    assert b"cgroundlab.stats\nRate" in old and pickle.loads(old) == Rate(3, 7)
    for name, new in MOVED.items():
        module = importlib.import_module(f"groundlab.{new}")
        for cls_name, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ == module.__name__:
                assert pickle.Unpickler.find_class(pickle.Unpickler(__import__("io").BytesIO()),
                                                   f"groundlab.{name}", cls_name) is cls


def test_the_core_paths_of_the_measuring_layer_are_its_modules():
    """What ran judges from ``core`` lives in ``measure``; ``groundlab.core.counts`` (and the older
    ``groundlab.counts``) is the very module ``groundlab.measure.counts``, however it is imported."""
    import importlib
    import sys

    import groundlab
    import groundlab.core
    from groundlab._moved import MOVED

    measuring = ["compare", "counts", "evaluate", "figures", "judge_diff", "paired", "policy", "summary"]
    assert sorted(new.split(".", 1)[1] for old, new in MOVED.items() if old.startswith("core.")) == measuring
    for name in measuring:
        assert not (PACKAGE / "core" / f"{name}.py").exists(), name
        module = importlib.import_module(f"groundlab.measure.{name}")
        assert importlib.import_module(f"groundlab.core.{name}") is module, name
        assert sys.modules[f"groundlab.core.{name}"] is module and getattr(groundlab.core, name) is module
        assert module.__name__ == f"groundlab.measure.{name}" and module.__spec__.name == module.__name__
    from groundlab.core import counts
    from groundlab.core.evaluate import count_file, evaluate
    assert counts is importlib.import_module("groundlab.counts") is importlib.import_module("groundlab.measure.counts")
    assert count_file.__module__ == "groundlab.measure.evaluate" and evaluate is groundlab.measure.evaluate.evaluate
    # a name set on the old path is set on the new home: one module object
    counts.__dict__["_planted_by_the_test"] = 1
    try:
        assert groundlab.measure.counts._planted_by_the_test == 1
    finally:
        del counts.__dict__["_planted_by_the_test"]


def test_a_pickle_that_names_a_core_path_of_the_measuring_layer_loads():
    """Counts and an evaluation pickled while they lived in ``core`` (``groundlab.core.counts.Counts``,
    ``groundlab.core.evaluate.Evaluation``) load as the classes at their new home."""
    import pickle

    from groundlab import evaluate, load_cases
    from groundlab.core.io import sample_path
    from groundlab.measure.counts import Counts, counts_of
    from groundlab.measure.evaluate import Evaluation

    ev = evaluate(load_cases(sample_path("grounded_cases.jsonl"), sample_path("notes.jsonl")), "rules")
    counts = counts_of(ev)
    loaded = {}
    for value, cls, old in ((counts, Counts, b"groundlab.core.counts"), (ev, Evaluation, b"groundlab.core.evaluate")):
        new = cls.__module__.encode()
        data = pickle.dumps(value, protocol=0)  # protocol 0 names a class as text: the path can be swapped
        moved = data.replace(new, old)
        assert old + b"\n" + cls.__name__.encode() in moved and new not in moved
        loaded[cls] = pickle.loads(moved)
        assert type(loaded[cls]) is cls
    assert loaded[Counts].table().equals(counts.table())
    assert loaded[Evaluation].claims.equals(ev.claims) and loaded[Evaluation].cases.equals(ev.cases)


def test_the_architecture_page_lists_every_move():
    from groundlab._moved import MOVED

    page = (PACKAGE.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    for old, new in MOVED.items():
        assert f"| `groundlab.{old}` | `groundlab.{new}` |" in page, old
