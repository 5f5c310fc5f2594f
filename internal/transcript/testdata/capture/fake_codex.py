#!/usr/bin/env python3
"""Minimal fake OpenAI Responses API (SSE) on 127.0.0.1 for driving Codex CLI offline.

Logs every request to $LOG (jsonl). Reads $CTL (json) on each request for knobs:
  input_tokens: usage.input_tokens to report (default 1000)
  tool_call:    if set to a shell command string, the first non-compaction request
                of each turn answers with a function call to exec it (once).
"""
import json, os, sys, time, itertools
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PORT = int(sys.argv[1]) if len(sys.argv) > 1 else 18080
LOG = os.environ.get("LOG", "/home/user/codex-probe/requests.jsonl")
CTL = os.environ.get("CTL", "/home/user/codex-probe/ctl.json")
counter = itertools.count(1)
seq_key, seq_k = None, 0


def ctl():
    try:
        with open(CTL) as f:
            return json.load(f)
    except Exception:
        return {}


def texts_of(body):
    out = []
    for item in body.get("input", []) or []:
        if item.get("type") in (None, "message"):
            for c in item.get("content", []) or []:
                if isinstance(c, dict) and "text" in c:
                    out.append((item.get("role"), c["text"]))
    return out


class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def _log(self, body):
        n = next(counter)
        with open(LOG, "a") as f:
            f.write(json.dumps({"n": n, "t": time.time(), "method": self.command, "path": self.path,
                                "headers": dict(self.headers), "body": body}) + "\n")
        return n

    def do_GET(self):
        self._log(None)
        if "/models" in self.path:
            data = json.dumps({"object": "list", "data": [], "models": []}).encode()
        else:
            data = b"{}"
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        ln = int(self.headers.get("content-length", 0) or 0)
        raw = self.rfile.read(ln) if ln else b""
        enc = self.headers.get("content-encoding", "")
        if enc == "zstd":
            import subprocess
            raw = subprocess.run(["zstd", "-d", "-c"], input=raw, capture_output=True).stdout
        elif enc == "gzip":
            import gzip
            raw = gzip.decompress(raw)
        try:
            body = json.loads(raw or b"{}")
        except Exception:
            body = {"_raw": raw[:2000].decode("latin1")}
        n = self._log(body)
        c = ctl()
        if not self.path.rstrip("/").endswith("/responses"):
            data = b"{}"
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return
        tx = texts_of(body)
        alltext = "\n".join(t for _, t in tx)
        last_user = next((t for r, t in reversed(tx) if r == "user"), "")
        items = body.get("input", []) or []
        last_item = items[-1] if items else {}
        is_compact = ("CONTEXT CHECKPOINT COMPACTION" in alltext[-20000:] or "checkpoint" in last_user.lower()
                      and "summar" in last_user.lower())
        rid = f"resp_{n}"
        out_items = []
        if is_compact:
            out_items.append({"type": "message", "role": "assistant", "id": f"msg_{n}",
                              "content": [{"type": "output_text", "text": f"SUMMARY-{n}: the user asked things; keep WORD=pelican."}]})
        elif c.get("custom_tool") and last_item.get("type") not in ("function_call_output", "custom_tool_call_output"):
            ct = c["custom_tool"]
            out_items.append({"type": "custom_tool_call", "id": f"ctc_{n}", "call_id": f"call_{n}", "name": ct["name"], "input": ct["input"]})
        elif c.get("tool_call") and last_item.get("type") not in ("function_call_output", "custom_tool_call_output"):
            out_items.append({"type": "function_call", "id": f"fc_{n}", "call_id": f"call_{n}", "name": c.get("tool_name", "exec_command"),
                              "arguments": json.dumps(c.get("tool_args", {"cmd": c["tool_call"]}))})
        else:
            out_items.append({"type": "message", "role": "assistant", "id": f"msg_{n}",
                              "content": [{"type": "output_text", "text": c.get("reply", "OK reply {n}").replace("{n}", str(n))}]})
        it = int(c.get("input_tokens", 1000))
        global seq_key, seq_k
        key = json.dumps(c, sort_keys=True)
        if key != seq_key:
            seq_key, seq_k = key, 0
        if is_compact:
            it = int(c.get("compact_input", it))
        elif c.get("inputs"):
            it = int(c["inputs"][min(seq_k, len(c["inputs"]) - 1)])
            seq_k += 1
        usage = {"input_tokens": it, "input_tokens_details": {"cached_tokens": int(c.get("cached_tokens", 0))},
                 "output_tokens": 20, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": it + 20}
        with open(LOG + ".usage", "a") as f:
            f.write(json.dumps({"n": n, "kind": "compaction" if is_compact else "turn", "response_id": rid,
                                "output": [i["type"] for i in out_items], "usage": usage}) + "\n")
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("connection", "close")
        self.end_headers()

        def ev(obj):
            self.wfile.write(f"event: {obj['type']}\ndata: {json.dumps(obj)}\n\n".encode())
            self.wfile.flush()

        ev({"type": "response.created", "response": {"id": rid, "status": "in_progress"}})
        for i, item in enumerate(out_items):
            ev({"type": "response.output_item.added", "output_index": i, "item": item})
            if item["type"] == "message":
                ev({"type": "response.output_text.delta", "output_index": i, "item_id": item["id"], "content_index": 0,
                    "delta": item["content"][0]["text"]})
            ev({"type": "response.output_item.done", "output_index": i, "item": item})
        ev({"type": "response.completed", "response": {"id": rid, "status": "completed", "output": out_items, "usage": usage}})
        self.close_connection = True


if __name__ == "__main__":
    ThreadingHTTPServer(("127.0.0.1", PORT), H).serve_forever()
