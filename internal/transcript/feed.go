package transcript

import (
	"bytes"
	"os"
)

// Clients whose transcripts cairn reads: Session.Client.
const (
	ClaudeCode = "claude-code"
	Codex      = "codex"
	Gemini     = "gemini"
)

// ClientTitle is a client's name as people know it ("Claude Code" for
// ClaudeCode); a word it does not know is given back as it is.
func ClientTitle(client string) string {
	switch client {
	case ClaudeCode:
		return "Claude Code"
	case Codex:
		return "Codex CLI"
	case Gemini:
		return "Gemini CLI"
	}
	return client
}

// Parser feeds transcript lines to a Session through the decoder of the
// client that wrote them. It reuses its buffers between lines, so one
// Parser serves one goroutine; it holds nothing a Session needs later.
type Parser struct {
	// Light skips what only a checkpoint needs (the open-items ledger,
	// command outcomes): the hooks that run on every prompt and tool
	// call work on the light session, which keeps neither.
	Light bool
	// Head reads only what the saved state's head keeps (the meter's
	// inputs: turns, compactions, the first prompt, the session's facts
	// and counts) and the latest texts as Light keeps them, for a cold
	// read of a large Claude Code transcript that nothing needs more of
	// yet. What it derives is what a full read derives, less the rest:
	// tool calls, files, the ledger, notes, later prompts.
	// The other clients' transcripts are a few megabytes; their decoders
	// read them as they would without it (HeadOnly says which was done).
	Head bool
	// NoTexts, with Light or Head, leaves out the latest assistant texts
	// (Session.LastTexts): the hooks on every prompt and tool call read
	// none of them, and cleaning them (redact) costs more than the rest
	// of what a turn appends; a cold `cairn status` reads none either.
	NoTexts bool

	claude claudeDecoder
	codex  codexDecoder
	gemini geminiDecoder
}

// decoder reads one client's lines into a Session, through the
// derivation (derive.go).
type decoder interface {
	// feed reads one complete line, without its newline. lineNo is
	// 1-based; offset is where the line starts in the file.
	feed(s *Session, line []byte, lineNo int, offset int64)
}

// coldReader is a decoder that can read a large span of whole lines on
// several goroutines (parallel.go).
type coldReader interface {
	readParallel(s *Session, f *os.File, size int64) (bool, error)
}

// Feed reads one complete line (without its newline) into s. lineNo is
// 1-based; offset is where the line starts in the file. The first line of
// a session whose Client is unset decides it.
func (p *Parser) Feed(s *Session, line []byte, lineNo int, offset int64) {
	if s.Client == "" {
		if len(bytes.TrimSpace(line)) == 0 {
			return
		}
		s.Client = Sniff(line)
	}
	p.decoder(s).feed(s, line, lineNo, offset)
}

// decoder is the decoder for s's client, set for p's lightness.
func (p *Parser) decoder(s *Session) decoder {
	switch s.Client {
	case Codex:
		p.codex.full = !p.Light
		p.codex.texts = !p.Light || !p.NoTexts
		return &p.codex
	case Gemini:
		p.gemini.full = !p.Light
		p.gemini.texts = !p.Light || !p.NoTexts
		return &p.gemini
	}
	p.claude.full = !p.Light && !p.Head
	p.claude.head = p.Head
	p.claude.texts = p.claude.full || !p.NoTexts
	return &p.claude
}

// HeadOnly says whether p reads s for the head only (Head, on a Claude
// Code transcript): a session it read then holds nothing past what the
// head keeps, and must not be saved as a whole.
func (p *Parser) HeadOnly(s *Session) bool {
	return p.Head && (s.Client == ClaudeCode || s.Client == "")
}

// Sniff tells which client wrote a transcript from its first line: a
// Codex rollout opens with its session_meta record, a Gemini CLI chat
// with a header that names the project's hash. Anything else is read as
// Claude Code's, whose first line has no fixed type.
func Sniff(first []byte) string {
	head := first[:min(len(first), 512)]
	switch {
	case bytes.Contains(head, []byte(`"type":"session_meta"`)):
		return Codex
	case bytes.Contains(first, []byte(`"projectHash":`)) && !bytes.Contains(head, []byte(`"type":`)):
		return Gemini
	}
	return ClaudeCode
}
