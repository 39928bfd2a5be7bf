"""Every repository path that README.md, BENCHMARKS.md or a comment names exists, and no comment of the
app carries an issue number: what a comment says of the tree stays true when the tree moves."""

import io
import re
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ["README.md", "BENCHMARKS.md"]
CODE = ["matches", "scorekeeper", "bench", "tests", "bin"]
NAMED = re.compile(
    r"(?<![\w/.-])((?:matches|scorekeeper|bench|tests|templates|static|bin)/[\w./-]*\.(?:py|html|js|txt|json|md|css|sh))\b"
)
ISSUE = re.compile(r"\bissues? \d|\(#\d+\)", re.I)


def python_prose(path: Path) -> list[tuple[int, str]]:
    """The comments and string literals of a Python file (docstrings among them), with their lines."""
    found = []
    tokens = tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline)
    for token in tokens:
        if token.type in (tokenize.COMMENT, tokenize.STRING):
            found.append((token.start[0], token.string))
    return found


def prose(root: Path) -> list[tuple[str, int, str]]:
    """(file, line, text) of every doc, comment and string that may name a path."""
    found = []
    for doc in DOCS:
        if (root / doc).exists():
            lines = (root / doc).read_text(encoding="utf-8").splitlines()
            found += [(doc, number, line) for number, line in enumerate(lines, 1)]
    for tree in CODE:
        for path in sorted((root / tree).rglob("*.py")) if (root / tree).is_dir() else []:
            if "migrations" not in path.parts:
                found += [(str(path.relative_to(root)), n, text) for n, text in python_prose(path)]
    return found


def stale_paths(root: Path) -> list[str]:
    stale = []
    for where, line, text in prose(root):
        for named in NAMED.findall(text):
            if "<" in named or "*" in named or "/pt/" in named:  # placeholders; the README's new language
                continue
            if not (root / named).exists() and not (root / "templates" / named).exists():
                stale.append(f"{where}:{line} names {named}")
    return stale


def test_every_path_the_docs_and_comments_name_exists():
    assert stale_paths(ROOT) == []


def test_a_stale_path_is_found(tmp_path):
    (tmp_path / "matches").mkdir()
    (tmp_path / "matches" / "here.py").write_text('"""Read with matches/there.py and matches/here.py."""\n')
    (tmp_path / "README.md").write_text("See `tests/test_gone.py`.\n")
    assert stale_paths(tmp_path) == [
        "README.md:1 names tests/test_gone.py",
        "matches/here.py:1 names matches/there.py",
    ]


def test_no_comment_of_the_app_names_an_issue():
    found = []
    for tree in ("matches", "scorekeeper"):
        for path in sorted((ROOT / tree).rglob("*.py")):
            if "migrations" not in path.parts:
                found += [f"{path.relative_to(ROOT)}:{n}" for n, text in python_prose(path) if ISSUE.search(text)]
    assert found == []
