"""A local stand-in for the Hugging Face Hub's file API, for the installed app's smoke test.

``python3 packaging/local_hub.py ROOT [--port 0] [--port-file F]`` serves every folder
``ROOT/OWNER/NAME/`` as the model repo ``OWNER/NAME`` at revision ``main``, with the endpoints
``huggingface_hub`` uses to list and download a model (``HfApi.model_info``,
``snapshot_download``, ``hf_hub_download``; the routes and headers of ``huggingface_hub``'s
``constants.py`` / ``file_download.py``):

* ``GET /api/models/OWNER/NAME`` and ``GET /api/models/OWNER/NAME/revision/REV``: JSON with
  ``id``, ``sha`` (a commit hash made from the files' hashes) and ``siblings`` (``rfilename``,
  ``size``);
* ``GET /api/models/OWNER/NAME/tree/REV``: the file list (``type``, ``path``, ``size``, ``oid``);
* ``HEAD``/``GET /OWNER/NAME/resolve/REV/PATH``: the file, with ``ETag`` (its sha256),
  ``X-Repo-Commit`` and ``Content-Length``. No Xet headers, so clients take the plain HTTP path.

Point the app at it with ``HF_ENDPOINT=http://127.0.0.1:PORT``. Standard library only: it runs
with the system Python of a machine that has no SpeechStudio venv (the smoke test's clean
environment). Unknown repos and files get 404 with ``X-Error-Code: RepoNotFound`` /
``EntryNotFound``, as the Hub answers.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


class Repo:
    """One served folder: its files (relative POSIX paths), their sha256 and a commit hash."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.files = {p.relative_to(folder).as_posix(): p for p in sorted(folder.rglob("*")) if p.is_file()}
        self.etags = {name: _sha256(p) for name, p in self.files.items()}
        self.sha = hashlib.sha1("".join(f"{n}:{e}\n" for n, e in self.etags.items()).encode()).hexdigest()


class Handler(BaseHTTPRequestHandler):
    root: Path = Path(".")
    log_file = None

    def log_message(self, fmt: str, *args) -> None:  # one line per request, to the log file if any
        if self.log_file is not None:
            self.log_file.write(f"{self.command} {self.path} -> {args[1] if len(args) > 1 else ''}\n")
            self.log_file.flush()

    def _repo(self, owner: str, name: str) -> Repo | None:
        folder = (self.root / owner / name).resolve()
        if not folder.is_dir() or self.root.resolve() not in folder.parents:
            return None
        return Repo(folder)

    def _error(self, code: int, kind: str) -> None:
        body = json.dumps({"error": kind}).encode()
        self.send_response(code)
        self.send_header("X-Error-Code", kind)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, obj) -> None:
        body = json.dumps(obj).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _serve(self) -> None:
        parts = [unquote(p) for p in urlsplit(self.path).path.split("/") if p]
        if len(parts) >= 4 and parts[0] == "api" and parts[1] == "models":
            repo = self._repo(parts[2], parts[3])
            if repo is None:
                return self._error(404, "RepoNotFound")
            if len(parts) >= 6 and parts[4] == "tree":   # list_repo_tree (snapshot_download)
                return self._json([{"type": "file", "path": n, "size": p.stat().st_size, "oid": repo.etags[n]}
                                   for n, p in repo.files.items()])
            repo_id = f"{parts[2]}/{parts[3]}"
            return self._json({"id": repo_id, "modelId": repo_id, "sha": repo.sha, "private": False, "gated": False,
                               "disabled": False, "tags": [],
                               "siblings": [{"rfilename": n, "size": p.stat().st_size} for n, p in repo.files.items()]})
        if len(parts) >= 5 and parts[2] == "resolve":
            repo = self._repo(parts[0], parts[1])
            if repo is None:
                return self._error(404, "RepoNotFound")
            name = "/".join(parts[4:])
            path = repo.files.get(name)
            if path is None:
                return self._error(404, "EntryNotFound")
            data = path.read_bytes()
            self.send_response(200)
            self.send_header("ETag", f'"{repo.etags[name]}"')
            self.send_header("X-Repo-Commit", repo.sha)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Accept-Ranges", "bytes")
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)
            return None
        return self._error(404, "RepoNotFound")

    do_GET = _serve
    do_HEAD = _serve


def serve(root: Path, port: int = 0, log_file=None) -> ThreadingHTTPServer:
    """Start the server on 127.0.0.1:``port`` (0: a free port) in a daemon thread; return it
    (``server.server_address[1]`` is the port; ``server.shutdown()`` stops it)."""
    handler = type("LocalHubHandler", (Handler,), {"root": Path(root), "log_file": log_file})
    server = ThreadingHTTPServer(("127.0.0.1", port), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root", type=Path, help="folder of OWNER/NAME/ repos")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--port-file", type=Path, help="write the chosen port here once listening")
    ap.add_argument("--log", type=Path, help="append one line per request here")
    args = ap.parse_args(argv)
    log = args.log.open("a", encoding="utf-8") if args.log else None
    server = serve(args.root, args.port, log)
    port = server.server_address[1]
    if args.port_file:
        tmp = args.port_file.with_suffix(".tmp")
        tmp.write_text(str(port), encoding="utf-8")
        tmp.replace(args.port_file)
    print(f"local hub: serving {args.root} on http://127.0.0.1:{port}", file=sys.stderr, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
