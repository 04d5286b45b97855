"""Tiny chat models for tests: a BPE tokenizer trained on the spot and a 2-layer Llama (hidden 64).

`build_tiny_chat_model(path)` saves a model folder that `AutoModelForCausalLM`/`AutoTokenizer` load in a
fraction of a second. Its chat template is plain ChatML without tools (like SmolLM2's), so envscale's tool
template replaces it. With `reply=[piece, ...]`, greedy decoding after the generation prompt writes exactly
the pieces, then `<|im_end|>`: each piece is an added token, and the weights make the model a bigram chain
(the generation prompt's last token -> piece 1 -> piece 2 -> ... -> `<|im_end|>`) on embedding dimensions
that no other token uses. Without `reply`, the weights stay random: the output is noise, different for
different sampling seeds.
"""

from __future__ import annotations

from pathlib import Path

CHATML_TOKENS = ["<|im_start|>", "<|im_end|>", "<|endoftext|>"]
PLAIN_CHATML = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
CORPUS = [
    "hello world, what is the weather in Paris today? It is sunny.",
    'You can call functions. <tools></tools> <tool_call> {"name": "get_weather", "arguments": {"city": "Lyon"}}',
    "<tool_response> the order 42 was cancelled and refunded </tool_response> system user assistant tool",
]


def build_tiny_tokenizer(*, chatml: bool = True, chat_template: str | None = PLAIN_CHATML):
    """A byte-level BPE tokenizer (~400 tokens) with the ChatML special tokens (unless `chatml=False`)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=400, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False
    )
    tokenizer.train_from_iterator(CORPUS * 10, trainer)
    if not chatml:
        tokenizer.add_special_tokens(["<|endoftext|>"])
        return PreTrainedTokenizerFast(
            tokenizer_object=tokenizer,
            eos_token="<|endoftext|>",
            pad_token="<|endoftext|>",
            chat_template=chat_template,
        )
    tokenizer.add_special_tokens(CHATML_TOKENS)
    return PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        chat_template=chat_template,
    )


def build_tiny_chat_model(
    path: str | Path,
    *,
    reply: list[str] | None = None,
    max_positions: int = 512,
    seed: int = 0,
    chatml: bool = True,
    chat_template: str | None = PLAIN_CHATML,
) -> Path:
    """Save a tiny Llama chat model (and its tokenizer) to `path`; see the module docstring. With
    `chatml=False` the tokenizer has no `<|im_start|>`/`<|im_end|>` tokens (`reply` must be empty)."""
    import torch
    from tokenizers import AddedToken
    from transformers import LlamaConfig, LlamaForCausalLM

    path = Path(path)
    tokenizer = build_tiny_tokenizer(chatml=chatml, chat_template=chat_template)
    pieces = list(reply or [])
    if len(set(pieces)) != len(pieces):
        raise ValueError("the pieces of a reply must be distinct (each one decides the next)")
    tokenizer.add_tokens([AddedToken(p, normalized=False, special=False) for p in pieces])
    tokenizer.save_pretrained(path)
    torch.manual_seed(seed)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=max_positions,
        tie_word_embeddings=False,
        bos_token_id=None,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    model = LlamaForCausalLM(config)
    if pieces:
        prompt_end = tokenizer("<|im_start|>assistant\n")["input_ids"][-1]
        chain = [prompt_end] + tokenizer.convert_tokens_to_ids(pieces)
        nexts = chain[1:] + [tokenizer.eos_token_id]
        with torch.no_grad():
            embed, head = model.get_input_embeddings().weight, model.lm_head.weight
            embed[:, : len(chain)] = 0  # dimensions reserved for the chain
            for k, (token, after) in enumerate(zip(chain, nexts, strict=True)):
                embed[token] = 0
                embed[token, k] = 1.0
                head[after] = 0
                head[after, k] = 10.0
    model.save_pretrained(path)
    return path


def tool_call_reply(calls: list[dict], closing: str = "Done: the change you asked for is made.") -> list[str]:
    """The pieces of a `reply` that makes `calls` (`{"tool", "arguments"}`) as `<tool_call>` blocks in one turn,
    then says `closing`: a policy that replays a task's gold calls."""
    import json

    blocks = [
        "<tool_call>\n" + json.dumps({"name": c["tool"], "arguments": c["arguments"]}) + "\n</tool_call>\n"
        for c in calls
    ]
    return [*blocks, closing]


def tiny_grpo_args(
    output_dir: str | Path, *, steps: int = 2, generations: int = 2, completion: int = 64, **kwargs
):
    """TRL's `GRPOConfig` for a tiny policy on the CPU: one tool round, (almost) greedy sampling along the reply
    chain, no checkpoints, no trackers; `kwargs` override."""
    from trl import GRPOConfig

    settings = {
        "output_dir": str(output_dir),
        "max_steps": steps,
        "num_generations": generations,
        "per_device_train_batch_size": generations,
        "max_completion_length": completion,
        "max_tool_calling_iterations": 1,
        "temperature": 0.05,  # the tiny models' replies are a chain: sample (almost) greedily along it
        "use_cpu": True,
        "activation_checkpointing": False,
        "report_to": "none",
        "logging_steps": 1,
        "save_strategy": "no",
        "disable_tqdm": True,
        "seed": 0,
    }
    return GRPOConfig(**{**settings, **kwargs})
