"""Self-contained HTML reports for `gavel eval` and `gavel calibrate`, drawn with the vendored Vega-Lite."""
