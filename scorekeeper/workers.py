"""The app server's worker: uvicorn's event loop in a gunicorn worker, as uvicorn_worker runs it, except
that it never takes a client address from a request's headers.

uvicorn would take X-Forwarded-For (and X-Forwarded-Proto) from any connection whose address is in
gunicorn's `forwarded_allow_ips`, 127.0.0.1 by default: then any process on this machine, or a proxy on it
that passes a client's header on, picks the address the rate limits count. Here the client is always the
connection's own address; the app alone reads X-Forwarded-For, from the proxies named in TRUSTED_PROXIES
(matches/web/client_address.py). HTTPS behind a proxy is Django's SECURE_PROXY_SSL_HEADER.
"""

from uvicorn_worker import UvicornWorker as UvicornWorkerReadingProxyHeaders


class UvicornWorker(UvicornWorkerReadingProxyHeaders):
    CONFIG_KWARGS = {**UvicornWorkerReadingProxyHeaders.CONFIG_KWARGS, "proxy_headers": False}
