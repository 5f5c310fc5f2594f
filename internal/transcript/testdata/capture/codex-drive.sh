#!/bin/bash
# Drives codex exec through scripted turns against fake_codex.py; ctl per turn.
set -u
cd /tmp/probe/cx
export CODEX_HOME=/tmp/probe/cx/home FAKE_OPENAI_KEY=x LOG=/tmp/probe/cx/requests.jsonl CTL=/tmp/probe/cx/ctl.json
CX=/tmp/probe/codex/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex
rm -f requests.jsonl requests.jsonl.usage; rm -rf home/sessions proj/*
python3 /tmp/probe/fake_codex.py 18090 & FAKE=$!
sleep 1
turn() { # ctl-json prompt [resume-id]
  echo "$1" > ctl.json
  if [ -z "${3:-}" ]; then
    (cd proj && timeout 120 $CX exec --skip-git-repo-check --dangerously-bypass-approvals-and-sandbox --json "$2" </dev/null)
  else
    (cd proj && timeout 120 $CX exec --skip-git-repo-check --dangerously-bypass-approvals-and-sandbox --json resume "$3" "$2" </dev/null)
  fi
}
out=$(turn '{"input_tokens":1000,"tool_call":"echo building; echo FAIL: TestParse >&2; exit 3"}' "Run the build and tell me what fails")
echo "$out" > t1.jsonl
tid=$(echo "$out" | python3 -c 'import sys,json
for l in sys.stdin:
  d=json.loads(l)
  if d.get("type")=="thread.started": print(d["thread_id"])')
echo "thread $tid"
turn '{"input_tokens":4000,"tool_call":"printf \"x=1\\n\" > notes.txt && cat notes.txt","reply":"I will use a plain text file because it is simpler. The file notes.txt holds 1 line."}' "Write notes.txt with x=1" "$tid" > t2.jsonl
turn '{"input_tokens":9000,"cached_tokens":6000,"custom_tool":{"name":"apply_patch","input":"*** Begin Patch\n*** Add File: hello.py\n+print(\"hello\")\n*** Update File: notes.txt\n@@\n-x=1\n+x=2\n*** End Patch\n"}}' "Add hello.py and set x=2 in notes.txt" "$tid" > t3.jsonl
turn '{"input_tokens":60000}' "Turn four, big usage" "$tid" > t4.jsonl
turn '{"input_tokens":3000,"compact_input":4000}' "Turn five after compaction?" "$tid" > t5.jsonl
turn '{"input_tokens":60000,"tool_call":"ls","inputs":[60000,7000,8000],"compact_input":5000}' "Turn six: list files (mid-turn compaction)" "$tid" > t6.jsonl
kill $FAKE
ls -la home/sessions/*/*/*/
