#!/usr/bin/env python3
"""Minimal fake Gemini API (generateContent / streamGenerateContent SSE) on 127.0.0.1.
Logs every request to $LOG (jsonl); knobs in $CTL (json):
  prompt_tokens: usageMetadata.promptTokenCount to report (default 1000)
  tool_call:     shell command; answer the first request of a turn (no functionResponse yet) with run_shell_command
"""
import json, os, sys, time, itertools, re
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PORT = int(sys.argv[1]) if len(sys.argv) > 1 else 18081
LOG = os.environ.get("LOG", "/home/user/gemini-probe/requests.jsonl")
CTL = os.environ.get("CTL", "/home/user/gemini-probe/ctl.json")
counter = itertools.count(1)
seq = {"key": None, "k": 0}


def ctl():
    try:
        return json.load(open(CTL))
    except Exception:
        return {}


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

    def _json(self, obj):
        data = json.dumps(obj).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self._log(None)
        self._json({})

    def do_POST(self):
        ln = int(self.headers.get("content-length", 0) or 0)
        raw = self.rfile.read(ln) if ln else b""
        try:
            body = json.loads(raw or b"{}")
        except Exception:
            body = {"_raw": raw[:2000].decode("latin1")}
        n = self._log(body)
        c = ctl()
        path = self.path
        if ":countTokens" in path:
            return self._json({"totalTokens": 100})
        contents = body.get("contents", []) or []
        texts = [p.get("text", "") for m in contents for p in m.get("parts", []) if isinstance(p, dict)]
        alltext = "\n".join(texts)
        last = contents[-1] if contents else {}
        last_text = "\n".join(p.get("text", "") for p in last.get("parts", []) if isinstance(p, dict))
        sysi = json.dumps(body.get("systemInstruction", body.get("config", {}).get("systemInstruction", "")))
        gc = body.get("generationConfig", {}) or {}
        pt = int(c.get("prompt_tokens", 1000))
        parts = None
        if gc.get("responseMimeType") == "application/json" or gc.get("responseSchema") or gc.get("responseJsonSchema"):
            # routing / next-speaker / other JSON side requests
            parts = [{"text": json.dumps({"reasoning": "fake", "next_speaker": "user", "model_choice": "flash",
                                          "complexity_reasoning": "fake", "complexity_score": 10})}]
        elif "state_snapshot" in sysi or "state_snapshot" in last_text:
            parts = [{"text": f"<state_snapshot>SUMMARY-{n}: keep WORD=pelican.</state_snapshot>"}]
        elif c.get("tool") and not any("functionResponse" in p for p in last.get("parts", []) if isinstance(p, dict)):
            parts = [{"functionCall": {"name": c["tool"]["name"], "args": c["tool"]["args"]}}]
        else:
            parts = [{"text": c.get("reply", "OK reply {n}").replace("{n}", str(n))}]
        kind = "side"
        if ":streamGenerateContent" in path:
            kind = "turn"
            key = json.dumps(c, sort_keys=True)
            if key != seq["key"]:
                seq["key"], seq["k"] = key, 0
            if c.get("inputs"):
                pt = int(c["inputs"][min(seq["k"], len(c["inputs"]) - 1)])
                seq["k"] += 1
        elif "state_snapshot" in sysi or "state_snapshot" in last_text:
            kind = "compression"
            pt = int(c.get("compress_input", 900))
        resp = {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
                "usageMetadata": {"promptTokenCount": pt, "candidatesTokenCount": 20, "totalTokenCount": pt + 20,
                                  "cachedContentTokenCount": int(c.get("cached_tokens", 0))},
                "modelVersion": "gemini-2.5-pro", "responseId": f"r{n}"}
        with open(LOG + ".usage", "a") as f:
            f.write(json.dumps({"n": n, "kind": kind, "path": path.split("?")[0], "parts": [list(p)[0] for p in parts],
                                "usage": resp["usageMetadata"]}) + "\n")
        if ":streamGenerateContent" in path:
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("connection", "close")
            self.end_headers()
            self.wfile.write(f"data: {json.dumps(resp)}\r\n\r\n".encode())
            self.wfile.flush()
            self.close_connection = True
        else:
            self._json(resp)


if __name__ == "__main__":
    ThreadingHTTPServer(("127.0.0.1", PORT), H).serve_forever()
