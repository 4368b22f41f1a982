"""`uno-companion bench-web`: event-to-phone latency over SSE on loopback, and page weight.

Starts the phone page on 127.0.0.1 (a free port) with its server (web.server), connects N SSE clients
(bounded: at most 50, for at most a minute), submits table events through the referee and
times each until every client has it. Loopback only: nothing leaves the machine.
"""
from __future__ import annotations

import argparse
import http.client
import json
import re
import statistics
import tempfile
import threading
import time
from pathlib import Path

from companion.errors import CompanionError, UsageError

HELP = "phone page latency and page weight"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--clients", type=int, default=10, help="SSE clients (1-50, default 10)")
    parser.add_argument("--events", type=int, default=60, help="events to time (default 60)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")


def _client(port: int, arrivals: dict[int, list[float]], ready: threading.Event, stop: threading.Event,
            lock: threading.Lock) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", "/events")
    resp = conn.getresponse()
    ready.set()
    try:
        while not stop.is_set():
            line = resp.readline()
            if not line:
                return
            if line.startswith(b"data: "):
                now = time.perf_counter()
                message = json.loads(line[6:])
                if "state" not in message:  # a beat, or the seats moved
                    continue
                n = message["state"].get("events")
                with lock:
                    arrivals.setdefault(n, []).append(now)
    except OSError:
        return
    finally:
        conn.close()


def page_weight(port: int) -> tuple[dict[str, int], dict[str, int]]:
    """Bytes a view loads: its HTML and every local asset it names (CSS, JS, card, QR), asked for
    as a phone's browser does (gzip taken): as sent, and uncompressed."""
    import gzip

    sent, whole = {}, {}
    for view in ("/", "/seat", "/standings", "/host", "/tv"):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        sent[view] = whole[view] = 0
        html = b""
        assets: list[bytes] = [view.encode(), b"/cards/wild_draw_four.svg"]  # and the top card the page draws
        for asset in assets:
            conn.request("GET", asset.decode(), headers={"Accept-Encoding": "gzip"})
            resp = conn.getresponse()
            body = resp.read()  # as sent: http.client does not undo the compression
            plain = gzip.decompress(body) if resp.getheader("Content-Encoding") == "gzip" else body
            sent[view] += len(body)
            whole[view] += len(plain)
            if not html:
                html = plain
                assets += sorted(set(re.findall(rb'(?:src|href)="(/static/[^"]+|/qr\.svg|/cards/[^"]+)"', html)) - set(assets))
        conn.close()
    return sent, whole


def main(args: argparse.Namespace) -> int:
    from companion.referee.service import Referee
    from companion.referee.store import EventStore
    from web import create_app
    from web.server import Server

    if not 1 <= args.clients <= 50:
        raise UsageError("--clients must be from 1 to 50")
    if not 2 <= args.events <= 200:
        raise UsageError("--events must be from 2 to 200")
    with tempfile.TemporaryDirectory() as tmp:
        referee = Referee(EventStore(Path(tmp) / "bench.db"))
        app = create_app({"HOST_PIN": "0000", "SSE_HEARTBEAT_S": 0.5}, referee=referee)
        server = Server(app, "127.0.0.1", 0)
        port = server.port
        server.start()
        try:
            for event in ({"type": "game", "players": ["Ann", "Bob", "Cat"]},
                          {"type": "deal", "dealer": "Cat"}, {"type": "flip", "card": "red_5"}):
                referee.submit(event)
            arrivals: dict[int, list[float]] = {}
            lock, stop = threading.Lock(), threading.Event()
            threads = []
            for _ in range(args.clients):
                ready = threading.Event()
                t = threading.Thread(target=_client, args=(port, arrivals, ready, stop, lock), daemon=True)
                t.start()
                threads.append(t)
                if not ready.wait(10):
                    raise CompanionError("an SSE client could not connect on loopback")
            deadline = time.monotonic() + 60
            while app.extensions["uno"].phones_connected() < args.clients and time.monotonic() < deadline:
                time.sleep(0.01)
            sent: dict[int, float] = {}
            for i in range(args.events):
                t0 = time.perf_counter()
                referee.submit({"type": "draw"} if i % 2 == 0 else {"type": "pass"}, source="bench")
                sent[len(referee.events)] = t0
                # Wait until every client has it (bounded), so events do not pile up.
                while time.monotonic() < deadline:
                    with lock:
                        if len(arrivals.get(len(referee.events), [])) >= args.clients:
                            break
                    time.sleep(0.0005)
            latencies = [(t - sent[n]) * 1000 for n, ts in arrivals.items() if n in sent for t in ts]
            weights, uncompressed = page_weight(port)
        finally:
            stop.set()
            server.stop()
    if not latencies:
        raise CompanionError("no update reached a client")
    latencies.sort()
    p95 = latencies[min(len(latencies) - 1, int(0.95 * len(latencies)))]
    result = {"clients": args.clients, "events": args.events, "deliveries": len(latencies),
              "expected_deliveries": args.clients * args.events,
              "latency_ms_p50": round(statistics.median(latencies), 2), "latency_ms_p95": round(p95, 2),
              "latency_ms_max": round(latencies[-1], 2), "page_weight_bytes": weights,
              "page_weight_uncompressed_bytes": uncompressed}
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"{args.clients} SSE clients, {args.events} events, {len(latencies)} deliveries "
              f"of {args.clients * args.events}")
        print(f"event-to-phone latency: p50 {result['latency_ms_p50']} ms, p95 {result['latency_ms_p95']} ms "
              f"(target p95 <= 100 ms), max {result['latency_ms_max']} ms")
        for view, size in weights.items():
            print(f"page weight {view:<11} {size / 1024:6.1f} KB sent (target <= 150 KB), "
                  f"{uncompressed[view] / 1024:.1f} KB uncompressed")
    return 0
