"""The phone page's server over real sockets: streams that cost no thread, closed streams
noticed at once, streams capped per client, bodies capped before Flask (issue 22)."""
from __future__ import annotations

import http.client
import json
import re
import socket
import threading
import time

import pytest

from companion.referee.service import Referee
from companion.referee.store import EventStore
from web import create_app
from web.server import Server

PIN = "4321"


@pytest.fixture
def served(tmp_path):
    referee = Referee(EventStore(tmp_path / "games.db"))
    # Heartbeats an hour apart: a closed stream must be noticed without one.
    app = create_app({"HOST_PIN": PIN, "SSE_HEARTBEAT_S": 3600.0}, referee=referee)
    server = Server(app, "127.0.0.1", 0, workers=4, per_client=20)
    server.start()
    wait_until(lambda: server.started)
    yield server, app, referee
    server.stop()


def wait_until(check, limit: float = 30.0) -> None:
    """Poll `check` (a guard against hanging, not a timing assertion)."""
    deadline = time.monotonic() + limit
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError("condition never became true")
        time.sleep(0.01)


def open_stream(port: int, source: str = "127.0.0.1", path: str = "/events") -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=30, source_address=(source, 0))
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n".encode())
    head = b""
    while b"data: " not in head:
        chunk = sock.recv(65536)
        assert chunk, head
        head += chunk
    assert head.startswith(b"HTTP/1.1 200"), head[:100]
    return sock


def request(port: int, method: str, path: str, body: bytes | None = None, headers: dict | None = None,
            source: str = "127.0.0.1") -> tuple[int, bytes, http.client.HTTPResponse]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=(source, 0))
    conn.request(method, path, body=body, headers=headers or {})
    resp = conn.getresponse()
    data = resp.read()
    conn.close()
    return resp.status, data, resp


def test_two_hundred_open_streams_take_no_request_thread(served):
    server, app, referee = served
    hub = app.extensions["uno"].hub
    streams = [open_stream(server.port, f"127.0.0.{2 + i // 20}") for i in range(200)]
    wait_until(lambda: hub.phones_connected() == 200)
    threads_before = threading.active_count()
    # The page, its state and a host login all answer while 200 pages hold a stream.
    status, body, _ = request(server.port, "GET", "/api/state")
    assert status == 200 and json.loads(body)["waiting_for"] == "game"
    status, html, resp = request(server.port, "GET", "/host")
    cookie = resp.getheader("Set-Cookie").split(";")[0]
    token = re.search(rb'name="csrf" content="([^"]+)"', html).group(1).decode()
    status, body, _ = request(server.port, "POST", "/api/host/login", json.dumps({"pin": PIN}).encode(),
                              {"Content-Type": "application/json", "X-CSRF-Token": token, "Cookie": cookie})
    assert status == 200, body
    assert threading.active_count() <= threads_before + 4  # the pool's few threads at most
    # An update reaches every stream.
    referee.submit({"type": "game", "players": ["Ann", "Bob"]})
    for sock in streams[:: 20]:
        got = b""
        while b'"players": [{"name": "Ann"' not in got:
            chunk = sock.recv(65536)
            assert chunk
            got += chunk
    for sock in streams:
        sock.close()
    wait_until(lambda: hub.phones_connected() == 0)


def test_a_closed_stream_is_noticed_without_a_heartbeat(served):
    server, app, _ = served
    hub = app.extensions["uno"].hub
    streams = [open_stream(server.port) for _ in range(5)]
    wait_until(lambda: hub.phones_connected() == 5)
    streams[0].close()
    streams[1].close()
    # heartbeats are an hour apart: only noticing the disconnect itself brings this to 3
    wait_until(lambda: hub.phones_connected() == 3)
    for sock in streams[2:]:
        sock.close()
    wait_until(lambda: hub.phones_connected() == 0)


def test_a_pages_new_stream_ends_its_old_one(served):
    # a phone on a Wi-Fi that drops opens its stream again while the old connection still looks
    # alive to the server: twenty drops filled its address's streams and the page got no state
    server, app, _ = served
    hub = app.extensions["uno"].hub
    old = open_stream(server.port, path="/events?page=a1b2c3d4e5f6")
    other = open_stream(server.port, path="/events?page=ffffeeee0000")
    wait_until(lambda: hub.phones_connected() == 2)
    streams = [open_stream(server.port, path="/events?page=a1b2c3d4e5f6") for _ in range(25)]
    wait_until(lambda: hub.phones_connected() == 2)  # the last of the page's streams, and the other page's
    old.settimeout(10)
    while old.recv(65536):  # the old one was ended (the server closed its response)
        pass
    for sock in streams + [other]:
        sock.close()
    wait_until(lambda: hub.phones_connected() == 0)


def test_streams_are_capped_per_client(served):
    server, app, _ = served
    streams = [open_stream(server.port, "127.0.0.9") for _ in range(20)]
    status, body, _ = request(server.port, "GET", "/events", source="127.0.0.9")
    assert status == 429 and "too many open pages" in json.loads(body)["error"]
    other = open_stream(server.port, "127.0.0.10")  # another client is not affected
    for sock in streams + [other]:
        sock.close()


def read_reply(sock: socket.socket) -> bytes:
    """Everything until the server closes (it does after a 413)."""
    data = b""
    while True:
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            break
        if not chunk:
            break
        data += chunk
    sock.close()
    return data


def test_a_large_body_is_refused_before_it_is_read(served):
    server, _, referee = served
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=30)
    sock.sendall(b"POST /api/act HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                 b"Content-Length: 104857600\r\n\r\n" + b"[" * 1000)
    reply = read_reply(sock)
    assert reply.startswith(b"HTTP/1.1 413") and b"64 KB" in reply
    # without a Content-Length (chunked), the count stops at 64 KB too
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=30)
    sock.sendall(b"POST /api/act HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                 b"Transfer-Encoding: chunked\r\n\r\n")
    chunk = b"x" * 16384
    try:
        for _ in range(8):
            sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
    except OSError:
        pass  # the server answered and closed
    reply = read_reply(sock)
    assert reply.startswith(b"HTTP/1.1 413")
    assert referee.events == []


def _closed_by_server(sock: socket.socket) -> bool:
    try:
        return sock.recv(1024) == b""
    except (ConnectionResetError, socket.timeout):
        return False


def test_connections_that_make_no_request_are_closed_and_capped_per_address(served, monkeypatch):
    # a thousand idle connections from one machine took the page down for every phone (one
    # file each, never closed), and asyncio logged a traceback per refused accept
    import web.server as web_server

    server, app, referee = served
    monkeypatch.setattr(web_server, "HEADER_TIMEOUT_S", 0.3)
    monkeypatch.setattr(web_server, "CONNECTIONS_PER_CLIENT", 5)
    idle = [socket.create_connection(("127.0.0.1", server.port), timeout=5, source_address=("127.0.0.7", 0))
            for _ in range(5)]
    idle[0].sendall(b"GET /api/state HTTP/1.1\r\nHo")  # half a request: as idle as none
    extra = socket.create_connection(("127.0.0.1", server.port), timeout=5, source_address=("127.0.0.7", 0))
    assert _closed_by_server(extra)  # the sixth from that address: closed at once
    assert request(server.port, "GET", "/api/health", source="127.0.0.8")[0] == 200  # another phone is served
    for sock in idle:  # no request's headers in time: closed
        assert _closed_by_server(sock)
    assert request(server.port, "GET", "/api/health", source="127.0.0.7")[0] == 200  # and the address may come back


def test_a_body_that_trickles_in_is_cut_short(served, monkeypatch):
    import web.server as web_server

    server, app, referee = served
    monkeypatch.setattr(web_server, "BODY_TIMEOUT_S", 0.3)
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=5)
    sock.sendall(b"POST /api/host/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                 b"Content-Length: 1000\r\n\r\n{\"pin\"")
    reply = sock.recv(4096)
    assert reply.startswith(b"HTTP/1.1 408"), reply[:80]
    sock.close()


def test_the_stream_and_the_state_refuse_a_public_name_too(served):
    # answered before Flask, they skipped its Host check: a rebinding page read the whole game
    server, app, referee = served
    for path in ("/api/state", "/events"):
        status, body, _ = request(server.port, "GET", path, headers={"Host": "evil.example"})
        assert status == 421 and b"does not answer to the name" in body, path
    status, _, _ = request(server.port, "GET", "/api/state", headers={"Host": "192.168.1.20:8000"})
    assert status == 200
    assert app.extensions["uno"].hub.phones_connected() == 0


def test_pages_go_compressed_to_a_phone_that_takes_gzip_and_the_stream_never(served):
    # The page, its script, style and QR code shrink to about a quarter over the Pi's Wi-Fi;
    # the stream must reach the phone event by event, so it goes as it is.
    import gzip

    server, _, _ = served
    for path in ("/", "/seat", "/static/app.js", "/static/app.css", "/qr.svg"):
        status, plain, resp = request(server.port, "GET", path)
        assert status == 200 and resp.getheader("Content-Encoding") is None
        status, packed, resp = request(server.port, "GET", path, headers={"Accept-Encoding": "gzip, deflate, br"})
        assert status == 200 and resp.getheader("Content-Encoding") == "gzip", path
        assert "Accept-Encoding" in resp.getheader("Vary")
        assert len(packed) < len(plain) / 2 and gzip.decompress(packed).split(b'name="csrf"')[0] == plain.split(b'name="csrf"')[0], path
        status, _, resp = request(server.port, "GET", path, headers={"Accept-Encoding": "gzip;q=0"})
        assert resp.getheader("Content-Encoding") is None  # refused: sent as it is
    _, _, resp = request(server.port, "GET", "/static/app.js", headers={"Accept-Encoding": "gzip"})
    status, body, _ = request(server.port, "GET", "/static/app.js",
                              headers={"Accept-Encoding": "gzip", "If-None-Match": resp.getheader("ETag")})
    assert status == 304 and body == b""  # a page loaded again asks for the script and gets "unchanged"
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=30)
    sock.sendall(b"GET /events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\nAccept-Encoding: gzip\r\n\r\n")
    head = b""
    while b"data: " not in head:
        chunk = sock.recv(65536)
        assert chunk, head
        head += chunk
    sock.close()
    assert head.startswith(b"HTTP/1.1 200") and b"content-encoding" not in head.lower()


def test_a_compressed_answer_is_never_resumed_as_a_piece_of_the_plain_file(served):
    # A browser resuming a half-received compressed style sheet asks for the rest If-Range its
    # tag: it must get the whole answer, not bytes of the uncompressed file joined to gzip ones.
    # Its tag is weak, and still answers "unchanged" to a page loaded again.
    import gzip

    server, _, _ = served
    status, packed, resp = request(server.port, "GET", "/static/app.css", headers={"Accept-Encoding": "gzip"})
    tag = resp.getheader("ETag")
    assert status == 200 and tag.startswith('W/"') and resp.getheader("Accept-Ranges") is None
    status, body, resp = request(server.port, "GET", "/static/app.css",
                                 headers={"Accept-Encoding": "gzip", "Range": f"bytes={len(packed) // 2}-", "If-Range": tag})
    assert status == 200 and gzip.decompress(body) == gzip.decompress(packed)
    status, body, _ = request(server.port, "GET", "/static/app.css", headers={"Accept-Encoding": "gzip", "If-None-Match": tag})
    assert status == 304 and body == b""


def test_head_asks_open_no_stream_and_the_state_answers_alike(served):
    # `curl -I`, a link preview or a monitor asking HEAD /events left a live queue open each time
    # (counted as a phone, outside every cap); HEAD /api/state promised gzip its GET never sent.
    import gzip

    server, app, _ = served
    for _ in range(5):
        status, body, resp = request(server.port, "HEAD", "/events")
        assert status == 200 and body == b""
    assert app.extensions["uno"].hub.phones_connected() == 0
    status, packed, got = request(server.port, "GET", "/api/state", headers={"Accept-Encoding": "gzip"})
    assert status == 200 and json.loads(gzip.decompress(packed))["waiting_for"] == "game"
    status, body, head = request(server.port, "HEAD", "/api/state", headers={"Accept-Encoding": "gzip"})
    assert status == 200 and body == b""
    assert [head.getheader(h) for h in ("Content-Encoding", "Content-Length", "Vary")] == [
        got.getheader(h) for h in ("Content-Encoding", "Content-Length", "Vary")]


@pytest.mark.parametrize("header,takes", [
    ("gzip, deflate, br", True), ("GZIP", True), ("x-gzip", True), ("*", True), ("deflate, gzip;q=0.5", True),
    ("*;q=0, gzip", True), ("", False), ("identity", False), ("br", False), ("gzip;q=0", False),
    ("gzip;q=0.", False), ("*;q=0", False), ("gzip;q=nonsense", False)])
def test_which_accept_encoding_takes_gzip(header, takes):
    from web.compress import accepts_gzip

    assert accepts_gzip(header) is takes
