"""Debian's Chromium driven headless by Playwright, for the tests that click through Airflow's UI: launching it
with the network closed, opening pages on a busy machine, and the run page's Clear and Mark-as-failed actions.
Playwright's own browser downloads are never used."""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path(os.environ.get("FALCON_CHROMIUM", "/usr/bin/chromium"))
# The network is closed: no QUIC, no background fetches, no component or sync updates; no sandbox as root.
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]

UI_TIMEOUT_MS = 60_000  # one click or check in the UI; a loaded 2-core machine makes the UI slow


def browser_or_fail() -> None:
    """Fail (or skip with FALCON_SKIP_BROWSER=1) with how to get what is missing."""
    missing = []
    if not CHROMIUM.is_file():
        missing.append(f"Chromium ({CHROMIUM}): install Debian's, e.g. "
                       "`sudo apt-get install -y --no-install-recommends chromium` (or set FALCON_CHROMIUM)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        missing.append("the playwright package: `make install` (it is in the test extra)")
    if not missing:
        return
    message = "the Airflow UI test needs " + "; ".join(missing)
    if os.environ.get("FALCON_SKIP_BROWSER") == "1":
        pytest.skip(message)
    pytest.fail(message + ". Set FALCON_SKIP_BROWSER=1 to skip it.", pytrace=False)


@contextlib.contextmanager
def chromium(profile: Path) -> Iterator[Any]:
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=UI_TIMEOUT_MS)  # expect() has its own default (5 s), not the context's
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(profile), executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True,
            viewport={"width": 1600, "height": 860}, timezone_id="UTC", locale="en-US")
        context.set_default_timeout(UI_TIMEOUT_MS)
        context.set_default_navigation_timeout(UI_TIMEOUT_MS)
        try:
            yield context.pages[0] if context.pages else context.new_page()
        finally:
            context.close()


def visit(page: Any, url: str, attempts: int = 3) -> None:
    """Open a page of the UI. Navigation ends once the api-server answers (the UI is a single-page app whose
    elements the callers wait for with their own timeouts); a busy api-server gets more than one chance."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    for attempt in range(1, attempts + 1):
        try:
            page.goto(url, wait_until="commit")
            return
        except PlaywrightTimeout:
            if attempt == attempts:
                raise


def open_run(page: Any, run_url: str) -> None:
    """The run's page (the link ``instance -status`` prints as the instance's log)."""
    from playwright.sync_api import expect

    visit(page, run_url)
    expect(page.get_by_role("button", name="Mark Dag Run as...")).to_be_visible()


def open_clear_dialog(page: Any) -> Any:
    """The run's Clear button: its dialog (Airflow lists there what a clear would rerun)."""
    page.get_by_role("button", name=re.compile(r"^(Clear Dag Run|Press shift\+c to clear)$")).click()
    return page.get_by_role("dialog").filter(has_text="Clear Dag Run")


def clear_run(page: Any) -> None:
    """Falcon's rerun: the run's Clear button, then Confirm (Clear existing tasks)."""
    dialog = open_clear_dialog(page)
    dialog.get_by_role("button", name="Confirm").click()
    dialog.wait_for(state="hidden")


def mark_run_failed(page: Any) -> None:
    """Falcon's kill: Mark Dag Run as... → Failed, then Confirm."""
    page.get_by_role("button", name="Mark Dag Run as...").click()
    page.get_by_role("menuitem", name="Failed").click()
    dialog = page.get_by_role("dialog").filter(has_text="Mark Dag Run as failed")
    dialog.get_by_role("button", name="Confirm").click()
    dialog.wait_for(state="hidden")


