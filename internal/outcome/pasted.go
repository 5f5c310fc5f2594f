package outcome

import "strings"

// Pasted shortens the stack traces in a text a user wrote, a prompt with a
// traceback pasted into it: a quote cut to its first few hundred bytes
// would hold the trace's top frames and lose the line that says what went
// wrong, which a Python traceback prints last. The frames go, each run of
// them replaced by "…", but for the last one in the project's own code
// (not an installed library's); the exception lines and the words around
// the trace stay. errs are the exception lines found, innermost first (a
// JVM chain's last "Caused by:", Python's first exception of a chain), for
// a caller that must keep them whatever the cut. A text without a trace
// comes back as it is.
func Pasted(s string) (short string, errs []string) {
	if !strings.Contains(s, "Traceback (most recent call last)") && !strings.Contains(s, "\tat ") && !strings.Contains(s, "    at ") {
		return s, nil
	}
	var b strings.Builder
	var causes []string
	lines := strings.Split(s, "\n")
	inTrace := false // inside a Python traceback's frames
	dropped := false // the last line written is "…"
	keep := ""       // the last project frame of the run being dropped
	drop := func() {
		if !dropped {
			b.WriteString("…\n")
			dropped = true
		}
	}
	flushFrame := func() {
		if keep != "" {
			b.WriteString(keep + "\n")
			keep = ""
			dropped = false
		}
	}
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "Traceback (most recent call last)"):
			inTrace = true
			b.WriteString(l + "\n")
			dropped = false
			continue
		case inTrace && strings.HasPrefix(t, "File \""):
			// A frame, and the line of code under it when indented deeper.
			rest := t[len("File \""):]
			if q := strings.IndexByte(rest, '"'); q > 0 && !libraryPath(rest[:q]) {
				keep = t
			}
			if i+1 < len(lines) && indent(lines[i+1]) > indent(l) && !strings.HasPrefix(strings.TrimSpace(lines[i+1]), "File \"") {
				i++
			}
			drop()
			continue
		case inTrace && (t == "" || strings.HasPrefix(t, "^") || strings.HasPrefix(t, "~")):
			continue // blank lines and the carets under a frame's code
		case inTrace:
			inTrace = false
			flushFrame()
			if isException(t) || strings.Contains(t, "Error") || strings.Contains(t, "Exception") {
				errs = append(errs, t)
			}
		case frameLine(l, t),
			strings.HasPrefix(t, "... ") && strings.HasSuffix(t, " more"):
			drop() // a JVM or JavaScript frame
			continue
		case strings.HasPrefix(t, "Caused by: "):
			causes = append(causes, strings.TrimPrefix(t, "Caused by: "))
		}
		b.WriteString(l + "\n")
		dropped = false
	}
	flushFrame()
	if len(causes) > 0 {
		errs = append([]string{causes[len(causes)-1]}, errs...)
	}
	return strings.TrimSuffix(b.String(), "\n"), errs
}

// frameLine reads a JVM or JavaScript frame, indented: "\tat
// app.Main.main(Main.java:12)", "    at render (src/App.tsx:12:5)", "    at
// /app/x.js:3:9".
func frameLine(l, t string) bool {
	rest, ok := strings.CutPrefix(t, "at ")
	if !ok || !strings.HasPrefix(l, "\t") && !strings.HasPrefix(l, "    ") || strings.ContainsAny(strings.TrimSuffix(rest, ")"), "\t") {
		return false
	}
	if i := strings.IndexByte(rest, '('); i > 0 && strings.HasSuffix(rest, ")") {
		return !strings.Contains(rest[:i], " ") || strings.HasSuffix(rest[:i], " ")
	}
	_, _, ok = fileLine(rest)
	return ok
}

func indent(l string) int {
	return len(l) - len(strings.TrimLeft(l, " \t"))
}
