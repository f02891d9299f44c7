"""A local Hugging Face Hub mirror for tests: the download API, served on 127.0.0.1.

It speaks the endpoints ``huggingface_hub`` calls to fetch a model (read from its source,
2.x): ``GET /api/models/{repo}[/revision/{rev}]?blobs=True`` (commit, files with size, git blob
id and LFS sha256), ``HEAD /{repo}/resolve/{rev}/{file}`` (``X-Repo-Commit``, ``ETag`` /
``X-Linked-Etag``, ``X-Linked-Size``) and ``GET`` of the same path with ``Range`` for resumes.
Point ``HF_ENDPOINT`` at ``hub.url`` and the library downloads from here.

Faults a test can switch on, per file name: ``drop_after[name] = (bytes, times)`` cuts the
connection after that many bytes of the body, that many times (a flaky network);
``corrupt.add(name)`` serves the file with one byte changed (same size, wrong hash);
``fail.add(name)`` closes the connection without an answer (the network gone halfway through).
``requests`` logs every call.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

#: files at least this big are stored with Git LFS on the real Hub; their ETag is the sha256
LFS_THRESHOLD = 10_000


def git_blob_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


@dataclass
class HubFile:
    name: str
    data: bytes

    @property
    def lfs(self) -> bool:
        return len(self.data) >= LFS_THRESHOLD or self.name.endswith((".safetensors", ".bin"))

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()

    @property
    def etag(self) -> str:
        return self.sha256 if self.lfs else git_blob_id(self.data)

    def sibling(self) -> dict:
        entry = {"rfilename": self.name, "size": len(self.data), "blobId": git_blob_id(self.data)}
        if self.lfs:
            entry["lfs"] = {"size": len(self.data), "sha256": self.sha256, "pointerSize": 134}
        return entry


@dataclass
class HubRepo:
    repo_id: str
    files: dict[str, HubFile]

    @property
    def commit(self) -> str:
        digest = hashlib.sha1()
        for name in sorted(self.files):
            digest.update(f"{name}\0{self.files[name].etag}\n".encode())
        return digest.hexdigest()

    @classmethod
    def from_folder(cls, repo_id: str, folder: Path) -> HubRepo:
        files = {
            path.relative_to(folder).as_posix(): HubFile(path.relative_to(folder).as_posix(), path.read_bytes())
            for path in sorted(folder.rglob("*"))
            if path.is_file()
        }
        return cls(repo_id, files)


@dataclass
class FakeHub:
    repos: dict[str, HubRepo] = field(default_factory=dict)
    drop_after: dict[str, tuple[int, int]] = field(default_factory=dict)
    corrupt: set[str] = field(default_factory=set)
    fail: set[str] = field(default_factory=set)
    requests: list[tuple[str, str, str]] = field(default_factory=list)  # (method, path, range header)
    #: seconds to pause after every 256 kB of a file's body, so a browser can watch the progress
    throttle_s: float = 0.0
    url: str = ""
    _server: ThreadingHTTPServer | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def add_folder(self, repo_id: str, folder: Path) -> HubRepo:
        self.repos[repo_id] = HubRepo.from_folder(repo_id, folder)
        return self.repos[repo_id]

    def gets(self, file_name: str) -> list[str]:
        """The Range header of every GET of ``file_name`` ("" for a whole-file GET)."""
        return [
            rng
            for method, path, rng in self.requests
            if method == "GET" and path.endswith(f"/{file_name}") and "/resolve/" in path
        ]

    def start(self) -> FakeHub:
        hub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:  # quiet test output
                pass

            def do_GET(self) -> None:
                hub._handle(self, head=False)

            def do_HEAD(self) -> None:
                hub._handle(self, head=True)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    # -- the API ---------------------------------------------------------------------------------

    def _handle(self, request: BaseHTTPRequestHandler, *, head: bool) -> None:
        path = unquote(urlsplit(request.path).path)
        with self._lock:
            self.requests.append(("HEAD" if head else "GET", path, request.headers.get("Range", "")))
        if path.startswith("/api/models/"):
            return self._model_info(request, path.removeprefix("/api/models/"))
        if "/resolve/" in path:
            repo_id, _, rest = path.lstrip("/").partition("/resolve/")
            _revision, _, file_name = rest.partition("/")
            return self._resolve(request, repo_id, file_name, head=head)
        self._error(request, 404, "EntryNotFound", f"no route for {path}")

    def _model_info(self, request, rest: str) -> None:
        repo_id = rest.split("/revision/")[0]
        repo = self.repos.get(repo_id)
        if repo is None:
            return self._error(request, 404, "RepoNotFound", f"Repository {repo_id} not found")
        body = json.dumps(
            {
                "id": repo_id,
                "modelId": repo_id,
                "sha": repo.commit,
                "private": False,
                "siblings": [f.sibling() for f in repo.files.values()],
            }
        ).encode()
        self._send(request, 200, {"Content-Type": "application/json", "Content-Length": str(len(body))}, body)

    def _resolve(self, request, repo_id: str, file_name: str, *, head: bool) -> None:
        repo = self.repos.get(repo_id)
        if repo is None:
            return self._error(request, 404, "RepoNotFound", f"Repository {repo_id} not found")
        hub_file = repo.files.get(file_name)
        if hub_file is None:
            return self._error(
                request, 404, "EntryNotFound", f"{file_name} not in {repo_id}", {"X-Repo-Commit": repo.commit}
            )
        if file_name in self.fail:  # the connection dies before an answer
            request.close_connection = True
            request.connection.shutdown(2)
            return
        data = hub_file.data
        if file_name in self.corrupt:
            data = bytes([data[0] ^ 0xFF]) + data[1:]
        headers = {
            "X-Repo-Commit": repo.commit,
            "ETag": f'"{hub_file.etag}"',
            "Accept-Ranges": "bytes",
            "Content-Type": "application/octet-stream",
        }
        if hub_file.lfs:
            headers |= {"X-Linked-Etag": f'"{hub_file.etag}"', "X-Linked-Size": str(len(data))}
        start = 0
        range_header = request.headers.get("Range", "")
        if range_header.startswith("bytes=") and not head:
            start = int(range_header.removeprefix("bytes=").split("-")[0] or 0)
        body = data[start:]
        headers["Content-Length"] = str(len(body))
        status = 200
        if start:
            status = 206
            headers["Content-Range"] = f"bytes {start}-{len(data) - 1}/{len(data)}"
        if head:
            return self._send(request, 200, {**headers, "Content-Length": str(len(data))}, b"")
        cut = self._cut_at(file_name)
        if cut is not None and cut < len(body):
            request.send_response(status)
            for key, value in headers.items():
                request.send_header(key, value)
            request.end_headers()
            request.wfile.write(body[:cut])
            request.wfile.flush()
            request.close_connection = True
            request.connection.shutdown(2)
            return
        if self.throttle_s:
            request.send_response(status)
            for key, value in headers.items():
                request.send_header(key, value)
            request.end_headers()
            for start in range(0, len(body), 256_000):
                request.wfile.write(body[start : start + 256_000])
                time.sleep(self.throttle_s)
            return
        self._send(request, status, headers, body)

    def _cut_at(self, file_name: str) -> int | None:
        with self._lock:
            if file_name not in self.drop_after:
                return None
            after, times = self.drop_after[file_name]
            if times <= 1:
                del self.drop_after[file_name]
            else:
                self.drop_after[file_name] = (after, times - 1)
            return after

    @staticmethod
    def _send(request, status: int, headers: dict[str, str], body: bytes) -> None:
        request.send_response(status)
        for key, value in headers.items():
            request.send_header(key, value)
        request.end_headers()
        if body:
            request.wfile.write(body)

    def _error(self, request, status: int, code: str, message: str, extra: dict | None = None) -> None:
        body = json.dumps({"error": message}).encode()
        headers = {"Content-Type": "application/json", "Content-Length": str(len(body)), **(extra or {})}
        if code:
            headers["X-Error-Code"] = code
        self._send(request, status, headers, body if request.command != "HEAD" else b"")
