"""bench-web runs end to end on loopback with a couple of clients and reports its figures."""
from __future__ import annotations

import json

from companion.cli import main


def test_bench_web_reports_latency_and_page_weight(capsys):
    assert main(["bench-web", "--clients", "2", "--events", "6", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["deliveries"] == result["expected_deliveries"] == 12
    assert result["latency_ms_p95"] >= result["latency_ms_p50"] > 0
    assert set(result["page_weight_bytes"]) == {"/", "/seat", "/standings", "/host", "/tv"}
    assert all(size > 1000 for size in result["page_weight_bytes"].values())
    # counted as a phone receives it, gzip-compressed: well under the page's own size
    assert all(result["page_weight_bytes"][v] < result["page_weight_uncompressed_bytes"][v] / 2
               for v in result["page_weight_bytes"])


def test_bench_web_bounds_clients(capsys):
    assert main(["bench-web", "--clients", "500"]) != 0
    assert "1 to 50" in capsys.readouterr().err
