"""The CSV files read as a script reads them (README, Groups): csv.DictReader with its defaults on the
file opened as `open(f, newline="", encoding="utf-8-sig")`, whatever the phone's language."""

import csv
import io
from decimal import Decimal

from django.http import StreamingHttpResponse

from matches.domain.money import decimals

# The columns of a match's file, and of a group's (three of the match's own, then the match file's).
MATCH_KEYS = [
    "row_type",
    "hand",
    "time",
    "status",
    "dealer",
    "winner",
    "how",
    "seat",
    "player",
    "unit",
    "points",
    "currency",
    "money",
    "chips_received",
    "net_points",
    "net_money",
    "hands_won",
    "recorded_by",
    "corrected_at",
    "corrected_by",
    "first_recorded_as",
]
GROUP_KEYS = ["match", "game", "match_started", *MATCH_KEYS, "payee", "paid", "taken_back"]

# A phone in English, and in French by its browser's language or by the language it chose here.
PHONES = {
    "en": {"HTTP_ACCEPT_LANGUAGE": "en"},
    "fr": {"HTTP_ACCEPT_LANGUAGE": "fr-FR,fr;q=0.9"},
    "fr-cookie": {"HTTP_COOKIE": "django_language=fr"},
}


def body_of(response) -> bytes:
    assert isinstance(response, StreamingHttpResponse) and response.status_code == 200
    return b"".join(response.streaming_content)


def dict_rows(body: bytes) -> tuple[list[str], list[dict[str, str]]]:
    """The header's keys and the rows, as csv.DictReader reads the file with its defaults."""
    reader = csv.DictReader(io.TextIOWrapper(io.BytesIO(body), encoding="utf-8-sig", newline=""))
    rows = list(reader)
    return list(reader.fieldnames or []), rows


def read(client, path: str, phone: str = "en") -> list[dict[str, str]]:
    """The rows of the CSV at `path` downloaded by `phone` (a key of PHONES); checks the header's keys."""
    keys, rows = dict_rows(body_of(client.get(path, **PHONES[phone])))
    assert keys == (GROUP_KEYS if path.startswith("/g/") else MATCH_KEYS)
    return rows


def as_typed(cell: str) -> str:
    """A text cell as typed: the file puts one ' before a text starting with = + - @ ' (a spreadsheet's
    formula guard), which a script drops."""
    return cell[1:] if cell.startswith("'") else cell


def of_kind(rows: list[dict[str, str]], kind: str) -> list[dict[str, str]]:
    return [row for row in rows if row["row_type"] == kind]


def summed(rows: list[dict[str, str]], kind: str, column: str) -> dict[str, int]:
    """Per player (as typed), the sum of `column` over the rows of `kind`."""
    sums: dict[str, int] = {}
    for row in of_kind(rows, kind):
        player = as_typed(row["player"])
        sums[player] = sums.get(player, 0) + Decimal(row[column])
    return sums


def on_net_rows(rows: list[dict[str, str]], column: str) -> dict[str, int]:
    """Per player (as typed), `column` of their net row."""
    return {as_typed(row["player"]): Decimal(row[column]) for row in of_kind(rows, "net")}


def in_smallest_units(rows: list[dict[str, str]], sums: dict[str, Decimal]) -> dict[str, Decimal]:
    """Money read from the file ("-4.00" euros) in the currency's smallest units, as the table keeps it."""
    scale = 10 ** decimals(rows[0]["currency"]) if rows else 1
    return {name: amount * scale for name, amount in sums.items()}


def agrees_with_the_table(rows: list[dict[str, str]], tables: dict[str, dict[str, int]], settled) -> None:
    """A match's rows against its score table (`tables`: per player, the number under each column key of
    TableState.columns) and its settlement (TableState.settling, or None): the hand rows' points (with the
    chips handed out, for Cat Tê) and money add up to the table; the net rows hold the same totals and the
    settlement's nets; and no column holds both hands' and nets' numbers, so no column sum counts twice."""
    points, chips = summed(rows, "hand", "points"), summed(rows, "chips", "chips_received")
    for name, table in tables.items():
        assert points[name] + chips.get(name, 0) == table.get("score", table["won"]), name
        assert on_net_rows(rows, "net_points")[name] == points[name]
        assert on_net_rows(rows, "hands_won")[name] == table["won"]
        if "money" in table:
            money = in_smallest_units(rows, summed(rows, "hand", "money"))
            assert money[name] == in_smallest_units(rows, on_net_rows(rows, "net_money"))[name] == table["money"]
        else:  # not played for money: no money cells at all
            assert all(row["money"] == row["net_money"] == row["currency"] == "" for row in rows)
    if settled is not None:
        nets = on_net_rows(rows, "net_points") if settled.chips else in_smallest_units(rows, on_net_rows(rows, "net_money"))
        assert nets == dict(settled.nets)
    hand_only, net_only = ("points", "money", "chips_received"), ("net_points", "net_money", "hands_won")
    assert all(row[key] == "" for row in of_kind(rows, "net") for key in hand_only)
    assert all(row[key] == "" for row in rows if row["row_type"] != "net" for key in net_only)
    assert {row["row_type"] for row in rows} <= {"hand", "chips", "net"}
