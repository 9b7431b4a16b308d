"""Stand-in servers for the refresh tests: a Hugging Face Hub and a website, on 127.0.0.1 only.

Real HTTP servers (http.server, one thread each, an ephemeral port), so that huggingface_hub and
requests run their real code paths; nothing is mocked. Each server keeps a log of the requests it saw
and can be told to misbehave for the next requests to a path: `fail(path, 500, 500)` answers 500 twice
then serves normally; also "timeout" (answer nothing for a while), "stall-body" (the headers and five
bytes, then nothing), "truncate" (promise more bytes than are sent), "oversize" (send more than any
limit), "drip" (the headers at once, then the body one byte every `DRIP_INTERVAL` s), "drip-headers"
(the status line, then a header one byte at a time), "long-header" (a header line of 100 MB, sent until
the client hangs up), "many-headers" (a thousand of them) and "busy" (503 with `Retry-After:
BUSY_SECONDS`). Each drip is `DRIP_BYTES` long, and `Behaviour.dripped` counts the bytes sent, so a test
can show that the client stopped before a drip ended without timing anything.
"""

from __future__ import annotations

import hashlib
import json
import struct
import socket
import threading
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOOPBACK = "127.0.0.1"
STALL_SECONDS = 6.0  # how long a "timeout" answer stalls: longer than the tests' client timeout
DRIP_INTERVAL = 0.1  # seconds between two bytes of a drip: well inside the tests' client timeouts
DRIP_BYTES = 300  # a drip lasts DRIP_BYTES * DRIP_INTERVAL = 30 s: far past the tests' deadlines
LONG_HEADER = 100 * 2**20
BUSY_SECONDS = 20  # the Retry-After of a "busy" answer


def git_blob_sha1(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def safetensors_header(tensors: dict[str, tuple[str, list[int]]]) -> bytes:
    """The first bytes of a .safetensors file: an 8-byte length, then the JSON header (no data)."""
    header, offset = {}, 0
    for name, (dtype, shape) in tensors.items():
        count = 1
        for dim in shape:
            count *= dim
        size = count * {"BF16": 2, "F16": 2, "F32": 4}[dtype]
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + size]}
        offset += size
    body = json.dumps(header).encode()
    return struct.pack("<Q", len(body)) + body


@dataclass
class Behaviour:
    """What a server does, shared with its handler threads."""

    stop: threading.Event = field(default_factory=threading.Event)
    log: list[tuple[str, str]] = field(default_factory=list)
    agents: list[tuple[str, str, str]] = field(default_factory=list)  # (method, path, User-Agent)
    dripped: int = 0  # bytes sent by drips so far
    faults: dict[str, deque] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def fail(self, path: str, *faults: int | str) -> None:
        with self.lock:
            self.faults.setdefault(path, deque()).extend(faults)

    def next_fault(self, path: str) -> int | str | None:
        with self.lock:
            queue = self.faults.get(path)
            return queue.popleft() if queue else None


class _Handler(BaseHTTPRequestHandler):
    server_version = "standin/1"
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:  # keep pytest output quiet
        pass

    @property
    def behaviour(self) -> Behaviour:
        return self.server.behaviour  # type: ignore[attr-defined]

    def handle(self) -> None:
        try:
            super().handle()
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client hung up, as a client that refuses an oversized body does

    def do_HEAD(self) -> None:
        self._answer(head=True)

    def do_GET(self) -> None:
        self._answer(head=False)

    def _answer(self, head: bool) -> None:
        path = self.path.split("?", 1)[0]
        self.behaviour.log.append((self.command, path))
        self.behaviour.agents.append((self.command, path, self.headers.get("User-Agent", "")))
        fault = self.behaviour.next_fault(path)
        if fault in ("drip", "drip-headers", "long-header", "many-headers"):
            self._misbehave(fault, path, head)
            return
        if fault == "timeout":
            self.behaviour.stop.wait(STALL_SECONDS)
            self.close_connection = True
            return
        if isinstance(fault, int):
            self._send(fault, b"standin fault\n", {"Content-Type": "text/plain", "Retry-After": "0"}, head)
            return
        if fault == "busy":  # 503, come back in BUSY_SECONDS
            self._send(503, b"busy\n", {"Content-Type": "text/plain", "Retry-After": str(BUSY_SECONDS)}, head)
            return
        status, body, headers = self.route(path)
        if fault == "truncate" and not head:
            self.send_response(status)
            for key, value in headers.items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        if fault == "stall-body" and not head:  # the headers, a few bytes of the body, then nothing
            self.send_response(status)
            for key, value in headers.items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(body) + 100))
            self.end_headers()
            self.wfile.write(body[:5])
            self.wfile.flush()
            self.behaviour.stop.wait(STALL_SECONDS)
            self.close_connection = True
            return
        if fault == "oversize" and not head:
            body = body + b" " * (4 * 2**20)
        self._send(status, body, headers, head)

    def _misbehave(self, fault: str, path: str, head: bool) -> None:
        self.close_connection = True
        stop = self.behaviour.stop
        if fault == "many-headers":
            self.wfile.write(b"HTTP/1.1 200 OK\r\n" + b"".join(b"X-%d: 1\r\n" % i for i in range(1000)) + b"\r\n")
            return
        if fault == "long-header":
            self.wfile.write(b"HTTP/1.1 200 OK\r\nX-Long: ")
            chunk = b"a" * 2**16
            for _ in range(LONG_HEADER // len(chunk)):
                if stop.is_set():
                    return
                self.wfile.write(chunk)  # BrokenPipeError once the client hangs up: handle() ends it
            return
        if fault == "drip-headers":
            self.wfile.write(b"HTTP/1.1 200 OK\r\nX-Slow: ")
        else:
            status, body, headers = self.route(path)
            self.send_response(status)
            for key, value in headers.items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(DRIP_BYTES))
            self.end_headers()
            if head:
                return
        self.wfile.flush()
        for _ in range(DRIP_BYTES):
            if stop.wait(DRIP_INTERVAL):
                return
            self.wfile.write(b"x")
            self.wfile.flush()
            self.behaviour.dripped += 1

    def _send(self, status: int, body: bytes, headers: dict[str, str], head: bool) -> None:
        range_header = self.headers.get("Range", "")
        if status == 200 and range_header.startswith("bytes=") and not head:
            start, _, end = range_header[len("bytes="):].partition("-")
            first, last = int(start), min(int(end) if end else len(body) - 1, len(body) - 1)
            headers = {**headers, "Content-Range": f"bytes {first}-{last}/{len(body)}"}
            body, status = body[first : last + 1], 206
        self.send_response(status)
        for key, value in headers.items():
            self.send_header(key, value)
        if "Content-Length" not in headers:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if not head:
            self.wfile.write(body)

    def route(self, path: str) -> tuple[int, bytes, dict[str, str]]:
        return self.server.route(self, path)  # type: ignore[attr-defined]


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self, behaviour: Behaviour) -> None:
        super().__init__((LOOPBACK, 0), _Handler)
        self.behaviour = behaviour
        self.handlers: list[threading.Thread] = []  # each request's thread, joined when the stand-in stops
        self.open_requests: set[socket.socket] = set()

    def process_request(self, request, client_address) -> None:  # type: ignore[no-untyped-def]
        """As ThreadingMixIn, keeping each thread and its socket: a client's kept-alive connection
        would otherwise leave its thread waiting after the test (and a process that forks, render's,
        must have no other thread running)."""
        thread = threading.Thread(target=self.process_request_thread, args=(request, client_address), daemon=True)
        self.open_requests.add(request)
        self.handlers.append(thread)
        thread.start()

    def shutdown_request(self, request) -> None:  # type: ignore[no-untyped-def]
        self.open_requests.discard(request)
        super().shutdown_request(request)

    @property
    def url(self) -> str:
        return f"http://{LOOPBACK}:{self.server_address[1]}"

    def route(self, handler: _Handler, path: str) -> tuple[int, bytes, dict[str, str]]:
        raise NotImplementedError


class StandInHub(_Server):
    """`/{repo}/resolve/{revision}/{file}` with the headers huggingface_hub needs."""

    def __init__(self, behaviour: Behaviour) -> None:
        super().__init__(behaviour)
        self.repos: dict[str, dict[str, bytes]] = {}
        self.commits: dict[str, str] = {}

    def put(self, repo: str, files: dict[str, bytes]) -> str:
        """Publish a new commit of `repo` with these files; returns the commit id."""
        self.repos[repo] = dict(files)
        digest = hashlib.sha1(repr(sorted(files.items())).encode(), usedforsecurity=False).hexdigest()
        self.commits[repo] = digest
        return digest

    def route(self, handler: _Handler, path: str) -> tuple[int, bytes, dict[str, str]]:
        head, sep, tail = path.lstrip("/").partition("/resolve/")
        revision, _, filename = tail.partition("/")
        repo_files = self.repos.get(head)
        if not sep or repo_files is None:
            return 404, b"Repository not found", {"X-Error-Code": "RepoNotFound"}
        commit = self.commits[head]
        if revision not in ("main", commit):
            return 404, b"Revision not found", {"X-Error-Code": "RevisionNotFound"}
        if filename not in repo_files:
            return 404, b"Entry not found", {"X-Error-Code": "EntryNotFound", "X-Repo-Commit": commit}
        data = repo_files[filename]
        headers = {"X-Repo-Commit": commit, "Content-Type": "application/octet-stream"}
        if filename.endswith(".safetensors"):  # an LFS file: the ETag is the sha256 of the bytes
            headers["ETag"] = f'"{hashlib.sha256(data).hexdigest()}"'
            headers["X-Linked-Size"] = str(len(data))
        else:
            headers["ETag"] = f'"{git_blob_sha1(data)}"'
        return 200, data, headers


class StandInWeb(_Server):
    """Pages by path: `pages[path] = (status, body, headers)`."""

    def __init__(self, behaviour: Behaviour) -> None:
        super().__init__(behaviour)
        self.pages: dict[str, tuple[int, bytes, dict[str, str]]] = {}

    def page(self, path: str, html: str, content_type: str = "text/html; charset=utf-8") -> str:
        self.pages[path] = (200, html.encode("utf-8"), {"Content-Type": content_type})
        return self.url + path

    def redirect(self, path: str, location: str, status: int = 302) -> str:
        self.pages[path] = (status, b"", {"Location": location})
        return self.url + path

    def route(self, handler: _Handler, path: str) -> tuple[int, bytes, dict[str, str]]:
        return self.pages.get(path, (404, b"not found\n", {"Content-Type": "text/plain"}))


@contextmanager
def serving(kind: type[_Server]) -> Iterator[_Server]:
    behaviour = Behaviour()
    server = kind(behaviour)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        behaviour.stop.set()
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
        for request in list(server.open_requests):  # a kept-alive connection: end the wait for its next request
            try:
                request.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        for handler in server.handlers:
            handler.join(timeout=5)


# Fixtures shared by the refresh tests (imported by name into each test module).
import pytest  # noqa: E402


@pytest.fixture
def hf_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """huggingface_hub with no telemetry, no stored token and no proxy between it and 127.0.0.1."""
    home = tmp_path_factory.mktemp("hf-home")
    monkeypatch.setenv("HF_HUB_DISABLE_TELEMETRY", "1")
    monkeypatch.setenv("HF_HOME", str(home))
    monkeypatch.delenv("HF_TOKEN", raising=False)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setenv("NO_PROXY", LOOPBACK)
    from huggingface_hub import constants

    # huggingface_hub read HF_HOME when it was imported; point its token files at the empty home too,
    # so that no developer's token is ever sent to a stand-in.
    monkeypatch.setattr(constants, "HF_TOKEN_PATH", str(home / "token"))
    monkeypatch.setattr(constants, "HF_STORED_TOKENS_PATH", str(home / "stored_tokens"))
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)


@pytest.fixture
def hub(hf_env: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[StandInHub]:
    with serving(StandInHub) as server:
        monkeypatch.setenv("HF_ENDPOINT", server.url)
        yield server  # type: ignore[misc]


@pytest.fixture
def web() -> Iterator[StandInWeb]:
    with serving(StandInWeb) as server:
        yield server  # type: ignore[misc]


@pytest.fixture
def other_web() -> Iterator[StandInWeb]:
    with serving(StandInWeb) as server:
        yield server  # type: ignore[misc]


def closed_port_url() -> str:
    """An http URL on 127.0.0.1 where nothing listens (a port bound, then released)."""
    import socket

    with socket.socket() as sock:
        sock.bind((LOOPBACK, 0))
        port = sock.getsockname()[1]
    return f"http://{LOOPBACK}:{port}"
