#!/bin/bash
set -u
cd /tmp/probe/gm
rm -rf home proj requests.jsonl requests.jsonl.usage; mkdir -p home/.gemini proj
cat > home/.gemini/settings.json <<'J'
{"security":{"auth":{"selectedType":"gemini-api-key"},"folderTrust":{"enabled":false}},
 "privacy":{"usageStatisticsEnabled":false},"telemetry":{"enabled":false},
 "general":{"enableAutoUpdate":false,"enableAutoUpdateNotification":false},
 "model":{"compressionThreshold":0.075}}
J
export GEMINI_CLI_HOME=/tmp/probe/gm/home GEMINI_API_KEY=dummy GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:18091 LOG=/tmp/probe/gm/requests.jsonl CTL=/tmp/probe/gm/ctl.json
G=/tmp/probe/gemini/node_modules/.bin/gemini
python3 /tmp/probe/fake_gem.py 18091 & FAKE=$!
sleep 1
turn() { # ctl prompt [resume]
  echo "$1" > ctl.json
  if [ -z "${3:-}" ]; then
    (cd proj && timeout 120 $G -p "$2" -m gemini-2.5-pro -y --output-format json </dev/null)
  else
    (cd proj && timeout 120 $G -p "$2" -m gemini-2.5-pro -y --resume latest --output-format json </dev/null)
  fi
}
turn '{"inputs":[1000,1200],"tool":{"name":"run_shell_command","args":{"command":"echo building; echo FAIL: TestParse >&2; exit 3","description":"build"}}}' "Run the build and tell me what fails" > t1.json 2> t1.err
turn '{"inputs":[2000,2500],"tool":{"name":"write_file","args":{"file_path":"/tmp/probe/gm/proj/notes.txt","content":"x=1\n"}},"reply":"I will use a plain text file because it is simpler. The file notes.txt holds 1 line."}' "Write notes.txt with x=1" r > t2.json 2> t2.err
turn '{"inputs":[3000,3500],"tool":{"name":"replace","args":{"file_path":"/tmp/probe/gm/proj/notes.txt","old_string":"x=1","new_string":"x=2","instruction":"set x to 2"}}}' "Set x=2 in notes.txt" r > t3.json 2> t3.err
turn '{"inputs":[90000,5000],"tool":{"name":"run_shell_command","args":{"command":"ls","description":"list"}}}' "Big turn: list the files" r > t4.json 2> t4.err
turn '{"inputs":[7000]}' "After compression, what is WORD?" r > t5.json 2> t5.err
kill $FAKE
ls -la home/.gemini/tmp/*/chats/
