"""Messages say each thing once, and say it right: in English and in French."""

import re

import polib
import pytest
from django.utils import translation

from matches.domain import rules
from matches.web import texts
from matches.models import Sitting
from matches.domain.rules import GAMES

from tests.pages import FR
from tests.web.test_i18n import PO

RANGE = re.compile(r"(\d+) (?:to|à) (\d+)")


def start_data(game, names, **extra):
    data = {"action": "start", "end_kind": GAMES[game].match_ends[0].value}
    data.update({f"player_{row}": name for row, name in enumerate(names, start=1)})
    data.update(extra)
    return data


@pytest.mark.parametrize("language", ["en", "fr"])
@pytest.mark.parametrize("game", GAMES.values(), ids=GAMES.keys())
def test_too_many_players_says_the_range_once(game, language):
    with pytest.raises(rules.RuleError) as refusal, translation.override(language):
        game.check_player_count(game.max_players + 1)
    with translation.override(language):
        message = texts.rule_message(refusal.value)
    assert len(RANGE.findall(message)) == 1, message
    assert not message.endswith((": ", "\u00a0: ")) and message.endswith(".")


@pytest.mark.parametrize(
    "game, language, message",
    [
        ("sipa", "en", "Sipa is for 2 to 5 players."),
        ("cat-te", "en", "Cat Tê is for 3 to 6 players."),
        ("sipa", "fr", "Sipa se joue de 2 à 5 joueurs."),
        ("agram", "en", "Agram is for 2 to 5 players: six players of six cards each need 36, the pack has 35."),
        (
            "agram",
            "fr",
            "Agram se joue de 2 à 5 joueurs\u00a0: six joueurs à six cartes chacun en demandent 36, le jeu n’en a que 35.",
        ),
    ],
)
def test_too_many_players_gives_a_reason_only_when_there_is_one(game, language, message):
    with pytest.raises(rules.RuleError) as refusal:
        GAMES[game].check_player_count(GAMES[game].max_players + 1)
    with translation.override(language):
        assert texts.rule_message(refusal.value) == message


@pytest.mark.parametrize(
    "count, message",
    [
        (0, "Cat Tê needs at least 3 players: add 3 names."),
        (1, "Cat Tê needs at least 3 players: add 2 names."),
        (2, "Cat Tê needs at least 3 players: add a name."),
    ],
)
def test_too_few_players_says_how_many_names_are_missing(count, message):
    with pytest.raises(rules.RuleError) as refusal:
        GAMES["cat-te"].check_player_count(count)
    assert texts.rule_message(refusal.value) == message


NOT_AN_AMOUNT = "Type an amount, like 100."
NOT_FIGURES = "Type the amount in figures only, like 100."
NO_CENTS = "FCFA has no smaller unit: type a whole amount, like 100."
CENTS_NEED_A_CURRENCY = "Type a whole amount, like 100; to count cents, type the currency too, like €."


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("stake", "currency", "message"),
    [
        ("0.5", "FCFA", NO_CENTS),
        ("1,5", "FCFA", NO_CENTS),
        ("2.50", "FCFA", NO_CENTS),
        ("0.5", "", CENTS_NEED_A_CURRENCY),
        ("1 00", "FCFA", NOT_AN_AMOUNT),
        ("ten", "", NOT_FIGURES),
        ("2e3", "FCFA", NOT_FIGURES),
        ("100 €", "FCFA", NOT_FIGURES),
        ("-5", "FCFA", NOT_FIGURES),
        ("0,505", "€", "€ counts to 2 decimals: type an amount like 0.50."),
        ("0,5.0", "€", "Type an amount, like 0.50."),
        ("0", "€", "Type an amount from 0.01\u00a0€ to 100,000.00\u00a0€."),
        ("10000001", "FCFA", "Type an amount from 1\u00a0FCFA to 10,000,000\u00a0FCFA."),
    ],
)
def test_a_stake_the_currency_cannot_hold_is_answered_with_what_to_type(client, stake, currency, message):
    response = client.post("/start/fapfap/", start_data("fapfap", ["A", "B"], stake_amount=stake, stake_label=currency))
    page = response.content.decode()
    assert response.status_code == 400 and Sitting.objects.count() == 0
    assert message in page
    assert "Type the stake for one hand" not in page  # the stake was typed: not "no stake"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("stake", "currency", "kept"),
    [("0,50", "€", 50), ("2.50", "EUR", 250), ("1.000,50", "euros", 100_050), ("45.000", "đ", 45_000), ("300", "FCFA", 300),
     ("0,50 €", "€", 50), ("FCFA 100", "FCFA", 100), ("100 F CFA", "FCFA", 100), ("EUR 2", "€", 200)],
)
def test_a_stake_is_kept_exactly_in_the_currencys_smallest_unit(client, stake, currency, kept):
    response = client.post("/start/fapfap/", start_data("fapfap", ["A", "B"], stake_amount=stake, stake_label=currency))
    assert response.status_code == 302 and Sitting.objects.get().stake_amount == kept


@pytest.mark.django_db
@pytest.mark.parametrize("typed", ["F\u202eCFA", "\u2067FCFA\u2069", "FCFA\u200b", "F\u0007CFA"])
def test_a_currency_keeps_no_invisible_mark_that_would_turn_the_money_lines_around(client, typed):
    """As a name does: a right-to-left override pasted into the currency would run "pays 200 FCFA" backwards on
    every phone, and a currency spelt with hidden marks would read its amount in another one's decimals."""
    response = client.post("/start/fapfap/", start_data("fapfap", ["A", "B"], stake_amount="300", stake_label=typed))
    sitting = Sitting.objects.get()
    assert response.status_code == 302 and (sitting.stake_label, sitting.stake_amount) == ("FCFA", 300)
    assert Sitting.start("fapfap", ["A", "B"], stake_amount=300, stake_label=typed).stake_label == "FCFA"


@pytest.mark.django_db
def test_a_stake_in_cents_is_written_as_the_phones_language_writes_money(client):
    Sitting.start("fapfap", ["A", "B"], stake_amount=150, stake_label="€").record_hand(1, 0, extras={"multiplier": 2})
    sitting = Sitting.objects.get()
    english = client.get(f"/s/{sitting.token}/").content.decode()
    french = client.get(f"/s/{sitting.token}/", HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert ">+3.00<" in english and ">\u22123.00<" in english and "3.00 € from each other player" in english
    assert ">+3,00<" in french and "Une mise vaut 1,50\u00a0€" in french


@pytest.mark.django_db
@pytest.mark.parametrize("written", ["1000", "1 000", "1,000", "1.000", "1\u202f000", "1\u00a0000"])
def test_a_number_written_with_its_thousands_grouped_is_taken_as_written(client, written):
    response = client.post("/start/fapfap/", start_data("fapfap", ["A", "B"], stake_amount=written, stake_label="FCFA"))
    assert response.status_code == 302 and Sitting.objects.get().stake_amount == 1000


@pytest.mark.django_db
@pytest.mark.parametrize(
    "game, extra, message",
    [
        ("agram", {"end_kind": "hands", "end_target_hands": "0.5"}, "Type N as a whole number, like 10."),
        ("letzter-stich", {"end_kind": "points", "end_target_points": "5OO"}, "Type N as a whole number, like 500."),
        ("cat-te", {"starting_chips": "2.5"}, "Type the chips each as a whole number, like 20."),
        ("cat-te", {"starting_chips": "1_0"}, "Type the chips each as a whole number, like 20."),  # (int() reads 10)
        ("agram", {"end_kind": "hands", "end_target_hands": "1_0"}, "Type N as a whole number, like 10."),
    ],
)
def test_every_number_field_says_what_to_type_when_it_is_not_a_whole_number(client, game, extra, message):
    response = client.post(f"/start/{game}/", start_data(game, ["A", "B", "C"], **extra))
    assert response.status_code == 400
    assert message in response.content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize(
    "data, message",
    [
        ({"number": "seven", "winner": 1}, "Hand numbers are whole numbers: reload the page, then tap again."),
        ({"number": 1, "winner": "Chaibou"}, "There is no such seat at this table: tap one of the names shown."),
    ],
)
def test_tap_refusals_do_not_repeat_themselves(client, sitting, data, message):
    response = client.post(f"/s/{sitting.token}/tap/", data)
    page = response.content.decode().replace("&#x27;", "'")
    assert response.status_code == 400 and message in page
    assert "number must be a number" not in page


@pytest.mark.django_db
def test_the_match_end_choices_name_the_games_unit(client):
    fapfap = client.get("/start/fapfap/").content.decode()
    assert "First to N stakes" in fapfap and "First to N points" not in fapfap
    assert "First to N points" in client.get("/start/spar/").content.decode()
    assert "Le premier à N mises" in client.get("/start/fapfap/", **FR).content.decode()


FRENCH_FIXES = {
    # a feminine noun: the adjective agrees
    "Stake (optional)": "Mise (facultative)",
    # "n'est plus celui de personne" said the opposite
    "This phone belongs to nobody in particular now.": "Ce téléphone n’appartient plus à personne en particulier.",
    # "Mise doit valoir au moins 1": a field name is not a subject without its article; "N : au moins 1" said
    # too little
    "{label} must be at least {low}.": "Le nombre «\u00a0{label}\u00a0» doit être d’au moins {low}.",
    "{label} must be at most {high}.": "Le nombre «\u00a0{label}\u00a0» doit être d’au plus {high}.",
    # "Partie en 6 mises", "On joue en 10": the target, said as one
    "Played to %(amount)s.": "Objectif\u00a0: %(amount)s.",
    "Playing to <strong>%(threshold)s</strong>.": "Objectif\u00a0: <strong>%(threshold)s</strong>.",
    "The winner scores 50. Play a set number of hands (a multiple of the number of players, so everyone deals "
    "equally often) or to a target such as 500.": "Le gagnant marque 50. Jouez un nombre de mains fixé (un multiple "
    "du nombre de joueurs, pour que chacun donne le même nombre de fois) ou jusqu’à un objectif comme 500.",
}


@pytest.mark.parametrize("msgid", FRENCH_FIXES)
def test_french_says_it_right(msgid):
    entries = {entry.msgid: entry.msgstr for entry in polib.pofile(str(PO))}
    assert entries[msgid] == FRENCH_FIXES[msgid]


@pytest.mark.django_db
def test_a_field_bound_in_french_reads_as_french(client):
    data = start_data("fapfap", ["A", "B"], stake_amount="0", stake_label="€")
    page = client.post("/start/fapfap/", data, **FR).content.decode()
    assert "Tapez un montant de 0,01\u00a0€ à 100\u00a0000,00\u00a0€." in page


@pytest.mark.django_db
@pytest.mark.parametrize("game", GAMES.values(), ids=GAMES.keys())
def test_the_start_page_says_the_games_range_of_players_once(client, game):
    page = client.get(f"/start/{game.slug}/").content.decode()
    assert len(re.findall(rf"\b{game.min_players}(?: to |–){game.max_players} players", page)) == 1
    assert f"{game.pack.size}-card pack" in page
