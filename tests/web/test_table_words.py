"""The match screens' words: one word per meaning, one column per number and one minus sign, the deal
and the deciding trick said, results said naturally in both languages (a match ended early saying so
for good), and the screen-awake button only inside an open match's table region."""

import re
from html import unescape

import pytest
from django.utils import translation

from matches.domain import rules
from matches.domain.rules import GAMES, MatchEnd, MatchEndKind
from matches.models import Sitting
from matches.web.presenters.table_state import amount

from tests.conftest import WORKED, play, shown
from tests.pages import FR, HX, NAMES, start, tally, tap, url, words

pytestmark = pytest.mark.django_db

RESULT = re.compile(r'<p class="result">(.*?)</p>', re.S)
HANDS = re.compile(r'<table class="hands">.*?</table>', re.S)


# --- one word per meaning ------------------------------------------------------------------------------

# language, the verb for who plays first to the first trick, words that place it in a sentence about the deal
LEAD_WORDS = [("en", r"\blead", r"deal|trick"), ("fr", r"entam", r"donn|levée")]


@pytest.mark.parametrize("language, lead, deal", LEAD_WORDS, ids=[w[0] for w in LEAD_WORDS])
def test_leads_names_only_who_plays_first_never_the_first_place(client, sitting, language, lead, deal):
    """The table says "Chaibou deals, Djibo leads."; the score's first place gets a word of its own on
    the table and the watch view while the match runs; once it is over, the standings' sentence names
    the winner and the score has no badge beside it. Source: RULES.md, A worked sitting."""
    headers = {"HTTP_ACCEPT_LANGUAGE": language}
    play(sitting, [2])
    pages = [url(sitting), f"/w/{sitting.watch_token}/", url(sitting, "hands/")]
    texts = [client.get(path, **headers).content.decode() for path in pages]
    sitting.end_match()
    texts.append(client.get(url(sitting), **headers).content.decode())
    badges = [unescape(b) for page in texts for b in re.findall(r'<span class="first">(.*?)</span>', page)]
    assert len(badges) == 2  # Chaibou first on the table and the watch view
    assert '<span class="first">' not in texts[-1] and '<p class="result">' in texts[-1]
    assert not any(re.search(lead, badge, re.I) for badge in badges), badges
    for page in texts:
        for sentence in re.split(r"(?<=[.!?])\s", words(page)):
            if re.search(lead, sentence, re.I):
                assert re.search(deal, sentence, re.I), sentence


@pytest.mark.parametrize("slug", ["agram", "sink-sink", "agram-mali"])
@pytest.mark.parametrize("language, heading", [("en", "Hands won"), ("fr", "Mains gagnées")])
def test_one_point_games_show_their_wins_in_one_column(client, slug, language, heading):
    """One win a hand: the score is the hands won, so the table has one column for it.
    Source: RULES.md, the Agram family ("the tally of wins is the score")."""
    sitting = start(client, slug, {}, ["A", "B"])
    for number, winner in enumerate([1, 1, 2], start=1):
        tap(client, sitting, number, winner, {})
    page = client.get(url(sitting), HTTP_ACCEPT_LANGUAGE=language).content.decode()
    headings, rows = tally(page)
    assert headings == [heading]
    assert rows == {"A": [2], "B": [1]}
    history = client.get(url(sitting, "hands/"), HTTP_ACCEPT_LANGUAGE=language).content.decode()
    for hands in (HANDS.search(page)[0], HANDS.search(history)[0]):  # no column always reading +1
        assert "+1" not in hands and hands.count('<th scope="col" class="num">') == 1


# slug, start settings, taps (winner seat 1-based, answers) after which columns that can differ do
EVERY_TABLE = [
    ("agram", {}, [(1, {}), (2, {}), (1, {})]),
    ("sink-sink", {}, [(1, {}), (2, {})]),
    ("agram-mali", {}, [(1, {}), (2, {})]),
    ("fapfap", {}, [(1, {"multiplier": "4"}), (2, {"multiplier": "2"})]),
    ("fapfap", {"stake_amount": "100", "stake_label": "FCFA"}, [(1, {"multiplier": "4"}), (2, {"multiplier": "2"})]),
    ("fapfap", {"stake_amount": "1", "stake_label": "€"}, [(1, {"multiplier": "4"}), (2, {"multiplier": "2"})]),
    ("fapfap", {"stake_amount": "1"}, [(1, {"multiplier": "4"}), (2, {"multiplier": "1"})]),
    ("spar", {}, [(1, {"card": "six"}), (2, {"card": "seven"})]),
    ("sipa", {"end_kind": "points", "end_target": "10"}, [(1, {"sevens": "two"}), (2, {"sevens": "last"})]),
    ("cat-te", {"end_kind": "hands", "end_target": "5"}, [(1, {"how": "last"}), (2, {"how": "flush"})]),
    ("eighty-three", {"end_kind": "thresholds"}, [(1, {}), (2, {"ace": "1"})]),
    ("letzter-stich", {"end_kind": "hands", "end_target": "5"}, [(1, {}), (2, {})]),
]


@pytest.mark.parametrize("slug, settings, taps", EVERY_TABLE, ids=[f"{g[0]}-{i}" for i, g in enumerate(EVERY_TABLE)])
def test_no_two_score_columns_always_show_the_same_numbers(client, slug, settings, taps):
    """Columns that can differ are shown apart once the hands made them differ; columns that cannot
    (wins and hands won) are one column. Money is a net (stake x (n x own - everyone's)), never the
    stakes, so a stake of 1 has its money column too."""
    sitting = start(client, slug, settings, ["A", "B", "C"])
    for number, (winner, answers) in enumerate(taps, start=1):
        tap(client, sitting, number, winner, answers)
    headings, rows = tally(client.get(url(sitting)).content.decode())
    columns = list(zip(*rows.values()))
    assert len(columns) == len(headings) >= 1
    for left in range(len(columns)):
        for right in range(left + 1, len(columns)):
            assert columns[left] != columns[right], (headings[left], headings[right], rows)


def test_a_stake_of_one_has_its_money_column_named_by_its_currency(client):
    """The money column is each player's net: every other player pays the winner stake x multiplier,
    so with n seats a player nets stake x (n x own stakes - everyone's). Even at a stake of 1 that
    differs from the stakes won: B's x4 is +4 for B and -4 for A. Source: RULES.md, Fapfap stakes."""
    sitting = start(client, "fapfap", {"stake_amount": "1", "stake_label": "FCFA"}, ["A", "B"])
    tap(client, sitting, 1, 2, {"multiplier": "4"})
    assert tally(client.get(url(sitting)).content.decode()) == (
        ["Stakes won", "FCFA", "Hands won"],
        {"A": [0, -4, 0], "B": [4, 4, 1]},
    )
    french = tally(client.get(url(sitting), **FR).content.decode())
    assert french[0] == ["Mises gagnées", "FCFA", "Mains gagnées"]


def test_negatives_take_one_minus_sign_on_every_screen_and_the_file_a_hyphen(client):
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


# --- the deal -------------------------------------------------------------------------------------


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
    sitting = Sitting.start(slug, (NAMES + ["Eve", "Fay", "Gus"])[:seats])
    deal = words(re.search(r'<p class="deal">(.*?)</p>', client.get(url(sitting)).content.decode(), re.S)[1])
    assert deal.endswith(said)
    watching = client.get(f"/w/{sitting.watch_token}/").content.decode()
    assert said in words(watching)


def test_the_tap_panel_says_which_trick_decides_the_hand(client):
    page = client.get(url(Sitting.start("eighty-three", NAMES))).content.decode()
    assert "Whoever wins the 5th trick (not the last) wins the hand." in page


# --- the screen-awake button -----------------------------------------------------------------------------


def wake_buttons(html: str) -> int:
    return len(re.findall(r"<button[^>]*\sdata-wake[\s>]", html))


def test_the_screen_awake_button_lives_in_the_open_tables_region_and_goes_with_the_match(client):
    sitting = Sitting.start("agram", ["Aïcha", "Boubacar"], MatchEnd(MatchEndKind.WINS, 1))
    region = client.get(url(sitting), **HX).content.decode()
    assert wake_buttons(region) == 1
    page = client.get(url(sitting)).content.decode()
    section = page[page.index('<section id="table"') : page.index("</section>")]
    assert wake_buttons(page) == wake_buttons(section) == 1
    assert 'data-wake-on="Screen stays on: tap to let it sleep"' in page  # its words, once a page
    assert "Screen stays on" not in region
    assert wake_buttons(client.get(f"/w/{sitting.watch_token}/", **HX).content.decode()) == 0
    deciding = tap(client, sitting, 1, 1, {}).content.decode()
    assert "Match over" in deciding and wake_buttons(deciding) == 0
    assert wake_buttons(client.get(url(sitting)).content.decode()) == 0


def test_the_table_names_the_keep_awake_video_that_no_other_page_loads(client):
    """NoSleep.js, for a phone with no Wake Lock API (a plain-HTTP address): app.js loads it from there."""
    page = client.get(url(Sitting.start("agram", ["Aïcha", "Boubacar"]))).content.decode()
    (script,) = re.findall(r'data-wake-video="([^"]+)"', page)
    served = client.get(script)
    assert served.status_code == 200
    assert b"".join(served.streaming_content).startswith(b"/*! NoSleep.min.js v0.12.0 - git.io/vfn01 - Rich Tibbett - MIT license */")
    assert "NoSleep" not in client.get("/").content.decode()


# --- results said naturally ------------------------------------------------------------------------------

# slug, start settings, taps, English result, French result
RESULTS = [
    (
        "agram",
        {},
        [(3, {}), (3, {})],
        "<strong>C</strong> wins the match with 2 hands won.",
        "<strong>C</strong> a gagné la partie avec 2 mains gagnées.",
    ),
    (
        "sink-sink",
        {},
        [(2, {})],
        "<strong>B</strong> wins the match with 1 hand won.",
        "<strong>B</strong> a gagné la partie avec 1 main gagnée.",
    ),
    (
        "agram-mali",
        {},
        [(1, {}), (3, {})],
        "Shared first place: <strong>A</strong> and <strong>C</strong>, with 1 hand won each.",
        "Première place partagée\u00a0: <strong>A</strong> et <strong>C</strong>, avec 1 main gagnée chacun.",
    ),
    (
        "eighty-three",
        {"end_kind": "thresholds"},
        [(1, {}), (1, {}), (1, {"ace": "1"})],
        "<strong>A</strong> wins the match with 11 points.",
        "<strong>A</strong> a gagné la partie avec 11 points.",
    ),
    (
        "spar",
        {},
        [(2, {"card": "other"})],
        "<strong>B</strong> wins the match with 1 point.",
        "<strong>B</strong> a gagné la partie avec 1 point.",
    ),
    (
        "fapfap",
        {"stake_amount": "100", "stake_label": "FCFA"},
        [(2, {"multiplier": "4"}), (1, {"multiplier": "2"}), (2, {"multiplier": "1"})],
        "<strong>B</strong> wins the match with +800\u00a0FCFA (5 stakes won).",  # at a stake: the money first
        "<strong>B</strong> a gagné la partie avec +800\u00a0FCFA (5 mises gagnées).",
    ),
    (
        "fapfap",
        {},
        [(1, {"multiplier": "1"}), (2, {"multiplier": "1"})],
        "Shared first place: <strong>A</strong> and <strong>B</strong>, with 1 stake each.",
        "Première place partagée\u00a0: <strong>A</strong> et <strong>B</strong>, avec 1 mise chacun.",
    ),
    (
        "cat-te",
        {"end_kind": "hands", "end_target": "9", "starting_chips": "20"},
        [(1, {"how": "last"}), (2, {"how": "sweep", "aces": ["3"]}), (1, {"how": "flush"})],
        "<strong>A</strong> wins the match with 24 chips (+4).",  # and what they come to against the 20 given
        "<strong>A</strong> a gagné la partie avec 24 jetons (+4).",
    ),
    (
        "letzter-stich",
        {"end_kind": "hands", "end_target": "9"},
        [(1, {}), (2, {})],
        "Shared first place: <strong>A</strong> and <strong>B</strong>, with 50 points each.",
        "Première place partagée\u00a0: <strong>A</strong> et <strong>B</strong>, avec 50 points chacun.",
    ),
]


@pytest.mark.parametrize(
    "slug, settings, taps, english, french", RESULTS, ids=[f"{r[0]}-{i}" for i, r in enumerate(RESULTS)]
)
def test_the_result_says_the_score_with_its_unit_in_a_plain_sentence(client, slug, settings, taps, english, french):
    sitting = start(client, slug, settings, ["A", "B", "C"])
    for number, (winner, answers) in enumerate(taps, start=1):
        tap(client, sitting, number, winner, answers)
    sitting.refresh_from_db()
    if not sitting.is_finished:
        sitting.end_match()
    assert RESULT.search(client.get(url(sitting)).content.decode())[1] == english
    assert RESULT.search(client.get(url(sitting), **FR).content.decode())[1] == french


@pytest.mark.parametrize("slug", sorted(GAMES))
@pytest.mark.parametrize("language", ["en", "fr"])
def test_every_games_result_has_no_unit_in_brackets(client, slug, language):
    """Whatever the unit (wins, points, stakes, chips), the result reads as a sentence."""
    game = GAMES[slug]
    end = MatchEnd(MatchEndKind.HANDS, 5) if MatchEndKind.HANDS in game.match_ends else None
    sitting = Sitting.start(slug, ["A", "B", "C"], end)
    extras = {question.key: question.choices[-1].value for question in game.questions if question.kind == "choice"}
    sitting.record_hand(1, 1, extras)
    sitting.end_match()
    result = RESULT.search(client.get(url(sitting), HTTP_ACCEPT_LANGUAGE=language).content.decode())[1]
    # Cat Tê's chips say what they come to against the stacks handed out: a number, never a unit, in brackets.
    assert not re.search(r"\([^)]*[^\W\d]", result) and re.fullmatch(
        r"<strong>B</strong> (a gagné la partie avec|wins the match with) \d+ [\w ]+( \(\+\d+\))?\.",
        result,
    ), result


@pytest.mark.parametrize(
    "slug, end, starting_chips, english, french",
    [
        ("spar", MatchEnd(MatchEndKind.POINTS, 1), None, "First to 1 point.", "Le premier à 1 point l’emporte."),
        ("fapfap", MatchEnd(MatchEndKind.POINTS, 1), None, "First to 1 stake.", "Le premier à 1 mise l’emporte."),
        (
            "agram",
            MatchEnd(MatchEndKind.WINS, 1),
            None,
            "First to 1 hand won.",
            "Le premier à 1 main gagnée l’emporte.",
        ),
        (
            "agram",
            MatchEnd(MatchEndKind.HANDS, 1),
            None,
            "The match ends after 1 hand.",
            "La partie se termine après 1 main.",
        ),
        ("cat-te", MatchEnd(MatchEndKind.HANDS, 5), 1, "give everyone 1 chip<", "donner 1 jeton à chacun<"),
    ],
)
def test_a_count_of_one_takes_the_singular(client, slug, end, starting_chips, english, french):
    sitting = Sitting.start(slug, ["A", "B", "C"], end, starting_chips=starting_chips)
    if starting_chips:
        sitting.record_hand(1, 0, {"how": "last"})  # B and C pay their only chip
    assert english in client.get(url(sitting)).content.decode()
    assert french in client.get(url(sitting), **FR).content.decode()


def test_the_worked_sitting_reads_the_same_words_on_every_phone(client):
    """The member table and the watch view say the same things about the score."""
    sitting = Sitting.start("agram", WORKED)
    play(sitting, [2])
    member = tally(client.get(url(sitting)).content.decode())
    watcher = tally(client.get(f"/w/{sitting.watch_token}/").content.decode())
    assert member == watcher == (["Hands won"], {"Aïcha": [0], "Boubacar": [0], "Chaibou": [1], "Djibo": [0]})


def test_the_result_escapes_the_names_it_puts_in_bold(client):
    sitting = Sitting.start("agram-mali", ["<i>A</i>", "B & C", "D"])
    play(sitting, [0, 1])
    sitting.end_match()
    result = RESULT.search(client.get(url(sitting)).content.decode())[1]
    names = "<strong>&lt;i&gt;A&lt;/i&gt;</strong> and <strong>B &amp; C</strong>"
    assert result == f"Shared first place: {names}, with 1 hand won each."


def test_the_fapfap_result_says_the_money_when_a_stake_is_set(client):
    money = Sitting.start("fapfap", NAMES[:3], rules.MatchEnd(rules.MatchEndKind.HANDS, 2), stake_amount=100)
    money.record_hand(1, 1, {"multiplier": "2"})
    money.record_hand(2, 1, {"multiplier": "4"})  # Ben 6 stakes of 9 at three seats: 100 x (18 - 6)
    assert "Ben wins the match with +1,200 (6 stakes won)." in words(client.get(url(money)))
    plain = Sitting.start("fapfap", NAMES[:3], rules.MatchEnd(rules.MatchEndKind.HANDS, 1))
    plain.record_hand(1, 0, {"multiplier": "1"})
    assert "Ana wins the match with 1 stake." in words(client.get(url(plain)))


def test_a_match_ended_early_says_so_on_its_result_for_good(client):
    sitting = Sitting.start("agram", NAMES[:3], rules.MatchEnd(rules.MatchEndKind.WINS, 3))
    play(sitting, [0, 1, 0])
    ended = client.post(url(sitting, "end/"), {"number": 4}, **HX).content.decode()
    later = client.get(url(sitting)).content.decode()
    for page in (ended, later, client.get(f"/w/{sitting.watch_token}/").content.decode()):
        assert "Ended early: hand 4 was not played." in page and "Match over" in page
    assert not re.search(r'<p class="notice', ended)  # not a notice above the same words in the standings
    assert "Ended early: hand 4 was not played." in shown(re.search(r"<textarea[^>]*>(.*?)</textarea>", ended, re.S)[1])


@pytest.mark.parametrize(
    "language, count, said", [("fr", -2, "−2 jetons"), ("fr", -1, "−1 jeton"), ("fr", 2, "2 jetons"), ("en", -2, "−2 chips")]
)
def test_a_count_below_zero_takes_the_plural_of_its_size(language, count, said):
    """French reads 0 and 1 as singular (n > 1): −2 chips must not read as one."""
    with translation.override(language):
        assert amount("chips", count) == said
