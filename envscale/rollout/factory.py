"""`make_backend`: the backend of a config, whatever its kind (`endpoint`, `transformers`, `scripted`,
`adversary`).

The kinds live in their own modules (`backends` holds the contract and the endpoint client, `local` the
`transformers` backend, `scripted` the offline agent and user, `adversaries` the adversarial agents); this factory sits above them, so each imports
only the contract.

Example:

```python
>>> from envscale.rollout.backends import BackendConfig
>>> from envscale.rollout.factory import make_backend
>>> agent = make_backend(BackendConfig(kind="scripted"), "agent")
```
"""

from __future__ import annotations

from .adversaries import AdversaryBackend
from .backends import Backend, BackendConfig, EndpointBackend
from .scripted import ScriptedAgentBackend, ScriptedUserBackend


def make_backend(config: BackendConfig, role: str, *, concurrency: int = 64) -> Backend:
    """The backend of `config` for `role` ("agent" or "user")."""
    if role not in ("agent", "user"):
        raise ValueError(f"role must be 'agent' or 'user', got {role!r}")
    if config.kind == "endpoint":
        return EndpointBackend(config, role, concurrency=concurrency)
    if config.kind == "transformers":
        from .local import TransformersBackend  # imports torch and transformers: only when asked for

        return TransformersBackend(config, role)
    if config.kind == "adversary":
        if role != "agent":
            raise ValueError("kind 'adversary' plays the agent, not the user")
        return AdversaryBackend(config, role)
    return ScriptedAgentBackend(config, role) if role == "agent" else ScriptedUserBackend(config, role)
