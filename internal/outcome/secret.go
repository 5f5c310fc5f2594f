package outcome

import (
	"path"
)

// A command that prints a secret store's value prints the secret alone,
// with no name and often no shape redaction could know it by (a
// 16-character password from `vault kv get -field=password`): what it
// printed is not kept at all.

// secretReaders are the commands, as the words that must appear in order,
// that print a stored secret or a credential.
var secretReaders = [][]string{
	{"vault", "kv", "get"}, {"vault", "read"}, {"vault", "kv", "read"},
	{"aws", "secretsmanager", "get-secret-value"}, {"aws", "ssm", "get-parameter"}, {"aws", "ssm", "get-parameters"},
	{"aws", "sts", "get-session-token"}, {"aws", "sts", "assume-role"}, {"aws", "ecr", "get-login-password"},
	{"aws", "configure", "get"},
	{"gcloud", "secrets", "versions", "access"}, {"gcloud", "auth", "print-access-token"}, {"gcloud", "auth", "print-identity-token"},
	{"az", "keyvault", "secret", "show"}, {"az", "account", "get-access-token"},
	{"op", "read"}, {"op", "item", "get"}, {"pass", "show"}, {"gopass", "show"},
	{"security", "find-generic-password"}, {"security", "find-internet-password"},
	{"kubectl", "get", "secret"}, {"kubectl", "get", "secrets"},
	{"doppler", "secrets", "get"}, {"infisical", "secrets", "get"}, {"bw", "get"}, {"lpass", "show"},
	{"gh", "auth", "token"}, {"heroku", "auth:token"},
}

// ReadsSecret says whether a command line prints a stored secret: one of
// its simple commands is a secret store's read (vault kv get, aws
// secretsmanager get-secret-value, op read, kubectl get secret, ...).
func ReadsSecret(line string) bool {
	for _, c := range splitShell(line) {
		w := programWords(c.words)
		if len(w) == 0 {
			continue
		}
		prog := path.Base(w[0])
		for _, r := range secretReaders {
			if prog == r[0] && inOrder(w[1:], r[1:]) {
				return true
			}
		}
	}
	return false
}

// inOrder says whether the words of want appear among words in order.
func inOrder(words, want []string) bool {
	for _, w := range words {
		if len(want) == 0 {
			break
		}
		if w == want[0] {
			want = want[1:]
		}
	}
	return len(want) == 0
}
