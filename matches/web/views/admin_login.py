"""The admin's login form, refusing password guesses: after ADMIN_LOGIN_RATE_LIMIT wrong passwords from
one client address or for one username, every try is refused until the window ends (views/limits.py)."""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.views.decorators.debug import sensitive_post_parameters

from matches.web.views.limits import wrong_passwords


@sensitive_post_parameters("password")  # kept out of error reports, as the admin's own view does
def admin_login(request: HttpRequest) -> HttpResponse:
    """Django admin's own login view, with tries counted: a POST it answers without its redirect is a
    wrong password (or username)."""
    if request.method == "POST" and (refused := wrong_passwords(request, count=False)):
        return refused
    response = admin.site.login(request)
    if request.method == "POST" and response.status_code != 302:
        wrong_passwords(request, count=True)
    return response
