"""CSRF checks that fit `Referrer-Policy: no-referrer`."""

from django.middleware.csrf import CsrfViewMiddleware


class NoReferrerCsrfViewMiddleware(CsrfViewMiddleware):
    """Django's CSRF middleware, accepting the `Origin: null` that browsers send on plain
    form POSTs from pages served with `Referrer-Policy: no-referrer` (links carry tokens,
    so no page may leak its address).

    Such a request passes the origin check only when the browser's Fetch Metadata does
    not say it came from another site; the CSRF token is checked as for any request.
    """

    def _origin_verified(self, request) -> bool:
        if request.META.get("HTTP_ORIGIN") == "null":
            return request.META.get("HTTP_SEC_FETCH_SITE", "same-origin") == "same-origin"
        return super()._origin_verified(request)
