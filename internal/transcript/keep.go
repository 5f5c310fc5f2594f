package transcript

import (
	"github.com/cairn-agent/cairn/internal/redact"
	"github.com/cairn-agent/cairn/internal/text"
)

// keep is how every piece of text enters a Session: secrets and <private>
// spans are taken out first (redact.String), then the text is cut to max
// bytes. Doing it here, once, at ingestion, means no state file, report,
// checkpoint or restore built from a Session can forget to.
//
// Only a bounded prefix is cleaned: four times what is kept, cut back to
// the last blank so that a secret straddling the cut is dropped whole
// rather than left as a fragment the rules no longer recognise. An
// unclosed <private> or PEM block inside the prefix removes everything
// after it, which errs on the side of keeping less.
func keep(s string, max int) string {
	if len(s) > 4*max {
		s = cutAtBlank(s[:4*max])
	}
	return text.Truncate(redact.String(s), max)
}

// cutAtBlank cuts s after its last space, tab or newline; s whole when it
// has none.
func cutAtBlank(s string) string {
	for i := len(s) - 1; i >= 0; i-- {
		switch s[i] {
		case ' ', '\t', '\n', '\r':
			return s[:i]
		}
	}
	return ""
}

// maxCleanBytes bounds the text clean reads: an assistant text or prompt
// longer than this is a document, of which the start is kept.
const maxCleanBytes = 64 << 10

// clean is keep for text that is read further (for decisions, findings,
// the open thread) before parts of it are kept: the whole text, cleaned,
// up to maxCleanBytes.
func clean(s string) string {
	if len(s) > maxCleanBytes {
		s = cutAtBlank(s[:maxCleanBytes])
	}
	return redact.String(s)
}
