# Two commands do all the set-up on a fresh machine (Python 3.11):
#   make run    start the app on 0.0.0.0:8000 (SQLite) for phones on the same Wi-Fi
#   make test   run the whole test suite on SQLite, then on PostgreSQL when a server answers
#               (installs Debian's chromium and gettext for the tests)
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PORT ?= 8000

.PHONY: run test bench

$(VENV)/installed: requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	touch $@

# Local development settings; production sets real environment variables instead.
.env:
	printf 'DEBUG=1\n' > .env

run: $(VENV)/installed .env
	$(PY) manage.py migrate --noinput
	$(PY) manage.py lan_address --port $(PORT)
	$(PY) manage.py runserver 0.0.0.0:$(PORT)

test: $(VENV)/installed
	bin/ensure-debian-packages
	DATABASE_URL=sqlite:///$(CURDIR)/db.sqlite3 $(PY) -m pytest
	bin/test-postgres $(PY)

# Speed and size budgets (not part of the tests): prints a table, writes bench/results.json.
bench: $(VENV)/installed
	$(PY) bench/run.py
