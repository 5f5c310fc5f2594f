-- The latest checkpoint of a session (SessionEnd, the restore's fallback)
-- is found without walking the project's other sessions' checkpoints.
-- IF NOT EXISTS: harmless wherever the migration is numbered.
CREATE INDEX IF NOT EXISTS checkpoints_project_session_created ON checkpoints (project, session_id, created_at, id);
