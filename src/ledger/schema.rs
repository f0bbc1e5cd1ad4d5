//! The ledger's tables (docs/ledger.md describes each column) and the
//! version that says whether a file already has them.
//!
//! v2 keeps a run in about 60 bytes: the command line, label and profile
//! are stored once per distinct command (`commands`), the archive key once
//! per record (`records`, which also caches the record's exact count, so a
//! record piped a thousand times is counted once), and the delivered
//! digest's text is not kept at all (it is counted when the journal is
//! folded by `ctx gain`). Runs older than the retention window are summed
//! per day and command group into `days`.

/// Bump with a migration whenever the schema changes.
pub const SCHEMA_VERSION: i64 = 3;

pub(super) const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS commands (
    id      INTEGER PRIMARY KEY,
    argv    TEXT    NOT NULL,
    label   TEXT    NOT NULL,
    family  TEXT    NOT NULL,
    profile TEXT    NOT NULL,
    UNIQUE (argv, label, profile)
);
CREATE TABLE IF NOT EXISTS records (
    id        INTEGER PRIMARY KEY,
    key       BLOB    NOT NULL UNIQUE,
    raw_exact INTEGER
);
CREATE TABLE IF NOT EXISTS runs (
    id               INTEGER PRIMARY KEY,
    at_ms            INTEGER NOT NULL,
    command          INTEGER NOT NULL,
    exit             INTEGER,
    raw_bytes        INTEGER NOT NULL,
    raw_tokens       INTEGER NOT NULL,
    delivered_tokens INTEGER NOT NULL,
    delivered_exact  INTEGER,
    digest           INTEGER NOT NULL,
    rejection        TEXT,
    record           INTEGER,
    delta_saved      INTEGER,
    delta_against    TEXT
);
CREATE INDEX IF NOT EXISTS runs_at ON runs (at_ms);
CREATE INDEX IF NOT EXISTS runs_record ON runs (record) WHERE record IS NOT NULL;
CREATE TABLE IF NOT EXISTS expands (
    id     INTEGER PRIMARY KEY,
    at_ms  INTEGER NOT NULL,
    record INTEGER NOT NULL,
    tokens INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS days (
    day              INTEGER NOT NULL,
    grp              TEXT    NOT NULL,
    family           TEXT    NOT NULL,
    runs             INTEGER NOT NULL,
    digested         INTEGER NOT NULL,
    raw_tokens       INTEGER NOT NULL,
    delivered_tokens INTEGER NOT NULL,
    raw_best         INTEGER NOT NULL,
    delivered_best   INTEGER NOT NULL,
    exact_runs       INTEGER NOT NULL,
    expands          INTEGER NOT NULL,
    expanded_tokens  INTEGER NOT NULL,
    PRIMARY KEY (day, grp, family)
) WITHOUT ROWID;
";

/// v2 → v3: a run's re-run delta (`delta_saved`, `delta_against`; NULL
/// for runs without one).
pub(super) const FROM_V2: &str = "ALTER TABLE runs ADD COLUMN delta_saved INTEGER;
ALTER TABLE runs ADD COLUMN delta_against TEXT;";

/// v1 → v2: the v1 tables are renamed aside, their rows copied into the
/// v2 shape (digest texts dropped: their runs keep their estimates), and
/// dropped. Runs inside `SCHEMA`'s DDL, in the migration's transaction.
pub(super) const FROM_V1: &str = "
ALTER TABLE runs RENAME TO runs_v1;
ALTER TABLE expands RENAME TO expands_v1;
DROP INDEX IF EXISTS runs_at;
DROP INDEX IF EXISTS runs_key;
DROP INDEX IF EXISTS expands_key;
";

pub(super) const COPY_V1: &str = "
INSERT OR IGNORE INTO commands (argv, label, family, profile)
    SELECT argv, IFNULL(label, ''), family, profile FROM runs_v1;
INSERT OR IGNORE INTO records (key, raw_exact)
    SELECT unhex(key_hex), MAX(raw_exact) FROM runs_v1
    WHERE key_hex IS NOT NULL GROUP BY key_hex;
INSERT INTO runs (at_ms, command, exit, raw_bytes, raw_tokens, delivered_tokens,
                  delivered_exact, digest, rejection, record)
    SELECT r.at_ms, c.id,
           CASE r.exit_kind WHEN 'code' THEN r.exit_value
                            WHEN 'signal' THEN -r.exit_value END,
           r.raw_bytes, r.raw_tokens, r.delivered_tokens,
           CASE WHEN r.delivered = 'digest' THEN r.delivered_exact END,
           r.delivered = 'digest', r.rejection,
           (SELECT id FROM records WHERE key = unhex(r.key_hex))
    FROM runs_v1 r JOIN commands c
      ON c.argv = r.argv AND c.label = IFNULL(r.label, '') AND c.profile = r.profile
    ORDER BY r.at_ms, r.id;
INSERT INTO expands (at_ms, record, tokens)
    SELECT e.at_ms, rec.id, e.tokens FROM expands_v1 e
    JOIN records rec ON rec.key = unhex(e.key_hex);
INSERT OR IGNORE INTO records (key)
    SELECT DISTINCT unhex(key_hex) FROM expands_v1
    WHERE unhex(key_hex) NOT IN (SELECT key FROM records);
INSERT INTO expands (at_ms, record, tokens)
    SELECT e.at_ms, rec.id, e.tokens FROM expands_v1 e
    JOIN records rec ON rec.key = unhex(e.key_hex)
    WHERE NOT EXISTS (SELECT 1 FROM runs WHERE runs.record = rec.id);
DROP TABLE runs_v1;
DROP TABLE expands_v1;
";
