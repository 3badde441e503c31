"""The layout by layer: imports go downward only, with no cycle (none hidden in a function
either), no ``_private`` name crosses a module, files stay small, and the scalar path loads
no NumPy."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

SOURCE = Path(__file__).resolve().parent.parent / "src" / "topograd"

# What each layer (a subpackage) may import from topograd, besides itself. Lower layers first.
ALLOWED: dict[str, set[str]] = {
    "disk": set(),
    "autograd": set(),
    "distributed": {"autograd"},
    "ops": {"autograd"},
    "scalar": {"autograd", "ops"},
    "tensors": {"autograd", "ops"},
    "optim": {"autograd"},
    "nn": {"disk", "autograd", "ops", "scalar", "tensors"},
    "verify": {"autograd", "ops", "scalar", "tensors"},
    "viz": {"autograd", "ops", "scalar"},
    "expr": {"autograd", "ops", "scalar"},
    "func": {"autograd", "ops", "scalar", "tensors"},
    "compiler": {"autograd", "ops", "scalar", "nn", "optim"},
    "grading": {"disk", "verify"},
    "notebook": {"autograd", "scalar", "playground"},
    "utils": {"autograd", "tensors"},
    "train": {"disk", "autograd", "ops", "scalar", "tensors", "nn", "optim"},
    "playground": {"autograd", "ops", "scalar", "verify", "viz", "expr"},
    "cli": {
        "disk",
        "autograd",
        "ops",
        "scalar",
        "verify",
        "viz",
        "expr",
        "train",
        "playground",
        "nn",
        "grading",
        "func",
        "compiler",
    },
}


def modules() -> dict[str, Path]:
    found = {}
    for path in sorted(SOURCE.rglob("*.py")):
        parts = path.relative_to(SOURCE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def imports(name: str, path: Path) -> list[tuple[str, list[str], int]]:
    """(module imported, names taken from it, line) for every import of topograd, anywhere in
    the file (in functions too, and under TYPE_CHECKING)."""
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            if target.startswith("topograd"):
                found.append((target, [a.name for a in node.names], node.lineno))
        elif isinstance(node, ast.Import):
            found += [
                (a.name, [], node.lineno) for a in node.names if a.name.startswith("topograd")
            ]
    return found


def layer(name: str) -> str:
    """The subpackage a module belongs to; "" for the package's own __init__ and __main__."""
    parts = name.split(".")
    return parts[1] if len(parts) > 1 and parts[1] != "__main__" else ""


ALL = modules()


@pytest.mark.parametrize("name", sorted(ALL))
def test_a_layer_imports_only_the_layers_below_it(name: str) -> None:
    own = layer(name)
    if own == "":  # topograd/__init__ and __main__: the public face, above everything
        return
    for target, _, line in imports(name, ALL[name]):
        other = layer(target)
        assert other == own or other in ALLOWED[own], f"{name}:{line} imports {target}"


def test_every_layer_is_known() -> None:
    assert {layer(n) for n in ALL} - {""} == set(ALLOWED)


def test_no_import_cycles_not_even_inside_functions() -> None:
    graph: dict[str, set[str]] = {name: set() for name in ALL}
    for name, path in ALL.items():
        for target, names, _ in imports(name, path):
            # "from package import module" imports the module; otherwise the module itself
            for candidate in [f"{target}.{n}" for n in names] + [target]:
                if candidate in ALL and candidate != name:
                    graph[name].add(candidate)
                    break
    for name in graph:  # a package's __init__ re-exports its modules: not a cycle of layers
        graph[name] = {t for t in graph[name] if not name.startswith(t + ".")}
    state: dict[str, int] = {}  # 1 on the path, 2 done
    for start in graph:
        stack = [(start, iter(sorted(graph[start])))]
        state[start] = state.get(start, 1)
        if state[start] == 2:
            continue
        while stack:
            node, todo = stack[-1]
            for nxt in todo:
                assert state.get(nxt) != 1, f"import cycle through {node} -> {nxt}"
                if nxt not in state:
                    state[nxt] = 1
                    stack.append((nxt, iter(sorted(graph[nxt]))))
                    break
            else:
                state[node] = 2
                stack.pop()


@pytest.mark.parametrize("name", sorted(ALL))
def test_no_private_name_crosses_a_module(name: str) -> None:
    for target, names, line in imports(name, ALL[name]):
        private = [n for n in names if n.startswith("_") and not n.startswith("__")]
        assert not private, f"{name}:{line} imports {private} from {target}"
    tree = ast.parse(ALL[name].read_text())
    imported = {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        and (node.level or (node.module or "").startswith("topograd"))
        for alias in node.names
    }
    for node in ast.walk(tree):
        crossing = (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in imported
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
        )
        assert not crossing, f"{name}:{node.lineno} uses a private name of another module"


@pytest.mark.parametrize("name", sorted(ALL))
def test_files_are_small(name: str) -> None:
    assert len(ALL[name].read_text().splitlines()) <= 400, name


def test_the_root_holds_the_public_face_only() -> None:
    assert sorted(p.name for p in SOURCE.glob("*.py")) == ["__init__.py", "__main__.py"]


SCALAR_PATH = """
import sys
sys.modules["torch"] = None  # the demo shows PyTorch's gradients where torch is installed
import topograd as tg
from topograd.cli import main
x = tg.Value(2.0, label="x")
y = (x * x + 1.5).tanh() * x.erf()
y.backward()
assert tg.gradcheck(lambda a: (a * a).sin(), [0.3])
tg.to_svg(y), tg.trace(y).table()
m = tg.nn.MLP(2, [3, 1], seed=0)
tg.optim.SGD(m.parameters(), lr=0.1)
for argv in (["grad", "x*x", "x=3"], ["check", "--kind", "scalar", "--points", "3"],
             ["demo", "--out", sys.argv[1]]):
    assert main(argv) == 0
print("numpy" in sys.modules)
"""


def test_the_scalar_path_loads_no_numpy(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-c", SCALAR_PATH, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == "False"


def test_numpy_comes_with_the_first_tensor() -> None:
    code = (
        "import sys, topograd as tg; before = 'numpy' in sys.modules; tg.Tensor([1.0]); "
        "print(before, 'numpy' in sys.modules)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60
    )
    assert result.stdout.split() == ["False", "True"], result.stderr
