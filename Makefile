# The two commands of the README: `make demo` and `make test`. Each creates .venv on its own.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test test-deep test-kernels bench clean

demo: $(VENV)/.demo
	$(BIN)/topograd demo --out out
	$(BIN)/topograd modes --out out
	$(BIN)/topograd train --dataset moons --steps 100 --plot out/moons.png --save out/moons.json
	$(BIN)/topograd train --dataset digits --plot out/digits.png --save out/digits.npz
	$(BIN)/topograd train --dataset digits --model cnn --plot out/digits_cnn.png --save out/digits_cnn.npz

test: $(VENV)/.dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy --strict src
	$(BIN)/pytest -n auto --dist loadgroup

# The same checks with 1,000 fresh hypothesis examples per property instead of 50: the search for
# the rare case, for a change to a rule or before a release (about half an hour on two cores).
test-deep: $(VENV)/.dev
	$(BIN)/pytest -n auto --dist loadgroup --hypothesis-profile=deep

# The suite as other CPUs of this kind run it: PyTorch on its AVX2 and on its portable kernels,
# NumPy's loops and OpenBLAS's kernels limited alike. Run it before resolving a change that
# touches numbers: a test that pins the bits of a vectorised kernel fails here.
test-kernels: $(VENV)/.dev
	ATEN_CPU_CAPABILITY=avx2 NPY_DISABLE_CPU_FEATURES="X86_V4 AVX512_ICL" \
		OPENBLAS_CORETYPE=Haswell $(BIN)/pytest -n auto --dist loadgroup
	ATEN_CPU_CAPABILITY=default NPY_DISABLE_CPU_FEATURES="X86_V3 X86_V4 AVX512_ICL" \
		OPENBLAS_CORETYPE=Prescott $(BIN)/pytest -n auto --dist loadgroup

bench: $(VENV)/.bench
	$(BIN)/python benchmarks/race.py
	$(BIN)/python benchmarks/nn_race.py
	$(BIN)/python benchmarks/tensor_race.py
	$(BIN)/python benchmarks/cnn_race.py
	$(BIN)/python benchmarks/func_race.py
	$(BIN)/python benchmarks/compile_race.py
	$(BIN)/python benchmarks/anomaly_cost.py
	$(BIN)/python benchmarks/layout_speed.py
	$(BIN)/python benchmarks/hostile_load.py
	$(BIN)/python benchmarks/import_time.py
	$(BIN)/python benchmarks/instructions.py

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.demo: pyproject.toml | $(VENV)/bin/python
	$(BIN)/python -m pip install -q -e '.[demo]'
	touch $@

$(VENV)/.dev: pyproject.toml | $(VENV)/bin/python
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $@ $(VENV)/.demo

$(VENV)/.bench: pyproject.toml | $(VENV)/bin/python
	$(BIN)/python -m pip install -q -e '.[bench,demo]'
	touch $@ $(VENV)/.demo

clean:
	rm -rf $(VENV) build src/*.egg-info .pytest_cache .mypy_cache .ruff_cache
