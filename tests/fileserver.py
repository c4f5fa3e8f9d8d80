"""A loopback HTTP file server for download tests: 127.0.0.1, an ephemeral port, one thread.

It serves byte strings by name and can misbehave on purpose, per file:
- "truncate": announce the full Content-Length, send half the body, close the connection;
- "truncate-unannounced": the same without a Content-Length (only a checksum can tell);
- "stall": send the headers, then nothing, until the client gives up or the server stops.
Every request path is recorded, so a test can prove that a load used no network at all.
"""

from __future__ import annotations

import http.server
import threading
from typing import ClassVar

STALL_LIMIT_S = 10.0  # a stalled response never outlives the test by more than this


class FileServer:
    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}
        self.faults: dict[str, str] = {}
        self.requests: list[str] = []
        self._stop = threading.Event()
        handler = type("Handler", (_Handler,), {"owner": self})
        self._httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def add(self, name: str, data: bytes, fault: str | None = None) -> None:
        self.files[name] = data
        if fault:
            self.faults[name] = fault

    def start(self) -> FileServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()  # releases stalled handlers
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)


class _Handler(http.server.BaseHTTPRequestHandler):
    owner: ClassVar[FileServer]
    timeout = 10  # seconds a client may take to send its request
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args) -> None:  # keep test output clean
        pass

    def do_GET(self) -> None:
        name = self.path.lstrip("/")
        self.owner.requests.append(name)
        data = self.owner.files.get(name)
        if data is None:
            self.send_error(404, "Not Found")
            return
        fault = self.owner.faults.get(name)
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        if fault != "truncate-unannounced":
            self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        if fault == "stall":
            self.wfile.flush()
            self.owner._stop.wait(STALL_LIMIT_S)
            return
        if fault in ("truncate", "truncate-unannounced"):
            data = data[: len(data) // 2]
        self.wfile.write(data)
