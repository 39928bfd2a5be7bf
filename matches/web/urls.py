from django.urls import path

from matches.web.views import export, figures, group_export, groups, pages, sharing, table

# Sittings are reached only by their token (128 random bits); database ids never appear.
urlpatterns = [
    path("", pages.home, name="home"),
    path("start/", pages.choose_game, name="start"),
    path("start/<slug:game>/", pages.start, name="start-game"),
    path("demo/", pages.demo, name="demo"),
    path("s/<str:token>/", table.table, name="table"),
    path("s/<str:token>/poll/", table.poll, name="poll"),
    path("s/<str:token>/links/", sharing.rotate, name="rotate"),
    path("s/<str:token>/me/", sharing.me, name="me"),
    path("w/<str:token>/", sharing.watch, name="watch"),
    path("w/<str:token>/poll/", sharing.watch_poll, name="watch-poll"),
    path("s/<str:token>/tap/", table.tap, name="tap"),
    path("s/<str:token>/undo/", table.undo, name="undo"),
    path("s/<str:token>/end/", table.end, name="end"),
    path("s/<str:token>/rematch/", table.rematch, name="rematch"),
    path("s/<str:token>/hands/", table.history, name="history"),
    path("s/<str:token>/hands/<int:number>/", table.correct, name="correct"),
    path("s/<str:token>/chips/", table.reissue, name="reissue"),
    path("s/<str:token>/hands.csv", export.export, name="export"),
    # Groups: reached by their token too; a player's id appears only under its group's link.
    path("groups/new/", groups.create_group, name="group-new"),
    path("g/<str:token>/", groups.group, name="group"),
    path("g/<str:token>/new/", groups.choose_game, name="group-games"),
    path("g/<str:token>/new/<slug:game>/", groups.new_match, name="group-new-match-game"),
    path("g/<str:token>/players/", groups.add_player, name="group-add-player"),
    path("g/<str:token>/players/<int:player_id>/", groups.player, name="group-player"),
    path("g/<str:token>/players/<int:player_id>/rename/", groups.rename_player, name="group-rename-player"),
    path("g/<str:token>/players/<int:player_id>/remove/", groups.remove_player, name="group-remove-player"),
    path("g/<str:token>/players/<int:player_id>/erase/", groups.erase_player, name="group-erase-player"),
    path("g/<str:token>/links/", groups.rotate, name="group-rotate"),
    path("gw/<str:token>/", groups.watch, name="group-watch"),
    path("s/<str:token>/group/", groups.save_to_group, name="save-to-group"),
    path("g/<str:token>/hands.csv", group_export.group_csv, name="group-csv"),
    path("g/<str:token>/group.json", group_export.group_json, name="group-json"),
    path("groups/import/", group_export.group_import, name="group-import"),
    path("g/<str:token>/stats/", figures.group_stats, name="group-stats"),
    path("gw/<str:token>/stats/", figures.group_watch_stats, name="group-watch-stats"),
]
