"""Publish an `api_pool` as OpenAI-format tool definitions, ready for TRL's `tools` argument.

Each row becomes `{"type": "function", "function": {"name", "description", "parameters"}}`
(stored with `datasets.Json`), plus `kind`, `id` and `source` for filtering. The card says
which envscale artifact version it was converted from.

Usage:

```bash
python hub_scripts/api_pool_to_openai_tools.py --input outputs/quickstart/api_pool \
    --output outputs/openai_tools            # local parquet
python hub_scripts/api_pool_to_openai_tools.py --input org/api-pool@v1 --push-to-hub org/openai-tools
```
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from datasets import Features, Json, Value

from envscale.artifacts import open_artifact

FEATURES = Features(
    {"id": Value("string"), "kind": Value("string"), "source": Value("string"), "tool": Json()}
)


@dataclass
class ScriptArguments:
    """Arguments of the conversion.

    Args:
        input: an api_pool artifact, `PATH[@vN]` or `org/name[@revision]`.
        output: local folder for the parquet file (when not pushing).
        push_to_hub: a dataset repo id to push to.
    """

    input: str
    output: str | None = None
    push_to_hub: str | None = None


def to_openai_tool(row: dict) -> dict:
    """One api_pool row -> one OpenAI tool definition (pure)."""
    return {
        "id": row["id"],
        "kind": row["kind"],
        "source": row["source"],
        "tool": {
            "type": "function",
            "function": {
                "name": row["name"],
                "description": row["description"],
                "parameters": row["parameters"],
            },
        },
    }


def card_text(pinned: str, repo_id: str, rows: int) -> str:
    return (
        f"---\ntags: [envscale, tool-use]\n---\n\n# OpenAI-format tools from `{pinned}`\n\n"
        f"{rows} tool definitions converted from the envscale api_pool artifact `{pinned}` by "
        f"`hub_scripts/api_pool_to_openai_tools.py`.\n\n```python\nfrom datasets import load_dataset\n"
        f'tools = load_dataset("{repo_id}", split="train")["tool"]\n```\n'
    )


def main(args: ScriptArguments) -> None:
    art = open_artifact(args.input, expect_kind="api_pool")
    pool = art.load("api_pool")
    converted = pool.map(
        to_openai_tool, remove_columns=pool.column_names, features=FEATURES, desc="to OpenAI tools"
    )
    if args.push_to_hub:
        from huggingface_hub import DatasetCard

        converted.push_to_hub(args.push_to_hub)
        DatasetCard(card_text(art.pinned, args.push_to_hub, converted.num_rows)).push_to_hub(
            args.push_to_hub, repo_type="dataset"
        )
        print(f"pushed {converted.num_rows} tools to {args.push_to_hub}")
    else:
        out = args.output or "outputs/openai_tools"
        converted.to_parquet(f"{out}/train.parquet")
        print(f"wrote {converted.num_rows} tools to {out}/train.parquet (from {art.pinned})")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--input", required=True)
    parser.add_argument("--output")
    parser.add_argument("--push-to-hub", dest="push_to_hub")
    main(ScriptArguments(**vars(parser.parse_args())))
