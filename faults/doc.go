// Package faults is cairn's fault-injection suite for the hooks (issue 8:
// hooks must be fail-safe). It has no code of its own outside its tests.
//
// The tests build the real cairn binary once and drive its hook processes
// the way Claude Code 2.1.328 runs them, through a scripted session with
// three compactions (auto, manual, auto) and turns between them, writing a
// growing transcript in the client's shape and planting distinct facts and
// secrets before each compaction. Each fault is a subtest, applied to each
// hook event in turn: the database locked, the database or state directory
// read-only, a small full filesystem, kill -9 at random points, stdout
// closed, duplicate and concurrent events, corrupt database variants.
// After each sequence the suite checks the contract the hooks keep:
//
//   - every compaction's restore reaches the model exactly once, from
//     SessionStart(compact) or, when that run failed, from a later prompt
//     or tool call of the session, and none of an older compaction after a
//     newer one happened;
//   - the restore holds its own compaction's working state;
//   - PreCompact prints the steering text whatever happens to the database
//     or the state directory;
//   - every hook exits 0 with empty or valid protocol output, within its
//     budget;
//   - every failure leaves one log line where the user can find it (the
//     state directory's cairn.log, else ${TMPDIR:-/tmp}/cairn-<uid>/cairn.log)
//     with the session id;
//   - no file cairn wrote holds a planted secret or <private> text.
//
// CAIRN_FAULTS_REPORT=FILE writes the counts as Markdown (docs/reliability.md
// is such a report); CAIRN_FAULTS_SEED=N replays the random kill points of
// an earlier run, whose seed every run prints.
package faults
