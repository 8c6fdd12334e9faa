# Postforge: `make run` to try it, `make test` to run the whole suite.
VENV ?= .venv
PY := $(VENV)/bin/python
PORT ?= 8000
HOST ?= 127.0.0.1
PYTEST_ARGS ?=

.PHONY: install run test lint bench clean

install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[dev]"
	touch $@

run: install
	@mkdir -p var
	$(PY) manage.py migrate --noinput -v0
	$(PY) manage.py collectstatic --noinput -v0
	@$(PY) manage.py seed_demo 2>var/demo.txt | tail -n 1 > var/demo-key.txt
	@echo ""
	@echo "  Postforge is starting on http://$(HOST):$(PORT)"
	@echo "  API docs:   http://$(HOST):$(PORT)/v1/docs/  and  http://$(HOST):$(PORT)/api/docs/"
	@echo "  Admin:      http://$(HOST):$(PORT)/admin/   ($$(cat var/demo.txt | sed 's/.*staff login //'))"
	@echo "  API key:    $$(cat var/demo-key.txt)"
	@echo "  Try:        curl -H \"Authorization: Bearer $$(cat var/demo-key.txt)\" http://$(HOST):$(PORT)/v1/brands"
	@echo ""
	$(PY) manage.py serve --host $(HOST) --port $(PORT)

test: install
	$(VENV)/bin/pytest $(PYTEST_ARGS)

lint: install
	$(VENV)/bin/ruff check apps config tests bench

bench: install
	$(PY) bench/api_list.py

clean:
	rm -rf var .pytest_cache
