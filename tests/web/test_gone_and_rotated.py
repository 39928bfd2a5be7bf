"""A change that arrives while its sitting is deleted, or after its links were made new, changes
nothing and answers 404 with a message: never a 500, never the new links."""

from unittest import mock

import pytest

from matches.models import Sitting
from matches.services.retention import forget_sittings

from tests.conftest import play
from tests.pages import HX

pytestmark = pytest.mark.engine
CHANGES = {
    "tap/": {"number": 2, "winner": 1},
    "undo/": {"number": 1, "stamp": "AAAAAAAA"},
    "end/": {"number": 2},
    "chips/": {"seen": 0},
    "hands/1/": {"number": 1, "winner": 2, "stamp": "AAAAAAAA"},
    "links/": {},
    "rematch/": {"open": "1"},  # (the match is being played: the rematch confirmed)
}


@pytest.mark.parametrize("path", CHANGES)
@pytest.mark.parametrize("headers", [{}, HX], ids=["plain", "htmx"])
def test_a_change_to_a_sitting_deleted_meanwhile_answers_404(client, sitting, path, headers):
    play(sitting, [2])
    deleted = Sitting.DoesNotExist("deleted by the operator while the request ran")
    with mock.patch.object(Sitting, "_lock", side_effect=deleted):
        answer = client.post(f"/s/{sitting.token}/{path}", CHANGES[path], **headers)
    assert answer.status_code == 404 and "No match at this link" in answer.content.decode()


def test_a_verb_on_a_copy_found_before_the_sitting_was_deleted_writes_nothing(sitting):
    found_earlier = Sitting.objects.get(pk=sitting.pk)
    forget_sittings(Sitting.objects.filter(pk=sitting.pk))
    with pytest.raises(Sitting.DoesNotExist):
        found_earlier.record_hand(1, 0)
    assert not Sitting.objects.filter(pk=sitting.pk).exists()


@pytest.mark.django_db(transaction=True)  # outside a transaction, as a request runs
def test_a_change_through_the_old_link_after_new_links_were_made_changes_nothing(sitting):
    through_old_link = Sitting.objects.get(pk=sitting.pk)  # a request that found it just before
    sitting.rotate_links()
    for verb in (lambda: through_old_link.record_hand(1, 0), through_old_link.end_match, through_old_link.rotate_links):
        with pytest.raises(Sitting.DoesNotExist):
            verb()
    with pytest.raises(Sitting.DoesNotExist):
        through_old_link.fresh_table()  # nor does its answer read the sitting (and its new links) again
    sitting.refresh_from_db()
    assert sitting.hands.count() == 0 and not sitting.is_finished


def test_the_answer_to_a_refused_tap_never_carries_links_made_new_meanwhile(client, sitting):
    old = sitting.token

    def rotate_then_refuse(*args, **kwargs):
        Sitting.objects.get(pk=sitting.pk).rotate_links()  # another phone, between lookup and answer
        raise Sitting.DoesNotExist

    with mock.patch.object(Sitting, "record_hand", side_effect=rotate_then_refuse):
        answer = client.post(f"/s/{old}/tap/", {"number": 1, "winner": 1}, **HX)
    sitting.refresh_from_db()
    assert answer.status_code == 404 and sitting.token not in answer.content.decode()


@pytest.mark.parametrize("path, data", [("tap/", {"number": 1, "winner": 1}), ("poll/", None)], ids=["tap", "poll"])
def test_from_a_match_table_a_link_made_new_replaces_the_table_with_the_message(client, sitting, path, data):
    old = sitting.token
    sitting.rotate_links()
    headers = {**HX, "HTTP_HX_TARGET": "table"}
    if data is None:
        answer = client.get(f"/s/{old}/{path}", {"v": 1}, **headers)
    else:
        answer = client.post(f"/s/{old}/{path}", data, **headers)
    body = answer.content.decode()
    assert answer.status_code == 404 and (answer["HX-Retarget"], answer["HX-Reswap"]) == ("#table", "outerHTML")
    assert '<section id="table"' in body and "ask them for the new one" in body
    assert '<div id="share" hx-swap-oob="delete"></div>' in body  # the old links' panel goes too
    assert '<div id="group-of-match" hx-swap-oob="delete"></div>' in body  # and the way round through a group
    assert "data-poll" not in body and 'name="winner"' not in body and 'href="/"' in body
    assert sitting.token not in body


def test_elsewhere_a_link_made_new_says_so_in_the_notice(client, sitting):
    old = sitting.token
    sitting.rotate_links()
    answer = client.post(f"/s/{old}/hands/1/", {"number": 1, "winner": 2}, **HX, HTTP_HX_TARGET="correction")
    assert answer.status_code == 404 and answer["HX-Retarget"] == "#notice"


def test_a_sitting_deleted_while_its_link_is_looked_up_answers_404(client, sitting):
    token = sitting.token
    Sitting.objects.filter(pk=sitting.pk).delete()
    answer = client.post(f"/s/{token}/tap/", {"number": 1, "winner": 1}, **HX)
    assert answer.status_code == 404 and "No match at this link" in answer.content.decode()
