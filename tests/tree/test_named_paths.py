"""What the docs and comments name is there: every repository path that README.md, BENCHMARKS.md or a
comment names exists, the pages and buttons the README names in bold are the screens' own words, and no
comment of the app carries an issue number. What they say of the tree stays true when the tree moves."""

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
README = (ROOT / "README.md").read_text()
TRANSLATED = re.compile(r"""{% (?:translate|trans) "([^"]+)"|{% (?:translate|trans) '([^']+)'""")
BOLD = re.compile(r"\*\*(.+?)\*\*")


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
    here, there, gone = "matches/here" ".py", "matches/there" ".py", "tests/test_gone" ".py"  # (not this file's)
    (tmp_path / "matches").mkdir()
    (tmp_path / here).write_text(f'"""Read with {there} and {here}."""\n')
    (tmp_path / "README.md").write_text(f"See `{gone}`.\n")
    assert stale_paths(tmp_path) == [f"README.md:1 names {gone}", f"{here}:1 names {there}"]


def test_no_comment_of_the_app_names_an_issue():
    found = []
    for tree in ("matches", "scorekeeper"):
        for path in sorted((ROOT / tree).rglob("*.py")):
            if "migrations" not in path.parts:
                found += [f"{path.relative_to(ROOT)}:{n}" for n, text in python_prose(path) if ISSUE.search(text)]
    assert found == []


# --- the README's words ---------------------------------------------------------------------------


def test_the_readme_says_how_to_run_on_another_port_where_it_describes_make_run():
    section = README[README.index("## Two commands") : README.index("## How it is built")]
    assert "make run PORT=8001" in section


def screen_texts() -> set[str]:
    """Every English text the templates translate: what buttons, links and headings say."""
    found = set()
    for template in (ROOT / "templates").rglob("*.html"):
        found.update(a or b for a, b in TRANSLATED.findall(template.read_text()))
    return found


def test_the_readme_names_pages_and_buttons_with_the_screens_own_words():
    players_part = README[: README.index("## Production")]  # (the operator's part names commands)
    named = set(BOLD.findall(players_part))
    assert named - screen_texts() == set()  # every name in bold is one the screen shows
    assert {"Figures", "Bring a group here"} <= named  # the group's figures, the home page's import
    for old in ("statistics page", "home page's import"):
        assert old not in README
