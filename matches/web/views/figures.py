"""A group's statistics page (member and watch link) and the words of settling up and of the shared result.
Three queries whatever the number of matches (services.figures), one read snapshot, GET only;
filters and sorting are plain links (?game=, ?sort=, ?dir=) so no JavaScript is needed."""

from __future__ import annotations

import datetime
import re
from collections import Counter
from dataclasses import dataclass, replace
from html import unescape
from urllib.parse import urlencode

from django.http import HttpResponse
from django.shortcuts import render
from django.urls import NoReverseMatch, reverse
from django.utils import formats, timezone
from django.utils.html import format_html, strip_tags
from django.utils.safestring import SafeString
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, pgettext
from django.views.decorators.http import require_safe

from matches.domain import rules, stats
from matches.web.bidi import bdi, sentence
from matches.services.figures import GroupRead, rate_chart, read_group
from matches.models import Group, Sitting
from matches.models.zones import night_of
from matches.web.presenters.table_state import TableState
from matches.web.presenters.numbers import grouped, money_number, signed_money, signed_points
from matches.web.presenters.table_state import score_is_hands_won
from matches.domain.names import FSI, PDI, is_right_to_left, name_order, shared
from matches.domain.settlement import Settling, Transfer, settling
from matches.web.views.common import HtmxHttpRequest, reached
from matches.web.views.links import shareable_url

BOLD = re.compile(r"<strong>(.*?)</strong>", re.DOTALL)  # a name in TableState.result
DEFAULT_SORT = "matches_won"
NIGHTS_SHOWN = 10  # the newest nights with money or chips to settle
# A group may keep hundreds of players (matches.domain.capacity): the page stays light with at most
PAIRS_SHOWN = 120  # head-to-head pairs, those who played together most (16 players make 120 pairs)
SHARES_SHOWN = 16  # players in each game's shares of hands, the largest shares
SETTLED_SHOWN = 8  # settlements a night, per currency then chips (a night has one or two)
HEADINGS = {
    "matches_played": gettext_lazy("Matches"),
    "matches_won": gettext_lazy("Won"),
    "win_rate": gettext_lazy("Win rate"),
    "hands_played": gettext_lazy("Hands"),
    "hands_won": gettext_lazy("Hands won"),
    "hand_share": gettext_lazy("Share of hands"),
    "points_per_hand": gettext_lazy("Per hand"),
    "best_run": gettext_lazy("Best run"),
    "net_chips": gettext_lazy("Net chips"),
    "net_money": gettext_lazy("Money"),
    "recent_form": gettext_lazy("Last 10, newest first"),
    "head_to_head": gettext_lazy("Head to head"),
}


def percent(ratio: float | None) -> str:
    """A ratio as a whole percent in the active language ("67%", "67 %"); the no-figure mark for none."""
    if ratio is None:
        return no_figure()
    return whole_percent(stats.percent_of(ratio))


def whole_percent(value: int) -> str:
    """A whole percent in the active language: "67%", "67 %" (no-break space) in French and German."""
    return _("%(percent)d%%") % {"percent": value}


def no_figure() -> SafeString:
    """An em dash for a missing figure (an en dash reads as a minus), said "no figure" to screen readers."""
    label = _("no figure")
    return format_html(
        '<span class="no-figure" title="{}"><span aria-hidden="true">—</span><span class="visually-hidden">{}</span></span>',
        label,
        label,
    )


def payment(transfer: Transfer, settled: Settling, plain: bool = False) -> str:
    """One payment as a sentence ("Mbarga pays Ngono 300 FCFA."; chips are owed as "the worth of").
    Names stay before their amounts in any script: <bdi> in HTML, or with `plain` FSI/PDI (names.shared)."""
    name = shared if plain else bdi
    amount = money_number(transfer.amount, settled.unit)
    words = {"payer": name(transfer.payer), "payee": name(transfer.payee), "amount": amount}
    if settled.chips:
        template = ngettext(
            "%(payer)s owes %(payee)s the worth of %(amount)s chip.",
            "%(payer)s owes %(payee)s the worth of %(amount)s chips.",
            transfer.amount,
        )
    elif settled.unit:
        template = _("%(payer)s pays %(payee)s %(amount)s %(currency)s.")
        words["currency"] = settled.unit
    else:
        template = _("%(payer)s pays %(payee)s %(amount)s.")
    return template % words if plain else sentence(template, words)


def settling_title(settled: Settling) -> str:
    """The settlement's caption: "Settling up in FCFA", "Settling up in chips", "Settling up"."""
    if settled.chips:
        return _("Settling up in chips")
    if settled.unit:
        return _("Settling up in %(currency)s") % {"currency": settled.unit}
    return _("Settling up")


def match_day(sitting: Sitting) -> str:
    """The match's start day on the table's clock, as the language writes a date ("8 mars 2025")."""
    return formats.date_format(timezone.localtime(sitting.started_at, sitting.zone), "DATE_FORMAT")


def standings(state: TableState) -> list[tuple[int, int, int]]:
    """(place, position, score) per seat, best first, score as the tally shows it; ties share a place (1, 1, 3)."""
    scores, ranks = state.balances(), state.standing_scores
    order = sorted(range(len(state.seats)), key=lambda position: -ranks[position])
    return [(1 + sum(other > ranks[p] for other in ranks), p, scores[p]) for p in order]


def result_text(state: TableState, watch_url: str) -> str:
    """The result to share as plain text: game, day, standings, winner, settlement and watch link.
    Right-to-left names are isolated (FSI ... PDI); Latin ones go bare, as the pair may show as boxes."""
    sitting = state.sitting
    lines = [f"{_(sitting.rules.name)} · {match_day(sitting)}"]
    lines += [
        _("%(place)d. %(name)s: %(amount)s")
        % {"place": place, "name": shared(state.seats[p].name), "amount": state.score_words(score, p)}
        for place, p, score in standings(state)
    ]
    lines.append(plain_result(state.result) if state.result else _("No hand was won."))
    if state.ended_early:
        lines.append(state.ended_early)
    settled = state.settling
    if settled is not None:
        lines.append(_("%(title)s:") % {"title": settling_title(settled)})
        payments = [payment(transfer, settled, plain=True) for transfer in settled.transfers]
        lines += payments or [_("Nobody owes anything.")]
    lines.append(_("Follow the score: %(url)s") % {"url": watch_url})
    return "\n".join(lines)


def plain_result(result: str) -> str:
    """TableState.result as plain text, names as names.shared gives them."""

    def name(bold: re.Match) -> str:
        return f"{FSI}{bold[1]}{PDI}" if is_right_to_left(unescape(bold[1])) else bold[1]

    return unescape(strip_tags(BOLD.sub(name, result)))


def watch_url(request: HtmxHttpRequest | None, sitting: Sitting) -> str:
    """The sitting's watch link, whole when the request is known (the LAN address on the laptop)."""
    path = reverse("watch", args=[sitting.watch_token])
    return shareable_url(request, path) if request is not None else path


@dataclass(frozen=True)
class Heading:
    """A players' table column: figure, heading, sort link (None: not sortable), aria-sort direction."""

    key: str
    text: str
    link: str | None
    sorted: str = ""


@dataclass(frozen=True)
class Night:
    """One night's settlements: per currency (money first), then chips; `matches` that moved any,
    `playing` of them still being played."""

    day: str
    matches: int
    settled: tuple[Settling, ...]
    playing: int = 0
    left_out: int = 0  # settlements beyond SETTLED_SHOWN (in the CSV)


def url_or_none(name: str, token: str) -> str | None:
    try:
        return reverse(name, args=[token])
    except NoReverseMatch:  # the group pages are elsewhere; the figures stand alone without them
        return None


@require_safe
@reached(Group)
def group_stats(request: HtmxHttpRequest, group: Group) -> HttpResponse:
    """The group's statistics for its members (the group's link)."""
    return render(request, "matches/group_stats.html", stats_context(request, group, read_group(group), False))


@require_safe
@reached(Group, watching=True)
def group_watch_stats(request: HtmxHttpRequest, group: Group) -> HttpResponse:
    """The same statistics for the group's read-only watch link: nothing on it leads to the member link."""
    return render(request, "matches/group_stats.html", stats_context(request, group, read_group(group), True))


def stats_context(request: HtmxHttpRequest, group: Group, read: GroupRead, watching: bool) -> dict:
    """What group_stats.html shows from ?game=, ?sort= (most first unless ?dir=asc) and ?currency=."""
    matches, names = read.matches, read.names
    counted_games = {match.game for match in matches if match.counts}
    games = [slug for slug in rules.GAMES if slug in counted_games]
    game = request.GET.get("game") if request.GET.get("game") in games else None
    currencies = Counter(
        match.currency for match in matches if match.money is not None and (game is None or match.game == game)
    )
    currency = request.GET.get("currency")
    if currency not in currencies:
        currency = currencies.most_common(1)[0][0] if currencies else None
    figures = stats.player_stats(matches, game, currency)
    played = {player: figure for player, figure in figures.items() if figure.matches_played}
    sort = request.GET.get("sort", DEFAULT_SORT)
    descending = request.GET.get("dir") != "asc"
    shown = columns(game, played, currency, currencies)
    if sort not in shown or sort == "recent_form":
        sort, descending = DEFAULT_SORT, True
    rows = stats.sort_rows(played, sort, descending)
    several = len(currencies) > 1  # then the money column is in one of them at a time, chosen by a link
    here = {
        "game": game or "",
        "sort": "" if (sort, descending) == (DEFAULT_SORT, True) else sort,
        "dir": "" if descending else "asc",
        "currency": currency if several else "",
    }

    def link(**changes: str) -> str:
        wanted = {**here, **changes}
        return "?" + urlencode(
            {key: value for key, value in wanted.items() if value or (key == "currency" and several)}
        )

    headings = [
        Heading(
            key,
            text,
            None if key == "recent_form" else link(sort=key, dir="asc" if key == sort and descending else ""),
            ("descending" if descending else "ascending") if key == sort else "",
        )
        for key, text in shown.items()
    ]
    pairs = stats.head_to_head(matches, game)
    every_pair = len(pairs)  # a large group has thousands: those who played together most
    pairs = dict(sorted(pairs.items(), key=lambda item: (-item[1].matches, item[0]))[:PAIRS_SHOWN])
    explained = [*shown, "head_to_head"]
    return {
        "group": group,
        "watching": watching,
        "back": url_or_none("group-watch" if watching else "group", group.watch_token if watching else group.token),
        "games": [(slug, rules.get_game(slug).name, link(game=slug)) for slug in games],
        "all_games": link(game=""),
        "game": game,
        "currencies": [(label, link(currency=label)) for label in sorted(currencies)] if several else [],
        "currency": currency,
        "headings": headings,
        # On a phone the heading is said in the player's card (app.css).
        "rows": [(names[player], list(zip(shown.values(), cells(figure, shown, currency or "")))) for player, figure in rows],
        "explanations": [(shown.get(key) or HEADINGS[key], _(stats.EXPLANATIONS[key])) for key in explained],
        "pairs": [
            (first, second, pair, ahead(first, pair.first_wins, second, pair.second_wins))
            for first, second, pair in in_name_order(pairs, names)
        ],
        "pairs_left_out": every_pair - len(pairs),
        "rate_chart": rate_chart(matches, names, game),
        "shares": hand_shares(matches, names) if game is None else [],
        "shares_shown": SHARES_SHOWN,
        "nights": nights(read.every_match, names),
        "counted": sum(1 for match in matches if match.counts and (game is None or match.game == game)),
    }


def in_name_order(pairs: dict, names: dict) -> list[tuple[str, str, stats.HeadToHead]]:
    """Each pair's names in reading order (its tally turned with them), and the pairs in that order."""
    shown = []
    for (first, second), pair in pairs.items():
        if name_order(names[second]) < name_order(names[first]):
            first, second = second, first
            pair = replace(pair, first_wins=pair.second_wins, second_wins=pair.first_wins)
        shown.append((names[first], names[second], pair))
    return sorted(shown, key=lambda row: (name_order(row[0]), name_order(row[1])))


def ahead(first: str, first_wins: int, second: str, second_wins: int) -> list[str]:
    """How often each of a pair finished higher, one line each: ["Ana: 2", "Ben: 1"] (HTML, names in <bdi>)."""
    return [
        sentence(_("%(name)s: %(count)d"), {"name": bdi(name), "count": count})
        for name, count in ((first, first_wins), (second, second_wins))
    ]


def columns(game: str | None, played: dict, currency: str | None, currencies: Counter) -> dict[str, str]:
    """The players' table figures (key: heading); points per hand, chips and money only where they mean something."""
    shown = {key: str(HEADINGS[key]) for key in stats.COLUMNS}
    if game is None or score_is_hands_won(game):
        del shown["points_per_hand"]
    else:
        unit = capfirst(_(rules.get_game(game).unit))
        shown["points_per_hand"] = _("%(unit)s per hand") % {"unit": unit}
    if not any(figure.net_chips is not None for figure in played.values()):
        del shown["net_chips"]
    if not any(figure.net_money is not None for figure in played.values()):
        del shown["net_money"]
    elif currency:
        shown["net_money"] = currency
    return shown


def form_letters(form: tuple[str, ...]) -> str:
    """Recent form in the active language's letters, newest first: "W W L" / "V V D"."""
    won, lost = pgettext("a match won, one letter", "W"), pgettext("a match lost, one letter", "L")
    return " ".join(won if letter == "W" else lost for letter in form)


def cells(figure: stats.PlayerStats, shown: dict[str, str], currency: str) -> list[str]:
    """A player's figures in `shown` order, grouped as the language writes numbers (money in `currency`)."""
    text = {
        "matches_played": grouped(figure.matches_played),
        "matches_won": grouped(figure.matches_won),
        "win_rate": percent(figure.win_rate),
        "hands_played": grouped(figure.hands_played),
        "hands_won": grouped(figure.hands_won),
        "hand_share": percent(figure.hand_share),
        "points_per_hand": no_figure()
        if figure.points_per_hand is None
        else formats.number_format(stats.hundredths(figure.points_per_hand), decimal_pos=2, force_grouping=True),
        "best_run": grouped(figure.best_run),
        "net_chips": no_figure() if figure.net_chips is None else signed_points(figure.net_chips),
        "net_money": no_figure() if figure.net_money is None else signed_money(figure.net_money, currency),
        "recent_form": form_letters(figure.recent_form),
    }
    return [text[key] for key in shown]


def hand_shares(matches: list[stats.MatchRecord], names: dict[int, str]) -> list[tuple[str, list, int]]:
    """Per game played (registry order), each player's share of its hands won, whole percents, highest first:
    (game, the SHARES_SHOWN largest, how many more players)."""
    by_game = stats.hand_shares(matches)
    shares = []
    for slug in rules.GAMES:
        rows = [(names[player], stats.percent_of(share)) for player, share in by_game.get(slug, {}).items()]
        if rows:
            rows.sort(key=lambda row: (-row[1], name_order(row[0])))
            shares.append((rules.get_game(slug).name, rows[:SHARES_SHOWN], len(rows) - SHARES_SHOWN))
    return shares


def nights(matches: list[stats.MatchRecord], names: dict[int, str], shown: int = NIGHTS_SHOWN) -> list[Night]:
    """The newest nights first (at most `shown`): money per currency, then Cat Tê chips, over every
    hand won, in matches finished or still being played (stats.nightly_nets)."""
    days: dict[object, tuple[set, set, list[Settling]]] = {}
    for night in stats.nightly_nets(matches):
        if night.day not in days and len(days) == shown:
            break
        keys, playing, settled = days.setdefault(night.day, (set(), set(), []))
        keys.update(night.matches)
        playing.update(night.playing)
        named = {player: names[player] for player in night.nets}  # (listed in name order by settling)
        settled.append(settling(named, night.nets, night.currency, night.chips))
    shown_days = [(formats.date_format(day, "DATE_FORMAT"), *kept) for day, kept in days.items()]
    return [
        Night(day, len(keys), tuple(settled[:SETTLED_SHOWN]), len(playing), len(settled[SETTLED_SHOWN:]))
        for day, keys, playing, settled in shown_days
    ]


TONIGHT_HOURS = 36  # a night's matches start within this long of now, whatever the time zones


def tonight(group: Group) -> Night | None:
    """The newest night's settling up while that night is on: one of its matches is still being played,
    or it is tonight on the group's clock (zones.night_of). Two queries over the last TONIGHT_HOURS only."""
    read = read_group(group, since=timezone.now() - datetime.timedelta(hours=TONIGHT_HOURS))
    every = read.every_match
    if not every:
        return None
    newest = every[-1].day
    night = [match for match in every if match.day == newest]
    if newest != night_of(timezone.now(), group.zone) and not any(match.playing for match in night):
        return None
    found = nights(night, read.names, shown=1)
    return found[0] if found else None

