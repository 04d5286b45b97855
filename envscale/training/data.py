"""The training data of each stage: `filtered` rows in TRL's conversational format, selected and mixed.

Rows keep `messages` (system, user, assistant with `tool_calls`, `tool` results) and `tools` as Python
objects in `datasets.Json()` columns: a plain `Dataset.from_list` would unify the argument structs of all
tools, so every call would render with `null` fields of other tools (wrong targets), and a JSON string
as `arguments` would be encoded twice by the template.
"""

from __future__ import annotations

import json
import logging
import random
from collections import Counter
from typing import Any

from ..artifacts import Artifact
from .config import TrainConfig

logger = logging.getLogger(__name__)

#: The columns of a training row besides the conversation (kept for selection and the record).
META = ("environment", "domain_id", "trajectory_id")


def _arguments(value: Any) -> Any:
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
        except json.JSONDecodeError:
            return value  # kept as written; the format check of `filter` rejects these already
        return parsed if isinstance(parsed, dict) else value
    return value


def to_conversation(row: dict) -> dict:
    """One `filtered` row as a TRL conversational example: `messages` (OpenAI format) and `tools`.

    Tool calls keep the OpenAI `{"id", "type": "function", "function": {"name", "arguments"}}` shape with
    `arguments` as a dict (a JSON string is parsed); `content` is always a string; other message keys
    that templates read (`tool_call_id`, `name`) are kept.
    """
    messages = []
    for message in row["messages"]:
        out = {"role": message["role"], "content": message.get("content") or ""}
        if message.get("tool_calls"):
            calls = []
            for call in message["tool_calls"]:
                function = call.get("function", call)
                calls.append(
                    {
                        "id": call.get("id"),
                        "type": "function",
                        "function": {
                            "name": function["name"],
                            "arguments": _arguments(function.get("arguments")),
                        },
                    }
                )
            out["tool_calls"] = calls
        for key in ("tool_call_id", "name"):
            if message.get(key) is not None:
                out[key] = message[key]
        messages.append(out)
    return {"messages": messages, "tools": row.get("tools") or None, **{k: row.get(k) for k in META}}


def load_examples(artifact: Artifact) -> list[dict]:
    """Every training row of a `filtered` artifact (config `filtered`, split `train`) as a conversation."""
    from ..artifacts import iter_rows

    data = artifact.load("filtered", "train")
    return [to_conversation(row) for row in iter_rows(data, ["messages", "tools", *META])]


def as_dataset(examples: list[dict]):
    """A `datasets.Dataset` of examples with `messages` and `tools` as `Json()` columns (see the module docstring)."""
    from datasets import Dataset, Features, Json, Value

    features = Features(
        {
            "messages": Json(),
            "tools": Json(),
            "environment": Value("string"),
            "domain_id": Value("int64"),
            "trajectory_id": Value("string"),
        }
    )
    return Dataset.from_list(examples, features=features)


def stage2_selection(examples: list[dict], config: TrainConfig) -> tuple[list[str], str]:
    """The environments stage 2 specialises on, and how they were chosen (for the log and the card).

    Raises:
        ValueError: an environment or domain named in the config has no training example.
    """
    per_env = Counter(e["environment"] for e in examples)
    if config.stage2_environments or config.stage2_domains:
        missing = sorted(set(config.stage2_environments) - set(per_env))
        domains = {e["domain_id"] for e in examples}
        missing_domains = sorted(set(config.stage2_domains) - domains)
        if missing or missing_domains:
            what = []
            if missing:
                what.append(f"environments {missing}")
            if missing_domains:
                what.append(f"domains {missing_domains}")
            largest = ", ".join(f"{name} ({n})" for name, n in per_env.most_common(5))
            raise ValueError(
                f"stage 2 selection is empty for {' and '.join(what)}: no training example in the filtered data; "
                f"environments with the most examples: {largest}"
            )
        chosen = set(config.stage2_environments) | {
            e["environment"] for e in examples if e["domain_id"] in set(config.stage2_domains)
        }
        how = "chosen: " + ", ".join(
            [f"environments {config.stage2_environments}"] * bool(config.stage2_environments)
            + [f"domains {config.stage2_domains}"] * bool(config.stage2_domains)
        )
        return sorted(chosen), how
    if config.overlong == "drop":  # examples that will be dropped do not make an environment large
        fitting = Counter(e["environment"] for e in examples if likely_fits(e, config.max_length))
        if fitting:
            ranked = sorted(fitting.items(), key=lambda kv: (-kv[1], kv[0]))[: config.stage2_largest]
            return [name for name, _ in ranked], (
                f"the {len(ranked)} environments with the most training examples within max_length"
            )
    ranked = sorted(per_env.items(), key=lambda kv: (-kv[1], kv[0]))[: config.stage2_largest]
    return [name for name, _ in ranked], f"the {len(ranked)} environments with the most training examples"


#: Characters of an example's JSON per token, low, so that an estimate errs towards "too long".
CHARS_PER_TOKEN = 3.0


def likely_fits(example: dict, max_length: int) -> bool:
    """Whether an example is likely within `max_length` tokens, from the characters of its messages and tools (a
    cheap estimate that errs towards "too long"; `fit_length` decides with the tokenizer)."""
    chars = len(json.dumps(example.get("messages"), ensure_ascii=False)) + len(
        json.dumps(example.get("tools"), ensure_ascii=False)
    )
    return chars / CHARS_PER_TOKEN <= max_length


def stage2_examples(
    examples: list[dict], environments: list[str], config: TrainConfig
) -> tuple[list[dict], dict]:
    """Stage 2's examples: those of `environments`, plus a `stage2_replay` share of the others; and counts."""
    chosen = set(environments)
    special = [e for e in examples if e["environment"] in chosen]
    others = [e for e in examples if e["environment"] not in chosen]
    if not special:
        raise ValueError(f"stage 2 selection is empty: no training example of environments {environments}")
    share = config.stage2_replay
    wanted = round(share / (1 - share) * len(special)) if share > 0 else 0
    rng = random.Random(config.seed)
    replay = rng.sample(others, min(wanted, len(others)))
    mixed = special + replay
    rng.shuffle(mixed)
    return mixed, {"specialised": len(special), "replay": len(replay), "replay_available": len(others)}


def fit_length(examples: list[dict], tokenizer: Any, config: TrainConfig) -> tuple[list[dict], dict]:
    """Drop (or keep, to be truncated) examples longer than `max_length` tokens as the template renders them.

    With `max_examples`, stops once that many are kept (the others are not tokenised).
    Returns the examples kept and `{"examined", "too_long", "dropped", "truncated", "tokens"}` (tokens: of the
    kept examples, after truncation).
    """
    kept, too_long, tokens, examined = [], 0, 0, 0
    for example in examples:
        if config.max_examples is not None and len(kept) >= config.max_examples:
            break
        examined += 1
        n = len(tokenizer.apply_chat_template(example["messages"], tools=example["tools"], return_dict=False))
        if n > config.max_length:
            too_long += 1
            if config.overlong == "drop":
                continue
        kept.append(example)
        tokens += min(n, config.max_length)
    dropped = too_long if config.overlong == "drop" else 0
    if too_long:
        logger.warning(
            "%d of %d examples%s are longer than max_length=%d tokens: %s",
            too_long,
            examined,
            f" looked at (of {len(examples)}, max_examples={config.max_examples})"
            if examined < len(examples)
            else "",
            config.max_length,
            "dropped (overlong: drop)" if dropped else "truncated, their ends lost (overlong: truncate)",
        )
    if not kept:
        raise ValueError(
            f"every one of the {len(examples)} examples is longer than max_length={config.max_length} tokens; "
            "raise max_length (tool schemas in the system prompt make examples long) or set overlong: truncate"
        )
    return kept, {
        "examined": examined,
        "too_long": too_long,
        "dropped": dropped,
        "truncated": too_long - dropped,
        "tokens": tokens,
    }


def cap(examples: list[dict], config: TrainConfig) -> list[dict]:
    """With `config.max_examples`: `examples` in an order seeded by `config.seed`, for `fit_length` to take the
    first `max_examples` that fit `max_length` (so that a short run tokenises only what it trains on)."""
    if config.max_examples is None or len(examples) <= config.max_examples:
        return examples
    order = list(range(len(examples)))
    random.Random(config.seed).shuffle(order)
    return [examples[i] for i in order]
