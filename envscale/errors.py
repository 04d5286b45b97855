"""The errors envscale raises on purpose, each with a message that names the file, record or field
and the way out.

The CLI prints any :class:`EnvscaleError` (and `ValueError`/`OSError` from configs and files) as one
line and exits with status 2; anything else is a bug and is shown with its traceback.

Example:

```python
>>> from envscale.errors import EnvscaleError
>>> from envscale.artifacts import open_artifact
>>> try:
...     open_artifact("/tmp/nothing-here")
... except EnvscaleError as exc:
...     print(exc)
no such folder: /tmp/nothing-here
```
"""

from __future__ import annotations


class EnvscaleError(Exception):
    """A known failure with a message a user can act on (the CLI prints it, exit status 2)."""


class ArtifactError(EnvscaleError):
    """An artifact is missing, broken, locked by another writer, or not what was asked for."""


class HubError(EnvscaleError):
    """The Hugging Face Hub could not be reached, did not answer in time, or refused a request."""


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the process is (by the CLI's handler), so every cleanup that runs on Ctrl-C runs."""
