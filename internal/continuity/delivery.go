package continuity

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-agent/cairn/internal/checkpoint"
	"github.com/cairn-agent/cairn/internal/filelock"
	"github.com/cairn-agent/cairn/internal/state"
)

// A restore must reach the model exactly once per compaction, whatever
// happens to the process delivering it: killed, out of time, its stdout
// closed, the database locked, the disk full. The record of what was
// delivered is a small file per session, <state>.restored:
//
//	cairn-restored 1
//	c1
//	c2
//
// It is also the lock: a process delivers only while it holds an exclusive
// flock on the file, which the kernel releases when the process dies. The
// key is appended only after the restore was written to stdout, so a
// process that dies before that leaves the key out and the lock free, and
// the next prompt or tool hook delivers instead (Claude Code ignores the
// output of a hook that was killed or timed out). PreCompact creates the
// file, so that the disk block the appends need is there before a disk
// fills up.
const restoredMagic = "cairn-restored 1\n"

func (k *Keeper) restoredFile(path string) string { return k.State.File(path) + ".restored" }

// sent is one restore in the record: its key, and how many turns the
// session had when it was written to the hook's stdout.
type sent struct {
	key   string
	turns int
}

// delivered reads the record of the restores delivered to the session, in
// the state directory and in the others the hooks may have used; ok is
// false when there is no record anywhere (a state directory new to this
// session).
func (k *Keeper) delivered(path string) (record []sent, ok bool) {
	for _, dir := range append([]string{k.State.Dir}, k.OtherStateDirs...) {
		data, err := state.ReadFile(state.Store{Dir: dir}.File(path) + ".restored")
		if err == nil {
			record, ok = append(record, parseRestored(string(data))...), true
		}
	}
	return record, ok
}

func parseRestored(data string) []sent {
	var record []sent
	for _, l := range strings.Split(data, "\n") {
		f := strings.Fields(l)
		if len(f) == 0 || f[0] == "cairn-restored" {
			continue
		}
		r := sent{key: f[0], turns: -1}
		if len(f) > 1 {
			if n, err := strconv.Atoi(f[1]); err == nil {
				r.turns = n
			}
		}
		record = append(record, r)
	}
	return record
}

// delivery is the held lock on a session's restore record.
type delivery struct {
	f      *os.File
	record []sent
	// fresh is set when the record did not exist before this call.
	fresh bool
}

// errBusy means another process is delivering a restore of the session
// right now.
var errBusy = errors.New("another hook is delivering this session's restore")

// tryLock takes an exclusive lock on f without waiting: errBusy when
// another process holds one.
func tryLock(f *os.File) error {
	if err := filelock.TryExclusive(f); !errors.Is(err, filelock.ErrLocked) {
		return err
	}
	return errBusy
}

// lockDelivery takes the session's restore record, creating it if needed.
// It never waits: errBusy when another process holds it.
func (k *Keeper) lockDelivery(path string) (*delivery, error) {
	file := k.restoredFile(path)
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return nil, err
	}
	d := &delivery{}
	f, err := os.OpenFile(file, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		f, err = os.OpenFile(file, os.O_RDWR, 0o600)
	} else if err == nil {
		d.fresh = true
	}
	if err != nil {
		return nil, err
	}
	if err := tryLock(f); err != nil {
		f.Close()
		return nil, err
	}
	data, err := io.ReadAll(f)
	if err != nil {
		f.Close()
		return nil, err
	}
	if d.fresh || len(data) == 0 {
		if _, err := f.WriteAt([]byte(restoredMagic), 0); err != nil {
			// No room: the record stays empty and the delivery unrecorded
			// in this directory; the database may still note it.
			f.Truncate(0)
		}
	}
	d.f, d.record = f, parseRestored(string(data))
	return d, nil
}

// add records key as delivered at turns.
func (d *delivery) add(key string, turns int) error {
	end, err := d.f.Seek(0, io.SeekEnd)
	if err != nil {
		return err
	}
	if _, err := d.f.WriteAt([]byte(key+" "+strconv.Itoa(turns)+"\n"), end); err != nil {
		return err
	}
	d.record = append(d.record, sent{key, turns})
	return nil
}

// release unlocks the record; closing the file drops the lock.
func (d *delivery) release() { d.f.Close() }

// prepareDelivery creates the session's restore record if it is missing,
// so that its disk block exists before the compaction.
func (k *Keeper) prepareDelivery(path string) error {
	file := k.restoredFile(path)
	if _, err := os.Stat(file); err == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return err
	}
	_, err = f.WriteString(restoredMagic)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// pending is what PreCompact leaves for the compaction it announces: the
// key the compaction will have, and the checkpoint taken for it.
// SessionStart(compact), which Claude Code runs before it writes the
// compact_boundary, restores from it without a database.
type pending struct {
	Key       string `json:"key"`
	Trigger   string `json:"trigger"`
	PreTokens int64  `json:"pre_tokens"`
	// Turns is how many turns the session had at PreCompact: the
	// checkpoint belongs to a compaction only when no turn came between.
	Turns      int                    `json:"turns"`
	Checkpoint *checkpoint.Checkpoint `json:"checkpoint,omitempty"`
	// Observed says the checkpoint's observations are stored (its ID
	// says it is).
	Observed bool `json:"observed,omitempty"`
	// GitDue says the checkpoint still lacks the work tree's state: git
	// is read by the job that stores it (or whatever stores it first),
	// not by PreCompact, whose process the client waits on. The summary
	// takes seconds, and the agent changes nothing meanwhile.
	GitDue bool `json:"git_due,omitempty"`
	// CompactingDue says what is kept beyond the session at this
	// compaction (Keeper.AtCompaction) is still to be written; At and
	// Size are what PreCompact saw (compacting.go).
	CompactingDue bool      `json:"compacting_due,omitempty"`
	At            time.Time `json:"at,omitzero"`
	Size          int64     `json:"size,omitempty"`
}

func (k *Keeper) pendingFile(path string) string { return k.State.File(path) + ".pending" }

func (k *Keeper) loadPending(path string) *pending {
	data, err := os.ReadFile(k.pendingFile(path))
	if err != nil {
		return nil
	}
	return decodePending(data)
}

// .pending is written in place by PreCompact: one write on the hook's
// way, where a temporary file and a rename cost it about a millisecond
// (ext4 flushes a file replaced either way, by a rename or by a write
// after truncating it to nothing). A header gives the length and a hash
// of the JSON after it, so that a file a write left torn, or one read
// while it is written, reads as no announcement, never as another one.
// The jobs' updates and a restore's announcement, which another process
// may read at that moment, replace it whole (a rename), with the same
// header. A file without the header is JSON (earlier versions').
const pendingMagic = "cairn-pending 1 "

// encodePending is p as .pending holds it.
func encodePending(p pending) ([]byte, error) {
	body, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(body)
	data := make([]byte, 0, len(pendingMagic)+40+len(body))
	data = append(data, pendingMagic...)
	data = strconv.AppendInt(data, int64(len(body)), 10)
	data = append(data, ' ')
	data = hex.AppendEncode(data, sum[:8])
	data = append(data, '\n')
	return append(data, body...), nil
}

// decodePending reads .pending's content; nil when it holds no whole
// announcement.
func decodePending(data []byte) *pending {
	body, ok := pendingJSON(data)
	if !ok {
		return nil
	}
	var p pending
	if json.Unmarshal(body, &p) != nil || p.Key == "" {
		return nil
	}
	return &p
}

// pendingJSON is the JSON .pending's content holds, once its header
// vouches for it: false when it is not whole. Bytes past the length the
// header gives are a longer earlier content that the write in place has
// not cut off yet.
func pendingJSON(data []byte) ([]byte, bool) {
	rest, ok := bytes.CutPrefix(data, []byte(pendingMagic))
	if !ok {
		return data, true // earlier versions' JSON, written whole
	}
	head, body, ok := bytes.Cut(rest, []byte("\n"))
	if !ok {
		return nil, false
	}
	n, sum, ok := bytes.Cut(head, []byte(" "))
	size, err := strconv.Atoi(string(n))
	if !ok || err != nil || size < 0 || size > len(body) {
		return nil, false
	}
	body = body[:size]
	got := sha256.Sum256(body)
	return body, bytes.Equal(hex.AppendEncode(nil, got[:8]), sum)
}

// pendingTurns is the turns .pending's announcement was made at, read
// without decoding its checkpoint (a few hundred microseconds on a long
// session): its fields before the checkpoint are plain values. ok is
// false when there is no whole announcement.
func (k *Keeper) pendingTurns(path string) (turns int, ok bool) {
	data, err := os.ReadFile(k.pendingFile(path))
	if err != nil {
		return 0, false
	}
	body, ok := pendingJSON(data)
	if !ok {
		return 0, false
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return 0, false
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return 0, false
		}
		v, err := dec.Token()
		if err != nil {
			return 0, false
		}
		if _, nested := v.(json.Delim); nested {
			break // the checkpoint: turns come before it
		}
		if n, isNum := v.(float64); isNum && key == "turns" {
			return int(n), true
		}
	}
	if p := decodePending(data); p != nil {
		return p.Turns, true
	}
	return 0, false
}

// savePending replaces .pending whole with p.
func (k *Keeper) savePending(path string, p pending) error {
	data, err := encodePending(p)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(k.pendingFile(path)), 0o700); err != nil {
		return err
	}
	return state.WriteAtomic(k.pendingFile(path), data, false)
}

// announce writes p into .pending in place: PreCompact's write, which no
// other process reads while it is made (the compaction waits for the
// hook, and its job starts after it).
func (k *Keeper) announce(path string, p pending) error {
	data, err := encodePending(p)
	if err != nil {
		return err
	}
	file := k.pendingFile(path)
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE, 0o600)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
			return err
		}
		f, err = os.OpenFile(file, os.O_WRONLY|os.O_CREATE, 0o600)
	}
	if err != nil {
		return err
	}
	_, err = f.WriteAt(data, 0)
	if err == nil {
		err = f.Truncate(int64(len(data)))
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", file, err)
	}
	return nil
}
