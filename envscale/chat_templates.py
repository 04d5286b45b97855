"""A tool-aware ChatML chat template, for models whose own template renders no tools or has no
`{% generation %}` markers (SmolLM2's has neither).

The template is ChatML (`<|im_start|>role\\n...<|im_end|>\\n`) in the Hermes/Qwen2.5 tool format, so a
model trained on it calls tools the way `envscale.llm.parse_content_tool_calls` reads them:

- the tools' JSON schemas go in the system prompt, inside `<tools></tools>`, with the instruction to call
  them as `<tool_call>{"name": ..., "arguments": {...}}</tool_call>` blocks; no default system prompt;
- an assistant turn is its content, then one `<tool_call>` block per call (`arguments` given as a dict,
  or as a JSON string, written as it is); OpenAI's `{"function": {...}}` wrapping or bare calls;
- tool results are `user` turns of `<tool_response>...</tool_response>` blocks, consecutive results in
  one turn (as Qwen2.5 does);
- each assistant turn's content, tool calls and closing `<|im_end|>` lie inside `{% generation %}`, so
  `apply_chat_template(..., return_assistant_tokens_mask=True)` (and TRL's `assistant_only_loss=True`)
  mark exactly what the model writes: the `<|im_start|>assistant\\n` header is the generation prompt,
  and rendering a conversation with `add_generation_prompt=True` gives a prefix of its rendering with the
  next assistant turn.

Example:

```python
>>> from transformers import AutoTokenizer
>>> from envscale.chat_templates import ensure_tool_template
>>> tokenizer = AutoTokenizer.from_pretrained("path/to/smollm2")
>>> ensure_tool_template(tokenizer)  # True: the template was replaced
True
>>> out = tokenizer.apply_chat_template(messages, tools=tools, return_dict=True, return_assistant_tokens_mask=True)
>>> out["assistant_masks"]  # 1 on the assistant turns' tokens, 0 elsewhere
```
"""

from __future__ import annotations

import re
from typing import Any

#: The name a trajectory records for this template (`"own"`: the tokenizer's own one was used).
TEMPLATE_NAME = "envscale-tool-template"

#: The special tokens the template writes; the tokenizer must know them as single tokens.
CHATML_TOKENS = ("<|im_start|>", "<|im_end|>")

# Whitespace control: every tag trims on both sides, so only the quoted strings reach the output.
_TEMPLATE = r"""{#- envscale tool template: ChatML, Hermes-style tools, generation markers on assistant turns -#}
{%- set offset = 0 %}
{%- set system = '' %}
{%- if messages and messages[0].role == 'system' %}
    {%- set offset = 1 %}
    {%- set system = messages[0].content if messages[0].content is string else '' %}
{%- endif %}
{%- if tools %}
    {{- '<|im_start|>system\n' }}
    {%- if system %}
        {{- system + '\n\n' }}
    {%- endif %}
    {{- '# Tools\n\nYou can call functions to help with the request. Their JSON schemas are listed inside '
        + '<tools></tools>:\n<tools>' }}
    {%- for tool in tools %}
        {{- '\n' + (tool | tojson) }}
    {%- endfor %}
    {{- '\n</tools>\n\nTo call a function, write a JSON object with its name and its arguments inside '
        + '<tool_call></tool_call> tags, one block per call:\n<tool_call>\n'
        + '{"name": <function name>, "arguments": <arguments as a JSON object>}\n</tool_call><|im_end|>\n' }}
{%- elif offset %}
    {{- '<|im_start|>system\n' + system + '<|im_end|>\n' }}
{%- endif %}
{%- for message in messages[offset:] %}
    {%- set content = message.content if message.content is string else '' %}
    {%- if message.role == 'assistant' %}
        {{- '<|im_start|>assistant\n' }}
        {%- generation %}
            {{- content }}
            {%- for call in message.tool_calls or [] %}
                {%- if call.function is defined %}
                    {%- set call = call.function %}
                {%- endif %}
                {%- if content or not loop.first %}
                    {{- '\n' }}
                {%- endif %}
                {{- '<tool_call>\n{"name": ' + (call.name | tojson) + ', "arguments": ' }}
                {%- if call.arguments is string %}
                    {{- call.arguments }}
                {%- elif call.arguments is mapping %}
                    {{- call.arguments | tojson }}
                {%- else %}
                    {{- '{}' }}
                {%- endif %}
                {{- '}\n</tool_call>' }}
            {%- endfor %}
            {{- '<|im_end|>' }}
        {%- endgeneration %}
        {{- '\n' }}
    {%- elif message.role == 'tool' %}
        {%- set previous = messages[offset + loop.index0 - 1] if loop.index0 > 0 else none %}
        {%- if previous is none or previous.role != 'tool' %}
            {{- '<|im_start|>user' }}
        {%- endif %}
        {%- if message.content is string %}
            {{- '\n<tool_response>\n' + message.content + '\n</tool_response>' }}
        {%- else %}
            {{- '\n<tool_response>\n' + (message.content | tojson) + '\n</tool_response>' }}
        {%- endif %}
        {%- if loop.last or messages[offset + loop.index0 + 1].role != 'tool' %}
            {{- '<|im_end|>\n' }}
        {%- endif %}
    {%- else %}
        {{- '<|im_start|>' + message.role + '\n' + content + '<|im_end|>\n' }}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|im_start|>assistant\n' }}
{%- endif %}"""

_GENERATION_TAG = re.compile(r"\{%-?\s*generation\s*-?%\}")


def tool_template() -> str:
    """The Jinja source of envscale's tool-aware ChatML template (see the module docstring)."""
    return _TEMPLATE


def template_supports_tools(template: str | None) -> bool:
    """Whether a chat template renders the `tools` it is given and assistant `tool_calls`."""
    return bool(template) and "tools" in template and "tool_call" in template


def template_has_generation_markers(template: str | None) -> bool:
    """Whether a chat template marks assistant output with `{% generation %}` (assistant-only loss)."""
    return bool(template) and _GENERATION_TAG.search(template) is not None


def _own_template(tokenizer: Any) -> str | None:
    template = getattr(tokenizer, "chat_template", None)
    if isinstance(template, dict):  # several named templates: the one apply_chat_template uses
        template = template.get("tool_use") or template.get("default")
    return template if isinstance(template, str) else None


def ensure_tool_template(tokenizer: Any, *, for_training: bool = True) -> bool:
    """Give `tokenizer` envscale's tool template if its own cannot serve; returns whether it changed.

    Args:
        tokenizer: a `transformers` tokenizer; its `chat_template` is replaced in place.
        for_training (`bool`, defaults to `True`): also require `{% generation %}` markers (for
            `assistant_only_loss`). With `False` (generation), a template that renders tools is kept:
            it is the format the model was trained on.

    Raises `ValueError` when the template must be replaced but the tokenizer does not know `<|im_start|>`
    and `<|im_end|>` as single tokens (then ChatML would be split into pieces the model never saw).
    """
    own = _own_template(tokenizer)
    if own == _TEMPLATE:
        return False
    if template_supports_tools(own) and (template_has_generation_markers(own) or not for_training):
        return False
    vocab = tokenizer.get_vocab()
    missing = [t for t in CHATML_TOKENS if t not in vocab]
    if missing:
        lacks = "tools" if not template_supports_tools(own) else "{% generation %} markers"
        raise ValueError(
            f"the tokenizer's chat template has no {lacks}, and envscale's tool template (ChatML) cannot "
            f"replace it: the tokenizer has no {' or '.join(missing)} token. Set a tool-aware template with "
            "{% generation %} markers yourself (tokenizer.chat_template = ...), or add the ChatML tokens "
            "(tokenizer.add_special_tokens) and resize the model's embeddings."
        )
    tokenizer.chat_template = _TEMPLATE
    return True
