"""Shapes shared by every game: packs, a tap's questions, table movement, match ends. Pure Python, so
rules are tested without a database; seats are 0-based indexes in playing order."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum

MAX_TARGET = 10_000


def gettext_noop(message: str) -> str:
    """Mark `message` for translation (Django's makemessages finds this name) without importing Django."""
    return message


class RuleError(ValueError):
    """Input the game's rules refuse. `template` is English marked for translation with %(name)s
    placeholders from `params` (a tuple: texts to list); str(error) is the English text; the Django side
    translates both."""

    def __init__(self, template: str, **params: object):
        self.template, self.params = template, params
        english = {key: ", ".join(value) if isinstance(value, tuple) else value for key, value in params.items()}
        super().__init__(template % english if params else template)


class Direction(StrEnum):
    CLOCKWISE = "clockwise"
    COUNTER_CLOCKWISE = "counter-clockwise"


class NextDealer(StrEnum):
    """Who deals the next hand: the hand's winner, or the next player in playing order (ROTATE)."""

    WINNER = "winner"
    ROTATE = "rotate"


class Leader(StrEnum):
    """Who leads the first trick of a hand, in terms of playing order."""

    DEALER = "dealer"
    AFTER_DEALER = "after-dealer"
    BEFORE_DEALER = "before-dealer"


class MatchEndKind(StrEnum):
    """How a sitting ends by itself; OPEN means only End match ends it."""

    OPEN = "open"
    WINS = "wins"
    HANDS = "hands"
    POINTS = "points"
    THRESHOLDS = "thresholds"  # Eighty Three: 10, raised by 5 on every tie at the top

    @property
    def takes_target(self) -> bool:
        """Whether this match end needs a number N (a count of wins, hands or points)."""
        return self in (MatchEndKind.WINS, MatchEndKind.HANDS, MatchEndKind.POINTS)


MATCH_END_WORDS = {
    MatchEndKind.OPEN: gettext_noop("open (until someone ends it)"),
    MatchEndKind.WINS: gettext_noop("first to N hands won"),
    MatchEndKind.HANDS: gettext_noop("after N hands"),
    MatchEndKind.POINTS: gettext_noop("first to N points"),
    MatchEndKind.THRESHOLDS: gettext_noop("thresholds: 10, then 5 more after each tie at the top"),
}

THRESHOLD_START = 10
THRESHOLD_STEP = 5


@dataclass(frozen=True)
class MatchEnd:
    """A sitting's match-end rule. `target` is a count of wins, hands or points (None for OPEN and THRESHOLDS)."""

    kind: MatchEndKind = MatchEndKind.OPEN
    target: int | None = None

    def __post_init__(self) -> None:
        if not self.kind.takes_target:
            if self.target is not None:
                raise RuleError(gettext_noop("This match end takes no number."))
        elif self.target is None or not 1 <= self.target <= MAX_TARGET:
            raise RuleError(gettext_noop("Choose a number between 1 and %(max)d."), max=MAX_TARGET)


@dataclass(frozen=True)
class Pack:
    """The cards a table prepares: `size` cards, described for the help card."""

    size: int
    description: str


@dataclass(frozen=True)
class Choice:
    """One answer: `value` is posted by the tap; `short` is the button's words ("a six") for rows and notices."""

    value: str
    label: str
    short: str


@dataclass(frozen=True)
class Question:
    """An extra fact a tap asks after the winner: kind "choice" (`choices` in button order), "flag"
    (yes/no) or "seats" (posted 1-based). `when` = (key, value): ask only after that answer.
    `others_only`: the winner cannot be a seat. `short` names the fact in a hand row."""

    key: str
    prompt: str
    kind: str
    choices: tuple[Choice, ...] = ()
    when: tuple[str, str] | None = None
    others_only: bool = False
    short: str = ""

    def clean(self, raw: object, n_seats: int, winner: int) -> object:
        """The typed answer: choice value (str), bool, or sorted tuple of 0-based seats. A field posted
        several times (a retried post) counts once if every copy agrees, else is refused."""
        if self.kind != "seats" and isinstance(raw, (list, tuple)):
            if len({str(value) for value in raw}) != 1:
                raise RuleError(gettext_noop("%(prompt)s Give one answer, not several."), prompt=self.prompt)
            raw = raw[0]
        if self.kind == "choice":
            value = str(raw)
            if value not in {choice.value for choice in self.choices}:
                allowed = tuple(choice.short for choice in self.choices)  # the answers' words, not their codes
                raise RuleError(
                    gettext_noop("%(prompt)s Answer with one of these: %(allowed)s."), prompt=self.prompt, allowed=allowed
                )
            return value
        if self.kind == "flag":
            if isinstance(raw, bool):
                return raw
            if str(raw).lower() in {"1", "true", "yes", "on"}:
                return True
            if str(raw).lower() in {"", "0", "false", "no", "off"}:
                return False
            raise RuleError(gettext_noop("%(prompt)s Answer yes or no."), prompt=self.prompt)
        seats = raw if isinstance(raw, (list, tuple)) else [raw]
        positions = set()
        for seat in seats:
            try:
                position = seat_number(seat) - 1
            except ValueError:
                raise RuleError(
                    gettext_noop("%(prompt)s Pick players by their seat number, not %(seat)s."),
                    prompt=self.prompt,
                    seat=repr(seat),
                ) from None
            if not 0 <= position < n_seats:
                raise RuleError(
                    gettext_noop("%(prompt)s There is no seat %(seat)d at this table."),
                    prompt=self.prompt,
                    seat=position + 1,
                )
            if self.others_only and position == winner:
                raise RuleError(gettext_noop("%(prompt)s The hand's winner cannot be one of them."), prompt=self.prompt)
            positions.add(position)
        return tuple(sorted(positions))

    def default(self) -> object:
        if self.kind == "choice":
            return self.choices[0].value
        return False if self.kind == "flag" else ()


def seat_number(raw: object) -> int:
    """A seat number as a page posts it (ASCII digits) or as the code passes it (an int); ValueError for anything
    else: int() would also read "+2", " 2 ", "0_2" and other scripts' digits, which no page sends."""
    if isinstance(raw, int) and not isinstance(raw, bool):
        return raw
    if isinstance(raw, str) and raw.isascii() and raw.isdecimal():
        return int(raw)
    raise ValueError(raw)


Scorer = Callable[[int, int, Mapping[str, object]], tuple[int, ...]]


@dataclass(frozen=True)
class Game:
    """One registry entry. `score(n_seats, winner, extras)` -> points per seat (tuple of ints) from
    cleaned extras. `cards_by_players` overrides `cards_each`; `end_targets`/`deal_rounds` set
    match-end numbers; `too_many_players` explains `max_players` ("" when the rule alone sets it)."""

    slug: str
    name: str
    region: str
    min_players: int
    max_players: int
    pack: Pack
    cards_each: int
    deal_batches: tuple[int, ...]
    ranking: str
    deciding_trick: str
    direction: Direction
    next_dealer: NextDealer
    leader: Leader
    score: Scorer
    match_ends: tuple[MatchEndKind, ...]
    scoring: str  # how a hand scores, one sentence for the help card
    end_targets: Mapping[MatchEndKind, int] = field(default_factory=dict)
    deal_rounds: int = 0
    too_many_players: str = ""
    questions: tuple[Question, ...] = ()
    cards_by_players: Mapping[int, int] = field(default_factory=dict)
    pack_by_players: Mapping[int, Pack] = field(default_factory=dict)
    uses_chips: bool = False
    uses_stake: bool = False
    unit: str = gettext_noop("points")
    notes: tuple[str, ...] = ()


    def check_player_count(self, count: int) -> None:
        """Raise RuleError when `count` players cannot play: how many are missing, or the range and reason."""
        if count < self.min_players:
            missing = self.min_players - count
            if missing == 1:
                template = gettext_noop("%(game)s needs at least %(min)d players: add a name.")
            else:
                template = gettext_noop("%(game)s needs at least %(min)d players: add %(missing)d names.")
            raise RuleError(template, game=self.name, min=self.min_players, missing=missing)
        if count > self.max_players:
            if not self.too_many_players:
                raise RuleError(
                    gettext_noop("%(game)s is for %(min)d to %(max)d players."),
                    game=self.name,
                    min=self.min_players,
                    max=self.max_players,
                )
            raise RuleError(
                gettext_noop("%(game)s is for %(min)d to %(max)d players: %(why)s"),
                game=self.name,
                min=self.min_players,
                max=self.max_players,
                why=self.too_many_players,
            )

    def seats_in_range(self, count: int) -> int:
        """`count` brought within the game's range of players."""
        return max(self.min_players, min(count, self.max_players))

    def cards_for(self, n_seats: int) -> int:
        return self.cards_by_players.get(n_seats, self.cards_each)

    def pack_for(self, n_seats: int) -> Pack:
        return self.pack_by_players.get(n_seats, self.pack)


    def target_for(self, kind: MatchEndKind, n_seats: int) -> int | None:
        """Starting number of match end `kind` for `n_seats` (None if it takes none); with `deal_rounds`,
        "after N hands" gives everyone equal deals. Source: RULES.md, Letzter Stich."""
        if not kind.takes_target:
            return None
        if kind is MatchEndKind.HANDS and self.deal_rounds:
            return self.deal_rounds * self.seats_in_range(n_seats)
        return self.end_targets[kind]

    def deals_unevenly(self, end: MatchEnd, n_seats: int) -> bool:
        """Whether a match of a set number of hands has some deal once more than others: the deal passes
        round the table and the number is no multiple of the players. Source: RULES.md, Letzter Stich."""
        rotates = self.next_dealer is NextDealer.ROTATE
        return rotates and end.kind is MatchEndKind.HANDS and end.target % n_seats != 0

    @property
    def default_target(self) -> int | None:
        """The number of the game's first match end, for the smallest table."""
        return self.target_for(self.match_ends[0], self.min_players)


    def asked(self, extras: Mapping[str, object]) -> list[Question]:
        """The questions that apply given the answers so far (a `when` question only after its trigger)."""
        return [q for q in self.questions if q.when is None or str(extras.get(q.when[0])) == q.when[1]]

    def clean_extras(self, raw: Mapping[str, object], n_seats: int, winner: int) -> dict[str, object]:
        """A hand's extra facts typed (seats 0-based), or RuleError. No questions: any fact is refused;
        a missing choice is refused, a missing flag is no, missing seats are none."""
        known = {q.key for q in self.questions}
        unknown = sorted(set(raw) - known)
        if unknown:
            if not self.questions:
                raise RuleError(gettext_noop("%(game)s records only the winner of a hand."), game=self.name)
            raise RuleError(gettext_noop("%(game)s records only the answers it asks for."), game=self.name)
        cleaned: dict[str, object] = {}
        for question in self.questions:
            if question.when is not None and str(cleaned.get(question.when[0])) != question.when[1]:
                if raw.get(question.key) not in (None, "", [], ()):
                    raise RuleError(
                        gettext_noop("%(prompt)s Asked only after the answer “%(answer)s”."),
                        prompt=question.prompt,
                        answer=self.answer_words(*question.when),
                    )
                continue
            if question.key not in raw:
                if question.kind == "choice":
                    raise RuleError(gettext_noop("%(prompt)s Tap one of the answers."), prompt=question.prompt)
                cleaned[question.key] = question.default()
                continue
            cleaned[question.key] = question.clean(raw[question.key], n_seats, winner)
        return cleaned

    def answer_words(self, key: str, value: str) -> str:
        """How the answer `value` to question `key` is said in a hand's row ("sweep of the first four tricks")."""
        question = next(q for q in self.questions if q.key == key)
        return next(choice.short for choice in question.choices if choice.value == value)

    def score_hand(self, n_seats: int, winner: int, raw: Mapping[str, object] | None = None) -> tuple[int, ...]:
        """Points per seat (tuple of `n_seats` ints) from extras as posted; RuleError when they do not fit."""
        self.check_player_count(n_seats)
        if not 0 <= winner < n_seats:
            raise RuleError(gettext_noop("Seat %(seat)d is not at this table."), seat=winner + 1)
        points = self.score(n_seats, winner, self.clean_extras(raw or {}, n_seats, winner))
        assert len(points) == n_seats
        return points


    # Who deals and leads next: matches.domain.seating (among the seats that play the hand).

    def cards_range(self) -> tuple[int, int]:
        """Fewest and most cards each, over the table sizes (equal unless it depends on the table)."""
        sizes = sorted(set(self.cards_by_players.values()) or {self.cards_each})
        return sizes[0], sizes[-1]


@dataclass(frozen=True)
class Progress:
    """A sitting's derived state: totals, wins, hands won, Eighty Three's threshold, over. Source: RULES.md."""

    totals: tuple[int, ...]
    wins: tuple[int, ...]
    hands: int = 0
    threshold: int | None = None
    tied_at: int | None = None  # the top score of the tie that last raised the threshold
    over: bool = False

    @classmethod
    def start(cls, n_seats: int, end: MatchEnd) -> Progress:
        threshold = THRESHOLD_START if end.kind is MatchEndKind.THRESHOLDS else None
        return cls(totals=(0,) * n_seats, wins=(0,) * n_seats, threshold=threshold)

    def after(
        self, end: MatchEnd, winner: int, points: Sequence[int], playing: Sequence[int] | None = None
    ) -> Progress:
        """The state after one more won hand; the match-end check runs once, over the seats `playing`
        (default: all; a seat that left the table cannot win the match). Source: RULES.md."""
        totals = tuple(total + gained for total, gained in zip(self.totals, points, strict=True))
        wins = tuple(won + (seat == winner) for seat, won in enumerate(self.wins))
        state = replace(self, totals=totals, wins=wins, hands=self.hands + 1)
        return state._checked(end, range(len(totals)) if playing is None else playing)

    def _checked(self, end: MatchEnd, playing: Sequence[int]) -> Progress:
        totals = [self.totals[seat] for seat in playing]
        top = max(totals)
        if end.kind is MatchEndKind.OPEN:
            return replace(self, over=False)
        if end.kind is MatchEndKind.HANDS:
            return replace(self, over=self.hands >= end.target)
        if end.kind is MatchEndKind.WINS:
            return replace(self, over=max(self.wins[seat] for seat in playing) >= end.target)
        if end.kind is MatchEndKind.POINTS:
            return replace(self, over=top >= end.target)
        # Eighty Three: someone at or above the threshold; alone at the top wins, a tie raises it once.
        if top < self.threshold:
            return replace(self, over=False)
        if totals.count(top) == 1:
            return replace(self, over=True)
        return replace(self, over=False, threshold=self.threshold + THRESHOLD_STEP, tied_at=top)


def leaders(totals: Sequence[int]) -> list[int]:
    """Seats sharing the highest total (one seat: a clear winner; several: a shared first place)."""
    if not totals:
        return []
    top = max(totals)
    return [seat for seat, total in enumerate(totals) if total == top]


def to_winner(n_seats: int, winner: int, gain: int) -> tuple[int, ...]:
    """`gain` points to the winner, nothing to anybody else."""
    return tuple(gain if seat == winner else 0 for seat in range(n_seats))


def winner_takes_one(n_seats: int, winner: int, extras: Mapping[str, object]) -> tuple[int, ...]:
    """The hand's winner scores 1 (one win). Source: RULES.md, Agram family."""
    return to_winner(n_seats, winner, 1)
