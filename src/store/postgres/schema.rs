//! The PostgreSQL schema and its migrations: versioned, forward only, run
//! by whichever ctx connects first under an advisory lock, so that a fleet
//! upgrading at once migrates exactly once.

use super::client::Client;
use postgres::error::SqlState;

use super::{LOCK_CLASS, describe};
use crate::store::StoreError;

/// Bump with a migration whenever the schema changes. A server whose
/// schema is newer than this is refused (never misread).
pub const SCHEMA_VERSION: i32 = 3;

/// `MIGRATIONS[i]` takes the schema from version `i` to `i + 1`.
const MIGRATIONS: [&str; 3] = [V1, V2, V3];

/// Hex keys use the C collation so that a prefix is a plain byte range
/// whatever the database's locale. Times are unix milliseconds of the
/// server's clock (never the client's: machines disagree).
const V1: &str = r#"
CREATE TABLE ctx_records (
    id           bigserial PRIMARY KEY,
    namespace    text    NOT NULL,
    hex          text    COLLATE "C" NOT NULL,
    created_ms   bigint  NOT NULL,
    used_ms      bigint  NOT NULL,
    argv         text    NOT NULL,
    cwd          text,
    label        text,
    family       text,
    exit_kind    integer NOT NULL,
    exit_value   integer NOT NULL,
    truncated    boolean NOT NULL,
    segments     bytea   NOT NULL,
    raw_bytes    bigint  NOT NULL,
    stored_bytes bigint  NOT NULL,
    line_count   bigint  NOT NULL,
    machine      text    NOT NULL,
    os_user      text    NOT NULL,
    UNIQUE (namespace, hex)
);
CREATE INDEX ctx_records_used ON ctx_records (namespace, used_ms);
CREATE TABLE ctx_chunks (
    record       bigint  NOT NULL REFERENCES ctx_records (id) ON DELETE CASCADE,
    seq          integer NOT NULL,
    "offset"     bigint  NOT NULL,
    raw_len      bigint  NOT NULL,
    lines_before bigint  NOT NULL,
    newlines     bigint  NOT NULL,
    codec        smallint NOT NULL,
    data         bytea   NOT NULL,
    sum          bytea   NOT NULL,
    PRIMARY KEY (record, seq)
);
CREATE TABLE ctx_damaged (
    namespace    text    NOT NULL,
    hex          text    COLLATE "C" NOT NULL,
    found_ms     bigint  NOT NULL,
    why          text    NOT NULL,
    PRIMARY KEY (namespace, hex)
);
"#;

/// v2: the keys of records retention evicted or a purge removed, so that
/// expand tells "evicted" from "never existed" (kept 30 days).
const V2: &str = r#"
CREATE TABLE ctx_gone (
    namespace    text    NOT NULL,
    hex          text    COLLATE "C" NOT NULL,
    gone_ms      bigint  NOT NULL,
    why          text    NOT NULL,
    PRIMARY KEY (namespace, hex)
);
"#;

/// v3: each namespace's record count and stored size, kept by a trigger
/// on every insert and delete, so the size cap is checked without summing
/// the namespace's records on every put. Sixteen stripes per namespace
/// (by key) so that concurrent writers rarely wait on one row; the total
/// is the sum of at most sixteen rows. The trigger sees every path that
/// adds or removes a record (put, eviction, purge, copy) and fires only
/// for rows really inserted (`ON CONFLICT DO NOTHING` inserts none).
const V3: &str = r#"
CREATE TABLE ctx_usage (
    namespace    text     NOT NULL,
    stripe       smallint NOT NULL,
    records      bigint   NOT NULL,
    stored_bytes bigint   NOT NULL,
    PRIMARY KEY (namespace, stripe)
);
INSERT INTO ctx_usage (namespace, stripe, records, stored_bytes)
    SELECT namespace, (hashtext(hex) & 15)::smallint, count(*), sum(stored_bytes)
    FROM ctx_records GROUP BY 1, 2;
CREATE FUNCTION ctx_usage_track() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO ctx_usage (namespace, stripe, records, stored_bytes)
            VALUES (NEW.namespace, (hashtext(NEW.hex) & 15)::smallint, 1, NEW.stored_bytes)
            ON CONFLICT (namespace, stripe) DO UPDATE
            SET records = ctx_usage.records + 1,
                stored_bytes = ctx_usage.stored_bytes + EXCLUDED.stored_bytes;
        RETURN NEW;
    END IF;
    UPDATE ctx_usage
        SET records = records - 1, stored_bytes = stored_bytes - OLD.stored_bytes
        WHERE namespace = OLD.namespace AND stripe = (hashtext(OLD.hex) & 15)::smallint;
    RETURN OLD;
END
$$;
CREATE TRIGGER ctx_usage_track AFTER INSERT OR DELETE ON ctx_records
    FOR EACH ROW EXECUTE FUNCTION ctx_usage_track();
"#;

/// The schema version the server has: 0 when ctx never ran there.
pub(crate) fn version(client: &mut Client) -> Result<i32, StoreError> {
    match client.query_one("SELECT max(version) FROM ctx_schema", &[]) {
        Ok(row) => Ok(row.get::<_, Option<i32>>(0).unwrap_or(0)),
        Err(e) if e.code() == Some(&SqlState::UNDEFINED_TABLE) => Ok(0),
        Err(e) => Err(describe(e)),
    }
}

/// Checks the schema on connect and migrates it when it is older.
/// `v`: the server's version, as `version` read it.
/// Runs in the caller's transaction, which commits.
pub(crate) fn ensure(v: i32, tx: &mut Client) -> Result<(), StoreError> {
    if v == SCHEMA_VERSION {
        return Ok(());
    }
    if v > SCHEMA_VERSION {
        return Err(newer(v));
    }
    migrate(tx).map(drop)
}

fn newer(v: i32) -> StoreError {
    StoreError::Unavailable(format!(
        "the server's ctx schema is v{v}, newer than this ctx (v{SCHEMA_VERSION}): \
         upgrade ctx on this machine"
    ))
}

/// Runs the missing migrations under the migration lock; returns the
/// versions before and after.
/// Runs in the caller's transaction (`tx`), which commits.
pub(crate) fn migrate(tx: &mut Client) -> Result<(i32, i32), StoreError> {
    // Held until commit: a second migrator waits here, then finds the
    // work done.
    tx.execute("SELECT pg_advisory_xact_lock($1, 0)", &[&LOCK_CLASS])
        .map_err(describe)?;
    tx.batch_execute("CREATE TABLE IF NOT EXISTS ctx_schema (version integer NOT NULL)")
        .map_err(describe)?;
    let v: i32 = tx
        .query_one("SELECT coalesce(max(version), 0) FROM ctx_schema", &[])
        .map_err(describe)?
        .get(0);
    if v > SCHEMA_VERSION {
        return Err(newer(v));
    }
    for step in &MIGRATIONS[v.max(0) as usize..] {
        tx.batch_execute(step).map_err(describe)?;
    }
    if v < SCHEMA_VERSION {
        tx.execute("DELETE FROM ctx_schema", &[])
            .map_err(describe)?;
        tx.execute(
            "INSERT INTO ctx_schema (version) VALUES ($1)",
            &[&SCHEMA_VERSION],
        )
        .map_err(describe)?;
    }
    Ok((v, SCHEMA_VERSION))
}
