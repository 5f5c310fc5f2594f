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

-- One row per thing that must happen once per session (a compaction
-- restored, a pointer shown): the primary key makes the claim exactly-once.
CREATE TABLE claims (
	session_id TEXT NOT NULL,
	key        TEXT NOT NULL,
	claimed_at INTEGER NOT NULL,
	PRIMARY KEY (session_id, key)
) WITHOUT ROWID;
