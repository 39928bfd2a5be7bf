import logging
import os
import re

import pytest
from django.utils import translation
from hypothesis import settings

from matches.models import Hand, Seat, Sitting
from matches.domain.names import without_isolates
from matches.web.live.prerendered import forget_all

from tests.browsers import browser  # noqa: F401 - the module-wide chromium, for every browser test

WORKED = ["Aïcha", "Boubacar", "Chaibou", "Djibo"]
BDI = re.compile(r"</?bdi>")

# Hypothesis: `make test`'s SQLite leg (ci) runs the full number of examples, its PostgreSQL leg
# (ci-postgres) a third of them, `make check` (dev) a quarter. The properties are the rules', searched in
# full on SQLite; on PostgreSQL each test's examples still take the engine's own paths (row locks, JSON
# columns, constraints) for every game and match end. No deadline: an example's time on a shared, busy
# machine is not what a property test checks (the bench is).
settings.register_profile("ci", max_examples=100, deadline=None)
settings.register_profile("ci-postgres", max_examples=34, deadline=None)
settings.register_profile("dev", max_examples=25, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


def examples(in_ci: int) -> int:
    """A database-backed property test's number of examples: `in_ci` under the ci profile, in proportion under
    ci-postgres and dev."""
    return max(3, in_ci * settings.default.max_examples // 100)


# Folders whose every test depends on the database engine (the PostgreSQL leg runs them too), and the
# folder of tests that start real servers. A test elsewhere says so with its own marker (the modules of
# operations/ whose servers share the test database do; `make run` keeps its own SQLite file).
ENGINE_FOLDERS = {"models", "services"}
SERVER_FOLDERS = {"operations"}


# A link's token as it is made (secrets.token_urlsafe(16)); scorekeeper/logs.py writes "~" and hex instead.
LINK_TOKEN = re.compile(r"/(?:s|w|g|gw)/[A-Za-z0-9_-]{20,}")


class TokenWatch(logging.Handler):
    """Every log line this run makes in its own processes: none may hold a link's token."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.found: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        text = f"{record.getMessage()} {record.exc_text or ''}"
        if LINK_TOKEN.search(text):
            self.found.append(f"{record.name}: {text[:200]}")


TOKENS_LOGGED = TokenWatch()


def pytest_sessionstart(session):
    logging.getLogger().addHandler(TOKENS_LOGGED)


@pytest.fixture(autouse=True)
def no_link_token_logged():
    """A test during which a log line held a link's token fails (scorekeeper/logs.py hides them)."""
    before = len(TOKENS_LOGGED.found)
    yield
    if len(TOKENS_LOGGED.found) > before:
        pytest.fail("A link token was logged: " + "; ".join(TOKENS_LOGGED.found[before:][:3]))


def pytest_collection_modifyitems(items):
    for item in items:
        folder = item.path.parent.name
        if folder in ENGINE_FOLDERS:
            item.add_marker(pytest.mark.engine)
        if folder in SERVER_FOLDERS:
            item.add_marker(pytest.mark.servers)
    # The slow tests first, so that xdist's workers do not wait on one at the end of the run.
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


def shown(text: str) -> str:
    """A page or a message as its words read, without what keeps each name in its own direction (the
    <bdi> around a name beside other words, FSI and PDI in a sentence built as text): for the tests of
    wording. tests/web/test_bidi.py and tests/browser/test_bidi.py check that isolation itself."""
    return without_isolates(BDI.sub("", text))


@pytest.fixture(scope="session")
def live_server():
    """The app under an ASGI server (pytest-django's live_server serves WSGI, which cannot stream)."""
    from tests.asgi_server import AsgiLiveServer

    server = AsgiLiveServer()
    yield server
    server.stop()


@pytest.fixture(autouse=True)
def phones_closed_before_the_flush(request):
    """After a browser test on the live server, its pages are closed before the database is emptied: an
    open page's stream may have the server read a table (PostgreSQL: a read between two of TRUNCATE's
    locks is a deadlock)."""
    if "live_server" not in request.fixturenames or "browser" not in request.fixturenames:
        yield
        return
    request.getfixturevalue("transactional_db")  # set up before this fixture, so emptied after it
    yield
    for context in request.getfixturevalue("browser").contexts:
        context.close()
    request.getfixturevalue("live_server").wait_until_idle()


@pytest.fixture(autouse=True)
def english():
    """Each test starts in English: a French request earlier in the thread leaves French active."""
    with translation.override("en"):
        yield


@pytest.fixture(autouse=True)
def no_region_kept_by_an_earlier_test():
    """A test's sittings reuse an earlier test's ids (the database is emptied between tests)."""
    forget_all()


@pytest.fixture
def sitting(db) -> Sitting:
    """A fresh Agram sitting seated as in the worked sitting of RULES.md, no hand yet."""
    return Sitting.start("agram", WORKED)


def play(sitting: Sitting, winners: list[int]) -> None:
    """Record the next hands with these winners (0-based seat positions)."""
    start = sitting.table(recent=1).open_number
    for offset, winner in enumerate(winners):
        sitting.record_hand(start + offset, winner)


def snapshot(sitting: Sitting) -> tuple:
    """Everything a refused request must leave unchanged."""
    sitting.refresh_from_db()
    return (
        list(Hand.objects.filter(sitting=sitting).values_list("number", "status", "winner_id", "points")),
        list(Seat.objects.filter(sitting=sitting).values_list("position", "total", "hands_won")),
        sitting.finished_at,
        sitting.ended_how,
        Sitting.objects.count(),
    )
