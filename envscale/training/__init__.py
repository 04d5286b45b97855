"""Two-stage SFT of a tool-calling model on a `filtered` artifact, with TRL's `SFTTrainer`: the library.

The command `envscale train` is :mod:`envscale.stages.train` (its parser, flags and what it prints); this
package is what it runs:

- `config`: :class:`TrainConfig`, the recipe's `train:` section;
- `data`: `filtered` rows as TRL conversational examples (stage 1 and stage 2 selections, length fits);
- `template`: the tool-aware training chat template with `{% generation %}` markers;
- `sft`: :func:`train`, the two stages with TRL's `SFTTrainer` (LoRA/QLoRA, packing, padding-free);
- `card`, `hub`: model cards and the Hub push; `launch`: the `accelerate launch` re-launch and the
  accelerate configs shipped in `accelerate_configs/`.

Example:

```python
>>> from envscale.artifacts import open_artifact
>>> from envscale.training import TrainConfig, train
>>> result = train(open_artifact("outputs/quickstart/filtered"), TrainConfig(use_peft=True, max_steps=10), "outputs/m")
>>> result.last.record["result"]["train_loss"]
```
"""

from __future__ import annotations

from typing import Any

from .config import TrainConfig

__all__ = ["TrainConfig", "train"]


def train(*args: Any, **kwargs: Any):
    """See :func:`envscale.training.sft.train` (imported on use: it needs torch, transformers and TRL)."""
    from .sft import train as sft_train

    return sft_train(*args, **kwargs)
