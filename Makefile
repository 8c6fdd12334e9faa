# Postforge: `make run` to try it, `make test` to run the whole suite.
VENV ?= .venv
PY := $(VENV)/bin/python
PORT ?= 8000
HOST ?= 127.0.0.1
PYTEST_ARGS ?=
CHROMIUM ?= chromium
UID_NOW ?= $(shell id -u)

.PHONY: install install-service run test lint bench clean chromium node mutation media-tools pgbouncer

# `make run` installs the service alone (issue 28: a fresh clone spent 5 3/4 of its 7 minutes on
# test and lint tools); `make test`, `make lint` and the rest add the dev extra on top.
install-service: $(VENV)/.installed-service

$(VENV)/.installed-service: pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e .
	touch $@

install: $(VENV)/.installed

$(VENV)/.installed: $(VENV)/.installed-service
	$(PY) -m pip install --quiet -e ".[dev]"
	touch $@

run: install-service
	@mkdir -p var
	$(PY) manage.py migrate --noinput -v0
	$(PY) manage.py collectstatic --noinput -v0
	@$(PY) manage.py seed_demo --key-file var/demo-key.txt 2>var/demo.txt | tail -n 1 > var/demo-key.new
	@mv var/demo-key.new var/demo-key.txt
	@{ echo "Admin login: $$(sed 's/.*staff login //' var/demo.txt)"; \
	   echo "API key:     $$(cat var/demo-key.txt)"; \
	   echo "Try:         curl -H \"Authorization: Bearer $$(cat var/demo-key.txt)\" {base}/v1/brands"; } > var/banner.txt
	@exec $(PY) manage.py serve --host $(HOST) --port $(PORT) --banner-file var/banner.txt

# The browser tests drive headless Chromium: installed here from Debian when missing and root.
chromium:
	@command -v $(CHROMIUM) >/dev/null 2>&1 || { \
	  if [ "$(UID_NOW)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "Installing Debian's chromium for the browser tests"; \
	    DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else \
	    echo "make test needs Chromium for its browser tests: install it (Debian: sudo apt-get install chromium) and run make test again" >&2; \
	    exit 1; \
	  fi; }

# The designed-post tests read pictures back with tesseract (OCR) and measure videos with ffmpeg
# (ffprobe, ebur128): installed here from Debian when missing and root.
media-tools:
	@missing=""; \
	  command -v tesseract >/dev/null 2>&1 || missing="$$missing tesseract-ocr tesseract-ocr-eng"; \
	  command -v ffmpeg >/dev/null 2>&1 || missing="$$missing ffmpeg"; \
	  [ -n "$$(fc-list :lang=ja 2>/dev/null)" ] || missing="$$missing fonts-noto-cjk"; \
	  if [ -n "$$missing" ]; then \
	    if [ "$(UID_NOW)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	      echo "Installing Debian's$$missing for the media tests"; \
	      DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	    else \
	      echo "make test needs$$missing for its media tests (Debian: sudo apt-get install$$missing)" >&2; \
	      exit 1; \
	    fi; \
	  fi


# The generated-client tests compile and run a TypeScript session (tests/test_typescript_client.py,
# which installs its pinned npm packages into var/node-tools): Node.js and npm from Debian.
node:
	@{ command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; } || { \
	  if [ "$(UID_NOW)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "Installing Debian's nodejs and npm for the TypeScript client tests"; \
	    DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null; \
	  else \
	    echo "make test needs Node.js 18+ and npm for its TypeScript client tests: install them (Debian: sudo apt-get install nodejs npm) and run make test again" >&2; \
	    exit 1; \
	  fi; }


# The PgBouncer tests (tests/core/test_pgbouncer.py) start Debian's pgbouncer on a free port in
# transaction mode: installed here when missing and root.
pgbouncer:
	@command -v pgbouncer >/dev/null 2>&1 || [ -x /usr/sbin/pgbouncer ] || { \
	  if [ "$(UID_NOW)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "Installing Debian's pgbouncer for the PgBouncer tests"; \
	    DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq pgbouncer >/dev/null; \
	  else \
	    echo "make test needs pgbouncer for its PgBouncer tests (Debian: sudo apt-get install pgbouncer)" >&2; \
	    exit 1; \
	  fi; }

# The suite runs in parallel (pytest-xdist): PYTEST_WORKERS processes, each with its own test
# database, var/ folder, event tap and Redis database (REDIS_URL's number plus the worker's index,
# so REDIS_URL=.../0 uses databases 0-2); PYTEST_WORKERS=0 runs it in this one process.
# 3 on 2 cores: the suite waits on servers more than it computes (docs/benchmarks.md: 2 and 4 are
# still to be compared on a quiet machine). A free worker takes the next test one at a time
# (--maxschedchunk 1), the slowest modules first (tests/conftest.py SLOW_FIRST), so the workers
# end together.
PYTEST_WORKERS ?= 3
test: install chromium node media-tools pgbouncer
	$(VENV)/bin/pytest -n $(PYTEST_WORKERS) --maxschedchunk 1 $(PYTEST_ARGS)

lint: install
	$(VENV)/bin/ruff check apps config tests bench
	$(VENV)/bin/ruff format --check apps config tests bench
	$(VENV)/bin/lint-imports
	$(VENV)/bin/mypy apps

bench: install
	$(PY) bench/api_list.py

# Mutation testing of the pure modules (issue 24, bench/mutation.py): every mutant, or a seeded
# sample (MUTATION_ARGS="--sample 20 --seed 7"); run with DATABASE_URL and REDIS_URL set so the
# rate limiter's Redis path is tested too. Fails when a module scores under 85%.
MUTATION_ARGS ?=
mutation: install node
	nice -n 10 $(PY) bench/mutation.py $(MUTATION_ARGS)

clean:
	rm -rf var .pytest_cache
