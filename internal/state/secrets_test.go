package state

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-agent/cairn/internal/transcript"
)

// Fake credentials of the families the redactor knows; the prefixes are
// split so that secret scanners reading this file pass them by.
var secrets = []string{
	"sk-" + "ant-api03-" + "Xq3vB8nLk2PzR7tY5wJd9Fh4Gm6Cs1Ae0Ui8Ob3Nv7Kx2Lz5Qp9Wr4Ty6Es1Dg-AA",
	"sk-" + "proj-" + "T4bLm8Qz2Xv6Nc1Rk9Pw3Js7Hd5Gf0Ay4Ue8Io2_Zt6Wq",
	"AK" + "IA" + "Q3EGRIBPTX7YUW2N",
	"gh" + "p_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5",
	"gl" + "pat-" + "xK9mQ2vR7tL4pW8nZ3jF",
	"xo" + "xb-" + "1234567890-0987654321098-AbCdEfGhIjKlMnOpQrStUvWx",
	"AI" + "za" + "SyD3x7Kq9Lm2Np4Rs6Tu8Vw0Xy1Za3Bc5De",
	"sk" + "_live_" + "51HxYzAbCdEfGhIjKlMnOpQrStUv",
	"np" + "m_" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Y",
	"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
	"MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM2f",
	"hunter2-Correct-Horse",
	"s3cr3t-db-pass",
	"Zm9vOmJhcmJhemJhcg",
}

// TestNoSecretAtRest: whatever the transcript holds, the session state the
// engine derives, and both files it is saved in, hold no secret and no
// <private> text (issue 8: the state used to keep prompts, commands,
// output, assistant text and todos verbatim).
func TestNoSecretAtRest(t *testing.T) {
	const private = "my-private-diary-entry"
	ts := `"timestamp":"2026-02-10T21:12:01.117Z"`
	j := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	user := func(text string) string {
		return fmt.Sprintf(`{"type":"user","cwd":"/p","sessionId":"S","message":{"role":"user","content":%s},%s}`, j(text), ts)
	}
	asst := func(id, content string) string {
		return fmt.Sprintf(`{"type":"assistant","cwd":"/p","sessionId":"S","message":{"id":%q,"model":"claude-opus-4-6","role":"assistant","content":[%s],"usage":{"input_tokens":10,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":5}},%s}`, id, content, ts)
	}
	result := func(id string, isErr bool, out string) string {
		return fmt.Sprintf(`{"type":"user","cwd":"/p","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":%q,"is_error":%v,"content":%s}]},%s,"toolUseResult":{"stdout":%s}}`, id, isErr, j(out), ts, j(out))
	}
	tool := func(id, name string, input any) string {
		return fmt.Sprintf(`{"type":"tool_use","id":%q,"name":%q,"input":%s}`, id, name, j(input))
	}
	text := func(s string) string { return fmt.Sprintf(`{"type":"text","text":%s}`, j(s)) }
	all := strings.Join(secrets[:5], " and ")
	rest := strings.Join(secrets[5:10], ", ") // those recognisable by their shape alone
	lines := []string{
		user("Deploy with key " + all + ". <private>" + private + "</private> Never log the token. PASSWORD=" + secrets[11]),
		asst("m1", text("I'll use the key "+secrets[0]+" because it is the deploy key; decision: keep "+rest)),
		asst("m2", tool("t1", "Bash", map[string]any{"command": "curl -H 'Authorization: Bearer " + secrets[9] + "' https://x && export DB_PASSWORD=" + secrets[12], "description": "call with " + secrets[3]})),
		result("t1", true, "Exit code 7\nerror: token "+secrets[1]+" refused; postgres://app:"+secrets[12]+"@db/x; <private>"+private+"</private>"),
		asst("m3", tool("t2", "TodoWrite", map[string]any{"todos": []map[string]string{{"content": "rotate " + secrets[2], "status": "pending", "activeForm": "rotating " + secrets[2]}}})),
		asst("m4", tool("t3", "TaskCreate", map[string]any{"subject": "revoke " + secrets[4], "activeForm": "revoking " + secrets[6]})),
		asst("m5", tool("t4", "Task", map[string]any{"description": "check " + secrets[7], "prompt": "x"})),
		asst("m6", text("-----BEGIN "+"RSA PRIVATE KEY-----\n"+secrets[10]+"\nq1x8WmOjJ4bQhF0yFvN0x9Yy\n-----END RSA PRIVATE KEY-----\nAuthorization: Basic "+secrets[13])),
		fmt.Sprintf(`{"type":"system","subtype":"compact_boundary","compactMetadata":{"trigger":"auto","preTokens":1000},%s}`, ts),
		fmt.Sprintf(`{"type":"user","isCompactSummary":true,"message":{"role":"user","content":%s},%s}`, j("Summary: the key is "+secrets[8]+" <private>"+private+"</private>"), ts),
		user("<private>" + private),
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "S.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := transcript.New(path)
	var p transcript.Parser
	if _, err := s.Update(&p); err != nil {
		t.Fatal(err)
	}
	if s.BadCount != 0 {
		t.Fatalf("bad lines: %+v", s.BadLines)
	}
	st := Store{Dir: filepath.Join(dir, "state")}
	if err := st.Save(s); err != nil {
		t.Fatal(err)
	}
	mem, _ := json.Marshal(s)
	files := map[string]string{"session in memory": string(mem)}
	for _, ext := range []string{".head", ".body"} {
		data, err := os.ReadFile(st.File(path) + ext)
		if err != nil {
			t.Fatal(err)
		}
		files[ext] = string(data)
	}
	for name, content := range files {
		for _, sec := range append(secrets, private) {
			if strings.Contains(content, sec) {
				i := strings.Index(content, sec)
				t.Errorf("%s holds %q: …%s…", name, sec, content[max(0, i-150):i])
			}
		}
	}
	// What is kept is still there, redacted.
	if !strings.Contains(files[".body"], "[REDACTED:anthropic-key]") || !strings.Contains(files[".head"], "Never log the token") {
		t.Errorf("the redacted text is missing from the state:\n%s", files[".head"])
	}
}
