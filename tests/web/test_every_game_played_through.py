"""What a newcomer who played every game (English at 360x640, French at 412x915) stumbled on, each fixed
as the kind it belongs to: the README names what the screen shows, a rematch never leaves a second
open match behind unasked and carries the deal on, one action has one label, a hand row says every
player's points, an answer's short form is its button's words, the shared text isolates only the names
that need it, and a hand's details say "this phone" without a code. (The screen itself, names that
wrap only between words and the chart's names, is in test_every_game_round_browser.py; the chart's
geometry in test_chart.py; `make run` on a busy port in test_run_safely.py.)"""

import re
from html import unescape
from pathlib import Path

import pytest
from django.test import Client
from django.utils import translation

from matches.models import Sitting
from matches.domain.names import FSI, PDI
from matches.domain.rules import GAMES, MatchEnd, MatchEndKind

from tests.conftest import WORKED, play, shown
from tests.web.test_views import url

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()
TRANSLATED = re.compile(r"""{% (?:translate|trans) "([^"]+)"|{% (?:translate|trans) '([^']+)'""")
BOLD = re.compile(r"\*\*(.+?)\*\*")
TEXT = re.compile(r'<textarea id="result-text"[^>]*>(.*?)</textarea>', re.DOTALL)
HANDS = re.compile(r'<table class="hands">(.*?)</table>', re.DOTALL)


def words(html: str) -> str:
    """What a page says, as read: no tags, no isolating marks, spaces folded."""
    html = re.sub(r"<(script|style|svg)\b.*?</\1>", " ", html, flags=re.DOTALL)
    return re.sub(r"\s+", " ", shown(unescape(re.sub(r"<[^>]+>", " ", html)))).strip()


def hand_row(page: str, number: int) -> str:
    """The words of hand `number`'s row in the page's hands list."""
    for row in re.findall(r"<tr>(.*?)</tr>", HANDS.search(page)[1], re.DOTALL):
        if re.match(rf'\s*<td class="num">{number}</td>', row):
            return words(row)
    raise AssertionError(f"no row for hand {number}")


# --- R1, R3: the README --------------------------------------------------------------------------------------


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


# --- 2, 3: rematch ------------------------------------------------------------------------------------------


def rematch_controls(page: str, sitting: Sitting) -> list[str]:
    """The labels of the forms and links on a page that start a rematch of `sitting`."""
    address = re.escape(url(sitting, "rematch/"))
    forms = re.findall(rf'<form method="post" action="{address}">(.*?)</form>', page, re.DOTALL)
    links = re.findall(rf'<a [^>]*href="{address}"[^>]*>(.*?)</a>', page, re.DOTALL)
    return [words(control) for control in forms + links if 'name="open"' not in control]


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


# --- 16: a rematch carries the deal on ---------------------------------------------------------------------


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


# --- 3 (kind), 7, 8, 9: the answers a tap offers ----------------------------------------------------------


def same_words(short: str, words: str) -> bool:
    """Whether `short` is `words`, its first letter in either case ("a six" for "A six"; German nouns
    keep their capital: "Flush auf der Hand")."""
    return short[:1].casefold() == words[:1].casefold() and short[1:] == words[1:]


def before_colon(label: str) -> str:
    """A button's words without what it is worth ("A six: 3 points" -> "A six"), in any language (a
    French colon comes after a no-break space)."""
    return re.split(r"\s?:", label)[0].strip()


@pytest.mark.parametrize("language", ["en", "fr", "de", "vi"])
def test_every_answers_short_form_is_its_buttons_own_words(language):
    """The hand rows and notices name an answer with the words of the button that recorded it, and a
    question asked after an answer begins with that answer's word, in every language."""
    with translation.override(language):
        for game in GAMES.values():
            for question in game.questions:
                prompt = translation.gettext(question.prompt)
                if question.kind == "choice":
                    for choice in question.choices:
                        label, short = translation.gettext(choice.label), translation.gettext(choice.short)
                        assert same_words(short, before_colon(label)), (game.slug, label, short)
                elif prompt.rstrip().endswith("?"):  # it asks: its short names the answer in its words
                    short = translation.gettext(question.short)
                    assert short and short.casefold() in prompt.casefold(), (game.slug, prompt, short)
                else:  # a checkbox: its short is its own words
                    assert same_words(translation.gettext(question.short), prompt), (game.slug, prompt)
                if question.when is not None:  # asked after an answer: said with that answer's word
                    key, value = question.when
                    trigger = next(q for q in game.questions if q.key == key)
                    label = translation.gettext(next(c.label for c in trigger.choices if c.value == value))
                    assert label.casefold().startswith(before_colon(prompt).casefold()), (game.slug, label, prompt)


def test_an_answer_for_any_other_card_comes_after_the_cards_it_is_other_than():
    for game in GAMES.values():
        for question in game.questions:
            others = [
                index
                for index, choice in enumerate(question.choices)
                if choice.value in {"other", "none"} or re.search(r"\b(other|not)\b", choice.label, re.IGNORECASE)
            ]
            assert others in ([], [len(question.choices) - 1]), (game.slug, [c.label for c in question.choices])


def test_sipas_one_point_answer_is_true_of_every_hand_it_records():
    """A winner who took the 4th trick with a seven but the last trick with another card scores 1: the
    answer must not say "no seven". Source: RULES.md, Sipa ("1: any other card")."""
    sevens = next(q for q in GAMES["sipa"].questions if q.key == "sevens")
    one_point = [
        choice for choice in sevens.choices if GAMES["sipa"].score_hand(2, 0, {"sevens": choice.value})[0] == 1
    ]
    assert [choice.label for choice in one_point] == ["Last trick not won with a seven: 1 point"]
    assert not any("no seven" in choice.label.casefold() for choice in sevens.choices)


def test_spars_answers_on_the_screen_end_with_any_other_card(client):
    sitting = Sitting.start("spar", WORKED)
    page = client.get(url(sitting)).content.decode()
    panel = page[page.index('<div class="answers">') : page.index("</div>", page.index('<div class="answers">'))]
    buttons = [words(button) for button in re.findall(r"<button[^>]*>(.*?)</button>", panel, re.DOTALL)]
    assert buttons == ["A six: 3 points", "A seven: 2 points", "Another card: 1 point"]


# --- 6: every player's points in a hand row -----------------------------------------------------------------


def test_an_eighty_three_row_says_every_players_points_when_others_scored(client):
    sitting = Sitting.start("eighty-three", ["Ali", "Bintou", "Chloé"])
    sitting.record_hand(1, 0, {"ace": True, "last": True, "bonus": [2]})  # Ali 2, Bintou +1
    sitting.record_hand(2, 1, {"ace": True, "last": True})  # Bintou 2, nobody else
    for page in (client.get(url(sitting)).content.decode(), client.get(url(sitting, "hands/")).content.decode()):
        row = hand_row(page, 1)
        assert "Bintou held four of a kind or six of one suit" in row
        assert "This hand: Ali +2, Bintou +1" in row, row
        assert "This hand" not in hand_row(page, 2)  # only the winner scored: the points column says it all


def test_a_cat_te_row_says_what_each_player_paid(client):
    sitting = Sitting.start("cat-te", ["Ali", "Bintou", "Chloé"])
    sitting.record_hand(1, 0, {"how": "sweep", "aces": [2]})  # Ali +5; Bintou -3 (2 and an Ace), Chloé -2
    page = client.get(url(sitting)).content.decode()
    assert "This hand: Ali +5, Bintou \u22123, Chloé \u22122" in hand_row(page, 1)


# --- 5: the shared result -----------------------------------------------------------------------------------


@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_shared_result_isolates_only_the_right_to_left_names(client, language):
    """FSI and PDI may show as boxes in other apps: only a name with right-to-left letters needs them."""
    arabic, hebrew = "عائشة", "שרה"
    sitting = Sitting.start("fapfap", ["Ali", arabic, "Bintou", hebrew], stake_amount=100, stake_label="FCFA")
    sitting.record_hand(1, 1, {"multiplier": "2"})
    sitting.record_hand(2, 0, {"multiplier": "1"})
    sitting.end_match(3)
    page = client.get(url(sitting), HTTP_ACCEPT_LANGUAGE=language).content.decode()
    text = unescape(TEXT.search(page)[1])
    for name in ("Ali", "Bintou"):
        assert name in text and f"{FSI}{name}" not in text
    for name in (arabic, hebrew):
        assert text.count(name) == text.count(f"{FSI}{name}{PDI}") >= 2  # standings and payments
    assert FSI not in text.replace(f"{FSI}{arabic}{PDI}", "").replace(f"{FSI}{hebrew}{PDI}", "")
    assert PDI not in text.replace(f"{FSI}{arabic}{PDI}", "").replace(f"{FSI}{hebrew}{PDI}", "")
    assert "<bdi>Ali</bdi>" in page  # on the screen every name keeps its <bdi>


# --- 14: who recorded a hand ----------------------------------------------------------------------------------


def test_a_hands_details_say_this_phone_or_another_phone_without_a_code(client, sitting):
    other = Client()
    client.post(url(sitting, "tap/"), {"number": 1, "winner": 1})
    other.post(url(sitting, "tap/"), {"number": 2, "winner": 2})
    other.post(url(sitting, "me/"), {"seat": "4"})  # "I am Djibo"
    other.post(url(sitting, "tap/"), {"number": 3, "winner": 3})
    said = words(client.get(url(sitting, "hands/")).content.decode())
    assert "by this phone" in said
    assert "by another phone" in said and "by Djibo" in said
    assert not re.search(r"phone \(", said), said
    for hand in sitting.hands.all():
        assert hand.recorded_by_phone not in said
