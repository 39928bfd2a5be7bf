"""A rematch: one per match whichever phone asks (it stays in the match's group), one label on every
screen, started at one tap once the match is over and after a question while it is played (that match
stays open); its first hand dealt by whoever would have dealt the next; the watch screen follows it,
and new links of the rematch cut it off from the first match."""

import re

import pytest
from django.test import Client

from matches.domain.errors import Conflict
from matches.domain.rules import GAMES, MatchEnd, MatchEndKind
from matches.models import Sitting

from tests.conftest import WORKED, play
from tests.groups import friday_group  # noqa: F401 - the fixture `group`
from tests.groups import ids, post_form
from tests.pages import HX, NAMES, url, words

pytestmark = [pytest.mark.django_db, pytest.mark.engine]


def test_rematch_opens_a_new_sitting_with_the_same_seats(client, sitting):
    play(sitting, [1])
    response = client.post(url(sitting, "rematch/"), {"open": "1"})  # (still being played: confirmed)
    new = Sitting.objects.exclude(pk=sitting.pk).get()
    assert response["Location"] == url(new)
    assert [s.name for s in new.table().seats] == WORKED[1:] + WORKED[:1]  # Boubacar won: he deals first
    assert client.session["sittings"][0] == new.token


def test_two_phones_tapping_rematch_get_the_same_new_sitting(client, sitting):
    sitting.end_match()
    first = client.post(url(sitting, "rematch/"))["Location"]
    second = Client().post(url(sitting, "rematch/"))["Location"]
    assert first == second
    assert Sitting.objects.count() == 2
    assert "Go to the rematch" in client.get(url(sitting)).content.decode()


def test_a_rematch_of_a_match_in_play_asks_first_and_says_that_match_stays_open(client, sitting):
    play(sitting, [2])
    client.get(url(sitting))  # this phone knows it
    home = client.get("/").content.decode()
    assert url(sitting, "rematch/") not in home  # in progress: the home list offers only to go on playing
    asked = client.get(url(sitting, "rematch/"))  # (a link kept from before still asks first)
    said = words(asked.content.decode())
    assert asked.status_code == 200 and Sitting.objects.count() == 1
    assert "This Agram match is still being played: it stays open" in said
    assert "End match" in said  # how to close it: from its table
    # A post without the confirmation (a page from before, a form of another screen) starts nothing.
    refused = client.post(url(sitting, "rematch/"))
    assert refused.status_code == 200 and Sitting.objects.count() == 1
    assert "it stays open" in words(refused.content.decode())
    started = client.post(url(sitting, "rematch/"), {"open": "1"})
    assert started.status_code == 302 and Sitting.objects.count() == 2
    sitting.refresh_from_db()
    assert not sitting.is_finished and started["Location"] == sitting.next_sitting.get_absolute_url()


def test_a_finished_match_starts_its_rematch_at_one_tap_as_before(client, sitting):
    play(sitting, [2])
    sitting.end_match(2)
    response = client.post(url(sitting, "rematch/"))
    assert response.status_code == 302 and Sitting.objects.count() == 2


def rematch_controls(page: str, sitting: Sitting) -> list[str]:
    """The labels of the forms and links on a page that start a rematch of `sitting`."""
    address = re.escape(url(sitting, "rematch/"))
    forms = re.findall(rf'<form method="post" action="{address}">(.*?)</form>', page, re.DOTALL)
    links = re.findall(rf'<a [^>]*href="{address}"[^>]*>(.*?)</a>', page, re.DOTALL)
    return [words(control) for control in forms + links if 'name="open"' not in control]


def test_the_rematch_has_one_label_on_every_screen(client):
    playing, over = Sitting.start("agram", WORKED), Sitting.start("spar", WORKED)
    play(playing, [1])
    over.end_match(1)
    for sitting in (over, playing):
        client.get(url(sitting))
    assert rematch_controls(client.get("/").content.decode(), playing) == []  # in progress: only "Go on playing"
    labels = rematch_controls(client.get("/").content.decode(), over)
    labels += rematch_controls(client.get(url(over)).content.decode(), over)
    assert len(labels) == 2 and len(set(labels)) == 1, labels


@pytest.mark.parametrize("slug", sorted(GAMES))
def test_a_rematch_starts_with_the_dealer_the_next_hand_would_have_had(slug):
    """RULES.md says nothing of who deals a new match's first hand: the table carries on. The first seat
    deals hand 1, so the seating turns to put that player first; who sits after whom stays the same."""
    game = GAMES[slug]
    names = WORKED[: max(game.min_players, 4)][: game.max_players]
    sitting = Sitting.start(slug, names)
    for number, winner in enumerate([1, 3], start=1):  # winner's deal: Djibo; rotating: Chaibou
        extras = {q.key: q.choices[-1].value for q in game.questions if q.kind == "choice"}
        sitting.record_hand(number, winner, extras)
    dealer = sitting.table().dealer_seat.name
    new = sitting.rematch()
    seated = [seat.name for seat in new.table().seats]
    assert new.table().dealer_seat.name == dealer
    first = names.index(dealer)
    assert seated == names[first:] + names[:first]


def test_the_rematchs_table_says_who_deals_and_why(client):
    sitting = Sitting.start("agram", WORKED, MatchEnd(MatchEndKind.WINS, 2))
    play(sitting, [2, 2])  # Chaibou wins the match, and would deal the next hand
    response = client.post(url(sitting, "rematch/"), follow=True)
    said = words(response.content.decode())
    assert "Chaibou deals and leads." not in said  # (Agram: the player after the dealer leads)
    assert "Chaibou deals, Djibo leads." in said
    assert "Chaibou deals first: the deal carries on from the last match." in said


def test_a_rematch_keeps_the_group_and_its_players(group):
    sitting = group.start_match("agram", [ids(group)["Aïcha"], "Ousmane"])
    sitting.end_match()
    rematch = sitting.rematch()
    assert rematch.group_id == group.pk
    assert [s.player_id for s in rematch.table().seats] == [s.player_id for s in sitting.table().seats]


def test_a_rematch_of_a_match_started_from_the_group_stays_in_it(client, group):
    i = ids(group)
    post_form(client, group, [f"m{i['Aïcha']}", f"m{i['Djibo']}"], "start")
    sitting = Sitting.objects.get()
    sitting.end_match()
    response = client.post(f"/s/{sitting.token}/rematch/")
    rematch = Sitting.objects.exclude(pk=sitting.pk).get()
    assert response.status_code == 302 and rematch.group == group
    assert group.sittings.count() == 2


def test_the_watch_screen_follows_the_rematch(client):
    sitting = Sitting.start("agram", NAMES)
    sitting.end_match()
    rematch = sitting.rematch()
    poll = client.get(f"/w/{sitting.watch_token}/poll/", {"v": 1}, **HX)
    assert poll["HX-Redirect"] == f"/w/{rematch.watch_token}/" and rematch.token not in poll.content.decode()
    page = client.get(f"/w/{sitting.watch_token}/").content.decode()
    assert f'href="/w/{rematch.watch_token}/"' in page and rematch.token not in page


def test_rotating_a_rematchs_links_cuts_it_off_from_the_first_match(client, sitting):
    sitting.end_match()
    rematch = sitting.rematch()
    client.post(url(rematch, "links/"))
    rematch.refresh_from_db()
    page = Client().get(url(sitting)).content.decode()
    assert rematch.token not in page and "Go to the rematch" not in page
    assert UNLINKED in words(page) and url(sitting, "rematch/") not in page  # and no second rematch offered


def test_a_match_whose_rematch_got_new_links_starts_no_second_rematch(client, sitting):
    """Whoever holds the leaked link of the first match would get a table of their own beside the real one."""
    sitting.end_match()
    rematch = sitting.rematch()
    client.post(url(rematch, "links/"))
    answer = Client().post(url(sitting, "rematch/"))
    assert answer.status_code == 409 and UNLINKED in words(answer.content.decode())
    assert Sitting.objects.count() == 2
    sitting.refresh_from_db()
    with pytest.raises(Conflict):
        sitting.rematch()


UNLINKED = "This match’s rematch was given new links after a link leaked: ask a player at that table for its link."
