"""gunicorn configuration for the benchmark's probe servers (bench/http_bench.py), never for production.
Loaded with `gunicorn -c bench/gunicorn_probe.py`; it changes nothing for requests that do not ask.

BENCH_QUERY_LOG=<file>: for each request that carries `X-Bench-Count: 1`, append a JSON line with
every statement the database driver sent, BEGIN and COMMIT included (as the peer's README counts
them): SQLite through sqlite3's trace callback, PostgreSQL through libpq's protocol trace (one
statement per Query or Sync message). Both sit below Django, so they also see what its cursor
wrappers do not (transaction control, the connection health check).

BENCH_SAMPLE=<file>: a sampling profiler, lighter than cProfile: during requests that carry
`X-Bench-Profile: 1`, a timer signal every 0.5 ms (ITIMER_REAL: a high-resolution timer, where
ITIMER_PROF only moves with the scheduler's ticks) records the Python stack with the CPU time
(process_time) and the wall time (perf_counter) spent since the previous sample, so a long C call
that swallowed several ticks keeps its time and a wait weighs nothing on CPU. The weighted stacks
are dumped to <file> as JSON when the worker exits.

BENCH_PROFILE=<file>: cProfile the requests that carry `X-Bench-Profile: 1` (the WSGI call,
gunicorn's own parsing and writing excluded), timed by the process's CPU clock or, with
BENCH_PROFILE_CLOCK=wall, by the wall clock; the stats are dumped to <file> when the worker exits.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import time

QUERY_LOG = os.environ.get("BENCH_QUERY_LOG")
PROFILE = os.environ.get("BENCH_PROFILE")
SAMPLE = os.environ.get("BENCH_SAMPLE")
INTERVAL = 0.0005
_state: dict = {"statements": None, "pg": None, "profiler": None, "profiling": False, "sampling": False}
_samples: dict[tuple, list[float]] = {}


def _asked(req, name: str) -> bool:
    return any(key == name and value == "1" for key, value in req.headers)


def _sample(signum, frame):
    cpu, wall = time.process_time(), time.perf_counter()
    spent = (cpu - _state["cpu"], wall - _state["wall"])
    _state["cpu"], _state["wall"] = cpu, wall
    stack = []
    while frame is not None:
        code = frame.f_code
        stack.append(f"{code.co_filename}:{code.co_firstlineno}({code.co_name})")
        frame = frame.f_back
    weights = _samples.setdefault(tuple(reversed(stack)), [0.0, 0.0])
    weights[0] += spent[0]
    weights[1] += spent[1]


def post_worker_init(worker):
    if SAMPLE:
        signal.signal(signal.SIGALRM, _sample)
    if QUERY_LOG:
        from django.db.backends.signals import connection_created

        connection_created.connect(_connected, weak=False)
    if PROFILE:
        import cProfile

        # BENCH_PROFILE_CLOCK=cpu: time on CPU (what the bench's ratios count); wall: waits too.
        clock = time.process_time if os.environ.get("BENCH_PROFILE_CLOCK", "cpu") == "cpu" else time.perf_counter
        _state["profiler"] = cProfile.Profile(clock)


def _connected(sender, connection, **kwargs):
    if connection.vendor == "sqlite":
        connection.connection.set_trace_callback(_sqlite_statement)


def _sqlite_statement(sql: str) -> None:
    if _state["statements"] is not None:
        _state["statements"].append(sql)


def pre_request(worker, req):
    if QUERY_LOG and _asked(req, "X-BENCH-COUNT"):
        _state["statements"] = []
        from django.db import connection

        if connection.vendor == "postgresql" and connection.connection is not None:
            from psycopg.pq import Trace

            fd = os.open(QUERY_LOG + ".pq", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            pgconn = connection.connection.pgconn
            pgconn.trace(fd)  # libpq writes through its own FILE (flushed by untrace)
            pgconn.set_trace_flags(Trace.SUPPRESS_TIMESTAMPS | Trace.REGRESS_MODE)
            _state["pg"] = pgconn
    if PROFILE and _asked(req, "X-BENCH-PROFILE"):
        _state["profiling"] = True
        _state["profiler"].enable()
    if SAMPLE and _asked(req, "X-BENCH-PROFILE"):
        _state["sampling"] = True
        _state["cpu"], _state["wall"] = time.process_time(), time.perf_counter()
        signal.setitimer(signal.ITIMER_REAL, INTERVAL, INTERVAL)


def post_request(worker, req, environ, resp):
    if _state["sampling"]:
        signal.setitimer(signal.ITIMER_REAL, 0, 0)
        _state["sampling"] = False
    if _state["profiling"]:
        _state["profiler"].disable()
        _state["profiling"] = False
    if _state["statements"] is None:
        return
    statements, _state["statements"] = _state["statements"], None
    if (pgconn := _state["pg"]) is not None:
        _state["pg"] = None
        with contextlib.suppress(Exception):  # the connection was closed during the request
            pgconn.untrace()
        statements = _pq_statements(QUERY_LOG + ".pq")
    elif _is_postgresql():
        statements = ["(no PostgreSQL connection open when the request began: not counted)"]
    with open(QUERY_LOG, "a", encoding="utf-8") as log:
        record = {"method": req.method, "path": req.path, "status": resp.status, "statements": statements}
        log.write(json.dumps(record) + "\n")


def _is_postgresql() -> bool:
    from django.db import connection

    return connection.vendor == "postgresql"


def _pq_statements(path: str) -> list[str]:
    """The statements in a libpq trace: a simple Query message, or an extended-protocol exchange
    closed by Sync (Parse names the SQL; a prepared statement is only bound by its name)."""
    statements: list[str] = []
    pending = None
    with open(path, encoding="utf-8", errors="replace") as trace:
        for line in trace:
            fields = line.rstrip("\n").split("\t")
            if len(fields) < 3 or fields[0] != "F":
                continue
            kind, rest = fields[2], "\t".join(fields[3:]).strip()
            if kind == "Query":
                statements.append(rest.strip('"'))
            elif kind == "Parse":
                pending = rest
            elif kind == "Bind" and pending is None:
                pending = f"(prepared) {rest[:60]}"
            elif kind == "Sync":
                statements.append(pending or "(sync)")
                pending = None
    return statements


def worker_exit(server, worker):
    if _state["profiler"] is not None:
        _state["profiler"].dump_stats(PROFILE)
    if SAMPLE:
        with open(SAMPLE, "w", encoding="utf-8") as out:
            json.dump([{"stack": list(stack), "cpu": w[0], "wall": w[1]} for stack, w in _samples.items()], out)
