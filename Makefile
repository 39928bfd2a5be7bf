# Two commands do all the set-up on a fresh machine (Python 3.11):
#   make run    start the app on 0.0.0.0:8000 (SQLite, gunicorn, DEBUG off) for phones on the same Wi-Fi
#   make test   run the whole test suite on SQLite beside the engine-dependent tests on PostgreSQL,
#               then the bench's quick mode (installs Debian's chromium, Noto fonts, gettext, nginx and npm,
#               and Lighthouse from npm, once per machine, into ~/.cache/lasttrick)
#   make check  the fast tier after each change: no browser, no real server, nothing slow; SQLite
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PORT ?= 8000

.PHONY: run dev test test-sqlite test-postgres postgres-then-bench check bench messages

$(VENV)/installed: requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	touch $@

run: $(VENV)/installed
	PORT=$(PORT) bin/run $(PY)

# Development only: runserver with DEBUG (debug pages, reloading), reachable from this computer alone.
dev: $(VENV)/installed
	DEBUG=1 PLAIN_HTTP=1 $(PY) manage.py migrate --noinput
	DEBUG=1 PLAIN_HTTP=1 $(PY) manage.py runserver 127.0.0.1:$(PORT)

# pytest-xdist's workers for each leg: the two legs run side by side, and the browser tests mostly
# wait on chromium, so together they keep both cores busy. Each leg's output is shown when it ends.
TEST_WORKERS ?= 3
PG_TEST_WORKERS ?= 2

test: $(VENV)/installed
	bin/ensure-debian-packages
	$(MAKE) --no-print-directory -j2 --output-sync=target test-sqlite postgres-then-bench

# The PostgreSQL leg (fewer tests) ends first: the bench's quick mode, mostly waiting on its phones'
# windows, then runs beside the end of the SQLite leg.
postgres-then-bench: test-postgres
	$(PY) bench/run.py --quick

test-sqlite: $(VENV)/installed
	HYPOTHESIS_PROFILE=ci DATABASE_URL=sqlite:///$(CURDIR)/db.sqlite3 $(PY) -m pytest -n $(TEST_WORKERS)

test-postgres: $(VENV)/installed
	HYPOTHESIS_PROFILE=ci-postgres bin/test-postgres $(PY) -n $(PG_TEST_WORKERS)

check: $(VENV)/installed
	bin/ensure-debian-packages gettext
	DATABASE_URL=sqlite:///$(CURDIR)/db.sqlite3 $(PY) -m pytest -n auto -m "not browser and not servers and not slow"

# After changing texts: every catalogue (locale/<language>/LC_MESSAGES/django.po) gains the new
# texts to translate, then the .mo files the app reads are compiled. Both are committed, so that
# `make run` needs no gettext. Needs Debian's gettext (`bin/ensure-debian-packages gettext`).
LOCALES := $(patsubst locale/%/LC_MESSAGES,%,$(wildcard locale/*/LC_MESSAGES))
messages: $(VENV)/installed
	bin/ensure-debian-packages gettext
	DEBUG=1 $(PY) manage.py makemessages $(LOCALES:%=-l %) --no-location --ignore=.venv --ignore=tests --ignore=bench
	$(PY) manage.py compilemessages --ignore=.venv --ignore=tests --ignore=bench

# The figures of BENCHMARKS.md, the app beside ../shared/peer: prints each beside its budget, writes
# bench/results.json, fails when a gated budget is missed. QUICK=1: SQLite, small counts, no figure
# gated, fails on any error (the same as bench/run.py --quick).
bench: $(VENV)/installed
	$(PY) bench/run.py $(if $(QUICK),--quick)
