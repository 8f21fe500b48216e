"""One self-contained HTML page: the vendored Vega, Vega-Lite and vega-embed inlined, the charts' specs as JSON,
the rest plain HTML. It opens from a file with no server and no network.

Text from the data is escaped here or by `esc` before it enters the page; JSON goes into a
`<script type="application/json">` with every `<` escaped, so no value can end the script element.
"""

from __future__ import annotations

import html
import json
import re
from functools import cache
from importlib import resources
from typing import Any

from gavel.tools.report.vendored import VENDORED

_SOURCE_MAP = re.compile(r"^//# sourceMappingURL=.*$", re.MULTILINE)

STYLE = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#212121;background:#fafafa}
main{max-width:1100px;margin:0 auto;padding:16px 24px 48px}
h1{font-size:22px;margin:8px 0}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}
.meta{color:#616161;margin:0 0 8px}
table{border-collapse:collapse;margin:6px 0}td,th{border:1px solid #e0e0e0;padding:3px 8px;text-align:left;
vertical-align:top}th{background:#f5f5f5}
.charts{display:flex;flex-wrap:wrap;gap:16px}.chart{background:#fff;border:1px solid #e0e0e0;padding:8px}
.card{background:#fff;border:1px solid #e0e0e0;border-left:5px solid #90a4ae;margin:10px 0;padding:8px 12px}
.card>header{display:flex;gap:10px;align-items:baseline;flex-wrap:wrap}
.card .id{font-weight:600}.card .eid{color:#757575;font-family:monospace;font-size:12px}
.badge{border-radius:3px;padding:0 6px;color:#fff;background:#607d8b;font-size:12px}
.v-approved,.v-passed,.v-targets_met,.v-best_found,.v-good{border-left-color:#2e7d32}
.v-needs_improvement,.v-targets_unmet,.v-undecided{border-left-color:#f9a825}
.v-rejected,.v-failed,.v-none_approved{border-left-color:#c62828}.v-error{border-left-color:#6a1b9a}
.b-approved,.b-passed,.b-targets_met,.b-best_found,.b-good{background:#2e7d32}
.b-needs_improvement,.b-targets_unmet{background:#f9a825;color:#212121}
.b-rejected,.b-failed,.b-none_approved,.b-bad{background:#c62828}.b-error{background:#6a1b9a}
.b-cached{background:#e0e0e0;color:#424242}.b-wrong{background:#c62828}
.text{white-space:pre-wrap;background:#f7f7f7;padding:6px 8px;margin:4px 0}
mark.unsupported{background:#ffcdd2;text-decoration:underline wavy #c62828}
tr.low td,tr.unscored td,li.unmet{background:#fff3e0}tr.unscored td{color:#757575}
.error{color:#6a1b9a;font-weight:600}
details summary{cursor:pointer;color:#455a64}
.filters button{margin-right:6px}
"""

# Renders every chart, and lets the reader show only cards of one verdict. A chart that fails says so in place
# (and on the console, where the browser test looks).
SCRIPT = """
(function () {
  var specs = JSON.parse(document.getElementById('gavel-charts').textContent);
  Object.keys(specs).forEach(function (id) {
    vegaEmbed('#' + id, specs[id], {actions: false, renderer: 'svg'}).catch(function (err) {
      document.getElementById(id).textContent = 'This chart could not be drawn: ' + err;
      console.error(err);
    });
  });
  document.querySelectorAll('.filters button').forEach(function (button) {
    button.addEventListener('click', function () {
      var want = button.getAttribute('data-verdict');
      document.querySelectorAll('.card').forEach(function (card) {
        card.style.display = (!want || card.getAttribute('data-verdict') === want) ? '' : 'none';
      });
    });
  });
})();
"""


def esc(text: Any) -> str:
    return html.escape(str(text), quote=True)


def num(value: float | None, places: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{places}f}"


@cache
def vendored_js() -> str:
    """The charting library, as shipped in tools/report/vendor (`gavel.tools.report.vendored` says from where)."""
    folder = resources.files("gavel.tools.report") / "vendor"
    parts = [_SOURCE_MAP.sub("", (folder / item.file).read_text(encoding="utf-8")) for item in VENDORED]
    return "\n".join(parts)


def json_script(element_id: str, value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, allow_nan=False).replace("<", "\\u003c")
    return f'<script type="application/json" id="{esc(element_id)}">{text}</script>'


def charts_block(specs: dict[str, dict[str, Any]]) -> str:
    """The chart placeholders (each drawn by SCRIPT from its spec), in a wrapping row."""
    return '<div class="charts">' + "".join(f'<div class="chart" id="{esc(i)}"></div>' for i in specs) + "</div>"


def filters(verdicts: list[str]) -> str:
    buttons = ['<button data-verdict="">all</button>'] + [
        f'<button data-verdict="{esc(v)}">{esc(v)}</button>' for v in sorted(set(verdicts))
    ]
    return f'<div class="filters">show: {"".join(buttons)}</div>'


def document(title: str, body: str, specs: dict[str, dict[str, Any]]) -> str:
    return (
        "<!doctype html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{esc(title)}</title><style>{STYLE}</style>"
        f"<script>{vendored_js()}</script></head>"
        f"<body><main>{body}</main>{json_script('gavel-charts', specs)}<script>{SCRIPT}</script></body></html>\n"
    )


def figure_table(rows: list[tuple[str, str, str]]) -> str:
    """(figure, value, what it is) rows as a table."""
    cells = "".join(f"<tr><th>{esc(n)}</th><td>{esc(v)}</td><td>{esc(d)}</td></tr>" for n, v, d in rows)
    return f"<table><tr><th>figure</th><th>value</th><th>what it is</th></tr>{cells}</table>"
