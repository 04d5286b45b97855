"""`RLConfig` and `train_rl`: the `envscale rl` stage's library, GRPO on a `tasks` artifact with TRL.

`train_rl(tasks, config, output)` admits the tasks (`EnvscaleSpec`), loads the model (a base or an `envscale
train` output, LoRA adapters merged), gives its tokenizer a tool template TRL can parse (its own when TRL knows it,
else envscale's ChatML/Hermes template with Qwen's response parser), and trains with `EnvscaleGRPOTrainer`. It
writes to `output/`:

- the model (or LoRA adapter) and its tokenizer;
- `rl.json`: the config, the tasks artifact (path, version, data id), the admission counts, every rejected task
  with its gate and reason, the reward per step, the masked groups, and the library versions;
- `README.md`: a model card naming the tasks artifact, the reward, the masked share and, when given, the eval
  results (`eval_results` in `rl.json`, filled by `envscale eval` or by hand).

On a GPU, `use_vllm` with `vllm_mode: colocate | server` is passed through to TRL (vLLM generates, TRL trains).
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import json
import logging
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..artifacts import open_artifact
from ..config import check_fields, option, to_dict
from ..models import RL_RECORD, SMOLLM2, load_pretrained, resolve_model_name

logger = logging.getLogger(__name__)

DEFAULT_MODEL = SMOLLM2


@dataclass
class RLConfig:
    """GRPO on envscale environments (see `envscale.rl`)."""

    model: str = option(
        DEFAULT_MODEL,
        "Policy to start from: a local folder (an `envscale train` stage output, LoRA adapters merged), a Hub id, "
        "or 'smollm2-135m-instruct' (offline).",
    )
    revision: str | None = option(None, "Hub revision of `model`.")
    split: str = option("train", "Which split of the tasks to train on.")
    kinds: list[str] = option(
        [], "Only tasks of these kinds (read, write, mixed, policy, missing_info); [] all."
    )
    max_tasks: int | None = option(None, "At most this many admitted tasks (by task id).", ge=1)
    task_ids: list[str] = option([], "Only these tasks (ids); [] all.")
    reward: str = option("outcome", "outcome (the judge's verdict, 0/1) or dense (share of gold effects).")
    user: dict[str, Any] | None = option(
        {"kind": "scripted"},
        "The simulated user behind send_message_to_user ({kind: scripted} or an endpoint); null: no user tool.",
    )
    offer: str = option(
        "task", "Tools offered: task (a task's own, with its distractors) or environment (all)."
    )
    max_rows: int = option(
        100, "Rows a list tool returns at most (fewer keep CPU rollouts' contexts short).", ge=1, le=100_000
    )
    max_prompt_length: int | None = option(
        None,
        "Refuse tasks whose prompt (system, first message, offered tools' schemas) is longer than this many "
        "tokens (gate prompt_too_long); bounds a step's memory on a small machine.",
        ge=16,
    )
    pass_rates: str | None = option(None, "A filtered artifact whose pass_rates drive the curriculum.")
    min_pass_rate: float = option(0.0, "Keep tasks whose pass rate is at least this.", ge=0, le=1)
    max_pass_rate: float = option(1.0, "Keep tasks whose pass rate is at most this.", ge=0, le=1)
    curriculum: str = option(
        "none", "none, easy_first (falling pass rate, no shuffle) or weight (repeat hard tasks)."
    )
    mask_spoiled: bool = option(
        True, "Mask the groups a user-simulator error spoiled from the advantage (ERPO)."
    )
    # --- GRPO
    max_steps: int = option(10, "Optimizer steps.", ge=1, le=10_000_000)
    num_generations: int = option(4, "Rollouts per task (a GRPO group).", ge=2, le=1024)
    per_device_train_batch_size: int = option(
        4, "Rollouts per device per step (a multiple of num_generations).", ge=1
    )
    gradient_accumulation_steps: int = option(1, "Micro-batches per optimizer step.", ge=1)
    learning_rate: float = option(1e-5, "Peak learning rate.", gt=0, le=1)
    beta: float = option(0.0, "KL coefficient against the reference policy (0: no reference model).", ge=0)
    temperature: float = option(1.0, "Sampling temperature of the rollouts.", gt=0, le=5)
    max_completion_length: int = option(
        256, "Most tokens the policy writes per rollout (tool results excluded).", ge=8
    )
    max_tool_calling_iterations: int = option(8, "Most tool rounds per rollout.", ge=1, le=1000)
    loss_type: str = option("dapo", "TRL's GRPO loss (grpo, dapo, dr_grpo, bnpo, ...).")
    seed: int = option(0, "Seed of the data order and sampling.", ge=0)
    logging_steps: int = option(1, "Log every this many steps.", ge=1)
    save_steps: int | None = option(None, "Checkpoint every this many steps (a re-run resumes).", ge=1)
    bf16: bool | None = option(None, "bfloat16 (default: on a GPU that supports it).")
    report_to: list[str] = option([], "Trackers (wandb, tensorboard, ...).")
    # --- LoRA
    use_peft: bool = option(False, "Train a LoRA adapter.")
    lora_r: int = option(16, "LoRA rank.", ge=1)
    lora_alpha: int = option(32, "LoRA alpha.", ge=1)
    lora_target_modules: list[str] = option(["all-linear"], "LoRA target modules or 'all-linear'.")
    # --- vLLM (GPU)
    use_vllm: bool = option(False, "Generate with vLLM (a CUDA GPU and the vllm package).")
    vllm_mode: str = option("colocate", "colocate (vLLM in the training process) or server (trl vllm-serve).")
    vllm_server_base_url: str | None = option(None, "server mode: the trl vllm-serve URL.")
    vllm_gpu_memory_utilization: float = option(0.3, "colocate: GPU memory share vLLM may take.", gt=0, le=1)

    def __post_init__(self) -> None:
        check_fields(self)
        from .reward import REWARDS
        from .spec import CURRICULA, OFFERS

        if self.reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, got {self.reward!r}")
        if self.offer not in OFFERS:
            raise ValueError(f"offer must be one of {', '.join(OFFERS)}, got {self.offer!r}")
        if self.curriculum not in CURRICULA:
            raise ValueError(f"curriculum must be one of {', '.join(CURRICULA)}, got {self.curriculum!r}")
        if self.curriculum != "none" and not self.pass_rates:
            raise ValueError(f"curriculum {self.curriculum!r} needs pass_rates (a filtered artifact)")
        if self.vllm_mode not in ("colocate", "server"):
            raise ValueError(f"vllm_mode must be colocate or server, got {self.vllm_mode!r}")
        if self.per_device_train_batch_size % self.num_generations and self.gradient_accumulation_steps == 1:
            raise ValueError(
                f"per_device_train_batch_size ({self.per_device_train_batch_size}) must be a multiple of "
                f"num_generations ({self.num_generations}) on one device"
            )


def prepare_tokenizer(tokenizer: Any) -> str:
    """Give `tokenizer` a tool template and a response parser TRL's tool loop can use; returns which.

    TRL's own parser for a template it knows (`"trl"`); else a ChatML template with `<tool_call>` JSON blocks
    (envscale's, or the Qwen2.5 training template an `envscale train` output carries) read with TRL's Qwen parser
    (`"chatml"`), the template being replaced by envscale's when it renders no tools.
    """
    from trl.chat_template_utils import add_response_schema, qwen3_template

    from ..chat_templates import ensure_tool_template

    try:
        add_response_schema(tokenizer)
        return "trl"
    except ValueError:
        pass
    template = tokenizer.chat_template if isinstance(tokenizer.chat_template, str) else ""
    if not ("<tool_call>" in template and "<|im_start|>" in template):
        ensure_tool_template(tokenizer, for_training=False)
        if "<tool_call>" not in (tokenizer.chat_template or ""):
            tokenizer.chat_template = None
            ensure_tool_template(tokenizer, for_training=False)
    tokenizer.response_template = qwen3_template
    return "chatml"


def _on_gpu() -> bool:
    import torch

    return torch.cuda.is_available()


def grpo_args(config: RLConfig, folder: Path):
    """The `GRPOConfig` of a run."""
    from trl import GRPOConfig

    bf16 = (
        config.bf16
        if config.bf16 is not None
        else (_on_gpu() and __import__("torch").cuda.is_bf16_supported())
    )
    kwargs: dict[str, Any] = {}
    if config.use_vllm:
        kwargs = {
            "use_vllm": True,
            "vllm_mode": config.vllm_mode,
            "vllm_gpu_memory_utilization": config.vllm_gpu_memory_utilization,
        }
        if config.vllm_server_base_url:
            kwargs["vllm_server_base_url"] = config.vllm_server_base_url
    return GRPOConfig(
        output_dir=str(folder / "checkpoints"),
        max_steps=config.max_steps,
        num_generations=config.num_generations,
        per_device_train_batch_size=config.per_device_train_batch_size,
        gradient_accumulation_steps=config.gradient_accumulation_steps,
        learning_rate=config.learning_rate,
        beta=config.beta,
        temperature=config.temperature,
        max_completion_length=config.max_completion_length,
        max_tool_calling_iterations=config.max_tool_calling_iterations,
        loss_type=config.loss_type,
        seed=config.seed,
        data_seed=config.seed,
        shuffle_dataset=config.curriculum != "easy_first",
        logging_steps=config.logging_steps,
        save_strategy="steps" if config.save_steps else "no",
        save_steps=config.save_steps or 500,
        bf16=bf16,
        activation_checkpointing=False,
        use_cpu=not _on_gpu(),
        report_to=config.report_to or "none",
        disable_tqdm=False,
        **kwargs,
    )


def _versions() -> dict[str, str]:
    out = {}
    for name in ("envscale", "trl", "transformers", "torch", "peft", "datasets"):
        with contextlib.suppress(importlib.metadata.PackageNotFoundError):
            out[name] = importlib.metadata.version(name)
    return out


def train_rl(tasks: Any, config: RLConfig, output: str | Path) -> dict:
    """GRPO on the admitted tasks of `tasks` (see the module docstring); returns the `rl.json` record."""
    import os

    os.environ.setdefault(
        "TRL_EXPERIMENTAL_SILENCE", "1"
    )  # environment_factory is "experimental" in TRL 1.16
    from .spec import EnvscaleSpec
    from .trainer import EnvscaleGRPOTrainer

    start = time.perf_counter()
    output = Path(output)
    output.mkdir(parents=True, exist_ok=True)
    art = open_artifact(tasks, expect_kind="tasks")
    spec = EnvscaleSpec(
        art,
        split=config.split,
        reward=config.reward,
        user=config.user,
        offer=config.offer,
        max_tasks=config.max_tasks,
        kinds=config.kinds or None,
        task_ids=config.task_ids or None,
        pass_rates=config.pass_rates,
        min_pass_rate=config.min_pass_rate,
        max_pass_rate=config.max_pass_rate,
        curriculum=config.curriculum,
        max_rows=config.max_rows,
    )
    path, gguf = resolve_model_name(config.model)
    import torch

    dtype = torch.bfloat16 if (config.bf16 or (config.bf16 is None and _on_gpu())) else torch.float32
    model, tokenizer = load_pretrained(path, gguf, config.revision, plain=True, dtype=dtype)
    parser = prepare_tokenizer(tokenizer)
    if config.max_prompt_length is not None:
        spec.limit_prompt_length(tokenizer, config.max_prompt_length)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    peft_config = None
    if config.use_peft:
        from peft import LoraConfig

        targets = config.lora_target_modules
        peft_config = LoraConfig(
            r=config.lora_r,
            lora_alpha=config.lora_alpha,
            target_modules="all-linear" if targets == ["all-linear"] else list(targets),
            task_type="CAUSAL_LM",
        )
    trainer = EnvscaleGRPOTrainer(
        model=model,
        processing_class=tokenizer,
        args=grpo_args(config, output),
        train_dataset=spec.train_dataset,
        reward_funcs=spec.reward_funcs,
        environment_factory=spec.environment_factory,
        peft_config=peft_config,
        mask_spoiled=config.mask_spoiled,
    )
    from transformers.trainer_utils import get_last_checkpoint

    checkpoints = output / "checkpoints"
    resume = get_last_checkpoint(str(checkpoints)) if checkpoints.is_dir() else None
    with (
        warnings.catch_warnings()
    ):  # TRL 1.16 still calls transformers' deprecated gradient-checkpointing names
        warnings.filterwarnings(
            "ignore", message=".*gradient_checkpointing.* is deprecated", category=FutureWarning
        )
        trainer.train(resume_from_checkpoint=resume)
    trainer.save_model(str(output))
    tokenizer.save_pretrained(str(output))
    adapter = output / "adapter_config.json"
    if (
        adapter.is_file()
    ):  # point the adapter at the policy it was trained on, so loading it merges the whole chain
        base = (
            config.model
            if (config.model == SMOLLM2 or not Path(path).is_dir())
            else str(Path(path).resolve())
        )
        settings = json.loads(adapter.read_text(encoding="utf-8"))
        settings["base_model_name_or_path"] = base
        adapter.write_text(json.dumps(settings, indent=2) + "\n")
    history = [
        {
            k: v
            for k, v in h.items()
            if k
            in (
                "step",
                "loss",
                "reward",
                "reward_std",
                "envscale/masked_groups",
                "tools/call_frequency",
                "tools/failure_frequency",
            )
            or k.startswith("rewards/")
        }
        for h in trainer.state.log_history
        if "reward" in h
    ]
    record = {
        "kind": "rl",
        "tasks": {"path": art.location, "version": art.version, "data_id": art.data_id, "pinned": art.pinned},
        "config": to_dict(config),
        "reward": config.reward,
        "parser": parser,
        "admission": spec.counts,
        "rejected": spec.rejected,
        "masked_groups": trainer.masked_groups_total,
        "groups": trainer.groups_total,
        "masked_share": round(trainer.masked_groups_total / trainer.groups_total, 4)
        if trainer.groups_total
        else 0.0,
        "history": history,
        "seconds": round(time.perf_counter() - start, 1),
        "versions": _versions(),
        "eval_results": {},
    }
    (output / RL_RECORD).write_text(json.dumps(record, indent=2, default=str) + "\n")
    write_card(output, record)
    logger.info(
        "rl: %d steps on %d tasks in %.0f s; reward %s -> %s; %d of %d groups masked; model in %s",
        config.max_steps,
        spec.counts["admitted"],
        record["seconds"],
        history[0].get("reward") if history else None,
        history[-1].get("reward") if history else None,
        record["masked_groups"],
        record["groups"],
        output,
    )
    return record


def write_card(folder: Path, record: dict) -> Path:
    """The model card of an RL run (`README.md`): base, tasks artifact, reward, admission, masking, rewards, eval."""
    cfg = record["config"]
    counts = record["admission"]
    history = record["history"]
    gates = ", ".join(f"`{k}` {v}" for k, v in counts.get("rejected_by_gate", {}).items()) or "none"
    lines = [
        "---",
        "library_name: " + ("peft" if cfg.get("use_peft") else "transformers"),
        "tags: [envscale, grpo, trl, tool-use, reinforcement-learning]",
        "---",
        "",
        f"# {folder.name}: GRPO on envscale environments",
        "",
        f"Trained from `{cfg['model']}` with TRL's GRPO (`envscale rl`) on the tasks of `{record['tasks']['pinned']}` "
        f"(split `{cfg['split']}`, data id `{record['tasks']['data_id']}`).",
        "",
        "| | |",
        "|---|---|",
        f"| reward | `{record['reward']}`: "
        + (
            "1 when the judge's outcome checks hold (final database state = gold state, answer facts, required "
            "effects, policy), else 0"
            if record["reward"] == "outcome"
            else "1 for a pass, else 0.9 x the share of gold effects reached"
        )
        + " |",
        f"| tasks admitted | {counts['admitted']} of {counts['tasks']} (rejected by gate: {gates}) |",
        f"| environments | {counts['environments']} ({counts['classes']} offered tool sets) |",
        f"| steps | {cfg['max_steps']} x {cfg['per_device_train_batch_size']} rollouts, groups of {cfg['num_generations']} |",
        f"| simulated user | {json.dumps(cfg.get('user'))} as the tool `send_message_to_user` |",
        f"| masked groups | {record['masked_groups']} of {record['groups']} ({record['masked_share']:.1%}) spoiled by the user simulator |",
        f"| reward, first -> last step | {history[0].get('reward') if history else '-'} -> {history[-1].get('reward') if history else '-'} |",
        f"| LoRA | {'r=' + str(cfg['lora_r']) if cfg.get('use_peft') else 'no (all weights)'} |",
        "",
        "## Evaluation",
        "",
    ]
    if record.get("eval_results"):
        for benchmark, result in record["eval_results"].items():
            agents = result.get("agents") or {}
            models = (
                ", ".join(f"`{a}` = `{m}`" for a, m in agents.items()) if isinstance(agents, dict) else ""
            )
            mine = isinstance(agents, dict) and any(
                m and Path(str(m)).resolve() == folder.resolve() for m in agents.values()
            )
            lines += [
                f"### {benchmark}: {result['domain']}",
                "",
                f"From `{result['eval']}`; agents: {models}.",
            ]
            if not mine:
                lines.append("(No agent of this eval is this folder's model.)")
            lines.append("")
            table = result["table"]
            lines.append("| " + " | ".join(table[0]) + " |")
            lines.append("|" + "---|" * len(table[0]))
            lines += ["| " + " | ".join(row) + " |" for row in table[1:]]
            lines.append("")
    else:
        lines.append(
            "Not evaluated yet: run `envscale eval` with this model as an agent, then "
            "`envscale rl --attach-eval EVAL --output THIS_FOLDER` puts the table here."
        )
    lines += ["", "Versions: " + ", ".join(f"{k} {v}" for k, v in record["versions"].items()), ""]
    path = folder / "README.md"
    path.write_text("\n".join(lines))
    return path


#: How each benchmark's scores are labelled in the card.
DOMAINS = {
    "tasks": "in-domain (held-out tasks of envscale environments; `heldout_envs`: environments never trained on)",
    "bfcl": "out-of-domain (BFCL, scored by bfcl-eval's own checker)",
}


def attach_eval(folder: str | Path, evals: list[str]) -> dict:
    """Put the before/after tables of `eval` artifacts into an RL run's `rl.json` and model card; returns the record."""
    folder = Path(folder)
    path = folder / RL_RECORD
    if not path.is_file():
        raise FileNotFoundError(f"{folder} holds no rl.json: give the output folder of an `envscale rl` run")
    record = json.loads(path.read_text(encoding="utf-8"))
    for ref in evals:
        art = open_artifact(ref, expect_kind="eval")
        stats = art.manifest["stats"]
        benchmark = stats["benchmark"]
        record.setdefault("eval_results", {})[benchmark] = {
            "eval": art.pinned,
            "agents": {
                name: (stats.get("agent_backends") or {}).get(name, {}).get("model")
                for name in stats["agents"]
            },
            "domain": DOMAINS.get(benchmark, benchmark),
            "table": stats["comparison"],
        }
    path.write_text(json.dumps(record, indent=2, default=str) + "\n")
    write_card(folder, record)
    return record
