"""Drive the viewer in headless Chromium (Playwright), as a person would: the tests and the README's screenshots.

`chromium_path()` finds the browser (Debian's `chromium`, or `$ENVSCALE_CHROMIUM`); `running(app)` serves an
app on a free loopback port for the length of a `with`; `Viewer` opens a tab, picks an item from a dropdown by
typing it, clicks buttons and reads what is on the page.

```bash
python -m envscale.view.browser outputs/quickstart --out docs/screenshots   # one PNG per view
```
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

TIMEOUT_MS = 60_000
"""How long a step may wait for the page (a CI machine with 2 busy cores is slow)."""


def chromium_path() -> str:
    """The Chromium the tests drive: `$ENVSCALE_CHROMIUM`, else `chromium` (Debian) or `chromium-browser` on
    PATH. Missing, it is an error that says how to install it: a test never skips for want of a browser."""
    for candidate in (os.environ.get("ENVSCALE_CHROMIUM"), "chromium", "chromium-browser"):
        if candidate and (found := shutil.which(candidate)):
            return found
    raise FileNotFoundError(
        "no Chromium found: `apt-get install chromium` (Debian; `make test` does it) or set ENVSCALE_CHROMIUM"
    )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def running(app: Any) -> Iterator[str]:
    """Serve `app` on loopback for the length of the block; yields its URL."""
    from .app import serve

    port = free_port()
    serve(app, port=port, block=False)
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        app.close()


class Viewer:
    """A page of the viewer in headless Chromium."""

    def __init__(self, page: Any):
        self.page = page
        page.set_default_timeout(TIMEOUT_MS)

    @classmethod
    @contextlib.contextmanager
    def open(cls, url: str, *, width: int = 1400, height: int = 1000) -> Iterator[Viewer]:
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=chromium_path(), args=["--no-sandbox", "--disable-dev-shm-usage"]
            )
            try:
                page = browser.new_page(viewport={"width": width, "height": height})
                page.goto(url, wait_until="domcontentloaded")
                page.get_by_text("envscale view", exact=False).first.wait_for()
                yield cls(page)
            finally:
                browser.close()

    def tab(self, name: str) -> None:
        self.page.get_by_role("tab", name=name).click()

    def text(self, elem_id: str) -> str:
        return self.page.locator(f"#{elem_id}").inner_text()

    def wait_text(self, elem_id: str, text: str) -> str:
        """Wait until the element shows `text`; returns all its text."""
        locator = self.page.locator(f"#{elem_id}")
        locator.get_by_text(text, exact=False).first.wait_for()
        return locator.inner_text()

    def choose(self, elem_id: str, value: str) -> None:
        """Pick `value` in a dropdown by typing it and choosing the option, as a person does."""
        box = self.page.locator(f"#{elem_id} input").first
        box.click()
        box.fill(value)
        self.page.get_by_role("option", name=value, exact=True).first.click()

    def fill_code(self, elem_id: str, text: str) -> None:
        editor = self.page.locator(f"#{elem_id} .cm-content").first
        editor.click()
        self.page.keyboard.press("Control+A")
        self.page.keyboard.press("Delete")
        editor.fill(text)

    def wait_called(self) -> str:
        """Wait until the live call's state diff replaces its placeholder; returns the diff's text."""
        self.page.wait_for_function(
            "() => { const e = document.querySelector('#call-diff');"
            " return e && e.innerText.includes('State diff') && !e.innerText.includes('(call a tool'); }"
        )
        return self.text("call-diff")

    def click(self, elem_id: str) -> None:
        self.page.locator(f"#{elem_id}").click()

    def screenshot(self, path: str | Path, full_page: bool = True) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(path), full_page=full_page)
        return path


def screenshots(refs: list[str], out: str | Path) -> list[Path]:
    """One PNG per view of the viewer over `refs` (the README's pictures)."""
    from .app import build_app
    from .data import discover

    out = Path(out)
    written = []
    app = build_app(refs)
    catalog = discover(refs)
    with running(app) as url, Viewer.open(url) as view:
        view.wait_text("env-summary", "tables")
        written.append(view.screenshot(out / "environments.png"))
        view.click("call-button")
        view.wait_called()
        view.page.locator("#call-button").scroll_into_view_if_needed()
        written.append(view.screenshot(out / "live-call.png", full_page=False))
        view.tab("Tasks")
        view.wait_text("task-head", "The user says first")
        written.append(view.screenshot(out / "tasks.png"))
        view.tab("Trajectories")
        view.wait_text("traj-head", "Final answer")
        written.append(view.screenshot(out / "trajectories.png"))
        rejected = [
            name
            for name, art in sorted(catalog.of_kind("filtered").items())
            if art.manifest.get("counts", {}).get("rejected")
        ]
        if rejected:  # an episode the filter rejected: its failed checks and what the task expected
            view.choose("traj-source", f"{rejected[0]}:rejected")
            view.wait_text("traj-head", "rejected")
            written.append(view.screenshot(out / "trajectories-rejected.png"))
        if catalog.of_kind("eval"):  # an output folder without an eval has no Eval tab
            view.tab("Eval")
            view.wait_text("eval-report", "envscale eval")
            view.page.locator("#eval-plots img").first.wait_for()
            written.append(view.screenshot(out / "eval.png"))
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m envscale.view.browser", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("refs", nargs="+")
    parser.add_argument("--out", default="docs/screenshots")
    args = parser.parse_args(argv)
    for path in screenshots(args.refs, args.out):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
