"""The layers of matches/: domain (pure) <- models <- services <- web; imports only go down."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "matches"
# A layer may import itself and the layers after it in this list, never those before it.
LAYERS = ["web", "services", "models", "domain"]


def layer_of(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "matches" or len(parts) < 2:
        return None
    return parts[1] if parts[1] in LAYERS else None


def imports_of(path: Path) -> set[str]:
    """Every module `path` imports, wherever the import stands (type checking, functions too)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def upward_imports() -> list[str]:
    wrong = []
    for path in APP.rglob("*.py"):
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        own = layer_of(module)
        if own is None:
            continue
        for target in imports_of(path):
            theirs = layer_of(target)
            if theirs is not None and LAYERS.index(theirs) < LAYERS.index(own):
                wrong.append(f"{module} imports {target}")
    return sorted(set(wrong))


def test_no_layer_imports_a_layer_above_it():
    assert upward_imports() == []


def test_the_check_sees_an_upward_import(tmp_path, monkeypatch):
    fake = tmp_path / "matches" / "domain"
    fake.mkdir(parents=True)
    (fake / "bad.py").write_text("from matches.web.bidi import bdi\n")
    monkeypatch.setattr(sys.modules[__name__], "APP", tmp_path / "matches")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert upward_imports() == ["matches.domain.bad imports matches.web.bidi", "matches.domain.bad imports matches.web.bidi.bdi"]


DOMAIN = sorted(
    ".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__") for p in (APP / "domain").rglob("*.py")
)


@pytest.mark.parametrize("module", DOMAIN)
def test_a_domain_module_loads_no_django(module):
    code = f"import sys, {module}; print(sorted(m for m in sys.modules if m.split('.')[0] == 'django'))"
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
