"""Groups of people who play together, reached by a random 128-bit link or a read-only watch link (no
accounts). Every verb locks the group row, so two phones changing one group are serialised."""

from __future__ import annotations

from collections.abc import Sequence

from django.db import models, transaction
from django.urls import reverse
from django.utils import timezone

from matches.domain import rules
from matches.domain.capacity import GROUP_HANDS, GROUP_MATCHES, GROUP_PLAYERS
from matches.domain.errors import BadInput, Conflict
from matches.domain.names import (
    GROUP_NAME_MAX_LENGTH,
    checked_name,
    clean_name,
    group_name_refusal,
    is_visible,
    repeats,
    same_as,
    same_name,
)
from matches.models import announce
from matches.models.options import sitting_options
from matches.models.payments import TabVerbs
from matches.models.players import PlayerChange
from matches.models.sittings import Player, Sitting, new_token
from matches.models import quick_reads
from matches.models.tokens import LinkedQuerySet, reachable
from matches.models.zones import ZONE_MAX_LENGTH, clean_zone, zone_named

ERASED_NAME = "Erased player %(n)d"  # the web layer passes it in the reader's language
LARGEST_ID = 2**63 - 1  # ids beyond this are no row's (and would overflow the database's integers)


class Group(TabVerbs, models.Model):
    """Friends who play together, reached by the group's link; `version` is bumped by every change.
    Its tab's verbs (mark_paid, take_back, forgive_tab): models/payments.py."""

    token = models.CharField(max_length=32, unique=True, default=new_token, editable=False)
    watch_token = models.CharField(max_length=32, unique=True, default=new_token, editable=False)
    name = models.CharField(max_length=GROUP_NAME_MAX_LENGTH, blank=True)
    version = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(default=timezone.now)
    changed_at = models.DateTimeField(default=timezone.now, db_index=True)
    # Hands over all its matches (abandoned ones too), kept in step by each verb that adds or removes one
    # under the group's lock: a tap checks GROUP_HANDS here instead of counting them.
    hands = models.PositiveIntegerField(default=0)
    # The IANA time zone of the phone that made it; "": the server's TIME_ZONE. Its matches keep their own.
    time_zone = models.CharField(max_length=ZONE_MAX_LENGTH, blank=True, default="")
    # Made from an archive (services.archive): its history is what the file said, which anyone could edit.
    imported_at = models.DateTimeField(null=True, blank=True)

    objects = LinkedQuerySet.as_manager()

    def __str__(self) -> str:
        return self.name or f"group {self.pk}"

    def get_absolute_url(self) -> str:
        return reverse("group", kwargs={"token": self.token})

    @property
    def zone(self):
        """The group's clock (a tzinfo): the day its files are named for."""
        return zone_named(self.time_zone)

    @classmethod
    def reached_by(cls, link: str, token: object) -> Group | None:
        """The group whose `link` field ("token"/"watch_token") is `token`, or None; malformed tokens not looked up."""
        return quick_reads.linked(cls, link, token) if reachable(link, token) else None

    def members(self) -> models.QuerySet[Player]:
        """The players who can be seated today: in the group, not removed, not erased; by name."""
        return self.players.current().order_by("name")

    def find_player(self, player_id: int) -> Player | None:
        """The group's player `player_id` (a member or a former player); None when erased or not the group's."""
        if player_id > LARGEST_ID:
            return None
        return self.players.named().filter(pk=player_id).first()


    @classmethod
    def create(cls, name: str = "", players: Sequence[str] = (), time_zone: str = "") -> Group:
        """A new group `name` (may be blank) with these players; `time_zone` the phone's ("" or unknown:
        the server's). Raises BadInput for a long name or a refused player name."""
        name = clean_name(name)
        if (refusal := group_name_refusal(name)) is not None:
            raise refusal
        listed = [player for player in map(clean_name, players) if is_visible(player)]  # blank: refused below
        if twice := next(repeats(listed), None):
            raise BadInput("listed_twice", name=listed[twice[0]])
        with transaction.atomic():
            group = cls.objects.create(name=name, time_zone=clean_zone(time_zone))
            for player in players:
                group._new_player(player)
        return group

    def add_player(self, name: str, by: str = "") -> Player:
        """A newcomer joins, or a removed namesake comes back. BadInput: empty, over 40 characters, or taken.
        `by`: the phone's id, kept in the receipt of each change to a player (PlayerChange)."""
        with transaction.atomic():
            group = self._lock()
            player = group._new_player(name, by)
            group._touch()
        self._adopt(group)
        return player

    def rename_player(self, player_id: int, name: str, by: str = "") -> Player:
        """Rename a member everywhere, history included. BadInput as add_player; Conflict if not here or erased."""
        with transaction.atomic():
            group = self._lock()
            player = group._member(player_id)
            before, player.name = player.name, group._checked_name(name, keep=player)
            if player.name == before:
                return player
            player.save(update_fields=["name"])
            renamed = PlayerChange.Verb.RENAMED
            PlayerChange.objects.create(player=player, verb=renamed, before=before, after=player.name, by_phone=by)
            group._touch()
            _shown_again(player)
        self._adopt(group)
        return player

    def remove_player(self, player_id: int, by: str = "") -> Player:
        """Take a player off the group's list of people to seat; their matches and figures stay."""
        with transaction.atomic():
            group = self._lock()
            player = group._member(player_id)
            player.left = True
            player.save(update_fields=["left"])
            PlayerChange.objects.create(player=player, verb=PlayerChange.Verb.REMOVED, by_phone=by)
            group._touch()
        self._adopt(group)
        return player

    def erase_player(self, player_id: int, erased_name: str = ERASED_NAME, by: str = "") -> Player:
        """Replace a player's name everywhere by `erased_name` % {"n": N} and remove them; their scores stay
        so that the others' figures remain true. Their receipts keep no name of theirs."""
        with transaction.atomic():
            group = self._lock()
            player = group._member(player_id)
            erased = group.players.filter(erased=True).count() + 1
            player.name, player.left, player.erased = erased_name % {"n": erased}, True, True
            player.save(update_fields=["name", "left", "erased"])
            player.changes.update(before="", after="")
            PlayerChange.objects.create(player=player, verb=PlayerChange.Verb.ERASED, by_phone=by)
            group._touch()
            _shown_again(player)
        self._adopt(group)
        return player

    def rotate_links(self) -> dict[str, str]:
        """New member and watch links, for the group and each of its matches (the group's page lists their
        links, and each leads to the group's): the old ones stop working at once (a link leaked). A match
        outside the group no longer leads to its rematch in it. Returns each match's old member link's token
        and its new one."""
        with transaction.atomic():
            group = self._lock()
            group.token, group.watch_token = new_token(), new_token()
            group._touch(fields=["token", "watch_token"])
            ours = list(Sitting.objects.filter(group=group).values_list("pk", "token"))
            moved = {token: new_token() for _, token in ours}
            for pk, token in ours:
                fresh = {"token": moved[token], "watch_token": new_token(), "version": models.F("version") + 1}
                Sitting.objects.filter(pk=pk).update(**fresh)
            leading_in = Sitting.objects.filter(next_sitting__group=group).exclude(group=group)
            outside = list(leading_in.values_list("pk", flat=True))
            leading_in.update(next_sitting=None, version=models.F("version") + 1)
            announce.sittings_changed([pk for pk, _ in ours] + outside)
        self._adopt(group)
        return moved

    def start_match(
        self,
        game: str,
        seating: Sequence[int | str],
        match_end: rules.MatchEnd | None = None,
        time_zone: str = "",
        **options,
    ) -> Sitting:
        """A new sitting of `game` in `seating` order: member ids or newcomers' names (they join).
        Raises BadInput for a stranger, someone seated twice, a refused name, or what Sitting.start refuses."""
        with transaction.atomic():
            group = self._lock()
            group._room_for_a_match()
            members = {player.pk: player for player in group.members()}
            players: list[Player] = []
            for entry in seating:
                if isinstance(entry, int):
                    if entry not in members:
                        raise group.left_refusal([entry])
                    player = members[entry]
                else:
                    player = group._new_player(entry)
                if any(player.pk == seated.pk for seated in players):
                    raise BadInput("picked_twice", name=player.name)
                players.append(player)
            zone = clean_zone(time_zone) or group.time_zone
            sitting = Sitting._seat(game, players, match_end, sitting_options(**options), group=group, time_zone=zone)
            group._touch()
        self._adopt(group)
        return sitting

    def save_sitting(self, sitting: Sitting) -> Sitting:
        """Bring a group-less match into this group: each seat becomes the same-named member (names.same_as)
        or joins. A seat of another group's player (a rematch) gets a player here, so the other group
        never changes. Raises Conflict (in another group), BadInput (two seats, one member). Idempotent."""
        given = sitting
        with transaction.atomic():
            group = self._lock()
            sitting = Sitting.objects.select_for_update().get(pk=given.pk)
            if sitting.group_id == group.pk:
                return sitting
            if sitting.group_id is not None:
                raise Conflict("saved_elsewhere")
            hands = sitting.hands.count()
            group._room_for_a_match(hands)
            room = GROUP_PLAYERS - group.players.count()  # for those who join
            known = list(group.players.named())
            seats = list(sitting.seats.select_related("player").order_by("position"))
            chosen: list[Player] = []
            for seat in seats:
                player = seat.player
                if player.group_id == group.pk:
                    member = player  # a rematch of a match saved here shares this group's players
                else:
                    member = same_as(player.name, known, _name_of)
                if member is not None and any(member.pk == other.pk for other in chosen):
                    raise BadInput("same_name_in_match", name=player.name)
                if member is None:
                    group.not_renamed_from(player.name)
                    room -= 1
                    if room < 0:
                        raise Conflict("group_players_full", max=GROUP_PLAYERS)
                if member is None and player.group_id is None:
                    member = player
                    Player.objects.filter(pk=member.pk).update(group=group, left=False)
                    member.group_id, member.left = group.pk, False
                    known.append(member)
                elif member is None:
                    # A rematch of a match saved in another group: that group keeps its player, this one gets its own.
                    member = Player.objects.create(name=player.name, group=group)
                    known.append(member)
                chosen.append(member)
            for seat, member in zip(seats, chosen):
                if member.pk != seat.player_id:
                    seat.player = member
                    seat.save(update_fields=["player"])
                if member.left and not member.erased:
                    Player.objects.filter(pk=member.pk).update(left=False)
            sitting.group = group
            sitting._update(group=group)
            group.hands += hands
            group._touch(["hands"])
        self._adopt(group)
        given.refresh_from_db()
        return sitting

    def last_settings(self, game: str) -> dict[str, object]:
        """The match end and options of this group's latest `game` match, offered first; {} if never played."""
        latest = self.sittings.filter(game=game).order_by("-started_at").first()
        if latest is None:
            return {}
        return {
            "end_kind": latest.end_kind,
            "end_target": latest.end_target,
            "starting_chips": latest.starting_chips,
            "stake_amount": latest.stake_amount,
            "stake_label": latest.stake_label,
        }


    def _lock(self) -> Group:
        """The group row, locked and re-read; Group.DoesNotExist when this copy's link no longer reaches it."""
        return Group.objects.select_for_update().get(pk=self.pk, token=self.token)

    def _adopt(self, fresh: Group) -> None:
        for name in ("token", "watch_token", "version", "changed_at"):
            setattr(self, name, getattr(fresh, name))

    def _touch(self, fields: Sequence[str] = ()) -> None:
        self.version += 1
        self.changed_at = timezone.now()
        self.save(update_fields=["version", "changed_at", *fields])
        announce.group_changed(self.pk)

    def _member(self, player_id: int) -> Player:
        player = self.find_player(player_id)
        if player is None:
            raise Conflict("not_in_group")
        return player

    def _on_tab(self, player_id: int) -> Player:
        """A player whose payments the tab takes: any of the group's, erased ones too (what they owe stays)."""
        player = self.players.filter(pk=player_id).first() if player_id <= LARGEST_ID else None
        if player is None:
            raise Conflict("not_in_group")
        return player

    def _checked_name(self, raw: str, keep: Player | None = None) -> str:
        """`raw` as a name (names.checked_name) no other player has; `keep` may keep its own name in other
        letters; a newcomer may be a former player back."""
        name = checked_name(raw)
        for other in self.players.all():
            if other.pk == getattr(keep, "pk", None) or not same_name(other.name, name):
                continue
            if other.erased:
                raise BadInput("name_erased", name=other.name)
            if not other.left:
                raise BadInput("name_taken", name=other.name)
            if keep is not None:  # a newcomer of a former player's name is that player, back (_new_player)
                raise BadInput("name_former", name=other.name)
        self.not_renamed_from(name, keep)
        return name

    def not_renamed_from(self, name: str, keep: Player | None = None) -> None:
        """BadInput "name_was_other" when another player than `keep` had `name` before a rename: taken, it
        would put someone in their place in the history and on the tab."""
        renamed = PlayerChange.objects.filter(player__group=self, verb=PlayerChange.Verb.RENAMED)
        for change in renamed.exclude(player_id=getattr(keep, "pk", None)).select_related("player"):
            if same_name(change.before, name):  # (an erased player's receipts keep no name: theirs is free)
                raise BadInput("name_was_other", other=change.before, name=change.player.name)

    def _new_player(self, raw: str, by: str = "") -> Player:
        name = self._checked_name(raw)
        returning = same_as(name, self.players.former(), _name_of)
        if returning is not None:
            returning.left = False
            returning.save(update_fields=["left"])
            PlayerChange.objects.create(player=returning, verb=PlayerChange.Verb.BACK, by_phone=by)
            return returning
        if self.players.count() >= GROUP_PLAYERS:  # the row of each who left or was erased stays
            raise Conflict("group_players_full", max=GROUP_PLAYERS)
        return Player.objects.create(name=name, group=self)

    def left_refusal(self, gone: Sequence[int]) -> BadInput:
        """The refusal of a seating that names who has left this group (ids of no player of it: unnamed)."""
        names = self.players.filter(pk__in=gone).order_by("name").values_list("name", flat=True)
        return BadInput("players_left", name=", ".join(names)) if names else BadInput("player_gone")

    def _room_for_a_match(self, hands: int = 0) -> None:
        """Conflict unless the (locked) group keeps one more match, holding `hands` hands already."""
        if self.sittings.count() >= GROUP_MATCHES:
            raise Conflict("group_matches_full", max=GROUP_MATCHES)
        if hands and self.hands + hands > GROUP_HANDS:
            raise Conflict("group_hands_full", max=GROUP_HANDS)


def _name_of(player: Player) -> str:
    return player.name


def _shown_again(player: Player) -> None:
    """Move a renamed player's sittings' versions on, so phones' polls fetch the new name."""
    shown = Sitting.objects.filter(seats__player=player)
    announce.sittings_changed(list(shown.values_list("pk", flat=True)))
    shown.update(version=models.F("version") + 1)  # (not changed_at: retention counts play, not names)
