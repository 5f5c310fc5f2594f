package sqlite

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestRecordHookRun(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	runs := []HookRun{
		{Event: "Stop", SessionID: "a", At: at(1), Duration: 3 * time.Millisecond},
		{Event: "PreCompact", SessionID: "a", At: at(2), Duration: 40 * time.Millisecond, Err: "transcript: no such file"},
		{Event: "PreCompact", SessionID: "b", At: at(3), Duration: 20 * time.Millisecond}, // success keeps the last error
		{Event: "Stop", SessionID: "b", At: at(4), Duration: 5 * time.Millisecond, Err: "first"},
		{Event: "Stop", SessionID: "b", At: at(5), Duration: 6 * time.Millisecond, Err: "second"}, // replaces the last error
		{Event: "SessionStart", SessionID: "c", Duration: time.Millisecond},                       // zero At: db.Now
	}
	for _, r := range runs {
		if err := db.RecordHookRun(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	got, err := db.HookStatuses(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []HookStatus{
		{Event: "PreCompact", LastRun: at(3), LastDuration: 20 * time.Millisecond, LastErr: "transcript: no such file", LastErrAt: at(2)},
		{Event: "SessionStart", LastRun: t0, LastDuration: time.Millisecond},
		{Event: "Stop", LastRun: at(5), LastDuration: 6 * time.Millisecond, LastErr: "second", LastErrAt: at(5)},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("HookStatuses (-want +got):\n%s", diff)
	}
	var rows int
	if err := db.db.QueryRow("SELECT count(*) FROM hook_runs").Scan(&rows); err != nil || rows != 3 {
		t.Errorf("hook_runs has %d rows (%v), want one per event", rows, err)
	}
}
