# Two commands do everything on a fresh clone (Python 3.11 and pip; no GPU; the network only for
# PyPI, once the npm registry for MathJax, and Debian's wordnet-base if it is missing,
# installed as root or unpacked for the user otherwise, and Debian's qemu-user, as root):
#   make book   set up .venv, execute every notebook (papermill, default profile), build the HTML book
#   make test   set up .venv, run the unit tests and nbval over the executed notebooks in book/
#   make test-cold   make test with an empty, temporary cache: every model trained, every
#                    score and sample computed (the path a new machine takes)
# Derived files (corpus, models, scores, samples) live in the shared cache: $LMNOTES_CACHE,
# else $XDG_CACHE_HOME/lmnotes, else ~/.cache/lmnotes. `make clean` leaves it;
# `make clean-cache` removes it; `.venv/bin/python -m lmnotes.book cache --prune` removes
# only what the current code no longer produces.
PYTHON ?= python3
PROFILE ?= default
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

MATHJAX := _vendor/mathjax/tex-mml-chtml.js
WORDNET := $(VENV)/.wordnet
QEMU := $(VENV)/.qemu
MATHJAX_VERSION := 3.2.2

.PHONY: book test test-cold setup html screenshots lab clean clean-cache

book: $(STAMP) $(MATHJAX) $(WORDNET)
	$(BIN)/python -m lmnotes.book all --profile $(PROFILE)

test: $(STAMP) $(MATHJAX) $(WORDNET) $(QEMU)
	$(BIN)/python -m pytest

test-cold: $(STAMP)
	@cold=$$(mktemp -d) && echo "make test with the empty cache LMNOTES_CACHE=$$cold" && \
	LMNOTES_CACHE=$$cold $(MAKE) --no-print-directory test; rc=$$?; rm -rf "$$cold"; exit $$rc

setup: $(STAMP) $(MATHJAX) $(WORDNET) $(QEMU)

html: $(STAMP) $(MATHJAX)
	$(BIN)/python -m lmnotes.book build

# JupyterLab on the executed chapters in book/, whose parameters cells hold the values the book
# ran with, for a class: a student imports the lecturer's cache first (README, "A lab for a
# class"), so that a chapter runs from the cache without training (jupytext also opens the
# sources in notebooks/ as notebooks). LAB_ARGS passes options (e.g. --no-browser --port 8890);
# as root (a container), JupyterLab needs --allow-root, which is added. A chapter run there keeps
# book/claims as published (LMNOTES_CLAIMS names a folder that does not exist: nothing is written).
LAB_ARGS ?=
lab: $(STAMP) $(WORDNET)
	LMNOTES_CLAIMS=$(VENV)/lab-claims $(BIN)/jupyter lab --notebook-dir=book \
	  $$([ "$$(id -u)" = 0 ] && echo --allow-root) $(LAB_ARGS)

# Every page of the built book at 1280 px and at a phone's 390 px in headless Chromium (Debian's chromium and
# chromium-driver, installed here if missing), into _build/screenshots, with a check of what a
# reader must never see: a table or code line cut off, NaN, raw TeX, plumbing code.
screenshots: $(STAMP) $(MATHJAX)
	@command -v chromium >/dev/null && command -v chromedriver >/dev/null || \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver)
	$(BIN)/python -m lmnotes.book build
	$(BIN)/python -m lmnotes.book.screens _build/html _build/screenshots
	$(BIN)/python -m lmnotes.book.screens _build/html _build/screenshots/phone --width 390

# MathJax, served with the book so that its formulas render without a network: the npm
# registry's package (only its es5 bundle), unpacked in a temporary folder and moved into place.
$(MATHJAX):
	@command -v npm >/dev/null || (echo "npm is needed once, to fetch MathJax $(MATHJAX_VERSION) from the npm registry" && exit 1)
	@tmp=$$(mktemp -d) && (cd $$tmp && npm pack --silent mathjax@$(MATHJAX_VERSION) >/dev/null && tar xzf mathjax-$(MATHJAX_VERSION).tgz) && \
	  mkdir -p _vendor && rm -rf _vendor/.mathjax.tmp && mv $$tmp/package/es5 _vendor/.mathjax.tmp && rm -rf _vendor/mathjax && \
	  mv _vendor/.mathjax.tmp _vendor/mathjax && rm -rf $$tmp && echo "MathJax $(MATHJAX_VERSION) in _vendor/mathjax"

# WordNet 3.0 for the word-level chapter (Debian's wordnet-base, read with nltk): installed as
# root, else downloaded and unpacked into .venv/wordnet for this user (setup/wordnet.sh).
$(WORDNET): $(STAMP)
	@sh setup/wordnet.sh $(VENV)/wordnet
	@touch $@

# qemu-user, for the test that runs the book's arithmetic under emulated AMD and Intel CPUs:
# Debian's package, installed as root (setup/qemu.sh); elsewhere that test says what to install.
$(QEMU): $(STAMP)
	@sh setup/qemu.sh
	@touch $@

# The environment is rebuilt when the pins change. requirements.lock pins every package
# (transitive ones too) and is applied as pip constraints.
$(STAMP): pyproject.toml requirements.lock requirements-nodeps.txt
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11 or newer is needed (set PYTHON=...)")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -c requirements.lock -e '.[test]'
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps -r requirements-nodeps.txt
	touch $(STAMP)

clean:
	rm -rf _build data/cache

CACHE_DIR = $(or $(LMNOTES_CACHE),$(or $(XDG_CACHE_HOME),$(HOME)/.cache)/lmnotes)
clean-cache:
	rm -rf "$(CACHE_DIR)"
