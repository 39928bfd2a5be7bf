"""The app's URLconf with its tap cut short, for the floors of a tap (bench/http_bench.py serves it
beside the peer's whole tap). BENCH_TAP_STOP says where the tap view stops and answers an empty 200:

- "recorded": after the same form and verb as matches.web.views.table.tap (`Sitting.record_hand`, its
  lock and checks), without the table region: what a tap costs before one byte of its answer;
- "entry": as the view starts, after the request, the middleware, the rate limits and the view's
  decorators: what any tap costs before its own work.
"""

import os

from django.http import HttpResponse
from django.urls import path
from django.views.decorators.vary import vary_on_headers

from matches.web.forms import TapForm
from matches.web.views.common import action, recorder
from scorekeeper.urls import urlpatterns as app_urlpatterns

STOP = os.environ.get("BENCH_TAP_STOP", "recorded")


@vary_on_headers("HX-Request")
@action
def tap_cut_short(request, sitting) -> HttpResponse:
    if STOP == "entry":
        return HttpResponse(status=200)
    form = TapForm(request.POST)
    if not form.is_valid():
        return HttpResponse(status=400)
    data = form.cleaned_data
    sitting.record_hand(data["number"], data["winner"] - 1, form.extras(), by=recorder(request, sitting))
    return HttpResponse(status=200)


urlpatterns = [path("s/<str:token>/tap/", tap_cut_short), *app_urlpatterns]
