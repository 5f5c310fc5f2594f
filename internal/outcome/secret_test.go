package outcome

import "testing"

func TestReadsSecret(t *testing.T) {
	for _, tc := range []struct {
		cmd  string
		want bool
	}{
		{"vault kv get -field=token kv/dev/schema-proxy", true},
		{"VAULT_ADDR=https://v:8200 vault read -field=password secret/db", true},
		{"aws secretsmanager get-secret-value --secret-id prod/db --query SecretString --output text", true},
		{"aws ssm get-parameter --name /app/key --with-decryption", true},
		{"cd infra && op read op://dev/db/password", true},
		{"kubectl -n app get secret db-creds -o jsonpath='{.data.password}' | base64 -d", true},
		{"sudo /usr/local/bin/vault kv get secret/x", true},
		{"gh auth token", true},
		{"vault status", false},
		{"aws s3 ls", false},
		{"kubectl get pods", false},
		{"grep -rn 'vault kv get' docs/", false},
		{"echo get secret", false},
	} {
		if got := ReadsSecret(tc.cmd); got != tc.want {
			t.Errorf("ReadsSecret(%q) = %v, want %v", tc.cmd, got, tc.want)
		}
	}
}
