from django.urls import path, register_converter

from matches.web.live import streams
from matches.web.tokens import LinkToken
from matches.web.views import (
    export,
    figures,
    group_export,
    group_new_match,
    group_players,
    group_save,
    groups,
    offline,
    pages,
    seats,
    sharing,
    table,
)

register_converter(LinkToken, "link")

# Sittings are reached only by their token (128 random bits); database ids never appear.
urlpatterns = [
    path("", pages.home, name="home"),
    path("start/", pages.choose_game, name="start"),
    path("start/<slug:game>/", pages.start, name="start-game"),
    path("demo/", pages.demo, name="demo"),
    path("sw.js", offline.service_worker, name="service-worker"),
    path("offline/", offline.offline_page, name="offline"),
    path("s/<link:token>/", table.table, name="table"),
    path("s/<link:token>/poll/", table.poll, name="poll"),
    path("s/<link:token>/events/", streams.sitting_events, name="events"),
    path("s/<link:token>/links/", sharing.rotate, name="rotate"),
    path("s/<link:token>/me/", sharing.me, name="me"),
    path("w/<link:token>/", sharing.watch, name="watch"),
    path("w/<link:token>/poll/", sharing.watch_poll, name="watch-poll"),
    path("w/<link:token>/events/", streams.watch_events, name="watch-events"),
    path("s/<link:token>/tap/", table.tap, name="tap"),
    path("s/<link:token>/undo/", table.undo, name="undo"),
    path("s/<link:token>/end/", table.end, name="end"),
    path("s/<link:token>/rematch/", table.rematch, name="rematch"),
    path("s/<link:token>/hands/", table.history, name="history"),
    path("s/<link:token>/hands/<int:number>/", table.correct, name="correct"),
    path("s/<link:token>/chips/", table.reissue, name="reissue"),
    path("s/<link:token>/seats/", seats.seats, name="seats"),
    path("s/<link:token>/hands.csv", export.export, name="export"),
    # Groups: reached by their token too; a player's id appears only under its group's link.
    path("groups/new/", group_save.create_group, name="group-new"),
    path("g/<link:token>/", groups.group, name="group"),
    path("g/<link:token>/new/", group_new_match.choose_game, name="group-games"),
    path("g/<link:token>/new/<slug:game>/", group_new_match.new_match, name="group-new-match-game"),
    path("g/<link:token>/players/", group_players.add_player, name="group-add-player"),
    path("g/<link:token>/players/<int:player_id>/", group_players.player, name="group-player"),
    path("g/<link:token>/players/<int:player_id>/rename/", group_players.rename_player, name="group-rename-player"),
    path("g/<link:token>/players/<int:player_id>/remove/", group_players.remove_player, name="group-remove-player"),
    path("g/<link:token>/players/<int:player_id>/erase/", group_players.erase_player, name="group-erase-player"),
    path("g/<link:token>/links/", groups.rotate, name="group-rotate"),
    path("g/<link:token>/events/", streams.group_events, name="group-events"),
    path("gw/<link:token>/", groups.watch, name="group-watch"),
    path("g/<link:token>/matches/", groups.matches, name="group-matches"),
    path("gw/<link:token>/matches/", groups.watch_matches, name="group-watch-matches"),
    path("gw/<link:token>/events/", streams.group_watch_events, name="group-watch-events"),
    path("s/<link:token>/group/", group_save.save_to_group, name="save-to-group"),
    path("g/<link:token>/hands.csv", group_export.group_csv, name="group-csv"),
    path("g/<link:token>/group.json", group_export.group_json, name="group-json"),
    path("groups/import/", group_export.group_import, name="group-import"),
    path("g/<link:token>/stats/", figures.group_stats, name="group-stats"),
    path("gw/<link:token>/stats/", figures.group_watch_stats, name="group-watch-stats"),
]
