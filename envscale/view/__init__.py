"""`envscale view PATH_OR_HUB_ID`: every artifact of a run in the browser (Gradio; the `envscale[view]` extra).

One tab per kind of artifact found (a folder of artifacts, such as an `envscale run` output, or one artifact,
local or `hf://org/name@revision`; several may be given):

- **Environments**: the list (search by name, pages of 50); one environment's summary (size, verification,
  semantic score, tools left out and why), its tables and foreign keys drawn, its domain's tool graph (when
  the run's `graph` is there), each table's initial rows, every tool's signature, description, operation and
  JSON Schema, and a tool **called live** on a fresh copy of the initial state, with what it returned and the
  diff of the state;
- **Tasks**: filter by environment, kind and split; the user's first message, persona, goal and facts (known
  and held back), the requests, the answer facts and scoring, the gold calls with their results, the gold
  state diff;
- **Trajectories** (a `trajectories` or `filtered` artifact, `:rejected` for the filter's rejects): filter by
  environment, kind, failed check and verdict; the episode as a chat (tool calls and results as titled,
  collapsible messages, errors marked), each check's verdict;
- **Eval**: the side-by-side table, the plots and the report with its reproducibility section.

Rows are read through `datasets` at the pinned version (`envscale.view.data`); lists hold a few light
columns only, so a million-row artifact pages without loading its messages.

```bash
envscale view outputs/quickstart                      # http://127.0.0.1:7860
envscale view hf://me/envscale-quickstart-tasks@v2 --port 8080
envscale view outputs/quickstart --space space/       # a Hugging Face Space: app.py, requirements, README
```
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ..config import command_parser

SPACE_APP = '''"""envscale view as a Hugging Face Space (written by `envscale view --space`)."""

import os

from envscale.view.app import build_app, serve

REFS = os.environ.get("ENVSCALE_VIEW", {refs!r}).split()

if __name__ == "__main__":
    serve(build_app(REFS), host="0.0.0.0", port=int(os.environ.get("PORT", "7860")))
'''

SPACE_README = """---
title: {title}
emoji: 🧭
colorFrom: blue
colorTo: gray
sdk: gradio
sdk_version: {gradio}
app_file: app.py
pinned: false
---

# {title}

The envscale viewer over `{refs}`: environments (tables, tools, a live tool call with the state diff), tasks
(instructions, gold calls and state), trajectories (each episode as a chat with its checks) and eval results.
Set the Space variable `ENVSCALE_VIEW` to other artifact ids (space-separated `hf://org/name@revision`) to
show those instead. The artifacts are read at the revision pinned in the id.
"""


def write_space(refs: list[str], folder: str | Path, *, title: str = "envscale view") -> list[Path]:
    """Write a Hugging Face Space that runs the viewer over `refs` (Hub ids: a Space cannot read your disk):
    `app.py`, `requirements.txt` and the `README.md` with the Space's front matter. Returns the files."""
    import importlib.metadata

    local = [r for r in refs if not r.startswith("hf://")]
    if local:
        raise ValueError(
            f"a Space reads artifacts from the Hub, not from this disk: push {', '.join(local)} first "
            "(`envscale push PATH org/name`) and give the hf://org/name@revision ids"
        )
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    gradio = importlib.metadata.version("gradio")
    version = importlib.metadata.version("envscale")
    files = {
        "app.py": SPACE_APP.format(refs=" ".join(refs)),
        "requirements.txt": f"envscale[view]=={version}\ngradio=={gradio}\n",
        "README.md": SPACE_README.format(title=title, gradio=gradio, refs=" ".join(refs)),
    }
    written = []
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
        written.append(folder / name)
    return written


def make_parser(subparsers=None) -> argparse.ArgumentParser:
    """The `envscale view` parser (a subcommand when `subparsers` is given)."""
    parser = command_parser(
        subparsers,
        "view",
        help="browse artifacts in the browser: environments (live tool calls), tasks, trajectories, eval",
        description=__doc__,
    )
    parser.add_argument("refs", nargs="+", metavar="PATH_OR_HUB_ID", help="artifacts or folders of artifacts")
    parser.add_argument("--host", default="127.0.0.1", help="address to serve on (default: loopback only)")
    parser.add_argument("--port", type=int, default=7860, help="port (default: 7860)")
    parser.add_argument(
        "--space", metavar="DIR", help="write a Hugging Face Space for these Hub ids and exit"
    )
    parser.set_defaults(func=main)
    return parser


def main(args: argparse.Namespace) -> int:
    """Run `envscale view`."""
    if args.space:
        for path in write_space(args.refs, args.space):
            print(path)
        return 0
    try:
        import gradio  # noqa: F401
    except ImportError:
        raise ValueError("envscale view needs Gradio: pip install 'envscale[view]'") from None
    from .app import build_app, serve

    app = build_app(args.refs)
    print(f"envscale view: http://{args.host}:{args.port}  (Ctrl-C stops)")
    serve(app, host=args.host, port=args.port, block=True)
    return 0
