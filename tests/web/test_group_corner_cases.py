"""What a newcomer playing through groups (English at 360x640, French at 412x915) stumbled on, each
fixed as the kind it belongs to: the seating hint says what the screen offers; a night settles as the
match page says; one line per night; one percent format and a "no figure" mark that is no minus; the
group's name in the top bar; each figure says exactly which matches count; a new group's link in
sight; the newcomer's label only for someone not yet in the group. The screens themselves in
test_group_stumbles_browser."""

import datetime
import re
from html import unescape

import pytest
from hypothesis import given
from hypothesis import strategies as st

from matches.domain import stats
from matches.models import Group, Sitting
from matches.domain.rules import MatchEnd, MatchEndKind
from matches.domain.settlement import settling

from tests.conftest import shown
from tests.web.test_figures import friends, stats_url  # noqa: F401 - the hand-made group of test_figures
from tests.web.test_groups import HX, g, post_form
from tests.web.test_i18n import FR
from tests.web.test_settlement_views import settlements

pytestmark = pytest.mark.django_db
HAND = MatchEndKind.HANDS


def text_of(html: str) -> str:
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", shown(html)))).strip()


# --- 1. the seating hint -----------------------------------------------------------------------

SEATING_HINT = re.compile(r'id="player-range">.*?</p>\s*<p class="hint"[^>]*>(.*?)</p>', re.DOTALL)


def seating_hint(response) -> str:
    return text_of(SEATING_HINT.search(response.content.decode())[1])


@pytest.mark.parametrize("headers", [{}, FR], ids=["en", "fr"])
def test_the_seating_hint_says_what_the_screen_offers_nobody_some_or_everyone_seated(client, headers):
    group = Group.create("Vendredi", ["Aïcha", "Boubacar", "Chaibou"])
    ids = {p.name: p.pk for p in group.members()}
    nobody = client.get(g(group, "new/agram/"), **headers)  # the group never played: nobody seated
    assert 'name="seat"' not in nobody.content.decode()
    some = post_form(client, group, [f"m{ids['Aïcha']}"], f"seat-{ids['Chaibou']}", HX | headers)
    everyone = post_form(client, group, [f"m{ids['Aïcha']}", f"m{ids['Chaibou']}"], f"seat-{ids['Boubacar']}", headers)
    assert 'value="seat-' not in everyone.content.decode()  # nobody left to tap
    hints = [seating_hint(response) for response in (nobody, some, everyone)]
    assert len(set(hints)) == 3, hints
    tap_first = "Touchez celui qui donne en premier" if headers else "Tap whoever deals first"
    assert hints[0].startswith(tap_first)
    assert not any(tap_first in hint for hint in hints[1:])
    if not headers:
        assert hints[1] == (
            "The first in the list deals first, then the next to the right (counter-clockwise). "
            "Tap a name below to seat them next; ↑ and ↓ change the order, ✕ takes a player off."
        )
        assert hints[2] == (
            "The first in the list deals first, then the next to the right (counter-clockwise). "
            "↑ and ↓ change the order, ✕ takes a player off."
        )


def test_the_seating_hint_follows_the_games_direction(client):
    group = Group.create("Vendredi", ["Aïcha", "Boubacar", "Chaibou"])
    ids = {p.name: p.pk for p in group.members()}
    some = post_form(client, group, [], f"seat-{ids['Chaibou']}")
    assert "to the right (counter-clockwise)" in seating_hint(some)
    data = {"seat": [f"m{ids['Aïcha']}"], "action": f"seat-{ids['Chaibou']}", "end_kind": "open"}
    eighty_three = client.post(g(group, "new/eighty-three/"), data)
    assert "to the left (clockwise)" in seating_hint(eighty_three)


# --- 10. one settlement for the same nets --------------------------------------------------------

NAMES = st.lists(
    st.text("abcdefghijklmnopqrstuvwxyzÀÏé", min_size=1, max_size=6), min_size=1, max_size=7, unique_by=str.casefold
)


@st.composite
def nets_by_name(draw) -> dict[str, int]:
    names = draw(NAMES)
    values = draw(st.lists(st.integers(-6, 6), min_size=len(names) - 1, max_size=len(names) - 1))
    values.append(-sum(values))
    return dict(zip(names, values))


@given(nets_by_name(), st.randoms(use_true_random=False), st.randoms(use_true_random=False))
def test_permuting_or_rekeying_the_players_never_changes_the_payments(nets, first, second):
    """The match page keys its players by seat, the statistics page by player id, in another order:
    the payments are the same whatever the keys and their order, and each screen lists them in its
    own order of the players."""

    def settled(random):
        names = list(nets)
        random.shuffle(names)
        keys = random.sample(range(1000), len(names))  # any keys, in any order
        key_of = dict(zip(names, keys))
        result = settling({key_of[n]: n for n in names}, {key_of[n]: nets[n] for n in names})
        order = {name: place for place, name in enumerate(names)}
        assert list(result.transfers) == sorted(result.transfers, key=lambda t: (order[t.payer], order[t.payee]))
        return set(result.transfers)

    assert settled(first) == settled(second)


def test_a_cat_te_night_settles_as_its_match_page_says(client):
    """Djibo, Aïcha, Chaibou, Mariam at Cat Tê, 3 hands (Chaibou, Chaibou, Mariam, each by the last
    trick): chips Djibo -3, Aïcha -3, Chaibou +5, Mariam +1. Djibo sits first, Aïcha joined the group
    first: a tie-break by seat or by id gives two different sets of payments; by name, one."""
    group = Group.create("Samedi", ["Aïcha", "Chaibou", "Djibo", "Mariam"])
    ids = {p.name: p.pk for p in group.members()}
    seating = [ids[name] for name in ("Djibo", "Aïcha", "Chaibou", "Mariam")]
    sitting = group.start_match("cat-te", seating, MatchEnd(HAND, 3), starting_chips=20)
    for number, seat in enumerate([2, 2, 3], start=1):
        sitting.record_hand(number, seat, {"how": "last"})
    assert Sitting.objects.get(pk=sitting.pk).is_finished
    [(nets, on_match_page)] = settlements(client.get(sitting.get_absolute_url()).content.decode())
    assert nets == {"Djibo": "\u22123", "Aïcha": "\u22123", "Chaibou": "+5", "Mariam": "+1"}
    [(_, on_figures_page)] = settlements(client.get(stats_url(group)).content.decode())
    assert (
        set(on_match_page)
        == set(on_figures_page)
        == {
            "Aïcha owes Chaibou the worth of 3 chips.",
            "Djibo owes Chaibou the worth of 2 chips.",
            "Djibo owes Mariam the worth of 1 chip.",
        }
    )
    assert on_match_page == [
        "Djibo owes Chaibou the worth of 2 chips.",
        "Djibo owes Mariam the worth of 1 chip.",
        "Aïcha owes Chaibou the worth of 3 chips.",
    ]


# --- 11. one line per night ----------------------------------------------------------------------

NIGHT = re.compile(r'<section class="night">(.*?)</section>', re.DOTALL)


@pytest.mark.parametrize("headers", [{}, FR], ids=["en", "fr"])
def test_a_night_with_money_and_chips_is_one_night(client, friends, headers):  # noqa: F811
    """The 8th: two Fapfap matches in FCFA and a Cat Tê match in chips: one heading, both settlements."""
    group, _, _ = friends
    page = client.get(stats_url(group), **headers).content.decode()
    nights = [text_of(night) for night in NIGHT.findall(page)]
    assert len(nights) == 1, nights
    day = "8 mars 2025 · 3 parties" if headers else "8 Mar 2025 · 3 matches"
    assert nights[0].startswith(day)
    assert page.count(day) == 1
    assert len(re.findall(r'<div class="settle">', NIGHT.search(page)[1])) == 2


def test_each_day_is_one_night_newest_first_and_counts_its_matches_once():
    day = datetime.date(2025, 3, 8)

    def match(key, game, when, **rest):
        return stats.MatchRecord(key, game, when, (1, 2), (1, 0), (1, 0), (1, 0), (1, 0), **rest)

    matches = [
        match(1, "fapfap", day, money=(100, -100), currency="FCFA"),
        match(2, "fapfap", day, money=(-50, 50), currency="CFA"),
        match(3, "cat-te", day, chips_net=(2, -2)),
        match(4, "cat-te", day + datetime.timedelta(days=1), chips_net=(1, -1)),
    ]
    from matches.web.views.figures import nights

    found = nights(matches, {1: "Ana", 2: "Ben"})
    assert [(night.matches, [(s.unit, s.chips) for s in night.settled]) for night in found] == [
        (1, [("", True)]),
        (3, [("CFA", False), ("FCFA", False), ("", True)]),
    ]


# --- 12. one percent format; a "no figure" mark that is not a minus -------------------------------


def percents(html: str) -> list[str]:
    """Every number followed by % in the page's text and drawings, with what separates them."""
    return re.findall(r"\d+(\s?)%", unescape(re.sub(r"<[^>]+>", " ", html)))


@pytest.mark.parametrize("headers, space", [({}, ""), (FR, "\u00a0")], ids=["en", "fr"])
def test_every_percent_on_the_figures_page_is_written_one_way(client, friends, headers, space):  # noqa: F811
    group, _, _ = friends
    page = client.get(stats_url(group), **headers).content.decode()
    found = percents(page)
    assert len(found) >= 3 + 4 * 2 + 5  # the chart's axis, the table's two rates, the share bars
    assert set(found) == {space}


def test_no_figure_is_a_mark_that_cannot_be_read_as_a_minus(client, friends):  # noqa: F811
    group, _, _ = friends
    page = client.get(stats_url(group)).content.decode()
    table = re.search(r'<table class="figures">(.*?)</table>', page, re.DOTALL)[1]
    cells = re.findall(r'<td class="num"[^>]*>(.*?)</td>', table)
    assert not any("–" in cell or "-" == text_of(cell) for cell in cells)
    nothing = [cell for cell in cells if "no figure" in cell]
    assert len(nothing) == 2  # Ana's chips, Ben's money
    for cell in nothing:
        assert re.fullmatch(
            r'<span class="no-figure" title="no figure"><span aria-hidden="true">—</span>'
            r'<span class="visually-hidden">no figure</span></span>',
            cell,
        )


def test_an_abandoned_hand_shows_the_same_no_figure_mark(client):
    sitting = Sitting.start("fapfap", ["Ana", "Ben", "Cal"])
    sitting.record_hand(1, 0, {"multiplier": "2"})
    sitting.end_match(2)  # hand 2 abandoned
    history = client.get(sitting.get_absolute_url() + "hands/").content.decode()
    assert "–" not in text_of(re.search(r"<tbody>(.*?)</tbody>", history, re.DOTALL)[1])
    assert '<span class="visually-hidden">no figure</span>' in history


# --- 15. the group's name in the top bar -------------------------------------------------------

TOP_BAR = re.compile(r'<header class="bar">.*?class="brand">Last Trick</a>(.*?)<form', re.DOTALL)


@pytest.mark.parametrize("headers", [{}, FR], ids=["en", "fr"])
def test_the_group_page_top_bar_shows_the_groups_name(client, headers):
    group = Group.create("Les Amis", ["Aïcha", "Boubacar"])
    bar = TOP_BAR.search(client.get(g(group), **headers).content.decode())[1]
    assert "<bdi>Les Amis</bdi>" in bar and text_of(bar) == "Les Amis"
    watching = TOP_BAR.search(client.get(f"/gw/{group.watch_token}/", **headers).content.decode())[1]
    assert "<bdi>Les Amis</bdi>" in watching
    assert text_of(watching) == ("Les Amis · spectateur" if headers else "Les Amis · watching")
    unnamed = Group.objects.create()  # a group made before names were asked for
    bar = TOP_BAR.search(client.get(g(unnamed), **headers).content.decode())[1]
    assert text_of(bar) == ("Votre groupe" if headers else "Your group")


# --- 17. how each figure is counted ------------------------------------------------------------


def test_each_figure_says_exactly_which_matches_it_counts(client, friends):  # noqa: F811
    group, _, _ = friends
    page = client.get(stats_url(group)).content.decode()
    explained = {
        text_of(dt): text_of(dd)
        for dt, dd in re.findall(
            r"<dt>(.*?)</dt><dd>(.*?)</dd>", re.search(r'<details class="explain">(.*?)</details>', page, re.DOTALL)[1]
        )
    }
    assert explained["Matches"] == (
        "Finished matches this player sat in where at least one hand was won; a match ended early counts, "
        "with the standings it had when it ended. Matches still being played do not count."
    )
    for heading, text in explained.items():
        assert "finished" in text.casefold() or heading in ("Win rate", "Share of hands"), (heading, text)


def test_the_explanations_cover_the_matches_the_figures_count():
    """A match ended early counts (with its standings); one still being played is not read at all."""
    record = stats.MatchRecord(
        1, "agram", datetime.date(2025, 3, 8), (1, 2), (2, 1), (2, 1), (2, 1), (2, 1), ended_early=True
    )
    assert stats.player_stats([record])[1].matches_won == 1
    assert "ended early counts" in stats.EXPLANATIONS["matches_played"]
    assert "ended early" in stats.EXPLANATIONS["matches_won"]


# --- 18. a new group's link in sight ------------------------------------------------------------

SHARE = re.compile(r'<details class="share" id="share"( open)?>')


def test_a_group_just_made_opens_its_links_once(client):
    made = client.post("/groups/new/", {"name": "Jeudi", "players": "Ana\nBen"}, follow=True)
    page = made.content.decode()
    assert "Group made. Share its link (below) with the others." in page
    assert SHARE.search(page)[1] == " open"
    assert SHARE.search(client.get(made.redirect_chain[-1][0]).content.decode())[1] is None  # later: closed


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


# --- 19. the newcomer's label --------------------------------------------------------------------

SEATED = re.compile(r'<ol class="seated">(.*?)</ol>', re.DOTALL)


def seated_labels(response) -> list[str]:
    return [
        text_of(item)
        for item in re.findall(
            r'<span class="name">(.*?)</span>\s*<span class="moves">',
            SEATED.search(response.content.decode())[1],
            re.DOTALL,
        )
    ]


@pytest.fixture
def samedi() -> Group:
    group = Group.create("Samedi", ["Aïcha", "Chaibou", "Mariam"])
    group.remove_player(group.members().get(name="Mariam").pk)  # she stopped coming; her matches stay
    return group


def test_a_former_player_typed_again_is_back_not_new(client, samedi):
    ids = {p.name: p.pk for p in samedi.members()}
    response = post_form(client, samedi, [f"m{ids['Aïcha']}"], "newcomer", newcomer="mariam")
    response = post_form(
        client,
        samedi,
        re.findall(r'name="seat" value="([^"]+)"', response.content.decode()),
        "newcomer",
        newcomer="Ousmane",
    )
    assert seated_labels(response) == ["Aïcha", "Mariam back in the group", "Ousmane joins the group"]


def test_someone_another_phone_added_meanwhile_is_seated_as_the_member(client, samedi):
    ids = {p.name: p.pk for p in samedi.members()}
    samedi.add_player("Ousmane")  # another phone, while this form had him as a newcomer
    ousmane = samedi.members().get(name="Ousmane").pk
    response = post_form(client, samedi, [f"m{ids['Aïcha']}", "n:Ousmane"], f"seat-{ids['Chaibou']}")
    assert re.findall(r'name="seat" value="([^"]+)"', response.content.decode()) == [
        f"m{ids['Aïcha']}",
        f"m{ousmane}",
        f"m{ids['Chaibou']}",
    ]
    assert seated_labels(response) == ["Aïcha", "Ousmane", "Chaibou"]
    # Seated twice (as the member and as the newcomer of the same name): once.
    twice = post_form(client, samedi, [f"m{ousmane}", "n:ousmane"], f"seat-{ids['Chaibou']}")
    assert seated_labels(twice) == ["Ousmane", "Chaibou"]


def test_the_label_is_no_masculine_word_in_french(client, samedi):
    ids = {p.name: p.pk for p in samedi.members()}
    response = post_form(client, samedi, [f"m{ids['Aïcha']}", "n:Zeinab"], f"seat-{ids['Chaibou']}", FR)
    assert "nouveau dans le groupe" not in response.content.decode()
