"""Bringing phones to a table or a group: one share panel with both links and a QR code (made once per
link), fetched when it is opened (or a page of its own), this phone's seat, links that give phones the laptop's
LAN address; the watch link, which
shows the table as the players' phones do without any control or the member link; and new links when
one leaked, asked for first, cutting the old ones off at once. A group just made opens its panel."""

import re
from unittest import mock

import pytest
from django.test import Client, override_settings

from matches.models import Group, Sitting

from tests.conftest import play, shown, snapshot
from tests.groups import friday_group  # noqa: F401 - the fixture `group`
from tests.groups import ids, state
from tests.pages import HX, NAMES, g, url, watch_url

pytestmark = [pytest.mark.django_db, pytest.mark.engine]
SHARE = re.compile(r'<details class="share" id="share"( open)?[\s>]')


def panel(client, sitting, **headers) -> str:
    """The table's share panel as the page fetches it when it is opened."""
    response = client.get(url(sitting, "share/"), **HX, **headers)
    assert response.status_code == 200 and "<html" not in response.content.decode()
    return response.content.decode()


def test_the_table_and_the_group_bring_phones_in_with_one_partial(client):
    from matches.models import Group

    group = Group.create("Friday", NAMES[:3])
    sitting = group.start_match("agram", [player.pk for player in group.members()])
    for page, summary in ((sitting.get_absolute_url(), "this table"), (group.get_absolute_url(), "this group")):
        response = client.get(page)
        assert "matches/_share.html" in [template.name for template in response.templates]
        html = response.content.decode()
        assert html.count(f'<details class="share" id="share" data-panel="{page}share/"') == 1
        assert f"Bring more phones to {summary}" in html
        opened = client.get(f"{page}share/", **HX).content.decode()
        # Both ask before making new links: a leaked link is a deliberate, second tap.
        assert re.search(r"<summary>A link leaked: make new links</summary>.*Yes, make new links", opened, re.S)
    group_panel = client.get(f"{group.get_absolute_url()}share/", **HX).content.decode()
    assert "This phone belongs to" not in group_panel and f"/g/{group.token}/links/" in group_panel


def test_the_share_panel_comes_when_it_is_opened_not_with_every_page(client, sitting):
    page = client.get(url(sitting)).content.decode()
    share = f"/s/{sitting.token}/share/"
    assert f'data-panel="{share}"' in page and f'<a class="button" href="{share}">' in page  # no JavaScript: a link
    assert 'class="segno"' not in page and f"/w/{sitting.watch_token}/" not in page
    opened = client.get(share, **HX)
    assert "HX-Request" in opened["Vary"] and opened.content.decode().startswith('<div class="share-body">')
    whole = client.get(share)  # the link without JavaScript: a page of its own, the panel open, the way back
    body = whole.content.decode()
    assert "<html" in body and SHARE.search(body)[1] == " open" and 'class="segno"' in body
    assert f'<a class="button" href="/s/{sitting.token}/">Back to the table</a>' in body


def test_the_table_page_offers_a_qr_code_and_the_links(client, sitting):
    page = panel(client, sitting)
    assert '<svg width="' in page and 'class="segno"' in page
    assert f'value="http://testserver/s/{sitting.token}/"' in page
    assert f'value="http://testserver/w/{sitting.watch_token}/"' in page
    assert "data-share=" in page and 'data-copy="#member-link"' in page and 'data-copy="#watch-link"' in page


def test_the_qr_code_is_made_once_per_link_not_per_view(client, sitting, monkeypatch):
    import segno

    made = []
    real = segno.make
    monkeypatch.setattr(segno, "make", lambda *args, **kwargs: made.append(args[0]) or real(*args, **kwargs))
    first = panel(client, sitting)
    assert panel(client, sitting).count('class="segno"') == 1
    assert made == [f"http://testserver/s/{sitting.token}/"] and 'class="segno"' in first
    sitting.rotate_links()
    panel(client, sitting)
    assert made[-1] == f"http://testserver/s/{sitting.token}/" and len(made) == 2  # new links, a new code


@override_settings(ALLOWED_HOSTS=["testserver", "scores.example"])
def test_the_share_panel_shows_each_phone_its_own_seat_and_host(sitting):
    ana, ben = Client(), Client()
    ana.get(url(sitting))
    ana.post(url(sitting, "me/"), {"seat": "2"})
    assert '<option value="2" selected>' in panel(ana, sitting)
    page = panel(ben, sitting)
    assert "selected>" not in page and "http://testserver/s/" in page
    elsewhere = panel(ben, sitting, HTTP_HOST="scores.example")
    assert "http://scores.example/s/" in elsewhere and "testserver" not in elsewhere


def test_a_seat_is_one_phones_until_it_gives_it_up_and_no_other_phone_signs_with_its_name(sitting):
    """Two phones saying they are Boubacar's would both sign their changes "Boubacar's phone", and a phone that
    took the name over would have its changes pinned on Boubacar's."""
    ana, ben = Client(), Client()
    for phone in (ana, ben):
        phone.get(url(sitting))
    ana.post(url(sitting, "me/"), {"seat": "2"})
    refused = ben.post(url(sitting, "me/"), {"seat": "2"})
    assert refused.status_code == 409
    assert "Another phone already says it is Boubacar’s: only that phone can give the name up" in shown(
        refused.content.decode()
    )
    assert '<option value="2" selected>' in panel(ana, sitting) and "selected>" not in panel(ben, sitting)
    ben.post(url(sitting, "tap/"), {"number": 1, "winner": 1, "key": "a" * 24}, **HX)  # signed another phone's
    ana.post(url(sitting, "tap/"), {"number": 2, "winner": 1, "key": "b" * 24}, **HX)  # signed Boubacar's
    ana.post(url(sitting, "me/"), {"seat": ""})  # given up: the name is free
    assert ben.post(url(sitting, "me/"), {"seat": "2"}).status_code == 302
    ben.post(url(sitting, "tap/"), {"number": 3, "winner": 1, "key": "c" * 24}, **HX)
    assert list(sitting.receipts.order_by("number").values_list("number", "by_seat")) == [(1, None), (2, 1), (3, 1)]
    assert list(sitting.hands.order_by("number").values_list("recorded_by_seat", flat=True)) == [None, 1, 1]


@pytest.mark.parametrize("seat", ["9", "0", "x", "1" * 50, "٢"])  # (another script's 2: no page writes it)
def test_claiming_a_seat_that_is_not_there_is_refused(client, sitting, seat):
    response = client.post(url(sitting, "me/"), {"seat": seat})
    assert response.status_code == 400 and "Pick your name" in response.content.decode()


@override_settings(LAN_HOST="192.0.2.7", ALLOWED_HOSTS=["127.0.0.1", "localhost", "testserver"])
@pytest.mark.parametrize("host", ["127.0.0.1:8000", "localhost:8000"])
def test_links_shown_on_the_laptop_itself_give_phones_its_lan_address(client, sitting, host):
    page = panel(client, sitting, HTTP_HOST=host)
    assert f'value="http://192.0.2.7:8000/s/{sitting.token}/"' in page
    assert f'value="http://192.0.2.7:8000/w/{sitting.watch_token}/"' in page
    assert "127.0.0.1:8000/s/" not in page and "localhost:8000/s/" not in page


@override_settings(LAN_HOST="lan.test")
def test_make_run_prints_the_address_the_links_give_phones():
    from io import StringIO

    from django.core.management import call_command

    printed = StringIO()
    call_command("lan_address", port=8437, stdout=printed)
    assert "Phones on the same Wi-Fi open:  http://lan.test:8437/" in printed.getvalue()


@override_settings(LAN_HOST="192.0.2.7", ALLOWED_HOSTS=["score.example.org", "testserver"])
def test_links_on_a_named_host_keep_its_name(client, sitting):
    page = panel(client, sitting, HTTP_HOST="score.example.org")
    assert f'value="http://score.example.org/s/{sitting.token}/"' in page


def test_a_group_just_made_opens_its_links_once(client):
    made = client.post("/groups/new/", {"name": "Jeudi", "players": "Ana\nBen"}, follow=True)
    page = made.content.decode()
    assert "Group made. Share its link (below) with the others." in page
    assert SHARE.search(page)[1] == " open" and 'class="segno"' in page  # the panel comes with the page
    later = client.get(made.redirect_chain[-1][0]).content.decode()
    assert SHARE.search(later)[1] is None and 'class="segno"' not in later  # later: closed, fetched when opened


def test_a_match_saved_into_a_new_group_opens_its_links(client):
    sitting = Sitting.start("agram", ["Ana", "Ben"])
    sitting.record_hand(1, 0)
    sitting.end_match()
    saved = client.post(f"/s/{sitting.token}/group/", {"group": "new", "name": "Samedi"}, follow=True)
    assert SHARE.search(saved.content.decode())[1] == " open"
    other = Sitting.start("agram", ["Ana", "Ben"])
    group = Group.objects.get()
    into_it = client.post(f"/s/{other.token}/group/", {"group": group.token}, follow=True)
    assert SHARE.search(into_it.content.decode())[1] is None  # an existing group: its links are known


# --- the watch link -------------------------------------------------------------------------------


def test_the_watch_link_shows_the_score_with_no_control_and_no_member_link(client, sitting):
    play(sitting, [2])
    page = client.get(watch_url(sitting)).content.decode()
    assert "Chaibou" in page and "watching" in page
    assert sitting.token not in page
    for control in ('name="winner"', "Undo hand", "End match", "Correct", "/tap/", "make new links"):
        assert control not in page
    assert f'hx-get="{watch_url(sitting, "poll/")}?v=' in page


def test_the_watch_link_says_who_deals_and_who_leads_as_the_players_phones_do(client, sitting):
    play(sitting, [2])  # Agram: Chaibou won, deals hand 2; the next seat leads
    said = shown(client.get(watch_url(sitting)).content.decode())
    member = shown(client.get(f"/s/{sitting.token}/").content.decode())
    assert "Chaibou deals, Djibo leads." in said and "Chaibou deals, Djibo leads." in member


def test_the_watch_poll_answers_like_the_members(client, sitting):
    assert client.get(watch_url(sitting, "poll/"), {"v": sitting.version}, **HX).status_code == 204
    play(sitting, [1])
    response = client.get(watch_url(sitting, "poll/"), {"v": 1}, **HX)
    assert response.status_code == 200 and sitting.token not in response.content.decode()


@pytest.mark.parametrize("game, extras", [("agram", {}), ("fapfap", {"multiplier": "2"})])
def test_the_watch_link_never_shows_the_member_link(client, game, extras):
    sitting = Sitting.start(game, ["Aïcha", "Boubacar", "Chaibou"], stake_amount=100 if game == "fapfap" else None)
    seen = sitting.version
    for number in range(1, 10):  # more hands than the table shows: "and 3 earlier hands"
        client.post(url(sitting, "tap/"), {"number": number, "winner": 1 + number % 3, **extras})
    watch = f"/w/{sitting.watch_token}/"
    pages = [client.get(watch).content.decode(), client.get(watch + "poll/", {"v": seen}, **HX).content.decode()]
    sitting.end_match()
    pages += [client.get(watch).content.decode(), client.get(watch + "poll/", {"v": seen}, **HX).content.decode()]
    assert "earlier hands" in pages[0] and "Match over" in pages[2]
    for page in pages:
        assert sitting.token not in page


@pytest.mark.parametrize("path", ["", "tap/", "undo/", "end/", "rematch/", "poll/", "links/"])
def test_a_watch_link_cannot_change_anything(client, sitting, path):
    play(sitting, [1])
    before = snapshot(sitting)
    for target in (watch_url(sitting, path), f"/s/{sitting.watch_token}/{path}"):
        response = client.post(target, {"number": 2, "winner": 1, "stamp": "x"}, **HX)
        assert response.status_code in (404, 405)
    assert snapshot(sitting) == before


# --- new links ------------------------------------------------------------------------------------


def test_making_new_links_asks_first_and_says_what_it_did(client):
    sitting = Sitting.start("agram", NAMES)
    page = panel(client, sitting)
    assert re.search(r"<summary>A link leaked: make new links</summary>.*Yes, make new links", page, re.S)
    client.post(url(sitting, "links/"))
    sitting.refresh_from_db()
    told = client.get(url(sitting)).content.decode()
    assert "New links made: the old ones no longer work." in told
    assert SHARE.search(told)[1] == " open" and f'value="http://testserver/s/{sitting.token}/"' in told  # the new code
    assert SHARE.search(client.get(url(sitting)).content.decode())[1] is None  # once


def test_rotated_links_stop_working_and_the_new_ones_work(client, sitting):
    old_member, old_watch = sitting.token, sitting.watch_token
    response = client.post(url(sitting, "links/"))
    sitting.refresh_from_db()
    assert sitting.token != old_member and sitting.watch_token != old_watch
    assert response["Location"] == url(sitting)
    for dead in (f"/s/{old_member}/", f"/w/{old_watch}/", f"/s/{old_member}/poll/?v=1"):
        assert client.get(dead, **HX).status_code == 404
    assert client.post(f"/s/{old_member}/tap/", {"number": 1, "winner": 1}).status_code == 404
    assert client.get(url(sitting)).status_code == 200
    assert client.session["sittings"] == [sitting.token]


def test_new_links_cut_off_the_old_ones_at_once(client, group):
    old, old_watch = group.token, group.watch_token
    client.get(g(group))
    response = client.post(g(group, "links/"))
    group.refresh_from_db()
    assert response.status_code == 302 and response["Location"] == g(group)
    assert group.token != old and group.watch_token != old_watch
    assert client.session["groups"] == [group.token]
    assert client.get(f"/g/{old}/").status_code == 404
    assert client.get(f"/gw/{old_watch}/").status_code == 404
    before = state(group)
    for path, data in [("players/", {"name": "Ousmane"}), ("links/", {}), ("new/agram/", {"action": "start"})]:
        refused = client.post(f"/g/{old}/{path}", data)
        assert refused.status_code == 404 and "No group at this link" in refused.content.decode()
    assert state(group) == before
    assert "New links made" in client.get(g(group)).content.decode()


def test_a_groups_new_links_cut_off_its_matches_old_links_too_and_this_phone_keeps_them(client, group):
    """The group's page lists its matches' links, and each match leads to the group: a leaked group link is
    a leaked link of every match, so each gets new links too (this phone follows its own)."""
    players = [p.pk for p in group.members()][:2]
    playing, played = group.start_match("agram", players), group.start_match("agram", players)
    played.end_match()
    elsewhere = Sitting.start("agram", ["Ana", "Ben"])
    group.save_sitting(elsewhere)  # saved into the group: its rematch there would lead in too
    outside = Sitting.start("agram", ["Ana", "Ben"])
    Sitting.objects.filter(pk=outside.pk).update(next_sitting=playing)
    old = {s.pk: (s.token, s.watch_token) for s in (playing, played, elsewhere)}
    client.get(playing.get_absolute_url())  # this phone plays there
    assert client.post(g(group, "links/")).status_code == 302
    for sitting in (playing, played, elsewhere):
        token, watch = old[sitting.pk]
        assert client.get(f"/s/{token}/").status_code == 404 and client.get(f"/w/{watch}/").status_code == 404
        assert Client().post(f"/s/{token}/tap/", {"number": 1, "winner": 1}).status_code == 404
    playing.refresh_from_db()
    assert playing.token != old[playing.pk][0] and playing.token in client.session["sittings"]
    assert client.get(playing.get_absolute_url()).status_code == 200
    outside.refresh_from_db()
    assert outside.next_sitting is None


def test_htmx_rotation_redirects_the_page(client, group):
    response = client.post(g(group, "links/"), **HX)
    group.refresh_from_db()
    assert response.status_code == 200 and response["HX-Redirect"] == g(group)


@pytest.mark.parametrize("path", ["players/", "links/", "players/{aicha}/rename/", "new/agram/"])
@pytest.mark.parametrize("headers", [{}, HX], ids=["plain", "htmx"])
def test_a_change_to_a_group_re_linked_while_the_request_ran_answers_404(client, group, path, headers):
    gone = Group.DoesNotExist("links made new while the request ran")
    seat = [f"m{ids(group)['Aïcha']}", f"m{ids(group)['Djibo']}"]
    data = {"name": "Ousmane", "action": "start", "end_kind": "open", "seat": seat}
    with mock.patch.object(Group, "_lock", side_effect=gone):
        answer = client.post(g(group, path.format(aicha=ids(group)["Aïcha"])), data, **headers)
    assert answer.status_code == 404 and "No group at this link" in answer.content.decode()
