package memory

import (
	"slices"
	"testing"
)

// A term counts as named when it is a part of a compound name (snake,
// camel, kebab, dotted), not when the text merely says it.
func TestNamed(t *testing.T) {
	tests := []struct {
		text  string
		terms []string
		want  float64
	}{
		{"defp compute_expand_groups(lines)", []string{"expand", "groups", "function"}, 2.0 / 3},
		{"Spotter.Services.TranscriptTailSupervisor stops it", []string{"supervisor", "tail", "stop"}, 2.0 / 3},
		{"the supervisor stops the tail worker", []string{"supervisor", "tail"}, 0},
		{".transcript-debug-grid { display: grid }", []string{"debug", "grid"}, 1},
		{"newHTTPServer", []string{"http", "server"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			if got := named(tt.text, tt.terms); got != tt.want {
				t.Errorf("named(%q, %q) = %v, want %v", tt.text, tt.terms, got, tt.want)
			}
		})
	}
}

func TestCamelParts(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"TranscriptTailSupervisor", []string{"Transcript", "Tail", "Supervisor"}},
		{"HTTPServer", []string{"HTTP", "Server"}},
		{"getHTTP2Response", []string{"get", "HTTP2", "Response"}},
		{"plain", []string{"plain"}},
		{"ÉtéCafé", []string{"Été", "Café"}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := camelParts(tt.in); !slices.Equal(got, tt.want) {
				t.Errorf("camelParts(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
