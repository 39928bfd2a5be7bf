"""Issue 10, "a first match without a stumble": what newcomers tripped on, each fixed as the kind it
belongs to. The screens' own tests (in a phone-sized chromium) are in test_first_match_browser.py."""

import re
from html import unescape

import pytest

from matches.domain import rules
from matches.models import Sitting

from tests.web.test_start_form import form_data

pytestmark = pytest.mark.django_db
NAMES = ["Ana", "Ben", "Chloé", "Dia"]


def words_of(html: str) -> str:
    """Markup's words as read: tags out (names come wrapped in <bdi>), entities unescaped, names'
    isolation marks (FSI, PDI) out, spaces folded."""
    plain = unescape(re.sub(r"<[^>]+>", "", html)).replace("\u2068", "").replace("\u2069", "")
    return re.sub(r"\s+", " ", plain).strip()


def words(response) -> str:
    return words_of(response.content.decode())


text = words


# --- a match end with one choice is said, not a lone radio button --------------------------------


@pytest.mark.parametrize("slug", [slug for slug, game in rules.GAMES.items() if len(game.match_ends) == 1])
def test_a_single_match_end_is_plain_text_with_a_hidden_choice(client, slug):
    game = rules.GAMES[slug]
    page = client.get(f"/start/{slug}/").content.decode()
    assert 'type="radio"' not in page
    kind = game.match_ends[0].value
    assert f'<input type="hidden" name="end_kind" value="{kind}">' in page
    names = {f"player_{row}": name for row, name in enumerate(NAMES[: game.min_players], start=1)}
    response = client.post(f"/start/{slug}/", form_data(page, action="start", **names))  # the page's own choice
    assert response.status_code == 302 and Sitting.objects.get().end_kind == kind


def test_several_match_ends_stay_radio_buttons(client):
    page = client.get("/start/agram/").content.decode()
    assert page.count('type="radio" name="end_kind"') == len(rules.GAMES["agram"].match_ends)
    assert 'type="hidden" name="end_kind"' not in page


# --- who recorded a hand, in words a newcomer understands ------------------------------------------


def test_the_history_says_this_phone_or_another_phone(client):
    from django.test import Client

    from tests.web.test_views import HX, url

    sitting = Sitting.start("agram", NAMES)
    client.get(url(sitting))
    client.post(url(sitting, "tap/"), {"number": 1, "winner": 2}, **HX)
    Client().post(url(sitting, "tap/"), {"number": 2, "winner": 3}, **HX)
    mine, theirs = (hand.recorded_by_phone for hand in sitting.hands.order_by("number"))
    page = text(client.get(url(sitting, "hands/")))
    assert "by this phone" in page and "by another phone" in page
    assert mine not in page and theirs not in page  # a phone's code means nothing to a player
    french = text(client.get(url(sitting, "hands/"), HTTP_ACCEPT_LANGUAGE="fr"))
    assert "par ce téléphone" in french and "par un autre téléphone" in french


# --- one share panel for a match table and a group ------------------------------------------------


def test_the_table_and_the_group_bring_phones_in_with_one_partial(client):
    from matches.models import Group

    group = Group.create("Friday", NAMES[:3])
    sitting = group.start_match("agram", [player.pk for player in group.members()])
    for page, summary in ((sitting.get_absolute_url(), "this table"), (group.get_absolute_url(), "this group")):
        response = client.get(page)
        assert "matches/_share.html" in [template.name for template in response.templates]
        html = response.content.decode()
        assert html.count('<details class="share" id="share">') == 1 and f"Bring more phones to {summary}" in html
        # Both ask before making new links: a leaked link is a deliberate, second tap.
        assert re.search(r"<summary>A link leaked: make new links</summary>.*Yes, make new links", html, re.S)
    group_page = client.get(group.get_absolute_url()).content.decode()
    assert "This phone belongs to" not in group_page and f"/g/{group.token}/links/" in group_page


# --- trying the demo again piles up no demo group ----------------------------------------------------


def test_trying_the_demo_again_reuses_this_phones_demo(client):
    from django.test import Client

    from matches.models import Group

    first = client.post("/demo/")
    assert client.post("/demo/")["Location"] == first["Location"]  # the demo match, as left
    assert Group.objects.count() == 1 and Sitting.objects.filter(finished_at__isnull=True).count() == 1
    demo = Sitting.objects.get(finished_at__isnull=True)
    demo.end_match()
    again = client.post("/demo/")  # played out: a fresh demo match, in the same demo group
    assert again["Location"] != first["Location"] and Group.objects.count() == 1
    fresh = Sitting.objects.get(finished_at__isnull=True)
    assert fresh.group_id == demo.group_id and fresh.table().hands_played == 1
    home = client.get("/").content.decode()
    assert home.count("Demo club") == 1
    Client().post("/demo/")  # another phone gets its own demo
    assert Group.objects.count() == 2


# --- Fapfap: what a multiplier is worth, and money where money is meant --------------------------


def test_a_multiplier_says_what_it_is_worth_in_the_stakes_currency(client):
    from tests.web.test_views import HX, url

    money = Sitting.start("fapfap", NAMES[:3], stake_amount=100, stake_label="CFA")
    tapped = client.post(url(money, "tap/"), {"number": 1, "winner": 2, "multiplier": "2"}, **HX)
    assert "Hand 1 recorded: Ben (with a 3, last trick only: 200 CFA from each other player)." in words(tapped)
    assert "with a 3, last trick only: 200 CFA from each other player" in words(client.get(url(money, "hands/")))
    plain = Sitting.start("fapfap", NAMES[:3])
    tapped = client.post(url(plain, "tap/"), {"number": 1, "winner": 1, "multiplier": "1"}, **HX)
    assert "Hand 1 recorded: Ana (with a 4 or higher: 1 stake from each other player)." in words(tapped)
    no_currency = Sitting.start("fapfap", NAMES[:2], stake_amount=1500)
    tapped = client.post(url(no_currency, "tap/"), {"number": 1, "winner": 1, "multiplier": "4"}, **HX)
    assert "(with 3s, the last two tricks: 6,000 from each other player)" in words(tapped)
    csv = b"".join(client.get(url(money, "hands.csv")).streaming_content).decode("utf-8-sig")
    assert ',"with a 3, last trick only",' in csv and "CFA from" not in csv  # the file keeps the short answer


def test_the_fapfap_result_says_the_money_when_a_stake_is_set(client):
    from tests.web.test_views import url

    money = Sitting.start("fapfap", NAMES[:3], rules.MatchEnd(rules.MatchEndKind.HANDS, 2), stake_amount=100)
    money.record_hand(1, 1, {"multiplier": "2"})
    money.record_hand(2, 1, {"multiplier": "4"})  # Ben 6 stakes of 9 at three seats: 100 x (18 - 6)
    assert "Ben wins the match with +1,200 (6 stakes won)." in words(client.get(url(money)))
    plain = Sitting.start("fapfap", NAMES[:3], rules.MatchEnd(rules.MatchEndKind.HANDS, 1))
    plain.record_hand(1, 0, {"multiplier": "1"})
    assert "Ana wins the match with 1 stake." in words(client.get(url(plain)))


# --- one minus sign on every screen; the file stays machine-readable ---------------------------------


def test_negatives_take_one_minus_sign_on_every_screen_and_the_file_a_hyphen(client):
    from tests.web.test_views import url

    sitting = Sitting.start("fapfap", NAMES[:3], stake_amount=1000, stake_label="CFA")
    sitting.record_hand(1, 0, {"multiplier": "4"})  # Ana +8,000; Ben and Chloé -4,000 each
    page = client.get(url(sitting)).content.decode()
    tally = re.search(r'<table class="tally">.*?</table>', page, re.S)[0]
    assert "\u22124,000" in tally and "+8,000" in tally and "-4" not in tally
    chart = re.search(r'<figure class="chart">.*?</figure>', page, re.S)[0]
    assert "\u2212" in chart and not re.search(r">-\d", chart)  # the axis and the numbers beside the drawing
    settle = re.search(r'<div class="settle">.*?</div>', page, re.S)[0]
    assert "\u22124,000" in settle
    home = client.get("/").content.decode()
    client.get(url(sitting))
    chips = Sitting.start("cat-te", NAMES[:3], rules.MatchEnd(rules.MatchEndKind.HANDS, 1), starting_chips=1)
    chips.record_hand(1, 0, {"how": "flush"})  # Ben and Chloé: 1 - 2 = -1 chip in front of them
    client.get(url(chips))
    finished = words(client.get(url(chips)))
    assert "Ben" in finished and "\u22121" in finished and not re.search(r"(?<![\w\u2212])-1\b", finished)
    shared = re.search(r"<textarea[^>]*>(.*?)</textarea>", client.get(url(chips)).content.decode(), re.S)[1]
    assert "\u22121 chip" in unescape(shared)
    home = words(client.get("/"))
    assert "\u22121" in home and " -1" not in home
    csv = b"".join(client.get(url(chips, "hands.csv")).streaming_content).decode("utf-8-sig")
    assert "\u2212" not in csv and ",-2," in csv


# --- undo asks first ------------------------------------------------------------------------------------


def test_undo_asks_first_and_says_what_it_takes_back(client):
    from tests.web.test_views import url

    sitting = Sitting.start("fapfap", NAMES[:3])
    sitting.record_hand(1, 1, {"multiplier": "2"})
    page = client.get(url(sitting)).content.decode()
    undo = re.search(r'<details class="undo">(.*?)</details>', page, re.S)[1]
    assert re.search(r"<summary[^>]*>Undo hand 1</summary>", undo)  # a tap opens the question...
    assert "<button" not in undo.split("</summary>")[0]  # ...it is no button that undoes by itself
    said = words_of(undo)
    assert "Hand 1: Ben won it (with a 3, last trick only: 2 stakes from each other player). Undo it?" in said
    assert "Yes, undo hand 1" in said and 'action="' + url(sitting, "undo/") + '"' in undo


# --- Cat Tê: handing out chips says what it does, asks first, and shows in the hands ------------------


def test_handing_out_chips_asks_first_and_shows_as_a_row_of_the_hands(client):
    from tests.web.test_views import HX, url

    sitting = Sitting.start("cat-te", NAMES[:3], rules.MatchEnd(rules.MatchEndKind.HANDS, 9), starting_chips=2)
    sitting.record_hand(1, 0, {"how": "flush"})  # Ben and Chloé have none left
    page = client.get(url(sitting)).content.decode()
    reissue = words_of(re.search(r'<details class="reissue">(.*?)</details>', page, re.S)[1])
    assert "Someone ran out: give everyone 2 chips" in reissue
    assert "Out of chips: Ben and Chloé." in reissue  # second newcomer round: who "someone" is
    assert "Every player gets 2 more chips, as at the start, not only whoever ran out." in reissue
    assert "Yes, give everyone 2 chips" in reissue
    answer = client.post(url(sitting, "chips/"), {"seen": 0}, **HX)
    assert "Everyone received 2 more chips." in words(answer)
    hands = re.search(r'<table class="hands">.*?</table>', answer.content.decode(), re.S)[0]
    assert '<tr class="batch">' in hands and "Everyone received 2 more chips." in hands
    sitting.record_hand(2, 1, {"how": "last"})
    rows = re.findall(r"<tr[^>]*>.*?</tr>", client.get(url(sitting, "hands/")).content.decode(), re.S)
    order = [("batch" if "batch" in row else words_of(row).split()[0]) for row in rows[1:]]
    assert order == ["2", "batch", "1"]  # newest first: the chips between the hands they came between


# --- the table says how many cards each player gets --------------------------------------------------


@pytest.mark.parametrize(
    "slug, seats, said",
    [
        ("letzter-stich", 3, "8 cards each, from a Skat pack without the four eights."),
        ("letzter-stich", 4, "7 cards each."),
        ("letzter-stich", 5, "6 cards each."),
        ("letzter-stich", 6, "5 cards each."),
        ("agram", 4, "6 cards each."),
        ("sink-sink", 7, "5 cards each."),
    ],
)
def test_the_table_says_the_cards_dealt_to_each_player(client, slug, seats, said):
    from tests.web.test_views import url

    sitting = Sitting.start(slug, (NAMES + ["Eve", "Fay", "Gus"])[:seats])
    deal = words_of(re.search(r'<p class="deal">(.*?)</p>', client.get(url(sitting)).content.decode(), re.S)[1])
    assert deal.endswith(said)
    watching = client.get(f"/w/{sitting.watch_token}/").content.decode()
    assert said in words_of(watching)
