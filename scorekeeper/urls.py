from django.contrib import admin
from django.urls import include, path

from matches.web.views.admin_login import admin_login

from .manifest import favicon, web_manifest

urlpatterns = [
    path("admin/login/", admin_login),  # the admin's own form, refusing password guesses
    path("admin/", admin.site.urls),  # the operator's, behind a superuser login
    path("", include("matches.web.urls")),
    path("i18n/", include("django.conf.urls.i18n")),  # set_language: the language switcher
    path("manifest.<str:language>.webmanifest", web_manifest, name="web-manifest"),  # in the page's language
    path("favicon.ico", favicon),
]

handler400 = "matches.web.views.errors.bad_request"
handler403 = "matches.web.views.errors.forbidden"
handler404 = "matches.web.views.errors.not_found"
handler500 = "matches.web.views.errors.server_error"
