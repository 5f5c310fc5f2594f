package claudecode

// A saved listing of a project folder's sessions, so that `cairn sessions`
// in a folder of 1,000 transcripts reads one file instead of stating every
// transcript (one lstat each was 5.4 of 6.9 ms: docs/benchmarks.md).

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-agent/cairn/internal/state"
)

// A Listing lists project folders' sessions as Sessions does, from a copy
// it keeps in Dir. The copy is used only while it is known to hold what
// Sessions would return:
//
//   - a transcript added, removed or renamed changes the folder's mtime,
//     which the copy records: any other mtime, and the folder is listed
//     again. A copy made when the folder had changed within racyWindow is
//     not trusted, since a second change in the same tick of the file
//     system's clock would leave the mtime as it was;
//   - a transcript appended to does not change the folder: every hook of
//     a Claude Code session marks its transcript (Touched), and a listing
//     removes each mark and then stats that one transcript, so an append
//     whose hook comes after the removal marks it again;
//   - a transcript appended to with no cairn hook at all (a session run
//     before cairn was installed, or with its hooks off) is caught by
//     listing the folder again whenever the copy is older than Rescan.
//
// The transcripts a caller shows are its own to read: the copy only
// orders them.
type Listing struct {
	// Dir holds the copies and the marks (in cairn's state directory).
	Dir string
	Now func() time.Time
	// Rescan is the age after which a copy is not used; 0 is
	// DefaultRescan.
	Rescan time.Duration
	// Limit, when above 0, lists only the newest Limit transcripts.
	Limit int
}

// ListingDir is where cairn keeps its listings, in its state directory.
func ListingDir(stateDir string) string { return filepath.Join(stateDir, "listings") }

// DefaultRescan is how old a copy may be before its folder is listed
// anyway.
const DefaultRescan = 5 * time.Minute

// racyWindow is how recently before a listing its folder may have changed
// for the copy to be trusted: more than the coarsest file-system clock tick
// (one second on some; ext4's follows the kernel's tick, a few ms).
const racyWindow = 2 * time.Second

const listingMagic = "cairn-listing 1"

// key names a folder's copy and marks.
func (l Listing) key(projectDir string) string {
	sum := sha256.Sum256([]byte(filepath.Clean(projectDir)))
	return hex.EncodeToString(sum[:8])
}

func (l Listing) marks(projectDir string) string {
	return filepath.Join(l.Dir, l.key(projectDir)+".touched")
}

// Touched marks transcript as changed since the folder's copy was made.
// It costs a hook one open and close when a copy exists, one failed open
// when none does: the marks' folder is made before the first copy, so
// with no folder there is no copy to correct.
func (l Listing) Touched(transcript string) error {
	mark := filepath.Join(l.marks(filepath.Dir(transcript)), filepath.Base(transcript))
	if _, err := createMark(mark); err != nil {
		return fmt.Errorf("mark %s: %w", mark, err)
	}
	return nil
}

// Sessions lists projectDir's transcripts, newest first: Sessions's
// answer (its first Limit), from the copy when it holds.
func (l Listing) Sessions(projectDir string) ([]SessionFile, error) {
	now := l.Now()
	fi, err := os.Stat(projectDir)
	if err != nil {
		fs, err := Sessions(projectDir)
		return l.limited(fs), err
	}
	rescan := l.Rescan
	if rescan <= 0 {
		rescan = DefaultRescan
	}
	c, ok := l.read(projectDir, l.Limit)
	if !ok || c.dirMtime.IsZero() || !c.dirMtime.Equal(fi.ModTime()) || now.Before(c.made) || now.Sub(c.made) > rescan {
		return l.scan(projectDir, fi.ModTime(), now)
	}
	marked, err := os.ReadDir(l.marks(projectDir))
	if err != nil {
		return l.scan(projectDir, fi.ModTime(), now)
	}
	if len(marked) == 0 {
		return c.files, nil
	}
	if fs, ok := l.correct(projectDir, fi.ModTime()); ok {
		return l.limited(fs), nil
	}
	return l.scan(projectDir, fi.ModTime(), now)
}

func (l Listing) limited(fs []SessionFile) []SessionFile {
	if l.Limit > 0 && len(fs) > l.Limit {
		return fs[:l.Limit]
	}
	return fs
}

// correct applies the marks to the copy and saves it, under the lock, on
// the copy as it is then; ok is false when the folder must be listed.
func (l Listing) correct(projectDir string, dirMtime time.Time) (fs []SessionFile, ok bool) {
	marks := l.marks(projectDir)
	unlock, err := lockDir(marks)
	if err != nil {
		return nil, false
	}
	defer unlock()
	c, ok := l.read(projectDir, 0)
	if !ok || !c.dirMtime.Equal(dirMtime) {
		return nil, false
	}
	marked, err := os.ReadDir(marks)
	if err != nil {
		return nil, false
	}
	for _, m := range marked {
		name := m.Name()
		// The mark goes first: a hook after this marks again.
		if err := os.Remove(filepath.Join(marks, name)); err != nil && !os.IsNotExist(err) {
			return nil, false
		}
		i := indexOf(c.files, name)
		tfi, err := os.Lstat(filepath.Join(projectDir, name))
		switch {
		case err == nil && !tfi.IsDir() && strings.HasSuffix(name, ".jsonl"):
			f := SessionFile{ID: strings.TrimSuffix(name, ".jsonl"), Path: filepath.Join(projectDir, name), ModTime: tfi.ModTime(), Size: tfi.Size()}
			if i >= 0 {
				c.files[i] = f
			} else {
				c.files = append(c.files, f)
			}
		case err == nil || os.IsNotExist(err):
			if i >= 0 {
				c.files = append(c.files[:i], c.files[i+1:]...)
			}
		default:
			return nil, false
		}
	}
	sortSessions(c.files)
	if l.write(projectDir, c) != nil {
		// The marks are gone: a copy left as it was would be wrong.
		os.Remove(filepath.Join(l.Dir, l.key(projectDir)))
	}
	return c.files, true
}

func indexOf(fs []SessionFile, name string) int {
	for i, f := range fs {
		if filepath.Base(f.Path) == name {
			return i
		}
	}
	return -1
}

// scan lists the folder and saves the copy. The marks are removed first
// and the folder's mtime was read before: whatever changes during the
// scan marks again or moves the mtime.
func (l Listing) scan(projectDir string, dirMtime, now time.Time) ([]SessionFile, error) {
	marks := l.marks(projectDir)
	made := os.MkdirAll(marks, 0o700) == nil
	if made {
		if unlock, err := lockDir(marks); err == nil {
			defer unlock()
		}
		if ms, err := os.ReadDir(marks); err == nil {
			for _, m := range ms {
				os.Remove(filepath.Join(marks, m.Name()))
			}
		}
	}
	fs, err := Sessions(projectDir)
	if err != nil || !made {
		return l.limited(fs), err
	}
	if now.Sub(dirMtime) < racyWindow {
		dirMtime = time.Time{} // not trusted: listed again next time
	}
	l.write(projectDir, copyOf{made: now, dirMtime: dirMtime, files: fs})
	return l.limited(fs), nil
}

// copyOf is a folder's saved listing.
type copyOf struct {
	made, dirMtime time.Time
	files          []SessionFile
}

// The copy is text: a header line (magic, when made, the folder's mtime,
// both in Unix nanoseconds, 0 for none), the folder quoted, then one line
// a transcript: mtime, size, name.
func (l Listing) write(projectDir string, c copyOf) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s %d %d\n%s\n", listingMagic, c.made.UnixNano(), unixNano(c.dirMtime), strconv.Quote(filepath.Clean(projectDir)))
	for _, f := range c.files {
		fmt.Fprintf(&b, "%d %d %s\n", f.ModTime.UnixNano(), f.Size, filepath.Base(f.Path))
	}
	return state.WriteAtomic(filepath.Join(l.Dir, l.key(projectDir)), b.Bytes(), false)
}

func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// read reads projectDir's copy, its first limit transcripts when limit
// is above 0; ok is false when there is none or it is not one cairn can
// read.
func (l Listing) read(projectDir string, limit int) (c copyOf, ok bool) {
	data, err := os.ReadFile(filepath.Join(l.Dir, l.key(projectDir)))
	if err != nil {
		return c, false
	}
	line := func() (string, bool) {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			return "", false
		}
		s := string(data[:i])
		data = data[i+1:]
		return s, true
	}
	h, ok1 := line()
	head := strings.Fields(h)
	if !ok1 || len(head) != 4 || head[0]+" "+head[1] != listingMagic {
		return c, false
	}
	made, err1 := strconv.ParseInt(head[2], 10, 64)
	dm, err2 := strconv.ParseInt(head[3], 10, 64)
	q, ok2 := line()
	if err1 != nil || err2 != nil || !ok2 {
		return c, false
	}
	dir := filepath.Clean(projectDir)
	if d, err := strconv.Unquote(q); err != nil || d != dir {
		return c, false // another folder with the same key
	}
	c.made = time.Unix(0, made)
	if dm != 0 {
		c.dirMtime = time.Unix(0, dm)
	}
	// One allocation a transcript, its path: the ID is a part of it.
	for len(data) > 0 && (limit <= 0 || len(c.files) < limit) {
		l, ok := line()
		mt, rest, ok1 := strings.Cut(l, " ")
		size, name, ok2 := strings.Cut(rest, " ")
		m, err1 := strconv.ParseInt(mt, 10, 64)
		n, err2 := strconv.ParseInt(size, 10, 64)
		if !ok || !ok1 || !ok2 || err1 != nil || err2 != nil || len(name) <= len(".jsonl") || strings.ContainsRune(name, '/') || !strings.HasSuffix(name, ".jsonl") {
			return c, false
		}
		path := dir + string(filepath.Separator) + name
		c.files = append(c.files, SessionFile{ID: path[len(dir)+1 : len(path)-len(".jsonl")], Path: path, ModTime: time.Unix(0, m), Size: n})
	}
	return c, true
}

// sortSessions orders transcripts as Sessions does: newest first, then by
// ID.
func sortSessions(out []SessionFile) {
	sort.Slice(out, func(i, j int) bool {
		if !out[i].ModTime.Equal(out[j].ModTime) {
			return out[i].ModTime.After(out[j].ModTime)
		}
		return out[i].ID < out[j].ID
	})
}
