"""The operator's admin: find a sitting by a pasted link, look at it, delete it. Nothing is editable:
state changes only through the verbs of `matches.models`, which keep totals, versions and ledger in step."""

from __future__ import annotations

import re
from collections.abc import Iterable

from django.contrib import admin
from django.contrib.admin.templatetags.admin_urls import add_preserved_filters
from django.db.models import Count, Q, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.utils.html import format_html

from matches.models import Hand, Seat, Sitting
from matches.models.tokens import TOKEN_PATTERN
from matches.services.retention import forget_sittings

TOKEN_IN_LINK = re.compile(rf"/[sw]/({TOKEN_PATTERN})(?![A-Za-z0-9_-])")
BARE_TOKEN = re.compile(TOKEN_PATTERN)


def tokens_in(search_term: str) -> list[str]:
    """Sitting tokens in the pasted text: whole links (`https://host/s/<token>/`, `/w/<token>/poll/`) or bare tokens."""
    in_links = TOKEN_IN_LINK.findall(search_term)
    return in_links or [word for word in search_term.split() if BARE_TOKEN.fullmatch(word)]


class ReadOnlyInline(admin.TabularInline):
    """Rows shown as they are: no add, change or delete from the admin."""

    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Sitting | None = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Sitting | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Sitting | None = None) -> bool:
        return False


class SeatInline(ReadOnlyInline):
    model = Seat
    fields = readonly_fields = ("player_name", "position", "total", "hands_won")

    def get_queryset(self, request: HttpRequest) -> QuerySet[Seat]:
        return super().get_queryset(request).select_related("player")

    @admin.display(description="player")
    def player_name(self, seat: Seat) -> str:
        return seat.player.name


class HandInline(ReadOnlyInline):
    model = Hand
    fields = readonly_fields = ("number", "status", "winner", "points", "extras", "recorded_at")

    def get_queryset(self, request: HttpRequest) -> QuerySet[Hand]:
        return super().get_queryset(request).select_related("winner__player")


@admin.register(Sitting)
class SittingAdmin(admin.ModelAdmin):
    list_display = ("game", "started_at", "changed_at", "finished", "hand_count")
    list_filter = ("game", "ended_how")
    ordering = ("-changed_at",)
    search_fields = ("=token", "=watch_token")
    search_help_text = "Paste a member or watch link (…/s/<token>/ or …/w/<token>/) or just its token."
    fields = readonly_fields = (
        "game",
        "member_link",
        "watch_link",
        "started_at",
        "changed_at",
        "finished_at",
        "ended_how",
        "end_kind",
        "end_target",
        "starting_chips",
        "chips_reissued",
        "stake_amount",
        "stake_label",
        "threshold",
        "tied_at",
        "version",
        "next_sitting",
    )
    inlines = (SeatInline, HandInline)

    def get_queryset(self, request: HttpRequest) -> QuerySet[Sitting]:
        return super().get_queryset(request).annotate(hand_count=Count("hands"))

    @admin.display(description="finished", ordering="finished_at")
    def finished(self, sitting: Sitting) -> str:
        return sitting.get_ended_how_display()

    @admin.display(description="hands", ordering="hand_count")
    def hand_count(self, sitting: Sitting) -> int:
        return sitting.hand_count

    @admin.display(description="member link")
    def member_link(self, sitting: Sitting) -> str:
        url = sitting.get_absolute_url()
        return format_html('<a href="{}">{}</a>', url, url)

    @admin.display(description="watch link")
    def watch_link(self, sitting: Sitting) -> str:
        url = reverse("watch", kwargs={"token": sitting.watch_token})
        return format_html('<a href="{}">{}</a>', url, url)

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[Sitting], search_term: str
    ) -> tuple[QuerySet[Sitting], bool]:
        """Sittings whose member or watch token is in the pasted text (none when it holds no token)."""
        if not search_term.strip():
            return queryset, False
        tokens = tokens_in(search_term)
        return queryset.filter(Q(token__in=tokens) | Q(watch_token__in=tokens)), False

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Sitting | None = None) -> bool:
        return False

    def get_deleted_objects(
        self, objs: Iterable[Sitting], request: HttpRequest
    ) -> tuple[list, dict[str, int], set[str], list[str]]:
        """The delete confirmation: each sitting with seat and hand counts. Django's collector would report
        the PROTECT keys as blocking; `forget_sittings` deletes in an order they allow.
        Returns (nested lines, {plural name: count}, permissions lacking, protected)."""
        sittings = Sitting.objects.filter(pk__in=[sitting.pk for sitting in objs]).annotate(
            seat_count=Count("seats", distinct=True), hand_count=Count("hands", distinct=True)
        )
        lines: list = []
        for sitting in sittings:
            lines += [f"Sitting: {sitting}", [f"{sitting.seat_count} seats", f"{sitting.hand_count} hands"]]
        counts = {
            str(Sitting._meta.verbose_name_plural): len(sittings),
            str(Seat._meta.verbose_name_plural): sum(sitting.seat_count for sitting in sittings),
            str(Hand._meta.verbose_name_plural): sum(sitting.hand_count for sitting in sittings),
        }
        return lines, counts, set(), []

    def response_delete(self, request: HttpRequest, obj_display: str, obj_id: int) -> HttpResponse:
        """Back to the list of sittings (Django sends users who cannot change them to the admin's index)."""
        response = super().response_delete(request, obj_display, obj_id)
        if not isinstance(response, HttpResponseRedirect):
            return response
        context = {"preserved_filters": self.get_preserved_filters(request), "opts": self.opts}
        return HttpResponseRedirect(add_preserved_filters(context, reverse("admin:matches_sitting_changelist")))

    def delete_model(self, request: HttpRequest, obj: Sitting) -> None:
        forget_sittings(Sitting.objects.filter(pk=obj.pk))

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Sitting]) -> None:
        forget_sittings(queryset)


def superusers_only(request: HttpRequest) -> bool:
    """The admin is the operator's: a superuser's login, not any staff account."""
    return request.user.is_active and request.user.is_superuser


admin.site.has_permission = superusers_only
admin.site.site_header = admin.site.site_title = "Last Trick: operator"
