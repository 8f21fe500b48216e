"""A real headless browser for the HTML report's tests: Debian's `chromium`, driven by Playwright.

Playwright's own browser downloads are not reachable here, so it drives the system's build through
`executable_path`. On a fresh machine the package may be missing: `ensure_chromium()` installs it when running
as root with apt-get, and `make test` calls it first (`python -m tests.support.chromium --install`), as it does
for PostgreSQL. When no browser can be had, `find_chromium()` says why, and the browser tests skip with it.
"""

from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from tests.support.apt import apt_install

APT_TIMEOUT_S = 900.0
# Debian installs it as /usr/bin/chromium; GAVEL_TEST_CHROMIUM points at another build.
NAMES = ("chromium", "chromium-browser")


def find_chromium() -> Path | None:
    override = os.environ.get("GAVEL_TEST_CHROMIUM")
    if override:
        return Path(override) if Path(override).is_file() else None
    for name in NAMES:
        found = shutil.which(name)
        if found:
            return Path(found)
    return None


def ensure_chromium() -> tuple[Path | None, str]:
    """The browser's path, installing Debian's `chromium` first when it is missing and this process may (root,
    apt-get on PATH). (None, why) when there is none."""
    found = find_chromium()
    if found is not None:
        return found, ""
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        return None, "chromium is not installed (apt-get install chromium) and this user cannot install it"
    failed = apt_install("chromium", timeout_s=APT_TIMEOUT_S)
    if failed is not None:
        return None, failed
    found = find_chromium()
    return (found, "") if found is not None else (None, "the chromium package installed no chromium binary")


@dataclass(frozen=True)
class LoadedPage:
    """What a person would see of a page once its scripts ran, and what went wrong on the way."""

    title: str
    cards: int  # elements with class "card"
    chart_slots: int  # elements with class "chart"
    charts_drawn: int  # chart elements holding a drawn SVG
    errors: list[str]  # console errors, uncaught exceptions, and any request for something not in the file
    text: str


def load_page(path: Path, executable: Path, timeout_s: float = 30.0) -> LoadedPage:
    """Open `path` from the file system in headless chromium, with the network refused, and wait for its charts."""
    from playwright.sync_api import Route, sync_playwright

    errors: list[str] = []

    def offline(route: Route) -> None:
        if route.request.url.startswith("file://"):
            route.continue_()
        else:
            errors.append(f"the page asked the network for {route.request.url}")
            route.abort()

    with sync_playwright() as playwright:
        # --no-sandbox: as root (CI, this machine) chromium refuses to start with its sandbox.
        browser = playwright.chromium.launch(executable_path=str(executable), args=["--no-sandbox"])
        try:
            page = browser.new_page()
            page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
            page.on("pageerror", lambda error: errors.append(f"uncaught: {error}"))
            page.route("**/*", offline)
            page.goto(path.as_uri(), wait_until="load", timeout=timeout_s * 1000)
            page.wait_for_function(
                "document.querySelectorAll('.chart').length === document.querySelectorAll('.chart svg').length"
                " || document.querySelectorAll('.chart').length === 0",
                timeout=timeout_s * 1000,
            )
            return LoadedPage(
                title=page.title(),
                cards=page.locator(".card").count(),
                chart_slots=page.locator(".chart").count(),
                charts_drawn=page.locator(".chart svg").count(),
                errors=errors,
                text=page.inner_text("body"),
            )
        finally:
            browser.close()


if __name__ == "__main__":
    # `make test` runs this first so a fresh machine gets the browser before the suite starts.
    if "--install" in sys.argv:
        path, reason = ensure_chromium()
        sys.stderr.write(f"chromium: {path}\n" if path else f"chromium: unavailable: {reason}\n")
