package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairn-agent/cairn/internal/capture"
	"github.com/cairn-agent/cairn/internal/checkpoint"
	"github.com/cairn-agent/cairn/internal/config"
	"github.com/cairn-agent/cairn/internal/continuity"
	"github.com/cairn-agent/cairn/internal/memory"
	"github.com/cairn-agent/cairn/internal/sqlite"
)

// maxMemory bounds a memory read from standard input or a file.
const maxMemory = 256 << 10

// reviewCmd is `cairn review [PATH]`, which prints an autocompact capture
// (default: the project's most recent pending one), a digest of its
// session and the command that records the review, and `cairn review
// record PATH --memory FILE|-`, which writes the memory file and marks
// the capture reviewed. The /review-compact slash command runs both.
func reviewCmd() command {
	return command{
		args:    "[PATH]",
		summary: "print an auto-compaction capture (default: the latest pending), a digest of its session and how to record its memory file",
		subs:    []entry{{"record", reviewRecordCmd}},
		setup: func(*flag.FlagSet) runFunc {
			return func(ctx context.Context, a *App, args []string) error {
				if len(args) > 1 {
					return usageErrorf("unexpected argument %q", args[1])
				}
				path := ""
				if len(args) == 1 && args[0] != "$ARGUMENTS" {
					path = args[0]
				}
				return a.review(ctx, path)
			}
		},
	}
}

func (a *App) review(ctx context.Context, path string) error {
	e, err := a.env()
	if err != nil {
		return err
	}
	defer e.keeper.Close()
	e.keeper.WaitJobs(ctx) // the last compaction's job writes its capture
	var c capture.Capture
	if path != "" {
		if !filepath.IsAbs(path) {
			path = filepath.Join(e.cwd, path)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return withHint(fmt.Errorf("read capture: %w", err), "give the path of a *-autocompact.md file, or no path for the latest pending one")
		}
		if c, err = capture.Parse(data); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		c.Path = path
	} else {
		dir := captureDir(e.root)
		c, err = capture.Latest(dir)
		if errors.Is(err, capture.ErrNoPending) {
			fmt.Fprintf(a.Stdout, "Nothing to review: no pending autocompact capture in %s.\n", dir)
			fmt.Fprintln(a.Stdout, "Captures are written there when Claude Code compacts a session on its own; cairn review PATH reviews a given one.")
			return nil
		}
		if err != nil {
			return err
		}
	}
	fmt.Fprintf(a.Stdout, "Capture: %s (%s)\n\n", c.Path, c.Status)
	fmt.Fprint(a.Stdout, strings.TrimRight(c.Raw, "\n")+"\n\n---\n\n")
	cp, note := reviewCheckpoint(ctx, e, c)
	if note != "" {
		fmt.Fprintf(a.Stdout, "No digest of the session: %s.\n", note)
	} else {
		fmt.Fprint(a.Stdout, capture.Digest(cp))
	}
	fmt.Fprint(a.Stdout, "\n---\n\n")
	if c.Status == capture.StatusReviewed {
		fmt.Fprintf(a.Stdout, "This capture was reviewed already; recording again replaces %s.\n\n", filepath.Base(capture.MemoryPath(c.Path)))
	}
	fmt.Fprintf(a.Stdout, "Record the review (the memory Markdown, with a \"## Summary\" section, between the here-document lines):\n\n%s\n...\nCAIRN_MEMORY\n",
		capture.RecordCommand(reviewExe(a), c.Path))
	return nil
}

// reviewCheckpoint is the session's latest checkpoint, or one taken now
// from the capture's transcript; note says why there is none.
func reviewCheckpoint(ctx context.Context, e *env, c capture.Capture) (checkpoint.Checkpoint, string) {
	if c.SessionID != "" {
		db, err := e.keeper.DB(ctx)
		if err != nil {
			return checkpoint.Checkpoint{}, err.Error()
		}
		rec, err := db.LatestCheckpoint(ctx, e.root, c.SessionID)
		if err == nil {
			cp, err := continuity.FromRecord(rec)
			if err == nil {
				return cp, ""
			}
		} else if !errors.Is(err, sqlite.ErrNotFound) {
			return checkpoint.Checkpoint{}, err.Error()
		}
	}
	if c.Transcript == "" {
		return checkpoint.Checkpoint{}, "no checkpoint of the session and no transcript path in the capture"
	}
	if _, err := os.Stat(c.Transcript); err != nil {
		return checkpoint.Checkpoint{}, fmt.Sprintf("no checkpoint of the session, and its transcript is gone (%s)", c.Transcript)
	}
	cp, err := e.keeper.Capture(ctx, e.root, c.Transcript, "review")
	if err != nil {
		return checkpoint.Checkpoint{}, err.Error()
	}
	return cp, ""
}

// reviewRecordCmd is `cairn review record PATH --memory FILE|-
// [--summary TEXT]`.
func reviewRecordCmd() command {
	return command{
		args:    "PATH --memory FILE|- [--summary TEXT]",
		summary: "write the capture's memory file and mark the capture reviewed",
		setup: func(fs *flag.FlagSet) runFunc {
			memory := fs.String("memory", "", "the memory, in the memory file's Markdown format: its `FILE`, or - to read it from standard input")
			summary := fs.String("summary", "", "one or two sentences for the capture, in `TEXT` (default: the memory's ## Summary section)")
			return func(_ context.Context, a *App, args []string) error {
				if len(args) != 1 {
					return usageErrorf("give the capture's path: cairn review record PATH --memory FILE|-")
				}
				if *memory == "" {
					return usageErrorf("give the memory: --memory FILE, or --memory - to read it from standard input")
				}
				return a.reviewRecord(args[0], *memory, *summary)
			}
		},
	}
}

func (a *App) reviewRecord(path, memoryFile, summary string) error {
	var r io.Reader = a.Stdin
	if memoryFile != "-" {
		f, err := os.Open(memoryFile)
		if err != nil {
			return fmt.Errorf("read the memory: %w", err)
		}
		defer f.Close()
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, maxMemory))
	if err != nil {
		return fmt.Errorf("read the memory: %w", err)
	}
	m := capture.ParseMemory(string(data))
	if summary != "" {
		m.Summary = summary
	}
	cwd, err := a.Getwd()
	if err != nil {
		return fmt.Errorf("find the working directory: %w", err)
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(cwd, path)
	}
	if err := m.Check(); err != nil {
		return withHint(err, "write the memory as Markdown with the sections # Memory: Title, ## Summary, ## Goal, ## Learnings, ## Open Questions / Issues, ## Confidence Level, ## Key Files")
	}
	out, err := capture.Review(path, m)
	if err != nil {
		return err
	}
	if e, eerr := a.env(); eerr == nil {
		if data, rerr := os.ReadFile(path); rerr == nil {
			if c, perr := capture.Parse(data); perr == nil {
				e.keeper.Observe(context.Background(), memory.FromCapture(e.root, c, m))
			}
		}
		e.keeper.Close()
	}
	fmt.Fprintf(a.Stdout, "memory written: %s\ncapture marked reviewed: %s\n", out, path)
	return nil
}

// captureDir is where the project's captures go (capture.dir).
func captureDir(root string) string {
	conf, _ := config.Load(root) // env() has reported its errors already
	dir := conf.CaptureDir
	if dir == "" {
		dir = capture.Dir
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(root, filepath.FromSlash(dir))
	}
	return dir
}

// reviewExe is how the commands cairn prints call cairn: by name, as the user
// ran it, unless CAIRN_EXE names the binary.
func reviewExe(a *App) string {
	if v := a.Getenv("CAIRN_EXE"); v != "" {
		return v
	}
	return "cairn"
}
