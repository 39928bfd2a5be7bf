# Two commands do all the set-up on a fresh machine (Python 3.11):
#   make run    start the app on 0.0.0.0:8000 (SQLite, gunicorn, DEBUG off) for phones on the same Wi-Fi
#   make test   run the whole test suite on SQLite, then on PostgreSQL when a server answers
#               (installs Debian's chromium and gettext for the tests)
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PORT ?= 8000

.PHONY: run dev test bench messages

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

test: $(VENV)/installed
	bin/ensure-debian-packages
	DATABASE_URL=sqlite:///$(CURDIR)/db.sqlite3 $(PY) -m pytest
	bin/test-postgres $(PY)

# After changing texts: every catalogue (locale/<language>/LC_MESSAGES/django.po) gains the new
# texts to translate, then the .mo files the app reads are compiled. Both are committed, so that
# `make run` needs no gettext. Needs Debian's gettext (`bin/ensure-debian-packages gettext`).
LOCALES := $(patsubst locale/%/LC_MESSAGES,%,$(wildcard locale/*/LC_MESSAGES))
messages: $(VENV)/installed
	bin/ensure-debian-packages gettext
	DEBUG=1 $(PY) manage.py makemessages $(LOCALES:%=-l %) --no-location --ignore=.venv --ignore=tests --ignore=bench
	$(PY) manage.py compilemessages --ignore=.venv --ignore=tests --ignore=bench

# Speed and size budgets (not part of the tests): prints a table, writes bench/results.json.
bench: $(VENV)/installed
	$(PY) bench/run.py
