"""An OpenAI-compatible fake chat server on 127.0.0.1, driven by a script of replies.

The test double for the real HTTP path (litellm → httpx → socket): point litellm at it with
model ``openai/<any name>``, ``api_base=<server.base_url>`` and a dummy key. Every request body
is recorded in ``server.requests`` (and, standalone, appended to ``--record FILE`` as JSON
lines).

A reply is a dict (JSON-able, so a script can live in a file):

* ``text``: answer text, streamed in ``chunk_chars`` pieces (default 8).
* ``reasoning``: reasoning text, streamed first as ``delta.reasoning_content``.
* ``tool_calls``: ``[{"name": str, "arguments": dict | str, "id": str?}]``; a ``str``
  argument is sent verbatim (to script malformed JSON).
* ``usage``: ``{"prompt_tokens": int, "completion_tokens": int, ...}``, ``"auto"`` (the
  default: a characters ÷ 4 estimate), ``{"input_scale": float}`` (the auto estimate with the
  input scaled: a provider whose tokenizer counts more) or ``None`` (no usage reported).
* ``chunk_delay_s``: pause before each streamed chunk (slow streams); ``delay_s``: pause
  before the response headers (client timeouts).
* ``error``: a canned HTTP error — ``context_length`` (OpenAI's 400), ``llama_context``
  (llama.cpp's 400), ``rate_limit`` (429), ``server_error`` (500), ``auth`` (401).
* ``status`` + ``body``: any other HTTP error reply.
* ``sse``: a list of ``data:`` payloads (strings) recorded from a real server, sent verbatim
  as a 200 event stream — nothing added, not even ``[DONE]`` (``[]`` is an empty stream).
* ``hold`` (in-process only): a ``threading.Event``; the stream pauses after its first
  chunk until the event is set or the client goes away.
* ``endless`` (in-process only): a ``threading.Event``; after its first chunk the stream sends
  ``text`` again and again (a model ignoring ``max_tokens``) until the client goes away, then
  sets the event (or stops after 120 s).

A script item may also be a callable ``(request_body) -> reply`` (in-process only). When the
script runs out the server answers 400 "script exhausted" (or ``default_reply`` if given).

Standalone: ``python tests/fakeserver.py --script FILE.json [--port N] [--record FILE]
[--default-text TEXT]`` prints its base URL (``http://127.0.0.1:PORT/v1``) on the first line
of stdout and serves until SIGTERM / SIGINT.
"""

from __future__ import annotations

import argparse
import itertools
import json
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

Reply = dict[str, Any]
ScriptItem = Reply | Callable[[dict[str, Any]], Reply]

CONTEXT_LENGTH_BODY = {
    "error": {
        "message": "This model's maximum context length is 8192 tokens. However, your messages "
        "resulted in 9321 tokens. Please reduce the length of the messages.",
        "type": "invalid_request_error",
        "param": "messages",
        "code": "context_length_exceeded",
    }
}
LLAMA_CONTEXT_BODY = {
    "error": {
        "code": 400,
        "message": "the request exceeds the available context size. try increasing the "
        "context size or enable context shift",
        "type": "exceed_context_size_error",
        "n_prompt_tokens": 9321,
        "n_ctx": 8192,
    }
}
CANNED_ERRORS: dict[str, tuple[int, dict[str, Any]]] = {
    "context_length": (400, CONTEXT_LENGTH_BODY),
    "llama_context": (400, LLAMA_CONTEXT_BODY),
    "rate_limit": (429, {"error": {"message": "Rate limit reached for requests",
                                   "type": "requests", "code": "rate_limit_exceeded"}}),
    "server_error": (500, {"error": {"message": "The server had an error while processing "
                                     "your request.", "type": "server_error"}}),
    "auth": (401, {"error": {"message": "Incorrect API key provided.",
                             "type": "invalid_request_error", "code": "invalid_api_key"}}),
}

_ids = itertools.count(1)


def _estimate_tokens(value: Any) -> int:
    return max(1, len(json.dumps(value, ensure_ascii=False)) // 4)


class FakeServer:
    """The fake server; a context manager (starts on enter, stops on exit).

    Args:
        script: Replies, played in order.
        default_reply: Played when the script is exhausted instead of a 400.
        record_path: Append every request body to this file as one JSON line (a lone
            surrogate the request escaped is written as the same escape).

    Attributes:
        requests: Every request body received, in order (parsed JSON).
        headers: The request headers, in the same order (lower-case names).
    """

    def __init__(
        self,
        script: list[ScriptItem] | None = None,
        *,
        default_reply: Reply | None = None,
        record_path: Path | None = None,
        port: int = 0,
    ) -> None:
        self.script: list[ScriptItem] = list(script or [])
        self.default_reply = default_reply
        self.record_path = record_path
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self._lock = threading.Lock()
        self._httpd = _Server(("127.0.0.1", port), _Handler)
        self._httpd.fake = self
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """``http://127.0.0.1:<port>``."""
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def base_url(self) -> str:
        """The OpenAI-style base URL, ``<url>/v1`` (litellm's ``api_base``)."""
        return self.url + "/v1"

    def add(self, *items: ScriptItem) -> None:
        """Append replies to the script."""
        with self._lock:
            self.script.extend(items)

    def start(self) -> FakeServer:
        """Serve in a daemon thread."""
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True,
            name="fakeserver",
        )
        self._thread.start()
        return self

    def close(self) -> None:
        """Stop serving and close the socket."""
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join()
            self._thread = None
        self._httpd.server_close()

    def __enter__(self) -> FakeServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _next_reply(self, body: dict[str, Any], headers: dict[str, str]) -> Reply:
        with self._lock:
            self.requests.append(body)
            self.headers.append(headers)
            number = len(self.requests)
            if self.record_path is not None:
                # A lone surrogate (``"\\ud800"`` is valid JSON, as a real server takes it)
                # can only stand inside a string: written back as its escape, the line is
                # JSON again. Raw, UTF-8 refused it and the request got no answer.
                with self.record_path.open("a", encoding="utf-8",
                                           errors="backslashreplace") as fh:
                    fh.write(json.dumps(body, ensure_ascii=False) + "\n")
            if self.script:
                item = self.script.pop(0)
            elif self.default_reply is not None:
                item = self.default_reply
            else:
                return {"status": 400, "body": {"error": {
                    "message": f"fake server script exhausted at request #{number}",
                    "type": "invalid_request_error"}}}
        return item(body) if callable(item) else item


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    fake: FakeServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that hangs up mid-stream (a cancelled turn) is normal here.
        exc = sys.exc_info()[1]
        if isinstance(exc, ConnectionError | TimeoutError):
            return
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def setup(self) -> None:
        super().setup()
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib name
        return

    def do_GET(self) -> None:  # noqa: N802 - stdlib name
        if self.path.rstrip("/") in ("/health", "/v1/models"):
            self._send_json(200, {"object": "list", "data": [{"id": "fake", "object": "model"}]})
        else:
            self._send_json(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self) -> None:  # noqa: N802 - stdlib name
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length)
        if self.path.rstrip("/") not in ("/v1/chat/completions", "/chat/completions"):
            self._send_json(404, {"error": {"message": f"no route {self.path}"}})
            return
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            self._send_json(400, {"error": {"message": "request body is not JSON"}})
            return
        headers = {k.lower(): v for k, v in self.headers.items()}
        reply = self.server.fake._next_reply(body, headers)
        if reply.get("delay_s"):
            time.sleep(float(reply["delay_s"]))
        if reply.get("error"):
            status, payload = CANNED_ERRORS[reply["error"]]
            self._send_json(status, payload)
        elif reply.get("status"):
            self._send_json(int(reply["status"]), reply.get("body") or {})
        elif reply.get("sse") is not None:
            self._send_sse(reply["sse"])
        elif body.get("stream"):
            self._send_stream(body, reply)
        else:
            self._send_json(200, _completion(body, reply))

    def _send_json(self, status: int, payload: Any) -> None:
        data = (payload if isinstance(payload, str) else json.dumps(payload)).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _send_stream(self, body: dict[str, Any], reply: Reply) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        delay_s = float(reply.get("chunk_delay_s") or 0)
        hold: threading.Event | None = reply.get("hold")
        if reply.get("endless") is not None:
            self._send_endless(body, reply, reply["endless"])
            return
        for i, chunk in enumerate(_stream_chunks(body, reply)):
            if delay_s:
                time.sleep(delay_s)
            self._write_chunk(b"data: " + json.dumps(chunk).encode() + b"\n\n")
            if i == 1 and hold is not None:
                while not hold.wait(0.05):
                    pass
        self._write_chunk(b"data: [DONE]\n\n")
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _send_endless(self, body: dict[str, Any], reply: Reply, gone: threading.Event) -> None:
        chunks = list(_stream_chunks(body, {**reply, "usage": None}))[:-1]  # no finish chunk
        deadline = time.monotonic() + 120
        try:
            self._write_chunk(b"data: " + json.dumps(chunks[0]).encode() + b"\n\n")
            while time.monotonic() < deadline:
                for chunk in chunks[1:]:
                    self._write_chunk(b"data: " + json.dumps(chunk).encode() + b"\n\n")
        except (ConnectionError, OSError):
            gone.set()
            raise

    def _send_sse(self, payloads: list[str]) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for payload in payloads:
            self._write_chunk(b"data: " + payload.encode() + b"\n\n")
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _write_chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()


def _tool_calls(reply: Reply) -> list[dict[str, Any]]:
    calls = []
    for call in reply.get("tool_calls") or []:
        args = call.get("arguments", {})
        calls.append({
            "id": call.get("id") or f"call_{next(_ids)}",
            "type": "function",
            "function": {
                "name": call["name"],
                "arguments": args if isinstance(args, str) else json.dumps(args),
            },
        })
    return calls


def _usage(body: dict[str, Any], reply: Reply, calls: list[dict[str, Any]]) -> Any:
    usage = reply.get("usage", "auto")
    scale = 1.0
    if isinstance(usage, dict) and "input_scale" in usage:
        scale = float(usage["input_scale"])
    elif usage != "auto":
        return usage
    prompt = round(scale * _estimate_tokens([body.get("messages"), body.get("tools")]))
    completion = _estimate_tokens([reply.get("text", ""), reply.get("reasoning", ""), calls])
    return {"prompt_tokens": prompt, "completion_tokens": completion,
            "total_tokens": prompt + completion}


def _finish_reason(reply: Reply, calls: list[dict[str, Any]]) -> str:
    return str(reply.get("finish_reason") or ("tool_calls" if calls else "stop"))


def _completion(body: dict[str, Any], reply: Reply) -> dict[str, Any]:
    calls = _tool_calls(reply)
    message: dict[str, Any] = {"role": "assistant", "content": reply.get("text") or None}
    if reply.get("reasoning"):
        message["reasoning_content"] = reply["reasoning"]
    if calls:
        message["tool_calls"] = calls
    out: dict[str, Any] = {
        "id": f"chatcmpl-{next(_ids)}", "object": "chat.completion", "created": int(time.time()),
        "model": body.get("model", "fake"),
        "choices": [{"index": 0, "message": message,
                     "finish_reason": _finish_reason(reply, calls)}],
    }
    usage = _usage(body, reply, calls)
    if usage is not None:
        out["usage"] = usage
    return out


def _stream_chunks(body: dict[str, Any], reply: Reply) -> Iterator[dict[str, Any]]:
    calls = _tool_calls(reply)
    base = {"id": f"chatcmpl-{next(_ids)}", "object": "chat.completion.chunk",
            "created": int(time.time()), "model": body.get("model", "fake")}
    size = max(1, int(reply.get("chunk_chars") or 8))

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    yield chunk({"role": "assistant", "content": ""})
    reasoning = reply.get("reasoning") or ""
    for i in range(0, len(reasoning), size):
        yield chunk({"reasoning_content": reasoning[i:i + size]})
    text = reply.get("text") or ""
    for i in range(0, len(text), size):
        yield chunk({"content": text[i:i + size]})
    for index, call in enumerate(calls):
        yield chunk({"tool_calls": [{"index": index, "id": call["id"], "type": "function",
                                     "function": {"name": call["function"]["name"],
                                                  "arguments": ""}}]})
        args = call["function"]["arguments"]
        for i in range(0, len(args), size):
            yield chunk({"tool_calls": [{"index": index,
                                         "function": {"arguments": args[i:i + size]}}]})
    yield chunk({}, _finish_reason(reply, calls))
    usage = _usage(body, reply, calls)
    if usage is not None and (body.get("stream_options") or {}).get("include_usage"):
        yield {**base, "choices": [], "usage": usage}


def main(argv: list[str] | None = None) -> int:
    """Serve a script file until SIGTERM / SIGINT; print the base URL first."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--script", type=Path, help="JSON file: a list of replies")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--record", type=Path, help="append request bodies here (JSON lines)")
    parser.add_argument("--default-text", help="answer this when the script is exhausted")
    args = parser.parse_args(argv)
    script = json.loads(args.script.read_text()) if args.script else []
    default = {"text": args.default_text} if args.default_text is not None else None
    server = FakeServer(script, default_reply=default, record_path=args.record, port=args.port)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    with server:
        print(server.base_url, flush=True)
        while not stop.wait(0.2):
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
