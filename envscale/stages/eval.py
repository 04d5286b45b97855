"""`envscale eval` (placeholder until the evaluation harness lands)."""

from __future__ import annotations

from dataclasses import dataclass

from . import Stage


@dataclass
class EvalConfig:
    """Configuration of `envscale eval`."""

    def fingerprint(self, input_key: str) -> str:  # pragma: no cover - placeholder
        return input_key


def evaluate(tasks, config: EvalConfig, output):  # noqa: ANN001 - placeholder
    raise ValueError("envscale eval is not built yet")


STAGE = Stage(
    name="eval",
    output="eval",
    input="tasks",
    help="evaluate an agent on held-out tasks or BFCL",
    config_cls=EvalConfig,
    function=evaluate,
)
