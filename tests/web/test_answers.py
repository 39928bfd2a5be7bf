"""What a tap asks after the winner, and how the answer is said: each answer's short form is its
button's own words in every language, "another card" comes last and a one-point answer is true of
every hand it records; an answer that does not belong is refused; the notice echoes the answer, in
the stake's currency, naming other players before the winner's facts."""

import re

import pytest
from django.utils import translation

from matches.domain.rules import GAMES
from matches.models import Sitting

from tests.conftest import WORKED, shown, snapshot
from tests.pages import HX, NAMES, stamped, start, tapped, url, words

pytestmark = pytest.mark.django_db


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


@pytest.mark.engine
def test_the_fapfap_answer_buttons_put_the_common_case_first_and_none_looks_chosen(client):
    sitting = start(client, "fapfap", {"end_kind": "open"}, ["A", "B"])
    page = client.get(url(sitting)).content.decode()
    first = page.index("With a 4 or higher: 1 stake")
    assert (
        first < page.index("With a 3, last trick only: 2 stakes") < page.index("With 3s, the last two tricks: 4 stakes")
    )
    assert 'class="answer primary"' not in page  # a newcomer might take a highlighted answer as chosen


@pytest.mark.engine
@pytest.mark.parametrize(
    "slug, answers, message",
    [
        ("agram", {"multiplier": "2"}, "Agram records only the winner of a hand."),
        ("fapfap", {"multiplier": "3"}, "Answer with one of these: with a 4 or higher, with a 3, last trick only or with 3s"),
        ("fapfap", {}, "How was the last trick won? Tap one of the answers."),
        ("eighty-three", {"bonus": "7"}, "Held four of a kind or six of one suit. There is no seat 7 at this table."),
        ("cat-te", {"how": "last", "aces": "2"}, "Asked only after the answer “sweep of the first four tricks”."),
        ("cat-te", {"how": "bogus"}, "Answer with one of these: last trick, dealt a flush or sweep of the first four tricks."),
    ],
)
def test_answers_that_do_not_belong_are_refused_and_change_nothing(client, slug, answers, message):
    settings = {
        "agram": {"end_kind": "open"},
        "fapfap": {"end_kind": "open"},
        "eighty-three": {"end_kind": "thresholds"},
        "cat-te": {"end_kind": "hands", "end_target": "5"},
    }[slug]
    sitting = start(client, slug, settings, ["A", "B", "C"])
    before = snapshot(sitting)
    response = client.post(url(sitting, "tap/"), {"number": 1, "winner": 1, **answers}, **HX)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert snapshot(sitting) == before


def test_the_notice_echoes_the_answer_tapped(client):
    sitting = Sitting.start("fapfap", NAMES[:3])
    assert "Hand 1 recorded: Ben (with a 3, last trick only: 2 stakes from each other player)." in shown(
        tapped(client, sitting, 1, 2, multiplier="2")
    )
    corrected = client.post(url(sitting, "hands/1/"), stamped(sitting, 1, winner=2, multiplier="4"), **HX)
    assert "Hand 1 corrected: Ben (with 3s, the last two tricks: 4 stakes from each other player)." in shown(
        corrected.content.decode()
    )


def test_a_multiplier_says_what_it_is_worth_in_the_stakes_currency(client):
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


@pytest.mark.parametrize(
    "bonus, words",
    [
        (["2"], "Hand 1 recorded: Chloé (Ben held four of a kind or six of one suit)."),
        (["1", "2"], "Hand 1 recorded: Chloé (Ana and Ben: each held four of a kind or six of one suit)."),
    ],
)
def test_a_fact_about_other_players_names_them_first_so_it_never_reads_as_the_winners(client, bonus, words):
    sitting = Sitting.start("eighty-three", NAMES[:3])
    assert words in shown(tapped(client, sitting, 1, 3, bonus=bonus))


@pytest.mark.parametrize("language, short", [("en", "with a 4 or higher"), ("fr", "avec un 4 ou plus")])
def test_each_answers_form_carries_the_answer_as_running_text_says_it(client, language, short):
    """A tap kept on the phone (static/offline.js) names its answer from its form: the short form, as a
    hand row does, never the button's words with their capital and worth."""
    sitting = Sitting.start("fapfap", ["Ana", "Ben", "Cal"])
    page = client.get(url(sitting), HTTP_ACCEPT_LANGUAGE=language).content.decode()
    assert f'data-how="{short}"' in page
    assert 'data-how="With' not in page and 'data-how="Avec' not in page
