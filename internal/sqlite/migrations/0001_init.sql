-- Times are Unix milliseconds (UTC).

CREATE TABLE checkpoints (
	id             INTEGER PRIMARY KEY,
	project        TEXT NOT NULL,          -- absolute project directory
	session_id     TEXT NOT NULL,
	created_at     INTEGER NOT NULL,
	trigger        TEXT NOT NULL,          -- precompact-auto, session-end, manual, ...
	context_tokens INTEGER NOT NULL,
	task           TEXT NOT NULL,          -- one line, for listings
	body           BLOB NOT NULL           -- JSON owned by the caller
);
CREATE INDEX checkpoints_project_created ON checkpoints (project, created_at, id);

-- One row per compaction restored: the primary key makes the claim exactly-once.
CREATE TABLE restore_claims (
	session_id TEXT NOT NULL,
	key        TEXT NOT NULL,
	claimed_at INTEGER NOT NULL,
	PRIMARY KEY (session_id, key)
) WITHOUT ROWID;

-- One row per (session, checkpoint) resume pointer shown.
CREATE TABLE pointer_claims (
	session_id    TEXT NOT NULL,
	checkpoint_id INTEGER NOT NULL REFERENCES checkpoints (id) ON DELETE CASCADE,
	claimed_at    INTEGER NOT NULL,
	PRIMARY KEY (session_id, checkpoint_id)
) WITHOUT ROWID;
