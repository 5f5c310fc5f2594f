-- Observations: what cairn extracted from sessions (checkpoints, decisions,
-- errors and their fixes, open items, handoffs, learnings, notes...),
-- searchable across sessions and projects. Times are Unix milliseconds.

CREATE TABLE observations (
	id         INTEGER PRIMARY KEY,
	project    TEXT NOT NULL,              -- absolute project directory
	session_id TEXT NOT NULL,              -- '' when no session made it (a note, a learning)
	created_at INTEGER NOT NULL,
	kind       TEXT NOT NULL,              -- checkpoint, decision, error_fix, note, ...
	title      TEXT NOT NULL,
	body       TEXT NOT NULL,
	files      TEXT NOT NULL,              -- one path a line, framed by newlines: '\na.go\nb.go\n'; '' for none
	source     TEXT NOT NULL,              -- where it came from: 'checkpoint 12', a handoff's path, ''
	hash       BLOB NOT NULL               -- of kind, title, body and files: the same content is stored once
);
CREATE UNIQUE INDEX observations_content ON observations (project, kind, hash);
CREATE INDEX observations_project_created ON observations (project, created_at, id);
CREATE INDEX observations_session_created ON observations (session_id, created_at, id);

-- The full-text index keeps no copy of the text: it reads it from
-- observations (snippets, highlights). It uses the Porter stemmer, so
-- "fixed" finds "fix" and "decided" "decide". secure-delete makes a delete
-- remove the terms from the index's pages instead of adding a tombstone
-- that leaves them there until a merge.
CREATE VIRTUAL TABLE observations_fts USING fts5(
	title, body, files,
	content = 'observations', content_rowid = 'id',
	tokenize = 'porter unicode61 remove_diacritics 2'
);
INSERT INTO observations_fts (observations_fts, rank) VALUES ('secure-delete', 1);

CREATE TRIGGER observations_ai AFTER INSERT ON observations BEGIN
	INSERT INTO observations_fts (rowid, title, body, files) VALUES (new.id, new.title, new.body, new.files);
END;
CREATE TRIGGER observations_ad AFTER DELETE ON observations BEGIN
	INSERT INTO observations_fts (observations_fts, rowid, title, body, files)
		VALUES ('delete', old.id, old.title, old.body, old.files);
END;
CREATE TRIGGER observations_au AFTER UPDATE ON observations BEGIN
	INSERT INTO observations_fts (observations_fts, rowid, title, body, files)
		VALUES ('delete', old.id, old.title, old.body, old.files);
	INSERT INTO observations_fts (rowid, title, body, files) VALUES (new.id, new.title, new.body, new.files);
END;

-- What was forgotten stays forgotten: the content hash of every forgotten
-- observation, so that the next checkpoint of the same session does not
-- bring it back. A hash, not the text.
CREATE TABLE forgotten (
	project TEXT NOT NULL,
	kind    TEXT NOT NULL,
	hash    BLOB NOT NULL,
	PRIMARY KEY (project, kind, hash)
) WITHOUT ROWID;
