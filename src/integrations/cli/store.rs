//! `ctx store stats|gc|purge|check|migrate|copy|sync`: inspect and maintain
//! the archive.

use std::time::Duration;

use crate::render::{count, counted};
use crate::retention::{self, Retention, clamp_min_age};
use crate::store::backend::{self, Choice};
use crate::store::sqlite::{self, SqliteStore};
use crate::store::{self, AnyStore, Stats, Store, StoreError};

/// Arguments of `ctx store`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    pub action: Action,
}

#[derive(clap::Subcommand, Debug)]
pub enum Action {
    /// Records, sizes, age range, location and retention settings.
    Stats {
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Apply retention now: evict the least recently used records older
    /// than the minimum age until the store fits its cap.
    Gc {
        /// Cap to apply instead of CTX_STORE_MAX_BYTES (e.g. 500MiB).
        #[arg(long, value_name = "SIZE", value_parser = parse_size)]
        max_bytes: Option<u64>,
        /// Minimum age instead of CTX_STORE_MIN_AGE (never below 30m).
        #[arg(long, value_name = "DURATION", value_parser = humantime::parse_duration)]
        min_age: Option<Duration>,
    },
    /// Delete every record (or those unused for DURATION); asks nothing.
    Purge {
        /// Only records unused for at least this long (e.g. 7d, 12h).
        #[arg(long, value_name = "DURATION", value_parser = humantime::parse_duration)]
        older_than: Option<Duration>,
    },
    /// Verify every record (each chunk against its checksum, the whole
    /// record against its key) and the database file; damaged records are
    /// quarantined. Exit 0 when all is intact, 1 when anything is damaged.
    Check,
    /// Create or upgrade the schema of the configured store now (the
    /// first use does it too); prints the versions before and after.
    Migrate,
    /// Copy every record of one store into another under the same key
    /// (records already there are kept); each is verified on the way.
    /// A store is `sqlite` (the local default), `sqlite:PATH`, or a
    /// `postgres://` URL. Exit 1 when any record could not be copied.
    Copy {
        /// The store to read.
        #[arg(long, value_name = "STORE")]
        from: String,
        /// The store to write.
        #[arg(long, value_name = "STORE")]
        to: String,
    },
    /// Send the shared store the records it did not take (kept on this
    /// machine meanwhile); idempotent. Exit 1 when any stays queued.
    Sync,
}

/// ctx's own reports print as text or JSON (`crate::format`).
pub use crate::format::ReportFormat as Format;

fn parse_size(s: &str) -> Result<u64, String> {
    retention::parse_bytes(s)
        .ok_or_else(|| format!("`{s}` is not a size (e.g. 2GiB, 500M, 1048576)"))
}

pub fn execute(args: Args) -> anyhow::Result<i32> {
    match args.action {
        Action::Stats { format } => stats(format),
        Action::Gc { max_bytes, min_age } => gc(max_bytes, min_age),
        Action::Purge { older_than } => purge(older_than),
        Action::Check => check(),
        Action::Migrate => migrate(),
        Action::Copy { from, to } => copy(&from, &to),
        Action::Sync => sync(),
    }
}

/// Exit status of `ctx store check` when it found damage.
const EXIT_DAMAGED: i32 = 1;

fn check() -> anyhow::Result<i32> {
    let Some(s) = store::open_existing()? else {
        println!("the store is empty: nothing to check");
        return Ok(0);
    };
    let file_problems = s.quick_check()?;
    if let Some(problems) = &file_problems {
        println!("[ctx] the database file is damaged: {problems}");
        println!("[ctx] `ctx store purge` removes it and starts over");
    }
    let mut damaged = 0usize;
    let keys = s.keys()?;
    let (mut intact, mut bytes) = (0usize, 0u64);
    for key in &keys {
        let result = s
            .meta(key)
            .and_then(|meta| store::verify::record(&s, &meta).map(|()| meta.raw_bytes));
        match result {
            Ok(n) => {
                intact += 1;
                bytes += n;
            }
            // Evicted or purged by another process since the listing.
            Err(StoreError::NotFound(_)) => {}
            Err(StoreError::Damaged { why, .. }) => {
                damaged += 1;
                let fate = match s.quarantine(key, &why) {
                    Ok(()) => "quarantined".to_string(),
                    Err(e) => format!("not quarantined: {e}"),
                };
                println!("record {} is damaged ({why}); {fate}", key.short());
            }
            Err(e) => return Err(e.into()),
        }
    }
    println!(
        "checked {} ({} of output): {} intact, {} damaged",
        counted(keys.len(), "records"),
        size(bytes),
        count(intact),
        count(damaged)
    );
    Ok(if damaged == 0 && file_problems.is_none() {
        0
    } else {
        EXIT_DAMAGED
    })
}

fn stats(format: Format) -> anyhow::Result<i32> {
    let (options, mut warnings) = sqlite::Options::from_env();
    let opened = store::open_existing_to_read()?;
    let location = match &opened {
        Some(s) => s.location(),
        None => SqliteStore::default_path()?.display().to_string(),
    };
    let (totals, writers, tls) = match &opened {
        Some(s) => {
            warnings.extend(s.warnings().iter().cloned());
            let (writers, tls) = match s {
                AnyStore::Postgres(p) => (
                    p.writers()?,
                    Some(p.tls_version()?.unwrap_or_else(|| "off".into())),
                ),
                AnyStore::Sqlite(_) => (Vec::new(), None),
            };
            (s.stats()?, writers, tls)
        }
        None => (Stats::default(), Vec::new(), None),
    };
    warnings.dedup();
    let r = options.retention;
    let ratio = if totals.stored_bytes == 0 {
        None
    } else {
        Some(totals.raw_bytes as f64 / totals.stored_bytes as f64)
    };
    if format == Format::Json {
        let v = serde_json::json!({
            "records": totals.records,
            "raw_bytes": totals.raw_bytes,
            "stored_bytes": totals.stored_bytes,
            "ratio": ratio,
            "oldest": totals.oldest_ms.map(when),
            "newest": totals.newest_ms.map(when),
            "db_path": location,
            "tls": tls,
            "writers": writers
                .iter()
                .map(|(machine, user, records)| {
                    serde_json::json!({"machine": machine, "user": user, "records": records})
                })
                .collect::<Vec<_>>(),
            "file_bytes": totals.file_bytes,
            "max_bytes": r.max_bytes,
            "min_age_secs": r.min_age.as_secs(),
            "warnings": warnings,
        });
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(0);
    }
    println!("records       {}", count(totals.records as usize));
    println!("raw bytes     {}", size(totals.raw_bytes));
    println!("stored bytes  {}", size(totals.stored_bytes));
    match ratio {
        Some(x) => println!("ratio         {x:.2}×"),
        None => println!("ratio         -"),
    }
    println!(
        "oldest        {}",
        totals.oldest_ms.map_or_else(|| "-".into(), when)
    );
    println!(
        "newest        {}",
        totals.newest_ms.map_or_else(|| "-".into(), when)
    );
    println!(
        "db            {location} ({} on disk)",
        size(totals.file_bytes)
    );
    if let Some(tls) = &tls {
        println!("tls           {tls}");
    }
    for (machine, user, records) in &writers {
        println!(
            "written by    {user}@{machine}: {}",
            counted(*records as usize, "records")
        );
    }
    // Where each limit came from, as `ctx config` says it.
    let config = crate::config::current();
    println!(
        "cap           {} ({})",
        size(r.max_bytes),
        config.max_bytes.source
    );
    println!(
        "min age       {} ({})",
        duration(r.min_age),
        config.min_age.source
    );
    for w in warnings {
        println!("[ctx] {w}");
    }
    Ok(0)
}

fn copy(from: &str, to: &str) -> anyhow::Result<i32> {
    let source = AnyStore::open_named(from)?;
    let destination = AnyStore::open_named(to)?;
    if source.location() == destination.location() {
        anyhow::bail!(
            "{} is both the source and the destination",
            source.location()
        );
    }
    let report = store::copy::copy(&source, &destination)?;
    for (key, why) in &report.failed {
        println!("record {} not copied: {why}", key.short());
    }
    println!(
        "{} → {}: {} copied ({} of output), {} already there, {} failed",
        source.location(),
        destination.location(),
        count(report.copied as usize),
        size(report.copied_bytes),
        count(report.present as usize),
        count(report.failed.len())
    );
    Ok(if report.failed.is_empty() { 0 } else { 1 })
}

/// `ctx store sync`: every record of this machine's outbox for the
/// configured namespace, to the configured server.
fn sync() -> anyhow::Result<i32> {
    if backend::choice()? == Choice::Sqlite {
        println!("the store is this machine's (CTX_STORE is not a server): nothing to send");
        return Ok(0);
    }
    let waiting = store::outbox::pending()?;
    let Some(server) = store::open_existing()? else {
        anyhow::bail!("no store");
    };
    let AnyStore::Postgres(pg) = &server else {
        anyhow::bail!("{} is not a server", server.location());
    };
    let namespace = pg.options().namespace.clone();
    if !waiting.iter().any(|e| e.namespace == namespace) {
        println!("nothing to send to {}", server.location());
        return Ok(0);
    }
    let Some(local) = SqliteStore::open_existing_default()? else {
        // Queued records whose store is gone: nothing left to send.
        for entry in waiting.iter().filter(|e| e.namespace == namespace) {
            let _ = store::outbox::remove(entry);
        }
        println!("nothing to send to {}", server.location());
        return Ok(0);
    };
    let report = store::sync::sync(&local, &server, &namespace, None)?;
    for key in &report.lost {
        println!(
            "record {} is no longer on this machine; nothing to send",
            key.short()
        );
    }
    for (key, why) in &report.failed {
        println!("record {} stays queued: {why}", key.short());
    }
    println!(
        "sent {} ({} of output) to {}{}",
        counted(report.sent as usize, "records"),
        size(report.sent_bytes),
        server.location(),
        if report.failed.is_empty() {
            String::new()
        } else {
            format!("; {} still queued", count(report.failed.len()))
        }
    );
    Ok(if report.failed.is_empty() { 0 } else { 1 })
}

fn gc(max_bytes: Option<u64>, min_age: Option<Duration>) -> anyhow::Result<i32> {
    let (options, _) = sqlite::Options::from_env();
    let policy = Retention {
        max_bytes: max_bytes.unwrap_or(options.retention.max_bytes),
        min_age: min_age.map_or(options.retention.min_age, clamp_min_age),
    };
    let Some(s) = store::open_existing()? else {
        println!("the store is empty: nothing to evict");
        return Ok(0);
    };
    let report = s.gc(policy)?;
    for e in report.evicted.iter().take(20) {
        println!(
            "evicted {}  {}  {}  {}",
            e.key.short(),
            when(e.used_ms),
            size(e.stored_bytes),
            e.command
        );
    }
    if report.evicted.len() > 20 {
        println!("… and {} more", count(report.evicted.len() - 20));
    }
    println!(
        "evicted {} ({}); {} ({}) left; cap {}, min age {}",
        counted(report.evicted.len(), "records"),
        size(report.evicted_bytes),
        counted(report.records_left as usize, "records"),
        size(report.bytes_left),
        size(policy.max_bytes),
        duration(policy.min_age)
    );
    if report.bytes_left > policy.max_bytes {
        println!("[ctx] still over the cap: the rest are younger than the minimum age");
    }
    Ok(0)
}

fn purge(older_than: Option<Duration>) -> anyhow::Result<i32> {
    // Re-run deltas point at the last run's record: forgotten first, so
    // that no delta names a purged record.
    crate::ledger::last_run::forget_all();
    let path = SqliteStore::default_path()?;
    let opened = match store::open_existing() {
        Ok(o) => o,
        // A damaged file cannot be purged record by record; without a
        // filter the user asked for everything gone, so the file goes.
        Err(StoreError::Corrupt(_))
            if older_than.is_none() && backend::choice()? == Choice::Sqlite =>
        {
            SqliteStore::remove_files(&path)?;
            println!(
                "removed the damaged store {} (every record in it is gone)",
                path.display()
            );
            return Ok(0);
        }
        Err(e) => return Err(e.into()),
    };
    let report = match opened {
        Some(s) => s.purge(older_than)?,
        None => Default::default(),
    };
    println!(
        "purged {} ({})",
        counted(report.records as usize, "records"),
        size(report.stored_bytes)
    );
    Ok(0)
}

fn migrate() -> anyhow::Result<i32> {
    match backend::choice()? {
        Choice::Sqlite => {
            // Opening a SQLite store migrates it.
            let s = SqliteStore::open_default()?;
            println!("{}: schema v{}", s.path().display(), sqlite::SCHEMA_VERSION);
        }
        Choice::Postgres(url) => {
            let (options, _) = store::postgres::PgOptions::from_env();
            let s = store::PgStore::connect(&url, options)?;
            let (before, after) = s.migrate()?;
            if before == after {
                println!("{}: schema v{after}, up to date", s.location());
            } else {
                println!("{}: schema v{before} → v{after}", s.location());
            }
        }
    }
    Ok(0)
}

/// `1 day`, `2 days 3 hours`, `30 minutes`: whole units, largest first,
/// words a person reads (humantime's `1day` is for parsers).
pub(super) fn duration(d: Duration) -> String {
    let mut left = d.as_secs();
    let mut parts = Vec::new();
    for (size, one, many) in [
        (86_400, "day", "days"),
        (3_600, "hour", "hours"),
        (60, "minute", "minutes"),
        (1, "second", "seconds"),
    ] {
        let n = left / size;
        left %= size;
        if n > 0 {
            parts.push(format!("{n} {}", if n == 1 { one } else { many }));
        }
    }
    if parts.is_empty() {
        return "0 seconds".to_string();
    }
    parts.join(" ")
}

/// Unix milliseconds as an RFC 3339 time (seconds).
pub(super) fn when(ms: i64) -> String {
    let t = std::time::UNIX_EPOCH + Duration::from_millis(ms.max(0) as u64);
    humantime::format_rfc3339_seconds(t).to_string()
}

/// `1536` → `1.5 KiB`; exact bytes below 1 KiB.
pub(super) fn size(n: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if n < 1024 {
        return format!("{n} B");
    }
    let mut v = n as f64;
    let mut unit = "B";
    for u in UNITS {
        if v < 1024.0 {
            break;
        }
        v /= 1024.0;
        unit = u;
    }
    format!("{v:.1} {unit}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_well() {
        assert_eq!(size(0), "0 B");
        assert_eq!(size(1536), "1.5 KiB");
        assert_eq!(size(2 << 30), "2.0 GiB");
    }

    #[test]
    fn durations_read_well() {
        let d = |s| duration(Duration::from_secs(s));
        assert_eq!(d(24 * 3600), "1 day");
        assert_eq!(d(30 * 60), "30 minutes");
        assert_eq!(d(3600 + 60), "1 hour 1 minute");
        assert_eq!(d(2 * 86400 + 3 * 3600), "2 days 3 hours");
        assert_eq!(d(45), "45 seconds");
        assert_eq!(d(0), "0 seconds");
    }
}
