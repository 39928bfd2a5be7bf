"""Money in a currency's smallest units: the decimals a label names, and an amount read as typed."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from matches.domain.money import AmountError, as_decimal, decimals, parse_amount


@pytest.mark.parametrize(
    ("label", "places"),
    [("€", 2), ("EUR", 2), ("euros", 2), ("$", 2), ("£", 2), ("FCFA", 0), ("CFA", 0), ("F CFA", 0), ("XAF", 0),
     ("đ", 0), ("₫", 0), ("VND", 0), ("KWD", 3), ("", 0), ("beers", 0)],
)
def test_a_currency_label_names_its_decimals_and_an_unknown_one_counts_whole_units(label, places):
    assert decimals(label) == places


@pytest.mark.parametrize(
    ("typed", "places", "amount"),
    [("0,50", 2, 50), ("2.50", 2, 250), ("2,5", 2, 250), ("2", 2, 200), ("1.000,50", 2, 100_050), ("1,000.50", 2, 100_050),
     ("45.000", 0, 45_000), ("1 000 000", 0, 1_000_000), ("1\u202f000", 0, 1000), ("1,000", 2, 100_000), ("1.500", 3, 1500)],
)
def test_an_amount_is_read_as_typed_with_grouping_and_a_decimal_mark(typed, places, amount):
    assert parse_amount(typed, places) == amount


@pytest.mark.parametrize(("typed", "mark", "amount"), [("1.000", ",", 100_000), ("1,000", ".", 100_000), ("1,50", ".", 150)])
def test_one_mark_before_three_digits_groups_them_unless_it_is_the_readers_decimal_mark(typed, mark, amount):
    assert parse_amount(typed, 2, mark) == amount
    if typed != "1,50":
        with pytest.raises(AmountError):
            parse_amount(typed, 2, typed[1])  # "1,000 $" read in French: one dollar and a tenth of a cent


@pytest.mark.parametrize(
    ("typed", "places", "code"),
    [("2.50", 0, "too_many_decimals"), ("0,500", 2, "too_many_decimals"), ("0,505", 2, "too_many_decimals"),
     ("1.2.3", 0, "not_a_number"), ("1000.000", 0, "not_a_number"), ("-5", 0, "not_a_number"), ("", 0, "not_a_number"),
     ("1e3", 0, "not_a_number"), ("½", 0, "not_a_number")],
)
def test_an_amount_the_currency_cannot_hold_is_refused_with_why(typed, places, code):
    with pytest.raises(AmountError) as refused:
        parse_amount(typed, places)
    assert refused.value.code == code


@given(st.integers(0, 10**12), st.sampled_from([0, 2, 3]))
def test_an_amount_written_with_its_decimals_reads_back_exactly(amount, places):
    assert parse_amount(str(as_decimal(amount, places)), places) == amount
