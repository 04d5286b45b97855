"""The training chat template: tool-aware, with `{% generation %}` markers, from TRL when the model lacks one.

`assistant_only_loss=True` needs a template that marks what the assistant writes with `{% generation %}`
and renders `tools` and assistant `tool_calls`. In order:

1. the tokenizer's own template, when it already renders tools and has the markers (`"own"`);
2. TRL's training variant of the model family's template (`trl.chat_template_utils.get_training_chat_template`:
   Qwen2.5/3, Llama 3, Gemma, Phi, ...), when TRL knows the family (`"trl:<name>"`);
3. otherwise, for a tokenizer with the ChatML tokens `<|im_start|>`/`<|im_end|>` (SmolLM2 and most small
   chat models), TRL's Qwen2.5 training template (`trl/chat_templates/qwen2_5_training.jinja`: ChatML, tool
   schemas in the system prompt, `<tool_call>` blocks, tool results as `<tool_response>` blocks of a user turn),
   which is the Hermes format `envscale.llm.parse_content_tool_calls` reads. Its default system prompt
   ("You are Qwen ...") is only used for conversations without a system message; envscale's all have one.

The template chosen is saved with the tokenizer of each stage, so the trained model is prompted at rollout
time in the format it was trained on.
"""

from __future__ import annotations

from typing import Any

from ..chat_templates import CHATML_TOKENS, template_has_generation_markers, template_supports_tools

#: The fallback for tokenizers with ChatML tokens whose family TRL has no training template for.
FALLBACK = "qwen2_5_training"


def _own(tokenizer: Any) -> str | None:
    template = getattr(tokenizer, "chat_template", None)
    if isinstance(template, dict):
        template = template.get("tool_use") or template.get("default")
    return template if isinstance(template, str) else None


def _trl_name(template: str) -> str | None:
    """The name of a TRL training template (`qwen2_5_training`) from its source, or None."""
    from trl import chat_template_utils

    for attr, value in vars(chat_template_utils).items():
        if attr.endswith("_training_chat_template") and value == template:
            return attr.removesuffix("_chat_template")
    return None


def trl_template(name: str) -> str:
    """The source of a TRL training template by name (`qwen2_5_training`)."""
    from trl import chat_template_utils

    return getattr(chat_template_utils, f"{name}_chat_template")


def set_training_template(tokenizer: Any) -> str:
    """Give `tokenizer` a tool-aware template with generation markers (see the module docstring).

    Returns the template's name for the record: `"own"` or `"trl:<name>"` (e.g. `"trl:qwen2_5_training"`).

    Raises:
        ValueError: neither the tokenizer's template nor a TRL one fits, and the tokenizer has no ChatML tokens.
    """
    from trl.chat_template_utils import get_training_chat_template

    own = _own(tokenizer)
    if template_supports_tools(own) and template_has_generation_markers(own):
        name = _trl_name(own)  # a stage-1 output carries the TRL template it was trained with
        return f"trl:{name}" if name else "own"
    template = None
    try:
        template = get_training_chat_template(tokenizer) if own else None
    except ValueError:  # a family TRL has no training template for (SmolLM2's plain ChatML, say)
        template = None
    if template is not None and template_supports_tools(template):
        tokenizer.chat_template = template
        return f"trl:{_trl_name(template) or 'training'}"
    vocab = tokenizer.get_vocab()
    missing = [t for t in CHATML_TOKENS if t not in vocab]
    if missing:
        raise ValueError(
            "the tokenizer's chat template renders no tools or has no {% generation %} markers, TRL has no "
            f"training template for it, and TRL's ChatML one ({FALLBACK}) does not fit: the tokenizer has no "
            f"{' or '.join(missing)} token. Set a tool-aware template with {{% generation %}} markers on the "
            "model's tokenizer (tokenizer.chat_template = ...) and save it with the model."
        )
    tokenizer.chat_template = trl_template(FALLBACK)
    return f"trl:{FALLBACK}"
