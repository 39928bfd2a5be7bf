"""Large groups and long matches written in bulk, as the verbs would have left them (totals, running
totals, dealers and best runs kept), so that their pages can be measured and their archives import
again: the group limits' tests (tests/web/test_group_limits.py) and the hands of a long match."""

from __future__ import annotations

import datetime

from django.db.models import F
from django.utils import timezone

from matches.domain import rules, seating
from matches.domain.replay import best_runs
from matches.models import Group, Hand, Player, Seat, Sitting

GAME = "sink-sink"  # one win a hand, 2 to 7 players, no questions: any winner is a whole hand
# Names of 40 characters, the longest a name may be: as a Vietnamese or French name of that length is
# ("long", about 55 bytes), or each character of 4 bytes ("widest": the most bytes a name holds).
LONG_NAME = "Nguyễn Thị Phương Thảo Éloïse-Marie Đặng"
WIDEST_NAME = "𝔄" * 40


def names(count: int, kind: str = "short") -> list[str]:
    """`count` distinct player names: "Player 7", or of 40 characters each (`kind` "long" or "widest")."""
    if kind == "short":
        return [f"Player {n}" for n in range(count)]
    full = LONG_NAME if kind == "long" else WIDEST_NAME
    return [f"{full[: 40 - len(str(n)) - 1].rstrip()} {n}" for n in range(count)]


def big_group(
    players: int,
    matches: int,
    hands: int | list[int],
    seats: int = 4,
    name_kind: str = "short",
    playing: int = 0,
    former: int = 0,
) -> Group:
    """A group of `players` with `matches` matches of `seats` seats, each with `hands` won hands (or
    hands[m] for match m), ended early by a member right after its last hand (so no abandoned hand);
    the newest `playing` matches still being played; the last `former` players left the group. Seats
    and winners turn through the players."""
    game = rules.get_game(GAME)
    group = Group.objects.create(name="Big club")
    made = Player.objects.bulk_create(Player(name=name, group=group) for name in names(players, name_kind))
    per_match = [hands] * matches if isinstance(hands, int) else list(hands)
    start = timezone.now() - datetime.timedelta(days=matches + 2)
    rows = []
    for m in range(matches):
        began = start + datetime.timedelta(days=m)
        finished = m < matches - playing
        rows.append(
            Sitting(
                group=group,
                game=GAME,
                end_kind="open",
                started_at=began,
                changed_at=began + datetime.timedelta(hours=2),
                finished_at=began + datetime.timedelta(hours=2) if finished else None,
                ended_how=Sitting.EndedHow.ENDED_EARLY if finished else Sitting.EndedHow.PLAYING,
                reopened=per_match[m] + 1 if finished else None,
            )
        )
    sittings = Sitting.objects.bulk_create(rows, batch_size=1000)
    seat_rows, plans = [], []
    for m, sitting in enumerate(sittings):
        table = [made[(m * 3 + i * 7) % players] for i in range(seats)] if players >= seats else made[:seats]
        winners = [(m + n * n) % seats for n in range(per_match[m])]
        plans.append(winners)
        runs = best_runs(winners, seats) if sitting.finished_at else (0,) * seats
        for position, player in enumerate(table):
            won = winners.count(position)
            seat_rows.append(
                Seat(sitting=sitting, player=player, position=position, total=won, hands_won=won, best_run=runs[position])
            )
    seat_rows = Seat.objects.bulk_create(seat_rows, batch_size=2000)
    by_sitting: dict[int, list[Seat]] = {}
    for seat in seat_rows:
        by_sitting.setdefault(seat.sitting_id, []).append(seat)
    batch: list[Hand] = []
    for sitting, winners in zip(sittings, plans):
        table = by_sitting[sitting.pk]
        running, dealer = [0] * seats, 0
        for number, winner in enumerate(winners, start=1):
            points = game.score(seats, winner, {})
            running = [total + gained for total, gained in zip(running, points)]
            batch.append(
                Hand(
                    sitting=sitting,
                    number=number,
                    winner=table[winner],
                    dealer_position=dealer,
                    points=list(points),
                    running=list(running),
                    recorded_at=sitting.started_at + datetime.timedelta(seconds=number),
                )
            )
            dealer = seating.dealer_after(game, tuple(range(seats)), dealer, winner)
        if len(batch) >= 10_000:
            Hand.objects.bulk_create(batch, batch_size=2000)
            batch = []
    Hand.objects.bulk_create(batch, batch_size=2000)
    Group.objects.filter(pk=group.pk).update(hands=Hand.objects.filter(sitting__group=group).count())
    group.refresh_from_db()
    if former:
        Player.objects.filter(pk__in=[player.pk for player in made[-former:]]).update(left=True)
    return group


def fill(sitting: Sitting, count: int) -> None:
    """`count` won hands written in bulk as the verbs keep them (Agram: the winner deals next)."""
    seats = list(sitting.seats.order_by("position"))
    hands, running, dealer = [], [0] * len(seats), 0
    for number in range(1, count + 1):
        winner = number % len(seats)
        running[winner] += 1
        points = [int(position == winner) for position in range(len(seats))]
        hands.append(Hand(sitting=sitting, number=number, winner=seats[winner], dealer_position=dealer,
                          points=points, running=list(running)))
        dealer = winner
    Hand.objects.bulk_create(hands, batch_size=2000)
    for seat in seats:
        seat.total = seat.hands_won = running[seat.position]
    Seat.objects.bulk_update(seats, ["total", "hands_won"])
    Group.objects.filter(sittings=sitting).update(hands=F("hands") + count)  # (as the verbs keep it)
    assert sitting.check_totals() == []
