package statusline

import (
	"errors"
	"fmt"

	"github.com/cairn-agent/cairn/internal/jsonscan"
)

// Payload is the part of the status line's stdin cairn reads, as Claude
// Code 2.1.328 sends it.
type Payload struct {
	SessionID      string
	TranscriptPath string
	CWD            string
	// ProjectDir is workspace.project_dir: the directory Claude Code was
	// started in, which the hooks get as CLAUDE_PROJECT_DIR.
	ProjectDir string
	Model      string // model.id
	// Window is context_window.context_window_size, 0 when missing.
	Window int64
	// Tokens is the context in use after the last reply:
	// context_window.current_usage's input, cache creation and cache read
	// tokens. Claude Code sends current_usage as null before the first
	// reply and after /compact; Tokens is then 0.
	Tokens int64
}

// DecodePayload reads the fields cairn uses. Like the hooks' payloads it is
// walked with jsonscan rather than encoding/json, whose reflection set-up
// costs more than the walk in a fresh process. Fields of another type than
// expected count as missing; only JSON that is not an object is an error.
func DecodePayload(data []byte) (Payload, error) {
	var p Payload
	var sc jsonscan.Scanner
	sc.Reset(data)
	if sc.Peek() != '{' {
		return Payload{}, errors.New("status line input is not the JSON object Claude Code sends")
	}
	// As in JSON.parse, the last of duplicate keys wins, whole: each value
	// first clears what an earlier one set.
	str := func(dst *string) {
		*dst = ""
		if sc.IsString() {
			*dst = sc.Str()
		} else {
			sc.Skip()
		}
	}
	// members walks an object's members, or skips a value of another kind.
	members := func(each func(key string)) {
		if sc.Peek() != '{' {
			sc.Skip()
			return
		}
		sc.Object()
		for k := sc.Key(); k != nil; k = sc.Key() {
			each(string(k))
		}
	}
	members(func(k string) {
		switch k {
		case "session_id":
			str(&p.SessionID)
		case "transcript_path":
			str(&p.TranscriptPath)
		case "cwd":
			str(&p.CWD)
		case "model":
			p.Model = ""
			members(func(k string) {
				if k == "id" {
					str(&p.Model)
				} else {
					sc.Skip()
				}
			})
		case "workspace":
			p.ProjectDir = ""
			members(func(k string) {
				if k == "project_dir" {
					str(&p.ProjectDir)
				} else {
					sc.Skip()
				}
			})
		case "context_window":
			p.Window, p.Tokens = 0, 0
			members(func(k string) {
				switch k {
				case "context_window_size":
					p.Window = max(0, sc.Int())
				case "current_usage":
					var in, created, read int64
					members(func(k string) {
						switch k {
						case "input_tokens":
							in = max(0, sc.Int())
						case "cache_creation_input_tokens":
							created = max(0, sc.Int())
						case "cache_read_input_tokens":
							read = max(0, sc.Int())
						default:
							sc.Skip()
						}
					})
					p.Tokens = in + created + read
				default:
					sc.Skip()
				}
			})
		default:
			sc.Skip()
		}
	})
	sc.End()
	if sc.Failed() {
		return Payload{}, fmt.Errorf("status line input is not the JSON object Claude Code sends (invalid JSON near byte %d)", sc.Pos())
	}
	return p, nil
}
