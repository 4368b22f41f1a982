"""The phone page's server: an asyncio HTTP server (uvicorn) in front of the Flask app.

Live streams (`GET /events`, Server-Sent Events) are served here on the event loop: an open
page costs a queue and a few kilobytes, never a thread, so hundreds of open pages cannot starve
the page. Everything else goes to Flask on a small pool of threads, after the body has been
read here with a hard limit (MAX_BODY: a larger body is answered 413 before Flask sees it).

A closed stream is noticed as soon as its connection drops (the loop waits on the client's
disconnect and on the next update together), not at the next heartbeat. Each client address
may hold at most STREAMS_PER_CLIENT streams (a page reloaded in a loop, or a script, cannot
hold them all) and the server MAX_STREAMS together; one more is answered 429 / 503.
"""
from __future__ import annotations

import asyncio
import io
import json
import logging
import socket
import sys
import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

from web.compress import SMALLEST, accepts_gzip, gzip_once
from web.hub import BEAT
from web.inputs import MAX_BODY
from web.security import host_name_ok, known_names, refused_host_text

log = logging.getLogger("companion.web")

STREAMS_PER_CLIENT = 20  # open pages per client address (ten phones with two tabs each: ten addresses)
MAX_STREAMS = 1000  # open pages in all
WORKERS = 8  # threads for ordinary requests (Flask)
# Connections that never finish a request hold a file each: one machine opening a thousand took
# the page down for every phone (and asyncio's accept loop logged a traceback per try). A new
# connection must send its request's headers within HEADER_TIMEOUT_S and its body within
# BODY_TIMEOUT_S (a phone's request is a few hundred bytes); one address may hold
# CONNECTIONS_PER_CLIENT (its streams several times over), the server MAX_CONNECTIONS.
HEADER_TIMEOUT_S = 10.0
BODY_TIMEOUT_S = 20.0
CONNECTIONS_PER_CLIENT = 5 * STREAMS_PER_CLIENT  # a laptop with the TV, the host page and test browsers
MAX_CONNECTIONS = MAX_STREAMS + 200


def _page_id(scope: dict) -> str | None:
    """The `page` id a page's stream carries (`/events?page=...`): letters, digits, - and _."""
    for part in (scope.get("query_string") or b"").split(b"&"):
        name, _, value = part.partition(b"=")
        if name == b"page" and 8 <= len(value) <= 40 and value.replace(b"-", b"").replace(b"_", b"").isalnum():
            return value.decode("ascii")
    return None


def _header(scope: dict, name: bytes) -> str | None:
    """A request header's value (the first, if given twice), or None."""
    return next((v.decode("latin-1") for k, v in scope.get("headers") or () if k == name), None)


def _json_reply(status: int, message: str, extra: list[tuple[bytes, bytes]] | None = None) -> tuple[int, list, bytes]:
    body = json.dumps({"error": message}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    return status, headers + (extra or []), body


class TableServer:
    """The ASGI application: SSE on the loop, the rest to Flask in threads."""

    def __init__(self, app: Any, *, workers: int = WORKERS, per_client: int = STREAMS_PER_CLIENT,
                 max_streams: int = MAX_STREAMS, max_body: int = MAX_BODY) -> None:
        self.app = app
        state = getattr(app, "extensions", {}).get("uno")
        self.hub = getattr(state, "hub", None)
        self.pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="web")
        self.per_client = per_client
        self.max_streams = max_streams
        self.max_body = max_body
        self.streams: Counter[str] = Counter()
        self.pages: dict[str, asyncio.Future] = {}  # "address|page id" -> ends that page's stream
        self.closing = False

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if scope["type"] != "http":
            return
        if self.hub is not None and scope["path"] in ("/events", "/api/state"):
            # answered here, before Flask and its check: the same refusal (DNS rebinding)
            host = _header(scope, b"host")
            if host is not None and not host_name_ok(host, known_names(self.app.config)):
                await self._send(send, *_json_reply(421, refused_host_text(host)))
                return
        if self.hub is not None and scope["path"] == "/events" and scope["method"] == "GET":
            await self._events(scope, receive, send)
        elif self.hub is not None and scope["path"] == "/api/state" and scope["method"] in ("GET", "HEAD"):
            # The public state, as cached by the hub at the last event: answered on the loop
            # (no thread, no session), so it stays quick however busy the page is; compressed
            # as Flask's answers are (web/compress.py).
            body = (await self._state_json()).encode()
            headers = [(b"content-type", b"application/json"), (b"cache-control", b"no-store"),
                       (b"vary", b"Accept-Encoding")]
            if len(body) >= SMALLEST and accepts_gzip(_header(scope, b"accept-encoding") or ""):
                body = gzip_once(body)  # a new state each event: nothing to keep
                headers.append((b"content-encoding", b"gzip"))
            headers.append((b"content-length", str(len(body)).encode()))
            await self._send(send, 200, headers, b"" if scope["method"] == "HEAD" else body)
        else:
            await self._wsgi(scope, receive, send)

    # -- live streams ------------------------------------------------------------------------

    async def _events(self, scope: dict, receive: Callable, send: Callable) -> None:
        client = (scope.get("client") or ("?", 0))[0]
        # A page that lost its Wi-Fi opens its stream again, and the server cannot yet know the
        # old one is dead (no error comes until TCP gives up, minutes later): the same page's
        # new stream (its `page` id) ends its old one, or a phone on a flaky Wi-Fi would fill
        # its address's streams.
        page = _page_id(scope)
        key = f"{client}|{page}" if page else None
        replaced = self.pages.pop(key, None) if key else None
        if replaced is not None and not replaced.done():
            replaced.set_result(None)
        elif self.streams[client] >= self.per_client:
            await self._send(send, *_json_reply(429, f"too many open pages from {client} "
                                                     f"(at most {self.per_client}): close some tabs"))
            return
        if sum(self.streams.values()) >= self.max_streams or self.closing:
            await self._send(send, *_json_reply(503, "the companion has too many open pages", [(b"retry-after", b"5")]))
            return
        heartbeat = float(self.app.config.get("SSE_HEARTBEAT_S", 10.0))
        queue = self.hub.open_async(asyncio.get_running_loop())
        self.streams[client] += 1
        gone = asyncio.ensure_future(_disconnected(receive))
        ended = asyncio.get_running_loop().create_future()
        if key:
            self.pages[key] = ended
        try:
            await send({"type": "http.response.start", "status": 200, "headers": [
                (b"content-type", b"text/event-stream; charset=utf-8"), (b"cache-control", b"no-cache"),
                (b"x-accel-buffering", b"no")]})
            first = '{"state": ' + await self._state_json() + "}"
            await send({"type": "http.response.body", "body": f"retry: 1000\n\ndata: {first}\n\n".encode(),
                        "more_body": True})
            while True:
                update = asyncio.ensure_future(queue.get())
                done, _ = await asyncio.wait({update, gone, ended}, timeout=heartbeat,
                                             return_when=asyncio.FIRST_COMPLETED)
                if gone in done or ended in done:
                    update.cancel()
                    break
                if update in done:
                    chunk = update.result()
                    if chunk is None:  # the server is stopping
                        break
                else:
                    update.cancel()
                    chunk = BEAT.encode()
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            if not gone.done():
                await send({"type": "http.response.body", "body": b"", "more_body": False})
        except (OSError, RuntimeError, asyncio.CancelledError):
            pass  # the phone went away mid-send
        finally:
            gone.cancel()
            if key and self.pages.get(key) is ended:
                del self.pages[key]
            self.hub.close_async(queue)
            self.streams[client] -= 1
            if self.streams[client] <= 0:
                del self.streams[client]

    async def _state_json(self) -> str:
        """The hub's cached state; when there is none yet, made on a thread (it waits for the
        referee, which may be writing to the card), never on the loop."""
        cached = self.hub.cached_state_json()
        if cached is not None:
            return cached
        return await asyncio.get_running_loop().run_in_executor(self.pool, self.hub.state_json)

    def stop_streams(self) -> None:
        self.closing = True
        if self.hub is not None:
            self.hub.end_async_streams()

    # -- everything else: Flask in a thread -------------------------------------------------

    async def _wsgi(self, scope: dict, receive: Callable, send: Callable) -> None:
        declared = _header(scope, b"content-length")
        too_big = _json_reply(413, f"the body is over {self.max_body // 1024} KB", [(b"connection", b"close")])
        if declared is not None:
            try:
                if int(declared) > self.max_body:
                    await self._send(send, *too_big)
                    return
            except ValueError:
                await self._send(send, *_json_reply(400, "bad Content-Length", [(b"connection", b"close")]))
                return
        body = bytearray()
        loop = asyncio.get_running_loop()
        until = loop.time() + BODY_TIMEOUT_S
        while True:
            try:  # a body sent a byte at a time holds its connection: cut short
                message = await asyncio.wait_for(receive(), max(0.0, until - loop.time()))
            except asyncio.TimeoutError:
                await self._send(send, *_json_reply(408, "the body came too slowly", [(b"connection", b"close")]))
                return
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            if len(body) > self.max_body:
                await self._send(send, *too_big)
                return
            if not message.get("more_body"):
                break
        environ = _environ(scope, bytes(body))
        try:
            status, out_headers, chunks = await loop.run_in_executor(self.pool, self._call, environ)
        except Exception:  # a bug in the app: the server stays up
            log.exception("web: %s %s failed", scope.get("method"), scope.get("path"))
            status, out_headers, chunks = _json_reply(500, "internal error")
            chunks = [chunks]
        try:
            await send({"type": "http.response.start", "status": status, "headers": out_headers})
            await send({"type": "http.response.body", "body": b"".join(chunks)})
        except (OSError, RuntimeError):
            pass

    def _call(self, environ: dict) -> tuple[int, list, list[bytes]]:
        response: dict[str, Any] = {}

        def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Callable:
            response["status"] = int(status.split(" ", 1)[0])
            response["headers"] = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers]
            return lambda data: chunks.append(data)

        chunks: list[bytes] = []
        result = self.app(environ, start_response)
        try:
            for chunk in result:
                if chunk:
                    chunks.append(chunk)
        finally:
            close = getattr(result, "close", None)
            if close is not None:
                close()
        return response["status"], response["headers"], chunks

    @staticmethod
    async def _send(send: Callable, status: int, headers: list, body: bytes) -> None:
        try:
            await send({"type": "http.response.start", "status": status, "headers": headers})
            await send({"type": "http.response.body", "body": body})
        except (OSError, RuntimeError):
            pass


async def _disconnected(receive: Callable) -> None:
    """Returns when the client has gone (the request body, if any, is read and dropped)."""
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return


def _environ(scope: dict, body: bytes) -> dict:
    server = scope.get("server") or ("localhost", 80)
    client = scope.get("client") or ("", 0)
    path = scope.get("path", "/")
    environ = {
        "REQUEST_METHOD": scope["method"],
        "SCRIPT_NAME": "",
        "PATH_INFO": path.encode("utf-8").decode("latin-1"),
        "QUERY_STRING": (scope.get("query_string") or b"").decode("latin-1"),
        "SERVER_NAME": str(server[0]),
        "SERVER_PORT": str(server[1]),
        "SERVER_PROTOCOL": f"HTTP/{scope.get('http_version', '1.1')}",
        "REMOTE_ADDR": str(client[0]),
        "REMOTE_PORT": str(client[1]),
        "CONTENT_LENGTH": str(len(body)),
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": scope.get("scheme", "http"),
        "wsgi.input": io.BytesIO(body),
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": False,
        "wsgi.run_once": False,
    }
    for raw_name, raw_value in scope.get("headers") or []:
        name = raw_name.decode("latin-1").upper().replace("-", "_")
        value = raw_value.decode("latin-1")
        if name == "CONTENT_LENGTH":
            continue
        if name == "CONTENT_TYPE":
            environ["CONTENT_TYPE"] = value
            continue
        key = f"HTTP_{name}"
        if key in environ:
            value = environ[key] + ("; " if name == "COOKIE" else ",") + value
        environ[key] = value
    return environ


def bind(host: str, port: int) -> socket.socket:
    """A listening socket (raises OSError when the port is taken)."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if family == socket.AF_INET6:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        sock.bind(address)
        sock.listen(2048)
    except OSError:
        sock.close()
        raise
    return sock


class Server:
    """uvicorn on a socket we bound, in a thread of its own: start(), port, stop()."""

    def __init__(self, app: Any, host: str = "0.0.0.0", port: int = 8000, *,
                 sock: socket.socket | None = None, **options: Any) -> None:
        self.asgi = TableServer(app, **options)
        self.host = host
        self.sock = sock if sock is not None else bind(host, port)  # `sock`: bound earlier by the caller
        self.port = int(self.sock.getsockname()[1])
        self._server: Any = None
        self.thread: threading.Thread | None = None
        self._started = threading.Event()

    def start(self) -> None:
        import uvicorn

        _raise_file_limit(MAX_CONNECTIONS + 200)  # the connections, the stores, the camera and logs
        _quiet_accept_errors()
        config = uvicorn.Config(self.asgi, log_config=None, log_level="warning", access_log=False,
                                proxy_headers=False, server_header=False, lifespan="off", http=guarded_h11(),
                                ws="none", loop="asyncio", timeout_keep_alive=5, timeout_graceful_shutdown=2)
        self._server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self._run, name="web", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            self._server.run(sockets=[self.sock])
        except Exception:
            log.exception("the phone page stopped")

    @property
    def started(self) -> bool:
        return bool(self._server is not None and self._server.started)

    def serve_forever(self) -> None:
        self.start()
        assert self.thread is not None
        try:
            while self.thread.is_alive():
                self.thread.join(0.5)
        except KeyboardInterrupt:
            pass
        finally:
            self.stop()

    def stop(self, timeout: float = 5.0) -> None:
        self.asgi.stop_streams()
        if self._server is not None:
            self._server.should_exit = True
        if self.thread is not None:
            self.thread.join(timeout)
        self.asgi.pool.shutdown(wait=False, cancel_futures=True)
        try:
            self.sock.close()
        except OSError:
            pass


def guarded_h11() -> type:
    """uvicorn's h11 protocol with limits on connections that do not make requests: closed when
    over MAX_CONNECTIONS (CONNECTIONS_PER_CLIENT from one address), or with no request's headers
    within HEADER_TIMEOUT_S. (uvicorn times out a connection only between requests.)"""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class GuardedH11(H11Protocol):
        def connection_made(self, transport: Any) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._first_request: Any = None
            host = self.client[0] if self.client else None
            same = sum(1 for other in self.connections if other.client and other.client[0] == host)
            if len(self.connections) > MAX_CONNECTIONS or same > CONNECTIONS_PER_CLIENT:
                transport.close()
                return
            self._first_request = self.loop.call_later(HEADER_TIMEOUT_S, self._no_request)

        def _no_request(self) -> None:
            if self.cycle is None and not self.transport.is_closing():
                self.transport.close()

        def connection_lost(self, exc: Exception | None) -> None:
            if self._first_request is not None:
                self._first_request.cancel()
            super().connection_lost(exc)

    return GuardedH11


def _raise_file_limit(wanted: int) -> None:
    """The soft limit on open files up to `wanted` (within the hard limit): a Pi's default 1024
    is near what the page may hold open."""
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        if soft != resource.RLIM_INFINITY and soft < target:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    except (ImportError, ValueError, OSError):  # not POSIX, or not allowed: the limits above still hold
        pass


class _OncePerMinute(logging.Filter):
    """asyncio's accept loop logs every failed accept (out of files: hundreds a second, megabytes
    of tracebacks on the SD card the store lives on): one line a minute, without the traceback."""

    def __init__(self) -> None:
        super().__init__()
        self.last = 0.0

    def filter(self, record: logging.LogRecord) -> bool:
        if "accept" not in record.getMessage():
            return True
        import time

        now = time.monotonic()
        if now - self.last < 60.0:
            return False
        self.last = now
        record.exc_info = None
        record.exc_text = None
        return True


def _quiet_accept_errors() -> None:
    target = logging.getLogger("asyncio")
    if not any(isinstance(f, _OncePerMinute) for f in target.filters):
        target.addFilter(_OncePerMinute())
