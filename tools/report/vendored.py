"""The charting library the reports inline, as shipped in tools/report/vendor/: unchanged `build/*.min.js` files
of npm packages (`npm pack vega@6.4.0 vega-lite@6.4.3 vega-embed@7.3.0`), each package's BSD-3-Clause licence
beside them as LICENSE-<package>.

To update: `npm pack` the new versions, copy each `build/*.min.js` and `LICENSE` into vendor/, put the versions
and the files' sha256 here (a test checks them), and run the browser tests (tests/server/cli/test_eval.py and
tests/server/test_eval_report_tools.py render every chart in headless chromium and fail on any console error).
"""

from __future__ import annotations

from typing import NamedTuple


class Vendored(NamedTuple):
    file: str
    package: str
    version: str
    sha256: str


# In load order: vega-lite needs vega, vega-embed needs both.
VENDORED = (
    Vendored("vega.min.js", "vega", "6.4.0", "8f6a3587cf8d4f42c7e08120e3eb05d067e746d554e39d2dcf52acc0bd5ba28f"),
    Vendored(
        "vega-lite.min.js", "vega-lite", "6.4.3", "35a9821df838825b05a6a73e9414b58747a1b18321583858ed903c66393a5c7e"
    ),
    Vendored(
        "vega-embed.min.js", "vega-embed", "7.3.0", "b1455caba2fb1a72fb46025ba0ba1316e2dbc7f0dd40a3f6040172bf9c08ba91"
    ),
)
