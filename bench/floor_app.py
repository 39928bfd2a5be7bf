"""The floor of a request: a trivial WSGI app under the same gunicorn sync worker as the app and the
peer (bench/http_bench.py measures its CPU per request, which no Django app can go below)."""


def application(environ, start_response):
    start_response("204 No Content", [("Content-Length", "0")])
    return [b""]
