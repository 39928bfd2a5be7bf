"""State of a table: players, sittings, seats and hands, and the verbs that change them.

Every verb locks the sitting row (select_for_update on PostgreSQL; on SQLite the
IMMEDIATE transaction takes the write lock) so two phones tapping at once are
serialised, and raises a TableError subclass instead of writing when refused.
"""

from __future__ import annotations

import functools
import json
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, models, transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.utils.translation import gettext_lazy

from matches.domain import rules
from matches.web.bidi import bdi, sentence
from matches.domain.chart import CHART_POINTS, sampled
from matches.domain.errors import AlreadyRecorded, BadInput, Conflict
from matches.domain.settlement import nets_from_totals
from matches.models.snapshot import read_snapshot
from matches.web.texts import rule_message
from matches.models.zones import ZONE_MAX_LENGTH, clean_zone, zone_named
from matches.models.choices import EndedHow, HandStatus
from matches.models.rows import build as build_row
from matches.models.rows import columns as sql_columns
from matches.models.rows import convert as convert_column
from matches.models.rows import insert as insert_row
from matches.models.rows import lock_clause
from matches.models.rows import position as column_position
from matches.models.rows import update as update_row
from matches.models.rows import width as column_count
from matches.web.presenters.table_state import TableState

NAME_MAX_LENGTH = 40
STAKE_LABEL_MAX_LENGTH = 12
MAX_STAKE = 10_000_000
DEFAULT_STARTING_CHIPS = 20
MAX_STARTING_CHIPS = 10_000
HANDS_ON_TABLE = 6  # newest hand rows shown on the match table; the rest are on the history page


def new_token() -> str:
    """128 random bits, URL-safe: the only way to reach a sitting or a group. Never starting with
    "-", which a command line would take for an option (`manage.py export_group <token>`)."""
    while (token := secrets.token_urlsafe(16)).startswith("-"):
        pass
    return token


class ChartPoint(NamedTuple):
    """What the score chart needs of a hand it samples: its number, each seat's running total
    after it and Eighty Three's threshold after it."""

    number: int
    running: list[int]
    threshold_after: int | None


@dataclass(frozen=True)
class Recorder:
    """Who made a change: the phone's id (from its session) and the seat it said it holds, if any."""

    phone: str = ""
    seat: int | None = None


ANYONE = Recorder()


def new_stamp() -> str:
    """Marks one version of a hand row, so Undo removes only the version a phone saw."""
    return secrets.token_urlsafe(6)


class Player(models.Model):
    """A person at the table, by the name typed at the start (full Unicode, at most 40 characters).

    A group's member when `group` is set: `left` when removed from the group's list (their
    matches stay), `erased` when their name was replaced everywhere.
    """

    name = models.CharField(max_length=NAME_MAX_LENGTH)
    group = models.ForeignKey(
        "Group", on_delete=models.SET_NULL, null=True, blank=True, related_name="players", editable=False
    )
    left = models.BooleanField(default=False)
    erased = models.BooleanField(default=False)

    def __str__(self) -> str:
        return self.name


class Sitting(models.Model):
    """One match of one game by one table: seats in playing order and a numbered run of hands.

    `threshold` and `tied_at` (Eighty Three), like the seats' totals, are derived from the
    hands and kept in step in the same transaction as every change.

    Cat Tê's re-issued chips: `chips_reissued` counts the batches and `reissued_before` lists, per
    batch in the order handed out, the number of the hand that was open then (hands before it were
    played without that batch), so the export can show the chips in front of each player after every
    hand; both change together in `reissue_chips`. Sittings from before migration 0003 kept only the
    count: their batches are dated after their last hand (as if handed out at the end), so no hand
    row of their export gains chips it may not have had, and the file's last row still matches the
    screen. Source: RULES.md, Cat Te.
    """

    EndedHow = EndedHow

    token = models.CharField(max_length=32, unique=True, default=new_token, editable=False)  # member link
    watch_token = models.CharField(max_length=32, unique=True, default=new_token, editable=False)  # read-only link
    version = models.PositiveIntegerField(default=1)  # bumped in the transaction of every change
    game = models.CharField(max_length=20, choices=[(slug, g.name) for slug, g in rules.GAMES.items()])
    end_kind = models.CharField(
        max_length=10, choices=[(k.value, k.name.lower()) for k in rules.MatchEndKind], default="open"
    )
    end_target = models.PositiveIntegerField(null=True, blank=True)
    starting_chips = models.PositiveIntegerField(null=True, blank=True)
    chips_reissued = models.PositiveIntegerField(default=0)
    reissued_before = models.JSONField(default=list, blank=True)  # per batch, the hand open when handed out
    stake_amount = models.PositiveIntegerField(null=True, blank=True)
    stake_label = models.CharField(max_length=STAKE_LABEL_MAX_LENGTH, blank=True)
    threshold = models.PositiveIntegerField(null=True, blank=True)
    tied_at = models.PositiveIntegerField(null=True, blank=True)
    group = models.ForeignKey(
        "Group", on_delete=models.SET_NULL, null=True, blank=True, related_name="sittings", editable=False
    )
    next_sitting = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="+", editable=False
    )  # the rematch, once a phone started it
    started_at = models.DateTimeField(default=timezone.now)
    changed_at = models.DateTimeField(default=timezone.now, db_index=True)  # with every version, for retention
    finished_at = models.DateTimeField(null=True, blank=True)
    ended_how = models.CharField(max_length=12, choices=EndedHow.choices, default="", blank=True)
    # The IANA time zone of the phone that started it ("Africa/Lome"); "": the server's TIME_ZONE.
    time_zone = models.CharField(max_length=ZONE_MAX_LENGTH, blank=True, default="")

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=models.Q(finished_at__isnull=True, ended_how="")
                | (models.Q(finished_at__isnull=False) & ~models.Q(ended_how="")),
                name="sitting_finished_has_a_reason",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.rules.name} started {self.started_at:%Y-%m-%d %H:%M}"

    def get_absolute_url(self) -> str:
        return reverse("table", kwargs={"token": self.token})

    @property
    def rules(self) -> rules.Game:
        return rules.get_game(self.game)

    @property
    def match_end(self) -> rules.MatchEnd:
        return rules.MatchEnd(rules.MatchEndKind(self.end_kind), self.end_target)

    @property
    def is_finished(self) -> bool:
        return self.finished_at is not None

    @property
    def zone(self):
        """The table's own clock: every time of this sitting is shown in it (a tzinfo)."""
        return zone_named(self.time_zone)

    def scores(self) -> list[tuple[str, int]]:
        """(name, score) per seat as the home list shows it: chips in front of each for Cat Tê, net
        money at the stake (in `stake_label`) for Fapfap played for one, else the game's score.

        Reads `self.seats`, so prefetch them when listing many sittings.
        Source: RULES.md (Cat Te chips; Fapfap stakes).
        """
        seats = list(self.seats.all())
        totals = [seat.total for seat in seats]
        if self.rules.uses_stake and self.stake_amount:
            totals = nets_from_totals(totals, self.stake_amount)
        elif self.rules.uses_chips:
            base = (self.starting_chips or 0) * (1 + self.chips_reissued)
            totals = [base + total for total in totals]
        return [(seat.name, total) for seat, total in zip(seats, totals, strict=True)]

    @property
    def is_final(self) -> bool:
        """Ended by a member: read-only for good."""
        return self.ended_how == Sitting.EndedHow.ENDED_EARLY

    # --- verbs -----------------------------------------------------------

    @classmethod
    def start(
        cls,
        game: str,
        names: Sequence[str],
        match_end: rules.MatchEnd | None = None,
        *,
        starting_chips: int | None = None,
        stake_amount: int | None = None,
        stake_label: str = "",
        time_zone: str = "",
    ) -> Sitting:
        """Open a sitting of `game` with players seated in the order of `names`.

        `match_end` defaults to the game's usual one; `starting_chips` (Cat Tê, default 20)
        and `stake_amount`/`stake_label` (Fapfap, optional) only for the games that use them.
        `time_zone`: the starting phone's IANA zone name (one this server does not know counts as
        "": the server's own).
        Raises BadInput, with the reason, when the game is unknown, the player count is
        outside its range, or a setting does not suit the game.
        """
        players = [Player(name=name) for name in names]
        options = cls.options(starting_chips=starting_chips, stake_amount=stake_amount, stake_label=stake_label)
        return cls._seat(game, players, match_end, options, time_zone=time_zone)

    @staticmethod
    def options(
        starting_chips: int | None = None, stake_amount: int | None = None, stake_label: str = ""
    ) -> dict[str, object]:
        """The game-specific settings a sitting is started with (checked by check_options)."""
        return {"starting_chips": starting_chips, "stake_amount": stake_amount, "stake_label": stake_label}

    def rematch(self) -> Sitting:
        """A new sitting of the same game, same players in the same order round the table, same
        settings, same group, same time zone.

        The deal carries on: RULES.md says nothing of who deals a new match's first hand, and the
        first seat deals hand 1, so the seating turns to put first the player who would have dealt
        this match's next hand (the last hand's winner where the winner deals; the next in turn where
        the deal rotates); who sits after whom stays the same.
        Only one per sitting: when another phone already started it, that one is returned,
        so the table stays together.
        """
        with transaction.atomic():
            sitting, seats = self._lock()
            if sitting.next_sitting_id:
                return sitting.next_sitting
            dealer = TableState(sitting, seats, *sitting._read_hands(seats, 1)).dealer
            players = [seat.player for seat in seats[dealer:] + seats[:dealer]]
            options = self.options(sitting.starting_chips, sitting.stake_amount, sitting.stake_label)
            new = sitting._seat(
                sitting.game, players, sitting.match_end, options, group=sitting.group, time_zone=sitting.time_zone
            )
            sitting._update(next_sitting=new)
        self.next_sitting_id = new.pk
        return new

    @classmethod
    def _seat(
        cls,
        game: str,
        players: list[Player],
        match_end: rules.MatchEnd | None,
        options: dict,
        group=None,
        time_zone: str = "",
    ) -> Sitting:
        try:
            entry = rules.get_game(game)
            entry.check_player_count(len(players))
        except rules.RuleError as error:
            raise BadInput(rule_message(error)) from None
        match_end = match_end or default_match_end(entry)
        if match_end.kind not in entry.match_ends:
            raise BadInput(
                _("%(game)s cannot end that way: %(choices)s.")
                % {"game": _(entry.name), "choices": match_end_choices(entry)}
            )
        fields = check_options(entry, **options)
        with transaction.atomic():
            sitting = cls.objects.create(
                game=game,
                group=group,
                time_zone=clean_zone(time_zone),
                end_kind=match_end.kind.value,
                end_target=match_end.target,
                threshold=rules.Progress.start(len(players), match_end).threshold,
                **fields,
            )
            for player in players:
                if player.pk is None:
                    player.save()
            Seat.objects.bulk_create(
                Seat(sitting=sitting, player=player, position=position) for position, player in enumerate(players)
            )
        return sitting

    def record_hand(self, number: int, winner: int, extras: Mapping | None = None, by: Recorder = ANYONE) -> Hand:
        """Record hand `number` as won by the seat at position `winner` (0-based).

        `extras` are the game's extra facts as posted (see the registry's questions);
        `by` says which phone (and seat, if the phone said) tapped, for the hand's details.
        Idempotent: a hand that already has a row is never written twice. When that row says
        what this tap says (same winner, same answers: a retry, or two phones agreeing), it is
        returned as the tap's result. Raises AlreadyRecorded (the row says otherwise; names the
        recorded winner), Conflict (match over, or `number` is not the open hand) or BadInput
        (no such seat, extras that do not belong). Ends the match when its match-end rule now holds.
        Source: RULES.md, Common to every game.
        """
        try:
            with transaction.atomic():
                sitting, seats = self._lock()
                self.state_before = (sitting.threshold, sitting.is_finished)
                table = TableState(sitting, seats, *sitting._read_hands(seats, HANDS_ON_TABLE, upcoming=1))
                recorded = sitting._same_as_recorded(table, number, winner, extras)
                hand = recorded or sitting._record(table, number, winner, extras, by)
        except IntegrityError:
            # Another phone won the race for this hand number (only without a lock, e.g. a raw insert).
            raise self._already_recorded(number, self.table(recent=1)) from None
        self._adopt(sitting)
        recent = table.recent_hands if recorded else [hand, *table.recent_hands]
        drawn = {**table.drawn_hands, hand.number: hand}
        self.table_after_change = TableState(self, seats, recent[:HANDS_ON_TABLE], drawn)
        return hand

    def _same_as_recorded(self, table: TableState, number: int, winner: int, extras: Mapping | None) -> Hand | None:
        """The recorded row of hand `number` when it says what this tap says, else None."""
        if not 1 <= number < table.open_number or not 0 <= winner < len(table.seats):
            return None
        hand = next((h for h in table.recent_hands if h.number == number), None)
        hand = hand or self.hands.filter(number=number).first()
        if hand is None or hand.winner_id != table.seats[winner].pk:
            return None
        try:
            cleaned, _points = self._score(len(table.seats), winner, extras)
        except BadInput:
            return None
        return hand if as_stored(cleaned) == hand.extras else None

    def _record(self, table: TableState, number: int, winner: int, extras: Mapping | None, by: Recorder) -> Hand:
        self._check_open(table, number)
        cleaned, points = self._score(len(table.seats), winner, extras)
        progress = table.progress().after(self.match_end, winner, points)
        hand = Hand(
            sitting=self,
            number=number,
            status=Hand.Status.WON,
            winner=table.seats[winner],
            dealer_position=table.dealer,
            extras=cleaned,
            points=list(points),
            running=list(progress.totals),
            threshold_after=progress.threshold,
            recorded_by_phone=by.phone,
            recorded_by_seat=by.seat,
        )
        hand.clean()
        insert_row(hand)
        Seat.add_points(table.seats, points, winner=winner, sign=1)
        self._save_progress(progress, table.seats)
        return hand

    def correct_hand(
        self,
        number: int,
        winner: int,
        extras: Mapping | None = None,
        by: Recorder = ANYONE,
        stamp: str | None = None,
    ) -> Hand:
        """Change a recorded hand's winner or extra facts; everything after it is recomputed
        (totals, threshold, match end: correcting the deciding hand can reopen the match).

        `stamp` is the hand's stamp as the correcting phone saw it: if another phone corrected the
        hand since (or undid and recorded it again), nothing changes, and Conflict is raised unless
        the hand already says what this correction says (the same correction sent again: returned as
        done). Raises Conflict when the match was ended by a member or hand `number` was not won;
        BadInput as record_hand does.
        """
        with transaction.atomic():
            sitting, seats = self._lock()
            if sitting.is_final:
                raise Conflict(_("This match was ended: it can no longer change."))
            hand = sitting.hands.filter(number=number, status=Hand.Status.WON).first()
            if hand is None:
                raise Conflict(
                    _("Hand %(number)d has not been recorded, so it cannot be corrected.") % {"number": number}
                )
            cleaned, points = sitting._score(len(seats), winner, extras)
            if stamp is not None and stamp != hand.stamp:
                if hand.winner_id == seats[winner].pk and hand.extras == as_stored(cleaned):
                    self._adopt(sitting)
                    return hand  # this correction sent again (a retry, a double tap): already made
                now = next(seat.name for seat in seats if seat.pk == hand.winner_id)
                raise Conflict(
                    sentence(
                        _(
                            "Hand %(number)d changed since your screen showed it (now %(winner)s): nothing was corrected."
                        ),
                        {"number": number, "winner": bdi(now)},
                    )
                )
            hand.winner, hand.extras, hand.points = seats[winner], cleaned, list(points)
            hand.corrected_at, hand.stamp = timezone.now(), new_stamp()
            hand.corrected_by_phone, hand.corrected_by_seat = by.phone, by.seat
            hand.save(
                update_fields=[
                    "winner",
                    "extras",
                    "points",
                    "corrected_at",
                    "stamp",
                    "corrected_by_phone",
                    "corrected_by_seat",
                ]
            )
            sitting._recompute(seats, corrected=number)
        self._adopt(sitting)
        return hand

    def undo_hand(self, number: int, stamp: str | None = None) -> Hand:
        """Remove hand `number`, which must be the last recorded hand; returns the removed row.

        `stamp` is the hand's stamp as the undoing phone saw it: if the hand was
        re-recorded or corrected since, nothing is removed. Undoing the hand that
        ended the match by its match-end rule reopens it; a match ended by a member
        stays final. A batch of chips dated after the hand (handed out while the next one was open) is
        dated at it, the open hand again. Raises Conflict otherwise.
        """
        with transaction.atomic():
            sitting, seats = self._lock()
            if sitting.is_final:
                raise Conflict(_("This match was ended: it can no longer change."))
            table = sitting.table(recent=1)
            last = table.last_hand
            if last is None:
                raise Conflict(_("There is no hand to undo yet."))
            if number > last.number:
                raise Conflict(_("Hand %(number)d has not been recorded: nothing was undone.") % {"number": number})
            if last.number != number:
                raise Conflict(
                    _("Hand %(number)d is not the last hand any more: nothing was undone.") % {"number": number}
                )
            if stamp is not None and stamp != last.stamp:
                raise Conflict(
                    sentence(
                        _("Hand %(number)d changed since your screen showed it (now %(winner)s): nothing was undone."),
                        {"number": number, "winner": bdi(table.name_of(last.winner_id))},
                    )
                )
            last.delete()
            if any(batch > number for batch in sitting.reissued_before):  # chips handed out after it: now
                sitting._update(reissued_before=[min(batch, number) for batch in sitting.reissued_before])
            sitting._recompute(table.seats)
        self._adopt(sitting)
        return last

    def end_match(self, open_number: int | None = None) -> None:
        """End the match now: the open hand is abandoned (no winner, no points), the sitting is final.

        `open_number` is the hand the member saw open when confirming; if another hand
        was recorded since, nothing happens. Raises Conflict when the match is already
        over or has moved on. Source: RULES.md, Common to every game.
        """
        with transaction.atomic():
            sitting, seats = self._lock()
            if sitting.is_finished:
                raise Conflict(_("This match is already over."))
            table = sitting.table(recent=1)
            if open_number is not None and open_number != table.open_number:
                raise Conflict(
                    _("Hand %(open)d is open now, not hand %(seen)d: check the score, then end the match again.")
                    % {"open": table.open_number, "seen": open_number}
                )
            Hand.objects.create(
                sitting=sitting,
                number=table.open_number,
                status=Hand.Status.ABANDONED,
                winner=None,
                dealer_position=table.dealer,
                points=[0] * len(table.seats),
                running=[seat.total for seat in table.seats],
                threshold_after=sitting.threshold,
            )
            sitting._update(finished_at=timezone.now(), ended_how=Sitting.EndedHow.ENDED_EARLY)
            sitting._store_best_runs(table.seats)
        self._adopt(sitting)

    def reissue_chips(self, seen: int) -> None:
        """Hand every player another batch of the starting stack (Cat Tê), when one has run out.

        `seen` is how many batches the phone had seen re-issued, so a double tap issues one batch.
        The batch is dated by the open hand's number in `reissued_before`. Raises Conflict when the
        game has no chips, the match is over, nobody has run out, or the batch was already issued;
        BadInput when `seen` is below 0 or above the batches issued (no page showed it).
        Source: RULES.md, Cat Te.
        """
        with transaction.atomic():
            sitting, seats = self._lock()
            if not sitting.rules.uses_chips:
                raise BadInput(_("%(game)s is not played with chips.") % {"game": _(sitting.rules.name)})
            if sitting.is_finished:
                raise Conflict(_("This match is over: no more chips can be handed out."))
            if seen > sitting.chips_reissued or seen < 0:  # no phone was shown that count: a made-up post
                raise BadInput(
                    _("The chips button did not say which hand-out it saw: reload the page, then tap again.")
                )
            if seen < sitting.chips_reissued:
                raise Conflict(_("Chips were just re-issued from another phone."))
            table = sitting.table(recent=1)
            if min(table.balances()) > 0:
                raise Conflict(_("Nobody has run out of chips yet."))
            sitting._update(
                chips_reissued=sitting.chips_reissued + 1,
                reissued_before=[*sitting.reissued_before, table.open_number],
            )
        self._adopt(sitting)

    def rotate_links(self) -> None:
        """New member and watch links; the old ones stop working at once (a link leaked)."""
        with transaction.atomic():
            sitting, seats = self._lock()
            sitting._update(token=new_token(), watch_token=new_token())
            # The match this one is a rematch of must not lead to the new link either.
            Sitting.objects.filter(next_sitting=sitting).update(next_sitting=None, version=models.F("version") + 1)
        self._adopt(sitting)

    def _lock(self) -> tuple[Sitting, list[Seat]]:
        """Lock the sitting row (and its seats) for a change and read them fresh, in one query.

        select_for_update on PostgreSQL; on SQLite the IMMEDIATE transaction already holds
        the write lock. Raises Sitting.DoesNotExist when the sitting is no longer reached by the
        link this copy was found by: deleted (admin, retention), or its links were made new.
        """
        with connection.cursor() as cursor:
            cursor.execute(
                _locking_read(self.pk is not None), [self.token] if self.pk is None else [self.token, self.pk]
            )
            found = cursor.fetchall()
        if not found:
            raise Sitting.DoesNotExist("This sitting was deleted, or its links were made new.")
        sitting = build_row(Sitting, found[0][: column_count(Sitting)])
        seats = seated(sitting, [row[column_count(Sitting) :] for row in found])
        self._read_from(sitting)
        return sitting, seats

    @classmethod
    def reached_by(cls, link: str, token: str) -> Sitting | None:
        """The sitting whose `link` field ("token" or "watch_token") is `token`, read, or None: one
        fixed statement, as every page, poll and export of a table starts with it."""
        with connection.cursor() as cursor:
            cursor.execute(_link_read(link), [token])
            found = cursor.fetchone()
        return None if found is None else build_row(Sitting, found)

    @classmethod
    def at_link(cls, token: str) -> Sitting:
        """A copy that knows only its member link: the first verb's lock reads the row (so a change
        reads its sitting once), and fresh_table() reads it when no verb ran. Raises
        Sitting.DoesNotExist then, when no sitting has this link."""
        return cls(pk=None, token=token)

    def _read_from(self, fresh: Sitting) -> None:
        """Take every field of `fresh` when this copy came from at_link() and was not read yet."""
        if self.pk is None:
            self.__dict__.update({name: value for name, value in fresh.__dict__.items() if name != "_state"})
            self._state.adding, self._state.db = False, fresh._state.db

    def _adopt(self, fresh: Sitting) -> None:
        """Take the state a verb left in the locked copy `fresh`, without reading it again."""
        for name in (
            "token",
            "watch_token",
            "finished_at",
            "ended_how",
            "threshold",
            "tied_at",
            "chips_reissued",
            "reissued_before",
            "version",
            "changed_at",
            "next_sitting_id",
        ):
            setattr(self, name, getattr(fresh, name))

    def _update(self, **changes: object) -> None:
        """Write `changes` and the next version to this sitting's row (locked by the caller),
        and keep them on this copy."""
        changes["version"] = self.version + 1
        changes["changed_at"] = timezone.now()
        update_row(Sitting, self.pk, changes)
        for name, value in changes.items():
            setattr(self, name, value)

    def _score(self, n_seats: int, winner: int, extras: Mapping | None) -> tuple[dict, tuple[int, ...]]:
        if not 0 <= winner < n_seats:
            raise BadInput(_("Seat %(seat)d is not at this table: tap one of the names shown.") % {"seat": winner + 1})
        try:
            cleaned = self.rules.clean_extras(extras or {}, n_seats, winner)
            return cleaned, self.rules.score(n_seats, winner, cleaned)
        except rules.RuleError as error:
            raise BadInput(rule_message(error)) from None

    def _check_open(self, table: TableState, number: int) -> None:
        if self.is_finished:
            raise Conflict(_("This match is over: no more hands can be recorded."))
        if number < table.open_number:
            raise self._already_recorded(number, table)
        if number > table.open_number:
            raise Conflict(
                _("Hand %(number)d has not started: hand %(open)d is being played.")
                % {"number": number, "open": table.open_number}
            )

    def _already_recorded(self, number: int, table: TableState) -> AlreadyRecorded:
        hand = self.hands.filter(number=number).first()
        if hand is None or hand.winner_id is None:
            return AlreadyRecorded(
                _("Hand %(number)d was abandoned when the match ended.") % {"number": number}, number
            )
        return AlreadyRecorded(
            sentence(
                _("Hand %(number)d is already recorded: %(winner)s."),
                {"number": number, "winner": bdi(table.name_of(hand.winner_id))},
            ),
            number,
        )

    def _recompute(self, seats: list[Seat], corrected: int | None = None) -> None:
        """Replay every hand into the seats' totals, each hand's running totals and threshold,
        the threshold and the match end (after a correction or an undo: O(hands), and rare).

        Raises Conflict, naming the hand, when the replay ends the match before a hand that was
        won after it (hand `corrected` changed so that someone reached the target sooner): the
        first to reach it wins, so the hands after the end must be undone first.
        Source: RULES.md (match ends).
        """
        position = {seat.pk: seat.position for seat in seats}
        progress = rules.Progress.start(len(seats), self.match_end)
        hands = list(self.hands.order_by("number"))
        ended_at = None
        for hand in hands:
            if hand.winner_id is not None:
                if ended_at is not None:
                    last = hands[-1].number
                    raise Conflict(
                        ngettext(
                            "With this change the match ends at hand %(end)d, but hand %(last)d was played "
                            "after it. To make this change, undo that hand first, then correct hand "
                            "%(number)d again.",
                            "With this change the match ends at hand %(end)d, but hands %(next)d to %(last)d "
                            "were played after it. To make this change, undo them first (the last one each "
                            "time), then correct hand %(number)d again.",
                            last - ended_at,
                        )
                        % {"end": ended_at, "next": ended_at + 1, "last": last, "number": corrected or ended_at}
                    )
                progress = progress.after(self.match_end, position[hand.winner_id], hand.points)
                if progress.over:
                    ended_at = hand.number
            hand.running, hand.threshold_after = list(progress.totals), progress.threshold
        Hand.objects.bulk_update(hands, ["running", "threshold_after"], batch_size=500)
        for seat in seats:
            seat.total, seat.hands_won = progress.totals[seat.position], progress.wins[seat.position]
        Seat.objects.bulk_update(seats, ["total", "hands_won"])
        self._save_progress(progress, seats)

    def _store_best_runs(self, seats: list[Seat]) -> None:
        """Each seat's longest run of consecutive hands won, for the group's figures: worked out
        when the match ends (and again when a correction changes an ended match), not per tap."""
        position = {seat.pk: seat.position for seat in seats}
        winners = [position.get(w) for w in self.hands.order_by("number").values_list("winner_id", flat=True)]
        for seat in seats:
            seat.best_run = longest_run(winners, seat.position)
        Seat.objects.bulk_update(seats, ["best_run"])

    def _save_progress(self, progress: rules.Progress, seats: list[Seat]) -> None:
        """Store the threshold and the match end that `progress` says hold now, and a new version;
        at the match end, the seats' best runs too."""
        changes: dict[str, object] = {}
        if (progress.threshold, progress.tied_at) != (self.threshold, self.tied_at):
            changes.update(threshold=progress.threshold, tied_at=progress.tied_at)
        if progress.over and not self.is_finished:
            changes.update(finished_at=timezone.now(), ended_how=Sitting.EndedHow.MATCH_END)
        elif not progress.over and self.is_finished:
            changes.update(finished_at=None, ended_how=Sitting.EndedHow.PLAYING)
        self._update(**changes)
        if progress.over:
            self._store_best_runs(seats)

    # --- reading ---------------------------------------------------------

    def check_totals(self) -> list[str]:
        """Compare each seat's kept total and wins with the ledger of hand points.

        Returns one line per seat that disagrees (empty when all agree).
        """
        seats = list(self.seats.select_related("player").order_by("position"))
        totals = [0] * len(seats)
        wins = [0] * len(seats)
        by_id = {seat.pk: seat.position for seat in seats}
        for points, winner_id in self.hands.values_list("points", "winner_id"):
            for position, gained in enumerate(points):
                totals[position] += gained
            if winner_id is not None:
                wins[by_id[winner_id]] += 1
        return [
            f"{seat.name}: kept {seat.total} points and {seat.hands_won} wins, "
            f"ledger says {totals[seat.position]} and {wins[seat.position]}"
            for seat in seats
            if (seat.total, seat.hands_won) != (totals[seat.position], wins[seat.position])
        ]

    table_after_change: TableState | None = None  # set by record_hand, so the answer needs no new read
    state_before: tuple[int | None, bool] | None = None  # (threshold, is_finished) before record_hand's change

    def table(self, recent: int | None = HANDS_ON_TABLE) -> TableState:
        """What the match table shows, in two queries whatever the number of hands.

        `recent` limits the hand rows read, newest first (None: all of them).
        """
        with connection.cursor() as cursor:
            cursor.execute(_seats_read(), [self.pk])
            found = cursor.fetchall()
        seats = seated(self, found)
        return TableState(self, seats, *self._read_hands(seats, recent))

    def history_page(self, holding: int | None, size: int) -> tuple[TableState, int]:
        """The page of `size` hands that holds hand `holding`, newest first, as a TableState, and the
        number of the last hand. Pages are counted from the newest hand (the newest `size` hands, then
        the `size` before them...; the oldest page may hold fewer), so that paging back and forth
        lands on the same pages. None, or a number no hand has: the newest page. Two queries,
        whatever the number of hands."""
        state = self.table(recent=0)
        last = sum(seat.hands_won for seat in state.seats) + (1 if self.is_final else 0)
        wanted = holding if holding is not None and 1 <= holding <= last else last
        top = last - (last - wanted) // size * size
        state.recent_hands = list(self.hands.filter(number__lte=top, number__gt=top - size).order_by("-number"))
        return state, last

    def _read_hands(self, seats: list[Seat], recent: int | None, upcoming: int = 0) -> tuple[list[Hand], dict]:
        """The newest `recent` hands (newest first; None: all) and the hands the score chart draws,
        by number (as ChartPoint: number, running totals, threshold; the newest hands as Hand rows).
        The number of the last hand follows from the seats (won hands) and the match's state (a
        match ended by a member ends on one abandoned hand). `upcoming`: hands about to be added (a
        tap adds one), so that the chart samples as it will be drawn. Two queries at most."""
        if recent == 0:
            return [], {}
        if recent is None:
            hands = list(self.hands.order_by("-number"))
            return hands, {hand.number: hand for hand in hands}
        last = sum(seat.hands_won for seat in seats) + (1 if self.is_final else 0)
        if not last:
            return [], {}
        drawn = [number for number in sampled(last + upcoming + 1, CHART_POINTS) if 0 < number <= last - recent]
        with connection.cursor() as cursor:
            cursor.execute(_hands_read(len(drawn)), [self.pk, last - recent, *([self.pk, *drawn] if drawn else [])])
            found = cursor.fetchall()
        number, running, threshold = (column_position(Hand, name) for name in ("number", "running", "threshold_after"))
        hands, points, sampled_rows = [], {}, []
        for row in found:
            if row[number] > last - recent:
                hand = build_row(Hand, row)
                hands.append(hand)
                points[hand.number] = hand
            else:
                sampled_rows.append(row)
        totals = running_totals([row[running] for row in sampled_rows])
        points.update(
            {row[number]: ChartPoint(row[number], kept, row[threshold]) for row, kept in zip(sampled_rows, totals)}
        )
        hands.sort(key=lambda hand: hand.number, reverse=True)
        return hands, points

    def fresh_table(self, recent: int | None = HANDS_ON_TABLE) -> TableState:
        """table(), with this sitting's row read again in the same snapshot as its seats and hands,
        so that version, totals and hands agree even while other phones tap. Inside a transaction
        (a GET view's snapshot, a verb) the reads agree already: no row is read again. Raises
        Sitting.DoesNotExist when the sitting is gone from this copy's link (see _lock)."""
        if connection.in_atomic_block and self.pk is not None:
            return self.table(recent)
        with read_snapshot():
            link = {"token": self.token} if self.pk is None else {"pk": self.pk, "token": self.token}
            fresh = Sitting.objects.get(**link)  # DoesNotExist: deleted, or its links were made new
            self._read_from(fresh)
            self._adopt(fresh)
            return self.table(recent)


def as_stored(extras: Mapping) -> dict:
    """A hand's extra facts as its JSON column gives them back (a tuple of seats comes back a list),
    to compare cleaned answers with a recorded hand's."""
    return json.loads(json.dumps(extras))


def running_totals(values: list) -> list:
    """Hand.running as read from the database, for the chart's sampled hands: JSON texts decoded in
    one pass (a tenth of the cost of one by one), else each converted as the ORM converts it."""
    if values and all(isinstance(value, str) for value in values):
        return json.loads(f"[{','.join(values)}]")
    return [convert_column(Hand, "running", value) for value in values]


def seated(sitting: Sitting, found: list[tuple]) -> list[Seat]:
    """`sitting`'s seats, with their players, from rows of a seat's columns then a player's."""
    seats = []
    for row in found:
        seat = build_row(Seat, row[: column_count(Seat)])
        seat.sitting, seat.player = sitting, build_row(Player, row[column_count(Seat) :])
        seats.append(seat)
    return seats


@functools.cache
def _locking_read(by_pk: bool) -> str:
    """The statement of Sitting._lock: the sitting, its seats and their players, by link (and pk)."""
    quote = connection.ops.quote_name
    return (
        f"SELECT {sql_columns(Sitting, 's')}, {sql_columns(Seat, 't')}, {sql_columns(Player, 'p')} "
        f"FROM {quote(Seat._meta.db_table)} t JOIN {quote(Sitting._meta.db_table)} s ON s.id = t.sitting_id "
        f"JOIN {quote(Player._meta.db_table)} p ON p.id = t.player_id "
        f"WHERE s.token = %s{' AND s.id = %s' if by_pk else ''} ORDER BY t.position{lock_clause('t', 's')}"
    )


@functools.cache
def _link_read(link: str) -> str:
    """The statement of Sitting.reached_by: a sitting by one of its links."""
    if link not in ("token", "watch_token"):
        raise ValueError(f"{link!r} is not a link of a sitting")
    quote = connection.ops.quote_name
    return f"SELECT {sql_columns(Sitting, 's')} FROM {quote(Sitting._meta.db_table)} s WHERE s.{quote(link)} = %s"


@functools.cache
def _seats_read() -> str:
    """The statement of Sitting.table: a sitting's seats in playing order, with their players."""
    quote = connection.ops.quote_name
    return (
        f"SELECT {sql_columns(Seat, 't')}, {sql_columns(Player, 'p')} FROM {quote(Seat._meta.db_table)} t "
        f"JOIN {quote(Player._meta.db_table)} p ON p.id = t.player_id WHERE t.sitting_id = %s ORDER BY t.position"
    )


@functools.cache
def _hands_read(drawn: int) -> str:
    """The statement of Sitting._read_hands: a sitting's hands after a number, and `drawn` more by
    number (two index searches: an OR of both would scan every hand of the sitting)."""
    select = f"SELECT {sql_columns(Hand, 'h')} FROM {connection.ops.quote_name(Hand._meta.db_table)} h"
    newest = f"{select} WHERE h.sitting_id = %s AND h.number > %s"
    if not drawn:
        return newest
    chart_columns = ", ".join(
        f"h.{connection.ops.quote_name(field.column)}" if field.name in ChartPoint._fields else "NULL"
        for field in Hand._meta.concrete_fields
    )  # what the chart draws of the older hands; NULL keeps the columns of the newest hands' rows
    return (
        f"{newest} UNION ALL SELECT {chart_columns} FROM {connection.ops.quote_name(Hand._meta.db_table)} h "
        f"WHERE h.sitting_id = %s AND h.number IN ({', '.join(['%s'] * drawn)})"
    )


def longest_run(winners: Sequence[int | None], seat: int) -> int:
    """The most consecutive entries of `winners` (hands in order; None: abandoned) equal to `seat`."""
    best = run = 0
    for winner in winners:
        run = run + 1 if winner == seat else 0
        best = max(best, run)
    return best


def default_match_end(game: rules.Game) -> rules.MatchEnd:
    """The match end a sitting gets when none is chosen: open where the game allows it."""
    kind = game.match_ends[0]
    if kind in (rules.MatchEndKind.OPEN, rules.MatchEndKind.THRESHOLDS):
        return rules.MatchEnd(kind)
    return rules.MatchEnd(kind, game.default_target)


def match_end_choices(game: rules.Game) -> str:
    return ", ".join(str(MATCH_END_WORDS[kind]) for kind in game.match_ends)


MATCH_END_WORDS = {
    rules.MatchEndKind.OPEN: gettext_lazy("open (until someone ends it)"),
    rules.MatchEndKind.WINS: gettext_lazy("first to N hands won"),
    rules.MatchEndKind.HANDS: gettext_lazy("after N hands"),
    rules.MatchEndKind.POINTS: gettext_lazy("first to N points"),
    rules.MatchEndKind.THRESHOLDS: gettext_lazy("thresholds: 10, then 5 more after each tie at the top"),
}


def check_options(
    game: rules.Game, starting_chips: int | None, stake_amount: int | None, stake_label: str
) -> dict[str, object]:
    """The sitting's game-specific settings, checked; raises BadInput naming what to fix."""
    if not game.uses_chips and starting_chips is not None:
        raise BadInput(_("%(game)s is not played with chips.") % {"game": _(game.name)})
    if not game.uses_stake and (stake_amount is not None or stake_label):
        raise BadInput(_("%(game)s is not played for a stake.") % {"game": _(game.name)})
    if game.uses_chips:
        starting_chips = DEFAULT_STARTING_CHIPS if starting_chips is None else starting_chips
        if not 1 <= starting_chips <= MAX_STARTING_CHIPS:
            raise BadInput(_("Start each player with 1 to %(max)d chips.") % {"max": MAX_STARTING_CHIPS})
    if stake_amount is not None and not 1 <= stake_amount <= MAX_STAKE:
        raise BadInput(_("A stake is between 1 and %(max)d.") % {"max": MAX_STAKE})
    if len(stake_label) > STAKE_LABEL_MAX_LENGTH:
        raise BadInput(_("Keep the currency to %(max)d characters, like FCFA.") % {"max": STAKE_LABEL_MAX_LENGTH})
    return dict(starting_chips=starting_chips, stake_amount=stake_amount, stake_label=stake_label)


class Seat(models.Model):
    """A player's place in a sitting. `position` is 0-based, in playing order.

    `total` and `hands_won` are kept in step with the hands in the same
    transaction as every change; `Sitting.check_totals` compares them with the ledger.
    """

    sitting = models.ForeignKey(Sitting, on_delete=models.CASCADE, related_name="seats")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="seats")
    position = models.PositiveSmallIntegerField()
    total = models.IntegerField(default=0)
    hands_won = models.PositiveIntegerField(default=0)
    best_run = models.PositiveIntegerField(default=0)  # most hands won in a row, kept once the match ends

    class Meta:
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(fields=["sitting", "position"], name="one_player_per_seat"),
            models.UniqueConstraint(fields=["sitting", "player"], name="one_seat_per_player"),
        ]

    def __str__(self) -> str:
        return self.player.name

    @property
    def name(self) -> str:
        return self.player.name

    @staticmethod
    def add_points(seats: Sequence[Seat], points: Sequence[int], winner: int, sign: int) -> None:
        """Add (sign=1) or take back (sign=-1) one hand's points and win, in one UPDATE."""
        changed = [(seat, gained) for seat, gained in zip(seats, points) if gained or seat is seats[winner]]
        gains = " ".join("WHEN %s THEN %s" for _ in changed)
        with connection.cursor() as cursor:
            cursor.execute(
                f"UPDATE {connection.ops.quote_name(Seat._meta.db_table)} "
                f"SET total = total + CASE id {gains} ELSE 0 END, "
                "hands_won = hands_won + CASE WHEN id = %s THEN %s ELSE 0 END "
                f"WHERE id IN ({', '.join(['%s'] * len(changed))})",
                [
                    *(value for seat, gained in changed for value in (seat.pk, sign * gained)),
                    seats[winner].pk,
                    sign,
                    *(seat.pk for seat, _ in changed),
                ],
            )
        for seat, gained in changed:
            seat.total += sign * gained
        seats[winner].hands_won += sign


class Hand(models.Model):
    """One hand of a sitting: its number, who won it, and the points it gave each seat.

    `points` lists the points per seat in seat order, fixed when recorded so
    that history never shifts if scoring code changes. `extras` holds a game's
    extra facts about the hand (how the last trick was won, ...).
    """

    Status = HandStatus

    sitting = models.ForeignKey(Sitting, on_delete=models.CASCADE, related_name="hands")
    number = models.PositiveIntegerField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.WON)
    winner = models.ForeignKey(Seat, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    dealer_position = models.PositiveSmallIntegerField()
    extras = models.JSONField(default=dict, blank=True)
    points = models.JSONField(default=list)
    running = models.JSONField(default=list)  # each seat's total after this hand: the score chart's points
    threshold_after = models.PositiveIntegerField(null=True, blank=True)  # Eighty Three's threshold after it
    recorded_at = models.DateTimeField(default=timezone.now)
    recorded_by_phone = models.CharField(max_length=12, blank=True)
    recorded_by_seat = models.PositiveSmallIntegerField(null=True, blank=True)
    corrected_at = models.DateTimeField(null=True, blank=True)
    corrected_by_phone = models.CharField(max_length=12, blank=True)
    corrected_by_seat = models.PositiveSmallIntegerField(null=True, blank=True)
    stamp = models.CharField(max_length=12, default=new_stamp, editable=False)  # new on every change

    class Meta:
        ordering = ["number"]
        constraints = [
            models.UniqueConstraint(fields=["sitting", "number"], name="one_row_per_hand"),
            models.CheckConstraint(condition=models.Q(number__gte=1), name="hand_numbers_start_at_1"),
            models.CheckConstraint(
                condition=models.Q(status="won", winner__isnull=False)
                | models.Q(status="abandoned", winner__isnull=True),
                name="won_hands_have_a_winner",
            ),
        ]

    def __str__(self) -> str:
        return f"Hand {self.number}"

    def clean(self) -> None:
        """The winner must hold a seat in this sitting."""
        if self.winner is not None and self.winner.sitting_id != self.sitting_id:
            raise ValidationError({"winner": _("The winner must be seated at this table.")})
