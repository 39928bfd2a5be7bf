from django.urls import path

from .views import export, pages, sharing, table

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
]
