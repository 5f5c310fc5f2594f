package redact

import (
	"strings"
	"testing"
)

// Fake credentials. The prefixes are split so that secret scanners reading
// this file do not take them for real ones.
var fakes = map[string]string{
	"ant":    "sk-" + "ant-api03-" + "Xq3vB8nLk2PzR7tY5wJd9Fh4Gm6Cs1Ae0Ui8Ob3Nv7Kx2Lz5Qp9Wr4Ty6Es1Dg-AA",
	"proj":   "sk-" + "proj-" + "T4bLm8Qz2Xv6Nc1Rk9Pw3Js7Hd5Gf0Ay4Ue8Io2_Zt6Wq",
	"openai": "sk-" + "Abc123Def456Ghi789Jkl012Mno345Pqr678Stu901Vwx2",
	"akia":   "AK" + "IA" + "Q3EGRIBPTX7YUW2N",
	"asia":   "AS" + "IA" + "Y4FHSJCQUZ8VXK3M",
	"ghp":    "gh" + "p_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5",
	"gho":    "gh" + "o_" + "Zy9Xw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa9",
	"ghu":    "gh" + "u_" + "Qa1Ws2Ed3Rf4Tg5Yh6Uj7Ik8Ol9Pz0Xc1Vb2N",
	"ghr":    "gh" + "r_" + "Lp0Ok9Ij8Uh7Yg6Tf5Rd4Es3Wa2Qz1Xs2Cd3V",
	"ghs":    "gh" + "s_" + "Mn4Bv5Cx6Za7Sd8Fg9Hj0Kl1Qw2Er3Ty4Ui5O",
	"pat":    "github" + "_pat_" + "11ABCDEFG0abcdefghijkl_MnOpQrStUvWxYz0123456789abcdefghijKLMNOPQRstuvwx",
	"glpat":  "gl" + "pat-" + "xK9mQ2vR7tL4pW8nZ3jF",
	"slack":  "xo" + "xb-" + "1234567890-0987654321098-AbCdEfGhIjKlMnOpQrStUvWx",
	"xoxp":   "xo" + "xp-" + "2468013579-1357924680-1122334455-a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6",
	"xoxa":   "xo" + "xa-2-" + "5678901234-9876543210987-abcdef",
	"xoxr":   "xo" + "xr-" + "4455667788-aAbBcCdDeE",
	"xoxs":   "xo" + "xs-" + "1122334455-6677889900-12345",
	"xoxo":   "xo" + "xo-" + "99887766-5544332211",
	"google": "AI" + "za" + "SyD3x7Kq9Lm2Np4Rs6Tu8Vw0Xy1Za3Bc5De",
	"stripe": "sk" + "_live_" + "51HxYzAbCdEfGhIjKlMnOpQrStUv",
	"rk":     "rk" + "_live_" + "51HxYzAbCdEfGhIjKlMnOpQr",
	"npm":    "np" + "m_" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Y",
	"jwt":    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
	"pemrsa": "-----BEGIN " + "RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM2f\nq1x8WmOjJ4bQhF0yFvN0x9Yy\n-----END RSA PRIVATE KEY-----",
	"pemesc": `-----BEGIN ` + `PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----\n`,
	"pemssh": "-----BEGIN " + "OPENSSH PRIVATE KEY-----\r\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\r\n-----END OPENSSH PRIVATE KEY-----",
}

// expand replaces {name} with the fake credential of that name.
func expand(s string) string {
	for name, v := range fakes {
		s = strings.ReplaceAll(s, "{"+name+"}", v)
	}
	return s
}

type testCase struct {
	name, in, want string
}

// cases are the behaviour of String; want == "" means the input is kept.
var cases = []testCase{
	// <private> blocks.
	{"private", "keep <private>my card is 4111</private> this", "keep  this"},
	{"private case", "a<PRIVATE>x</Private>b", "ab"},
	{"private unterminated", "a<private>the rest goes", "a"},
	{"private nested", "a<private>1<private>2</private>3</private>b", "ab"},
	{"private repeated", "<private>1</private>a<private>2</private>b", "ab"},
	{"private joined tag", "<priv<private>x</private>ate>hidden</private>shown", "shown"},
	{"private stray close", "a</private>b", ""},
	{"private not a tag", "<privateer> and < private> and <private >", ""},
	{"private then secret", "<private>x</private>token={ghp}", "token=[REDACTED:github-token]"},

	// Vendor tokens.
	{"anthropic", "ANTHROPIC_API_KEY={ant}", "ANTHROPIC_API_KEY=[REDACTED:anthropic-key]"},
	{"anthropic in prose", "I used {ant} to call the API.", "I used [REDACTED:anthropic-key] to call the API."},
	{"openai project", `client = OpenAI(api_key="{proj}")`, `client = OpenAI(api_key="[REDACTED:openai-key]")`},
	{"openai legacy", "key: {openai}", "key: [REDACTED:openai-key]"},
	{"aws access key id", `"AccessKeyId": "{akia}",`, `"AccessKeyId": "[REDACTED:aws-key]",`},
	{"aws session key id", "aws_access_key_id={asia}", "aws_access_key_id=[REDACTED:aws-key]"},
	{"github classic", "git push https://{ghp}@github.com/o/r.git", "git push https://[REDACTED:github-token]@github.com/o/r.git"},
	{"github oauth", "gho: {gho}", "gho: [REDACTED:github-token]"},
	{"github app in url", "https://x-access-token:{ghs}@github.com/o/r", "https://x-access-token:[REDACTED:github-token]@github.com/o/r"},
	{"github fine-grained", "GH_TOKEN={pat}", "GH_TOKEN=[REDACTED:github-token]"},
	{"github user and refresh", `{"access_token":"{ghu}","refresh_token":"{ghr}"}`, `{"access_token":"[REDACTED:github-token]","refresh_token":"[REDACTED:github-token]"}`},
	{"slack kinds", "{xoxp} {xoxa} {xoxr} {xoxs} {xoxo}", "[REDACTED:slack-token] [REDACTED:slack-token] [REDACTED:slack-token] [REDACTED:slack-token] [REDACTED:slack-token]"},
	{"tokens glued together", "{akia}{ghp}", "[REDACTED:aws-key][REDACTED:github-token]"},
	{"token after escaped newline", `"content":"ok\n{ghp}\n"`, `"content":"ok\n[REDACTED:github-token]\n"`},
	{"gitlab", "curl --header 'PRIVATE-TOKEN: {glpat}' https://gitlab.com/api", "curl --header 'PRIVATE-TOKEN: [REDACTED:gitlab-token]' https://gitlab.com/api"},
	{"slack", "SLACK_BOT={slack}", "SLACK_BOT=[REDACTED:slack-token]"},
	{"google", `"apiKey":"{google}"`, `"apiKey":"[REDACTED:google-api-key]"`},
	{"stripe live", "stripe.api_key = '{stripe}'", "stripe.api_key = '[REDACTED:stripe-key]'"},
	{"stripe restricted", "{rk}", "[REDACTED:stripe-key]"},
	{"npm", "//registry.npmjs.org/:_authToken={npm}", "//registry.npmjs.org/:_authToken=[REDACTED:npm-token]"},
	{"jwt", "id_token: {jwt}", "id_token: [REDACTED:jwt]"},
	{"jwt in sentence", "The cookie was {jwt}.", "The cookie was [REDACTED:jwt]."},
	{"jwt unsigned", "t=eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0. next", "t=[REDACTED:jwt] next"},

	// Look-alikes that are not credentials.
	{"random token as an argument", "ansible-vault encrypt_string --vault-password-file .vault_pass 'q7Rk2vLw9XbN3hTzP0mYc5JdF8sGaE1uQ4iKoV6n' --name backup_s3_secret_key",
		"ansible-vault encrypt_string --vault-password-file .vault_pass '[REDACTED:api-token]' --name backup_s3_secret_key"},
	{"aws secret key with slashes", "the new one is wJalrXUtnFEMI/K7MDENG/bPxRfiCYz2KEY9a8Xq, rotate the old", "the new one is [REDACTED:api-token], rotate the old"},
	{"random token at a sentence's end", "Use 9fKq2LmZ8xR4tW7vB1nY6cH3jD5sG0aE2pQ8uT. Then restart.", "Use [REDACTED:api-token]. Then restart."},
	{"random token in a JSON escape", `"text":"key:\nQ7rK2vLw9XbN3hTzP0mYc5JdF8sGaE1uQ4iKoV6n\n"`, `"text":"key:\n[REDACTED:api-token]\n"`},
	{"long identifiers", "TestCrossingWithTheDatabaseLocked2 and handleUserProfileUpdateRequestV2Handler2024 in internal/checkpoint/render_budget_v2.go", ""},
	{"typed ids", `"toolUseID":"toolu_01XFDUDYJgAACzvnptvVoYEL9kQ2","id":"msg_01AbCdEfGhIjKlMnOpQrStUvWxYz12"`, ""},
	{"go.sum hash", "golang.org/x/text v0.3.7 h1:olpwvP2KacW1ZWvsR7uQhoyTYvKAupfQrRGBFM352Gk=", ""},
	{"file name", "see Q7rK2vLw9XbN3hTzP0mYc5JdF8sGaE1uQ4iKoV6n.json for it", ""},
	{"git sha", "commit 3f786850e387550fdab836ed7e6dc881de23001b (HEAD -> main)", ""},
	{"uuid", `"sessionId":"ae4a77f8-aedd-4bc1-888f-c94edc91af04"`, ""},
	{"base64 data", `"data":"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="`, ""},
	{"base64 json", "eyJhbGciOiJIUzI1NiJ9 is the header alone", ""},
	{"dotted base64 file", "eyJmb28iOiJiYXIifQ.json.gz", ""},
	{"sk words", "pip install scikit-learn sk-learn; task-2024a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6 desk-lamp", ""},
	{"sk kebab", "sk-ant-colony-simulation sk-proj-overview-document", ""},
	{"risk live", "risk_live_dashboard2024AbcdefGhijkl network_live_", ""},
	{"xoxo", "xoxo-gossip-girl-fan-club", ""},
	{"slovakia", "SLOVAKIAQ3EGRIBPTX7YUW2N ASIA_PACIFIC_REGION_12345", ""},
	{"aws too long", "AKIAQ3EGRIBPTX7YUW2NXYZ", ""},
	{"npm config", "npm_config_cache=/home/u/.npm npm_package_version=1.2.3", ""},
	{"short gh", "ghp_short and ghp_ prefix", ""},
	{"hex", "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", ""},

	// PEM private keys.
	{"pem", "key:\n{pemrsa}\ndone", "key:\n[REDACTED:private-key]\ndone"},
	{"pem escaped in json", `{"private_key": "{pemesc}", "client_email": "x@y.iam"}`, `{"private_key": "[REDACTED:secret]", "client_email": "x@y.iam"}`},
	{"pem crlf", "{pemssh}\r\n", "[REDACTED:private-key]\r\n"},
	{"pem unterminated", "cat id_rsa\n-----BEGIN " + "OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXkt\n...(truncated)", "cat id_rsa\n[REDACTED:private-key]"},
	{"pem header in code", `if strings.HasPrefix(s, "-----BEGIN RSA PRIVATE KEY-----") {`, ""},
	{"pem header quoted pair", `begin, end := "-----BEGIN PRIVATE KEY-----", "-----END PRIVATE KEY-----"`, ""},
	{"certificate", "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----", ""},
	{"public key", "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYI\n-----END PUBLIC KEY-----", ""},

	// Passwords in URLs.
	{"url password", "DATABASE_URL=postgres://app:s3cr3t-Pw@db.internal:5432/app", "DATABASE_URL=postgres://app:[REDACTED:password]@db.internal:5432/app"},
	{"url password with at", "mongodb://admin:p@ss@w0rd@mongo:27017/", "mongodb://admin:[REDACTED:password]@mongo:27017/"},
	{"url empty user", "redis://:hunter2@cache:6379/0", "redis://:[REDACTED:password]@cache:6379/0"},
	{"url escaped slashes", `{"url":"amqp:\/\/guest:g2uest9@rabbit\/vhost"}`, `{"url":"amqp:\/\/guest:[REDACTED:password]@rabbit\/vhost"}`},
	{"url in json string", `"dsn_url": "mysql://root:rootpw1@tcp(localhost:3306)/db"`, `"dsn_url": "mysql://root:[REDACTED:password]@tcp(localhost:3306)/db"`},
	{"url port", "https://example.com:8443/path?q=1#frag", ""},
	{"url user only", "ssh://git@github.com/org/repo.git and git@github.com:org/repo.git", ""},
	{"url at in path", "https://github.com/foo@bar and https://www.npmjs.com/package/@scope/pkg", ""},
	{"url password variable", "redis://:${REDIS_PASSWORD}@redis:6379", ""},
	{"url mention", "see http://example.com: mail me at bob@example.com", ""},
	{"ipv6", "http://[::1]:8080/health", ""},

	// Authorization headers.
	{"bearer header", "Authorization: Bearer abcdef123456", "Authorization: Bearer [REDACTED:bearer-token]"},
	{"bearer curl", `curl -H "Authorization: Bearer ya29.a0AfH6SMBx-K_dQ" https://api`, `curl -H "Authorization: Bearer [REDACTED:bearer-token]" https://api`},
	{"bearer json", `{"headers":{"Authorization":"Bearer 0123456789abcdef"}}`, `{"headers":{"Authorization":"Bearer [REDACTED:bearer-token]"}}`},
	{"bearer escaped json", `{\"Authorization\": \"Bearer opaque-token-9\"}`, `{\"Authorization\": \"Bearer [REDACTED:bearer-token]\"}`},
	{"bearer jwt", "authorization: bearer {jwt}", "authorization: bearer [REDACTED:jwt]"},
	{"basic", "Authorization: Basic dXNlcjpwYXNzd29yZA==", "Authorization: Basic [REDACTED:basic-auth]"},
	{"token scheme", "Authorization: Token 9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b", "Authorization: Token [REDACTED:auth-token]"},
	{"raw authorization", "Authorization: 0f1e2d3c4b5a69788796a5b4c3d2e1f0", "Authorization: [REDACTED:auth-token]"},
	{"bearer log", "sending Bearer a1b2c3d4e5f6g7h8i9j0k1l2 to upstream", "sending Bearer [REDACTED:bearer-token] to upstream"},
	{"basic outside a header", "curl -H @headers.txt # Basic dXNlcjpodW50ZXIy", "curl -H @headers.txt # Basic [REDACTED:basic-auth]"},
	{"basic prose", "Basic usage: run it. Basic authentication sends credentials.", ""},
	{"bearer prose", "Bearer tokens go in the Authorization header; Bearer authentication is OAuth's.", ""},
	{"bearer code", `req.Header.Set("Authorization", "Bearer "+token)`, ""},
	{"bearer f-string", `headers = {"Authorization": f"Bearer {api_key}"}`, ""},
	{"bearer variable", `curl -H "Authorization: Bearer $TOKEN" -H 'Authorization: Bearer <token>'`, ""},
	{"authorization prose", "Authorization: required for all endpoints.\nauthorization: handled by middleware", ""},
	{"digest", `Authorization: Digest username="Mufasa", realm="x"`, ""},

	// Assignments: .env and shell.
	{"env", "DB_PASSWORD=hunter2\nAPI_KEY=abc123\nDEBUG=true", "DB_PASSWORD=[REDACTED:password]\nAPI_KEY=[REDACTED:secret]\nDEBUG=true"},
	{"env export quoted", `export STRIPE_SECRET="abc def 123"`, `export STRIPE_SECRET="[REDACTED:secret]"`},
	{"env single quoted", "export CLIENT_SECRET='s3cr3t'", "export CLIENT_SECRET='[REDACTED:secret]'"},
	{"aws secret", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "aws_secret_access_key = [REDACTED:aws-secret-key]"},
	{"aws json", `"SecretAccessKey": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY",`, `"SecretAccessKey": "[REDACTED:aws-secret-key]",`},
	{"session token", `"SessionToken": "FwoGZXIvYXdzEBYaDH..."`, `"SessionToken": "[REDACTED:secret]"`},
	{"docker env", "docker run -e POSTGRES_PASSWORD=pg-pass-1 -p 5432:5432 postgres", "docker run -e POSTGRES_PASSWORD=[REDACTED:password] -p 5432:5432 postgres"},
	{"dsn", "SENTRY_DSN=https://abc123@o0.ingest.sentry.io/42", "SENTRY_DSN=[REDACTED:secret]"},
	{"connection string", "ConnectionString: Server=db;User Id=sa;Password=Str0ng!;", "ConnectionString: [REDACTED:secret]"},
	{"connection string password", `conn = "Server=db;Database=x;User Id=sa;Password=Str0ng!;"`, `conn = "Server=db;Database=x;User Id=sa;Password=[REDACTED:password];"`},
	{"query string", "GET /v1/data?api_key=abc123&page=2", "GET /v1/data?api_key=[REDACTED:secret]&page=2"},
	{"auth token", "AUTH_TOKEN=tok_live_99 AUTH_KEY=k-77", "AUTH_TOKEN=[REDACTED:secret] AUTH_KEY=[REDACTED:secret]"},
	{"pwd word", "DB_PWD=s3cret", "DB_PWD=[REDACTED:password]"},
	{"passphrase", "GPG_PASSPHRASE=correct-horse-battery", "GPG_PASSPHRASE=[REDACTED:password]"},
	{"credentials", "REGISTRY_CREDENTIALS=user:pa55", "REGISTRY_CREDENTIALS=[REDACTED:secret]"},
	{"private key name", "PRIVATE_KEY=0x4c0883a69102937d6231471b5dbb6204fe512961708279f1d9c5f7e1c2c1c2c1", "PRIVATE_KEY=[REDACTED:secret]"},
	{"powershell", `$env:OPENAI_API_KEY = "abc123"`, `$env:OPENAI_API_KEY = "[REDACTED:secret]"`},

	// Assignments: YAML, JSON, headers, XML.
	{"yaml", "db:\n  user: app\n  password: hunter2\n  host: db", "db:\n  user: app\n  password: [REDACTED:password]\n  host: db"},
	{"yaml list item", "- client_secret: abc123", "- client_secret: [REDACTED:secret]"},
	{"yaml block", "password: |\n  line one\n  line two\nnext: 1", "password: |\n  [REDACTED:password]\nnext: 1"},
	{"k8s secret", "data:\n  password: cGFzc3dvcmQ=\n", "data:\n  password: [REDACTED:password]\n"},
	{"json", `{"username": "bob", "password": "hunter2"}`, `{"username": "bob", "password": "[REDACTED:password]"}`},
	{"json no space", `{"access_token":"abc.def","token_type":"Bearer","expires_in":3599}`, `{"access_token":"[REDACTED:secret]","token_type":"Bearer","expires_in":3599}`},
	{"json escaped", `"content":"{\"api_key\": \"abc123\", \"n\": 1}"`, `"content":"{\"api_key\": \"[REDACTED:secret]\", \"n\": 1}"`},
	{"json escaped newline", `"text":"TOKEN=abc123\nDEBUG=1"`, `"text":"TOKEN=[REDACTED:secret]\nDEBUG=1"`},
	{"json number", `{"pin_password": 123456}`, `{"pin_password": [REDACTED:password]}`},
	{"python dict", `creds = {'password': 'hunter2', 'user': 'bob'}`, `creds = {'password': '[REDACTED:password]', 'user': 'bob'}`},
	{"header", "X-Api-Key: 5f4dcc3b5aa765d61d8327deb882cf99", "X-Api-Key: [REDACTED:secret]"},
	{"xml", "<password>hunter2</password>", "<password>[REDACTED:password]</password>"},
	// A field names the secret, the next field holds it.
	{"paired xml attributes", `<add key="ClearTextPassword" value="q7vx2mw4k9zr8tplq3nd6yb5hc1sf0ga7ue2wj4xv" />`, `<add key="ClearTextPassword" value="[REDACTED:password]" />`},
	{"paired property", `<property name="hibernate.connection.password" value="Sup3rS3cret!"/>`, `<property name="hibernate.connection.password" value="[REDACTED:password]"/>`},
	{"paired yaml env", "env:\n  - name: DB_PASSWORD\n    value: \"hunter2horse\"\n  - name: LOG_LEVEL\n    value: debug\n", "env:\n  - name: DB_PASSWORD\n    value: \"[REDACTED:password]\"\n  - name: LOG_LEVEL\n    value: debug\n"},
	{"paired yaml unquoted", "- name: GITHUB_TOKEN\n  value: ghx_abc123def456ghi789", "- name: GITHUB_TOKEN\n  value: [REDACTED:secret]"},
	{"paired json", `[{"name": "API_TOKEN", "value": "tok_9f8e7d6c5b4a3210"}, {"name": "REGION", "value": "eu-west-1"}]`, `[{"name": "API_TOKEN", "value": "[REDACTED:secret]"}, {"name": "REGION", "value": "eu-west-1"}]`},
	{"paired json in a string", `{"cmd":"{\"key\": \"SERVICE_SECRET\", \"value\": \"abc123xyz789\"}"}`, `{"cmd":"{\"key\": \"SERVICE_SECRET\", \"value\": \"[REDACTED:secret]\"}"}`},
	{"paired hcl", "set {\n  name  = \"auth.password\"\n  value = \"Grn-Otter-5531\"\n}", "set {\n  name  = \"auth.password\"\n  value = \"[REDACTED:password]\"\n}"},
	{"paired vendor key needs a credential's shape", `<add key="SortKey" value="created_at"/><add key="MapsKey" value="AIzaX7k2Lm9Pq4Rs8Tv1"/>`, `<add key="SortKey" value="created_at"/><add key="MapsKey" value="[REDACTED:secret]"/>`},
	{"paired plain names stay", `<add key="Username" value="build"/><add key="PasswordPolicy" value="strict"/><input name="password" value="">`, ""},
	{"paired value from a reference stays", "- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef:\n      name: db\n      key: password\n- name: PORT\n  value: \"8080\"", ""},
	{"template name in angle brackets", "at <.Values.redis.auth.password>: nil pointer evaluating interface {}.password`. Chart 19 differs.",
		"at <.Values.redis.auth.password>: nil pointer evaluating interface {}.password`. Chart 19 differs."},
	{"properties", "spring.datasource.password=hunter2", "spring.datasource.password=[REDACTED:password]"},
	{"toml", `api_key = "abc123"`, `api_key = "[REDACTED:secret]"`},

	// Assignments: code.
	{"go literal", `token := "abc123"`, `token := "[REDACTED:secret]"`},
	{"python literal", `SECRET_KEY = 'django-insecure-abc'`, `SECRET_KEY = '[REDACTED:secret]'`},
	{"js object", "const cfg = { apiKey: 'abc123', region: 'us' };", "const cfg = { apiKey: '[REDACTED:secret]', region: 'us' };"},
	{"python typed", `password: str = "hunter2"`, `password: str = "[REDACTED:password]"`},
	{"kebab secret", "JWT_SECRET=super-secret-key", "JWT_SECRET=[REDACTED:secret]"},
	{"shell default", `PGPASSWORD="${DB_PASSWORD:-hunter2}" psql`, `PGPASSWORD="[REDACTED:password]" psql`},
	{"shell default alone", "echo ${API_TOKEN:-t0k3n}", "echo ${API_TOKEN:-[REDACTED:secret]}"},
	{"compose default", "POSTGRES_PASSWORD: ${POSTGRES_PASSWORD:-postgres}", "POSTGRES_PASSWORD: [REDACTED:password]"},
	{"call arguments", `db = connect(host="db", password="hunter2")`, `db = connect(host="db", password="[REDACTED:password]")`},
	{"swallowed key", "TOKEN=a,PASSWORD=b", "TOKEN=[REDACTED:secret]"},

	// Flags.
	{"flag space", "mysql --password hunter2 --user root", "mysql --password [REDACTED:password] --user root"},
	{"flag equals", "gh auth login --with-token=abc123 --token=xyz789", "gh auth login --with-token=[REDACTED:secret] --token=[REDACTED:secret]"},
	{"flag quoted", `psql --password "p w"`, `psql --password "[REDACTED:password]"`},
	{"flag single dash", "cmd -password s3cret", "cmd -password [REDACTED:password]"},
	{"netrc", "machine api.github.com login bob password hunter2\nmachine x login amy password p4ss", "machine api.github.com login bob password [REDACTED:password]\nmachine x login amy password [REDACTED:password]"},

	// Names of secrets without a secret.
	{"identifier", "def login(username, password):\n    if password == \"\":\n        return check(password)", ""},
	{"go struct", "type Config struct {\n\tPassword string `json:\"password,omitempty\"`\n\tToken    string `yaml:\"token\"`\n}", ""},
	{"prose", "The token expires after an hour; rotate the password and keep the secret safe.", ""},
	{"prose colon", "Password: must be at least 8 characters.\nToken: see the settings page", ""},
	{"usage", `"usage":{"input_tokens":3,"cache_creation_input_tokens":1234,"output_tokens":5,"max_tokens":4096}`, ""},
	{"compact metadata", `"compactMetadata":{"trigger":"auto","preTokens":167000}`, ""},
	{"token type", `"token_type": "Bearer", "token_count": 12, "nextPageToken": "CAESBggBEAEYAQ"`, ""},
	{"about the secret", "PASSWORD_FILE=/run/secrets/db\nTOKEN_URL=https://auth.example.com/token\nGOOGLE_APPLICATION_CREDENTIALS_PATH=/etc/gcp.json\nsecret_name: prod-db", ""},
	{"password stdin", "echo $PW | docker login --password-stdin -u bob", ""},
	{"options that are not passwords", "mysql -u root -p shop\nmkdir -p build/out && docker run -p 8080:80 web\nmysql -u app -p$DB_PASS db\ncurl -u bob https://x\nssh -p 2222 host\nredis-cli -a \"$REDIS_PASSWORD\" ping\nopenssl enc -pass env:K\ncurl -s -u \"$USER:$TOKEN\" https://x", ""},
	{"typed identifiers", "toolu_01ABCdef23GHijk45LMnop67QRstu89VW msg_01XyZ9aBcD3eFgH5iJkL7mNoP9qRsT cus_NffrFeUfNV2Hib4Kd8Lq3Zx7", ""},
	{"placeholders", "API_KEY=\nTOKEN=${GITHUB_TOKEN}\nPASSWORD=$DB_PASSWORD\nSECRET=<your-secret>\nCLIENT_SECRET=xxxxxxxx\napi_key: \"{{ .Values.apiKey }}\"\npassword: changeme\ntoken: null\nsecret: '********'\nAPI_KEY=your-api-key-here", ""},
	{"references", "password=password\nself.token = token\napiKey: process.env.API_KEY,\nsecret: config.client_secret\nkey := OPENAI_API_KEY\nhashed := hashPassword\nconst token = getToken();\npassword = os.environ[\"DB_PASSWORD\"]\ntoken = resp.json()[\"access_token\"]", ""},
	{"types", "interface Creds {\n  token: string;\n  password?: string;\n  secret: Option<String>,\n}\ndef f(token: str) -> None:", ""},
	{"code strings", `fmt.Println("password: ", pw)` + "\n" + `log("token: " + tok + " expired")` + "\n" + `raise ValueError("invalid password")`, ""},
	{"comparisons", `if token == "" || password != confirm { return }` + "\nconst f = token => token.trim()", ""},
	{"flag prose", "pass --token to the command, or --password instead; see `--api-key` below", ""},
	{"shell pwd", "PWD=/work/main\nOLDPWD=/home/u", ""},
	{"paths", "/home/u/.config/secret/token.json ./keys/api_key.txt ~/.aws/credentials", ""},
	{"html", `<input type="password" name="password" autocomplete="current-password">`, ""},
	{"go test output", "--- PASS: TestPasswordHash (0.00s)\nok  \tgithub.com/x/auth\t0.01s", ""},
	{"git credential helper", "git config --global credential.helper store\ncredential.helper=osxkeychain", ""},
	{"secretary", "secretary: Jane Doe", ""},
	{"shell expansions", `TOKEN="${REVIEW_TOKEN:-}"; echo "${API_KEY:?set API_KEY}" ${MAX_TOKENS:-4096} ${PASSWORD}`, ""},
	{"file locations", "(phoenix 1.8.3) lib/phoenix/token.ex:13: Phoenix.Token.sign/4\ntoken.go:12:5: undefined: x\n./internal/secret/key.go:7", ""},
	{"aws key id name", "aws_access_key_id = ${AWS_ACCESS_KEY_ID}", ""},
	// A key named only by whose it is: its value goes when it has a
	// credential's shape (hex, a UUID, letters and digits alternating).
	{"vendor key hex", "put it in .env.docsearch: ALGOLIA_ADMIN_KEY=b6f1e2d9c8a74f3e5d0c1b2a9e8f7d6c", "put it in .env.docsearch: ALGOLIA_ADMIN_KEY=[REDACTED:secret]"},
	{"vendor key json", `{"algoliaAdminKey": "b6f1e2d9c8a74f3e5d0c1b2a9e8f7d6c", "appId": "TERN4DOCS"}`, `{"algoliaAdminKey": "[REDACTED:secret]", "appId": "TERN4DOCS"}`},
	{"vendor key uuid", "HEROKU_KEY=01234567-89ab-cdef-0123-456789abcdef", "HEROKU_KEY=[REDACTED:secret]"},
	{"vendor key mixed", "license_key: 4F2A-99C1-7B3E-0D55-A1B2", "license_key: [REDACTED:secret]"},
	{"keys that are not credentials", "PRIMARY_KEY=b6f1e2d9c8a74f3e5d0c1b2a9e8f7d6c\ncache_key=user:42:profile\nsort_key: created_at_2024\nS3_KEY=uploads/2024/04/file.png\nssh_key: ~/.ssh/id_ed25519\nX_KEY=release-2024-11-25-rc1\nVAPID_PUBLIC_KEY=4f2a99c17b3e0d55a1b2", ""},
	// A client's own option letter carries the password.
	{"mysql glued", "conn is mysql -h db-stg-2 -u migrator -pqV7rT2xLw9KdN4sZ shop", "conn is mysql -h db-stg-2 -u migrator -p[REDACTED:password] shop"},
	{"mysqldump path", "/usr/bin/mysqldump -uroot -p'Zq8 vW2' app > dump.sql", "/usr/bin/mysqldump -uroot -p'[REDACTED:password]' app > dump.sql"},
	{"sshpass", "sshpass -p hunter2x ssh deploy@web1 uptime", "sshpass -p [REDACTED:password] ssh deploy@web1 uptime"},
	{"redis-cli", "redis-cli -h cache -a \"Xk29sLq8\" ping", "redis-cli -h cache -a \"[REDACTED:password]\" ping"},
	{"curl user", "curl -s -u bob:S3cr3tPa55 https://x/api && curl --user=amy:Pw9xQ https://y", "curl -s -u bob:[REDACTED:password] https://x/api && curl --user=amy:[REDACTED:password] https://y"},
	{"smbclient", "smbclient //nas/share -U ops%Tr0ub4dor", "smbclient //nas/share -U ops%[REDACTED:password]"},
	{"sqlcmd", "sqlcmd -S db -U sa -P 'Str0ng!Pass' -Q 'select 1'", "sqlcmd -S db -U sa -P '[REDACTED:password]' -Q 'select 1'"},
	{"ldapsearch", "ldapsearch -x -D cn=admin -w s3cretLdap -b dc=x", "ldapsearch -x -D cn=admin -w [REDACTED:password] -b dc=x"},
	{"openssl pass", "openssl pkcs12 -export -in c.pem -passout pass:P4ssw0rd1 -passin env:KEYPASS", "openssl pkcs12 -export -in c.pem -passout pass:[REDACTED:password] -passin env:KEYPASS"},
	{"docker login", "docker login -u bot -p Rg7xK2mQ registry.x.io", "docker login -u bot -p [REDACTED:password] registry.x.io"},
	{"vendor-style live token", "vault printed srp_live_7Hq2Wm9Kx4Tz1Rb6Nc3Vd8Lf5Gs0Pj", "vault printed [REDACTED:api-token]"},
	{"a key's name as the value", "here's the admin key: ALGOLIA_ADMIN_KEY=b6f1e2d9c8a74f3e5d0c1b2a9e8f7d6c", "here's the admin key: ALGOLIA_ADMIN_KEY=[REDACTED:secret]"},
}

func TestString(t *testing.T) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in, want := expand(tc.in), expand(tc.want)
			if tc.want == "" {
				want = in
			}
			if got := String(in); got != want {
				t.Errorf("String(%q)\n got %q\nwant %q", in, got, want)
			}
		})
	}
}

func TestPrivate(t *testing.T) {
	for _, tc := range []testCase{
		{"none", "no tags here", "no tags here"},
		{"keeps secrets", "token={ghp} <private>x</private>", "token={ghp} "},
		{"unterminated", "a <Private> b", "a "},
		{"nested", "<private><private>x</private>y</private>z", "z"},
		{"joined", "<priv<private>x</private>ate>y", ""},
		{"nested unterminated", "<private>a</priv<private>b</private>ate>c", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in, want := expand(tc.in), expand(tc.want)
			if got := Private(in); got != want {
				t.Errorf("Private(%q) = %q, want %q", in, got, want)
			}
		})
	}
}

func TestIdempotent(t *testing.T) {
	for _, tc := range cases {
		in := expand(tc.in)
		once := String(in)
		if twice := String(once); twice != once {
			t.Errorf("%s: String is not idempotent:\n once %q\ntwice %q", tc.name, once, twice)
		}
	}
}

func TestLowerASCII(t *testing.T) {
	var all []byte
	for c := range 256 {
		all = append(all, byte(c))
	}
	for _, s := range []string{"", "A", "Hello, WORLD! @[`{", string(all), "ÀÉÎ ÅK ſ Authorization: BEARER"} {
		want := []byte(s)
		for i, c := range want {
			if 'A' <= c && c <= 'Z' {
				want[i] = c + 'a' - 'A'
			}
		}
		if got := lowerASCII(s); got != string(want) {
			t.Errorf("lowerASCII(%q) = %q, want %q", s, got, want)
		}
	}
}

// TestAnchorMask: the eight-byte test never misses what anchorAt finds.
func TestAnchorMask(t *testing.T) {
	for _, w := range []string{"token", "key", "passw", "pwd", "secret", "credential", "connection", "passphrase", "dsn"} {
		for _, word := range []string{w, strings.ToUpper(w)} {
			for pos := range 16 {
				text := []byte(strings.Repeat(".", 32))
				copy(text[pos:], word)
				s := string(text)
				m := anchorMask(load64(s, 0), load64(s, 1))
				for h := range 8 {
					if p, _ := anchorAt(s, h); p >= 0 && m&(0x80<<(8*h)) == 0 {
						t.Errorf("anchorMask misses %q at %d (byte %d)", word, pos, h)
					}
				}
			}
		}
	}
}

// More vendors' prefixed tokens, found by their prefix alone.
func TestMoreVendorTokens(t *testing.T) {
	for _, tok := range []string{
		"wh" + "sec_" + "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
		"xa" + "pp-1-" + "A0123ABCD-1234567890123-abcdef0123456789",
		"hf" + "_" + "aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
		"dop" + "_v1_" + strings.Repeat("a1b2c3d4", 8),
		"shp" + "at_" + strings.Repeat("f0e1d2c3", 4),
		"lin" + "_api_" + strings.Repeat("Ab3x", 10),
		"GOC" + "SPX-" + "1a2B3c4D5e6F7g8H9i0JkLmNoP",
		"sk-" + "or-v1-" + strings.Repeat("0a1b2c3d", 8),
	} {
		got := String("token: " + tok + " end")
		if strings.Contains(got, tok[6:20]) || !strings.Contains(got, "[REDACTED:") {
			t.Errorf("%s... kept: %q", tok[:8], got)
		}
	}
}

// Secrets given in a sentence after their name, and webhook URLs, whose
// path is the credential (held-out recall scenario php-secrets).
func TestProseAndWebhooks(t *testing.T) {
	tests := []struct{ in, want string }{
		{"DB_PASSWORD for staging is now Gr4nite-Otter-5531!", "DB_PASSWORD for staging is now [REDACTED:password]"},
		{"the password was changed to Summer2024x yesterday", "the password was changed to [REDACTED:password] yesterday"},
		{"the token is invalid", ""},
		// No verb: settings listed in a sentence (blind8-fastapi).
		{"oh right, the test db is on 5433. user app, password Zq8vR2mL0pK7tWx4, db app_test", "oh right, the test db is on 5433. user app, password [REDACTED:password], db app_test"},
		{"use secret k9Rt5Wq2Lx for the staging bucket", "use secret [REDACTED:secret] for the staging bucket"},
		{"hash the password sha256 first; token utf8mb4 columns; secret v2beta1 api; password reset2fa flow", ""},
		{"the password hunter2 is weak", ""},
		{"the token is expired. Rotate it with abc123def456", ""},
		{"the token store (ETS-backed, similar to Phoenix.Token2)", ""},
		{"mailgun key-7d1e94b3a6c25f08e9b4d3c2a1f06e57 rotated", "mailgun [REDACTED:api-token] rotated"},
		{"a key-value store", ""},
		{"post to https://hooks.slack.com/services/T0BENCH42/B0HELD7/Xq9Lm2Wv7Rt4Yp1Kz8Ns3Bc6, then", "post to https://hooks.slack.com/services/[REDACTED:api-token], then"},
		{"see https://discord.com/api/webhooks/123456789/AbCdEfGhIjKl-MnOp", "see https://discord.com/api/webhooks/[REDACTED:api-token]"},
	}
	for _, tt := range tests {
		want := tt.want
		if want == "" {
			want = tt.in
		}
		if got := String(tt.in); got != want {
			t.Errorf("String(%q)\n got %q\nwant %q", tt.in, got, want)
		}
	}
}
