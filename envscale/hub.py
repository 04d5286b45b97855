"""envscale's client for the Hugging Face Hub: time limits on every request, and one-line errors.

Every Hub request envscale makes has a time limit. huggingface_hub's shared HTTP client has none
(`timeout=None`), so a Hub or proxy that accepts the connection and never answers would hang a push,
`envscale info org/x` or an `hf:` source forever. Before talking to the Hub, envscale's functions call
:func:`ensure_hub_timeouts`, which installs (with `huggingface_hub.set_client_factory`) a client that
keeps huggingface_hub's request hooks and gives up on a request after `ENVSCALE_HUB_TIMEOUT` seconds
without data (default 60; connecting: at most 10), or when its answer comes slower than `MIN_RATE` (1 KiB)
a second over such a window (a body trickled a byte at a time). This happens on first use, never at import, and
only while huggingface_hub's own default client factory is in place: a factory you set yourself is
left alone. A request that timed out is not retried (huggingface_hub would retry it 5 times with
backoff, and datasets up to 20 times), so against a silent Hub an envscale step fails after about one
timeout, with a :class:`~envscale.errors.HubError` that names the endpoint, the repo, what was being
done and the way out. Refused connections, offline mode (`HF_HUB_OFFLINE`) and HTTP errors (401, 403,
429, 5xx) are reported the same way, as one line; refused connections and 429/5xx answers are still
retried by huggingface_hub's backoff first (at most about 23 s of waiting per request).

What envscale does on the Hub is elsewhere: opening a pushed artifact is :func:`envscale.artifacts.open_artifact`
(`hf://org/name@v1`), publishing one is :mod:`envscale.publish` (`envscale push`), pushing a model is
:mod:`envscale.training.hub`. This module imports nothing of envscale but its errors.

Example:

```python
>>> from envscale.hub import ensure_hub_timeouts, hub_errors
>>> ensure_hub_timeouts()
>>> with hub_errors("reading org/name"):
...     ...  # huggingface_hub calls: a timeout or refusal becomes one HubError line
```
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit

import httpx2

from .errors import HubError

TIMEOUT_ENV = "ENVSCALE_HUB_TIMEOUT"
DEFAULT_TIMEOUT = 60.0
MAX_CONNECT_TIMEOUT = 10.0
MIN_RATE = 1024
"""Bytes a second a Hub answer must bring, over each window of `ENVSCALE_HUB_TIMEOUT` seconds (as curl's
`--speed-limit`/`--speed-time`): a body trickled a byte at a time is cut, a large download on a slow link is not."""
_TOO_SLOW = f"its answer came slower than {MIN_RATE} bytes a second"
_CHECK = "check HF_ENDPOINT / your network"
_WAY_OUT = f"{_CHECK}, or raise {TIMEOUT_ENV}"
_PHASES = {  # timeout type: (what the request was doing, its limit's key)
    httpx2.ConnectTimeout: ("connecting", "connect"),
    httpx2.ReadTimeout: ("waiting for the answer", "read"),
    httpx2.WriteTimeout: ("sending the request", "write"),
    httpx2.PoolTimeout: ("waiting for a free connection", "pool"),
}


class HubTimeoutError(HubError):
    """A Hub request got no answer in time (see :func:`ensure_hub_timeouts`); it is not retried.

    Attributes:
        url: the request's URL.
        method: the request's HTTP method.
        seconds: the time limit that ran out.
        phase: what the request was doing (`"connecting"`, `"waiting for the answer"`, ...).
        doing: what envscale was doing, when known (`"pushing to dataset repo org/x"`).
        setting: the `ENVSCALE_HUB_TIMEOUT` in force, in seconds.
    """

    def __init__(
        self,
        url: str,
        method: str,
        seconds: float | None,
        phase: str,
        doing: str | None = None,
        setting: float | None = None,
    ):
        self.url, self.method, self.seconds, self.phase = url, method, seconds, phase
        self.doing, self.setting = doing, setting
        parts = urlsplit(url)
        limit = f" within {seconds:g}s" if seconds is not None else ""
        while_ = f" while {doing}" if doing else ""
        now = f" (now {setting:g}s)" if setting is not None else ""
        super().__init__(
            f"the Hub at {parts.scheme}://{parts.netloc} did not answer{limit} ({phase}, {method} {parts.path})"
            f"{while_}; {_WAY_OUT}{now}"
        )

    def __reduce__(self):  # keep the fields when pickled (the default would call __init__ with the message)
        return type(self), (self.url, self.method, self.seconds, self.phase, self.doing, self.setting)


def hub_timeout() -> float:
    """Seconds a Hub request may go without data: `ENVSCALE_HUB_TIMEOUT`, default 60.

    Raises:
        ValueError: `ENVSCALE_HUB_TIMEOUT` is not a positive number of seconds.
    """
    raw = os.environ.get(TIMEOUT_ENV, "").strip()
    if not raw:
        return DEFAULT_TIMEOUT
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise ValueError(
            f"{TIMEOUT_ENV}={raw!r} is not a number of seconds > 0 (default {DEFAULT_TIMEOUT:g})"
        )
    return value


def hub_endpoint() -> str:
    """The Hub endpoint huggingface_hub talks to (`HF_ENDPOINT`, default https://huggingface.co)."""
    from huggingface_hub import constants

    return constants.ENDPOINT.rstrip("/")


class _DeadlineStream(httpx2.SyncByteStream):
    """A response body whose read timeouts surface as :class:`HubTimeoutError` (not retried), and which is cut
    with one when it comes slower than `MIN_RATE` bytes a second over a window of `setting` seconds."""

    def __init__(self, inner: httpx2.SyncByteStream, request: httpx2.Request, setting: float) -> None:
        self._inner, self._request, self._setting = inner, request, setting

    def __iter__(self) -> Iterator[bytes]:
        start, got = time.monotonic(), 0
        try:
            for chunk in self._inner:
                got += len(chunk)
                now = time.monotonic()
                if now - start >= self._setting:  # a window ended: did it bring enough?
                    if got < MIN_RATE * self._setting:
                        request = self._request
                        raise HubTimeoutError(
                            str(request.url), request.method, self._setting, _TOO_SLOW, setting=self._setting
                        )
                    start, got = now, 0
                yield chunk
        except httpx2.TimeoutException as exc:
            raise _timeout_error(self._request, exc, self._setting) from None

    def close(self) -> None:
        self._inner.close()


def _timeout_error(request: httpx2.Request, exc: httpx2.TimeoutException, setting: float) -> HubTimeoutError:
    limits = request.extensions.get("timeout") or {}
    phase, key = next(
        ((p, k) for kind, (p, k) in _PHASES.items() if isinstance(exc, kind)), ("timed out", "read")
    )
    return HubTimeoutError(str(request.url), request.method, limits.get(key), phase, setting=setting)


class HubClient(httpx2.Client):
    """An `httpx2.Client` for huggingface_hub whose every request has a time limit, and fails without retries.

    huggingface_hub passes `timeout=None` explicitly on many calls (which disables a client's default), so
    the limits are applied per request here: each of connect / read / write / pool is at most `seconds`
    (connect at most 10 s), and a shorter limit a caller asked for is kept; an answer's body must also come
    at `MIN_RATE` bytes a second or more over each window of `seconds` (streamed or not). A timeout raises
    :class:`HubTimeoutError`, which is not an httpx2 error, so neither huggingface_hub's `http_backoff` nor
    datasets' streaming retries multiply the wait.

    Args:
        seconds: the time limit, in seconds.
        **kwargs: passed to `httpx2.Client`.
    """

    def __init__(self, seconds: float, **kwargs) -> None:
        self.seconds = seconds
        self.limits = {
            "connect": min(seconds, MAX_CONNECT_TIMEOUT),
            "read": seconds,
            "write": seconds,
            "pool": seconds,
        }
        super().__init__(timeout=httpx2.Timeout(**self.limits), **kwargs)

    def send(self, request: httpx2.Request, *, stream: bool = False, **kwargs) -> httpx2.Response:
        asked = request.extensions.get("timeout") or {}
        timeout = {
            key: limit if asked.get(key) is None else min(asked[key], limit)
            for key, limit in self.limits.items()
        }
        request.extensions = {**request.extensions, "timeout": timeout}
        try:
            response = super().send(request, stream=True, **kwargs)
        except httpx2.TimeoutException as exc:
            raise _timeout_error(request, exc, self.seconds) from None
        response.stream = _DeadlineStream(response.stream, request, self.seconds)
        if not stream:  # read here, through the deadline (httpx2 would read it without)
            try:
                response.read()
            except BaseException:
                response.close()
                raise
        return response


class HubClientFactory:
    """What :func:`ensure_hub_timeouts` gives to `huggingface_hub.set_client_factory`: makes a :class:`HubClient`.

    The client keeps the event hooks (offline mode, request ids, download counters) and redirect setting of
    huggingface_hub's default client.

    Args:
        seconds: the time limit of every request, in seconds.
    """

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    def __call__(self) -> httpx2.Client:
        from huggingface_hub.utils._http import default_client_factory  # noqa: PLC2701 (no public name)

        default = default_client_factory()
        try:
            hooks, follow_redirects = default.event_hooks, default.follow_redirects
        finally:
            default.close()
        return HubClient(self.seconds, event_hooks=hooks, follow_redirects=follow_redirects)


def ensure_hub_timeouts() -> bool:
    """Make sure huggingface_hub's shared client gives up on a Hub request after `ENVSCALE_HUB_TIMEOUT` seconds.

    Called by every envscale function that talks to the Hub (never at import). It installs a
    :class:`HubClientFactory` with `huggingface_hub.set_client_factory` when huggingface_hub's own default
    factory (no timeouts) is in place, and replaces an envscale factory whose limit differs from
    `ENVSCALE_HUB_TIMEOUT`; a factory someone else set is left alone (its timeouts are then theirs to set).
    The install is process-wide: huggingface_hub and datasets calls made afterwards in the same process also
    get the time limit. Worst case per request: the connect limit (at most 10 s) plus `ENVSCALE_HUB_TIMEOUT`
    seconds without data; a timed-out request is not retried.

    Returns:
        `True` when envscale's factory is in place (installed now or before), `False` when another one is.

    Raises:
        ValueError: `ENVSCALE_HUB_TIMEOUT` is not a positive number of seconds.
    """
    from huggingface_hub import set_client_factory
    from huggingface_hub.utils import _http  # noqa: PLC2701 (its default factory has no public name)

    seconds = hub_timeout()
    current = getattr(_http, "_GLOBAL_CLIENT_FACTORY", _http.default_client_factory)
    if isinstance(current, HubClientFactory) and current.seconds == seconds:
        return True
    if current is _http.default_client_factory or isinstance(current, HubClientFactory):
        set_client_factory(HubClientFactory(seconds))  # also closes the client made by the previous factory
        return True
    return False


def _one_line(text: object) -> str:
    return " ".join(str(text).split())


def _network_cause(exc: BaseException) -> BaseException | None:
    """The timeout, connection or offline-mode error behind `exc` (itself, or in its cause/context chain).

    datasets re-raises some of these as a plain `ConnectionError` without the chain, so that counts too.
    """
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, HubTimeoutError | httpx2.TransportError | ConnectionError):
            return exc
        exc = exc.__cause__ or exc.__context__
    return None


def describe_hub_failure(exc: BaseException, doing: str, endpoint: str | None = None) -> HubError | None:
    """Turn a failed Hub call into a one-line :class:`HubError`, or `None` when `exc` is not a Hub failure.

    Hub failures are: a timeout (:class:`HubTimeoutError`), a connection that failed (`httpx2.TransportError`
    or `ConnectionError`, also behind huggingface_hub's `LocalEntryNotFoundError`), offline mode
    (`HF_HUB_OFFLINE`), and HTTP errors (`HfHubHTTPError`) with the way out for 401 / 403 / 404 / 429 / 5xx.

    Args:
        exc: what the Hub call raised.
        doing: what was being done, for the message (`"pushing to dataset repo org/x"`).
        endpoint: the Hub endpoint (default: `HF_ENDPOINT`).
    """
    from huggingface_hub import constants
    from huggingface_hub.errors import HfHubHTTPError, OfflineModeIsEnabled

    endpoint = (endpoint or hub_endpoint()).rstrip("/")
    cause = _network_cause(exc)
    if isinstance(cause, HubTimeoutError):
        return HubTimeoutError(cause.url, cause.method, cause.seconds, cause.phase, doing, cause.setting)
    if isinstance(cause, OfflineModeIsEnabled) or (cause is not None and constants.is_offline_mode()):
        return HubError(
            f"HF_HUB_OFFLINE is set, so envscale did not contact the Hub at {endpoint} while {doing}; "
            "unset HF_HUB_OFFLINE (or set it to 0) to use the Hub"
        )
    if cause is not None:
        return HubError(
            f"cannot reach the Hub at {endpoint} while {doing} ({type(cause).__name__}: {_one_line(cause)}); "
            f"{_CHECK}"
        )
    if isinstance(exc, HfHubHTTPError):
        status = exc.response.status_code if exc.response is not None else None
        said = _one_line(exc.server_message or str(exc).split("\n")[0])
        if status == 401:
            hint = "check your token (HF_TOKEN, `hf auth login`, or --token)"
        elif status == 403:
            hint = "your token lacks the permission for this repo (a write token, and access to the org)"
        elif status == 404:
            hint = "check the repo id, and that your token can see the repo"
        elif status == 429:
            hint = "the Hub rate-limits you; wait a few minutes and re-run"
        elif status is not None and status >= 500:
            hint = "the Hub had a problem; re-run later"
        else:
            hint = None
        said = f"{said}; {hint}" if hint else said
        return HubError(f"the Hub at {endpoint} answered HTTP {status} while {doing}: {said}")
    return None


@contextmanager
def hub_errors(doing: str, endpoint: str | None = None) -> Iterator[None]:
    """Re-raise Hub failures inside the block as one-line :class:`HubError` (see :func:`describe_hub_failure`).

    Other errors, and `HubError` other than a timeout, pass unchanged.

    Args:
        doing: what the block does, for the message (`"creating dataset repo org/x"`).
        endpoint: the Hub endpoint (default: `HF_ENDPOINT`).

    Example:

    ```python
    >>> with hub_errors("reading hf://org/x"):
    ...     HfApi().dataset_info("org/x")
    ```
    """
    try:
        yield
    except HubError as exc:
        if not isinstance(exc, HubTimeoutError) or exc.doing:
            raise
        raise describe_hub_failure(exc, doing, endpoint) from None
    except Exception as exc:
        error = describe_hub_failure(exc, doing, endpoint)
        if error is None:
            raise
        raise error from exc
