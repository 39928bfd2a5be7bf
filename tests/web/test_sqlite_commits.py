"""The speed trick of matches.web.live.sqlite_commits answers as the plain version does: the SQLite live
check skips its read only when nobody committed since the last one, so no change goes unseen."""

import sqlite3

import pytest

from matches.web.live.sqlite_commits import Commits, commits_of


@pytest.fixture
def database(tmp_path):
    path = tmp_path / "db.sqlite3"
    writer = sqlite3.connect(path)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("CREATE TABLE hand (number INTEGER)")
    writer.commit()
    yield path, writer
    writer.close()


def test_a_commit_by_another_connection_is_seen_once(database):
    path, writer = database
    commits = Commits(str(path))
    assert commits.since_last_ask() is True  # the first ask cannot know: the check reads
    assert commits.since_last_ask() is False
    writer.execute("INSERT INTO hand VALUES (1)")
    assert commits.since_last_ask() is False  # not committed yet
    writer.commit()
    assert commits.since_last_ask() is True
    assert commits.since_last_ask() is False


def test_every_commit_between_two_asks_is_seen(database):
    path, writer = database
    commits = Commits(str(path))
    commits.since_last_ask()
    for number in range(3):
        writer.execute("INSERT INTO hand VALUES (?)", (number,))
        writer.commit()
    assert commits.since_last_ask() is True


def test_a_rolled_back_change_is_not_a_commit(database):
    path, writer = database
    commits = Commits(str(path))
    commits.since_last_ask()
    writer.execute("INSERT INTO hand VALUES (1)")
    writer.rollback()
    assert commits.since_last_ask() is False


def test_when_sqlite_cannot_say_the_check_reads(tmp_path):
    commits = Commits(str(tmp_path / "missing" / "db.sqlite3"))
    assert commits.since_last_ask() is True and commits.since_last_ask() is True


def test_after_a_failed_read_the_next_ask_reads_again(database):
    path, _ = database
    commits = Commits(str(path))
    commits.since_last_ask()
    assert commits.since_last_ask() is False
    commits.close()  # what the live check does when its read failed
    assert commits.since_last_ask() is True


@pytest.mark.parametrize(
    "settings_dict, file",
    [
        ({"ENGINE": "django.db.backends.sqlite3", "NAME": "/srv/db.sqlite3"}, True),
        ({"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}, False),
        ({"ENGINE": "django.db.backends.sqlite3", "NAME": "file:memorydb?mode=memory&cache=shared"}, False),
        ({"ENGINE": "django.db.backends.postgresql", "NAME": "lasttrick"}, False),
    ],
)
def test_only_an_sqlite_file_is_asked(settings_dict, file):
    assert (commits_of(settings_dict) is not None) is file
