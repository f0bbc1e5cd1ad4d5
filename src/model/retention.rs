//! Which records may go, and when a new one must be refused.
//!
//! The store holds at most `max_bytes` (stored size, see
//! `RecordMeta::stored_bytes`). A record used (archived, re-archived or
//! expanded) within `min_age` is never evicted: a digest printed a moment
//! ago names it, and its reader may still ask for it. When the cap cannot
//! be met by evicting older records, the new record is refused and that run
//! omits nothing (invariant 5, docs/invariants.md). Eviction takes the least recently
//! used first.

use std::time::Duration;

/// The default size cap: 2 GiB.
pub const DEFAULT_MAX_BYTES: u64 = 2 << 30;
/// The default minimum age: 24 h.
pub const DEFAULT_MIN_AGE: Duration = Duration::from_secs(24 * 3600);
/// The minimum age can be lowered to this and no further.
pub const FLOOR_MIN_AGE: Duration = Duration::from_secs(30 * 60);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Retention {
    pub max_bytes: u64,
    pub min_age: Duration,
}

impl Default for Retention {
    fn default() -> Self {
        Retention {
            max_bytes: DEFAULT_MAX_BYTES,
            min_age: DEFAULT_MIN_AGE,
        }
    }
}

impl Retention {
    /// `CTX_STORE_MAX_BYTES` and `CTX_STORE_MIN_AGE`, with the defaults for
    /// unset ones. A value that does not parse is reported in `warnings`
    /// and the default used: a typo must not fail the command it rides on.
    pub fn from_env() -> (Retention, Vec<String>) {
        let mut r = Retention::default();
        let mut warnings = Vec::new();
        if let Some(v) = std::env::var_os("CTX_STORE_MAX_BYTES") {
            match v.to_str().and_then(parse_bytes) {
                Some(n) => r.max_bytes = n,
                None => warnings.push(format!(
                    "CTX_STORE_MAX_BYTES={v:?} is not a size; using 2 GiB"
                )),
            }
        }
        if let Some(v) = std::env::var_os("CTX_STORE_MIN_AGE") {
            match v
                .to_str()
                .and_then(|s| humantime::parse_duration(s.trim()).ok())
            {
                Some(d) => r.min_age = clamp_min_age(d),
                None => warnings.push(format!(
                    "CTX_STORE_MIN_AGE={v:?} is not a duration; using 24h"
                )),
            }
        }
        (r, warnings)
    }
}

/// Minimum ages below the floor are raised to it.
pub fn clamp_min_age(d: Duration) -> Duration {
    d.max(FLOOR_MIN_AGE)
}

/// `1048576`, `512k`, `64MiB`, `2G`, `1.5gb`: binary units, case-insensitive.
pub fn parse_bytes(s: &str) -> Option<u64> {
    let s = s.trim().to_ascii_lowercase();
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let mult: u64 = match unit.trim() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        "t" | "tb" | "tib" => 1 << 40,
        _ => return None,
    };
    let n: f64 = num.parse().ok()?;
    if !n.is_finite() || n < 0.0 {
        return None;
    }
    Some((n * mult as f64) as u64)
}

/// A record as eviction sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Candidate {
    pub id: i64,
    pub used_ms: i64,
    pub stored_bytes: u64,
}

/// The cap cannot be met without evicting records younger than the
/// minimum age.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// What the store would hold after evicting everything it may.
    pub floor_bytes: u64,
}

/// Which records to evict so that `total + incoming <= max_bytes`.
/// `records` may come in any order; only those last used at or before
/// `now_ms - min_age` are eligible, least recently used first (ties by
/// id, the older row). Evicts nothing when the cap cannot be met anyway.
pub fn plan_eviction(
    records: &[Candidate],
    total: u64,
    incoming: u64,
    policy: Retention,
    now_ms: i64,
) -> Result<Vec<i64>, Refusal> {
    let (ids, left) = evict_lru(records, total, incoming, policy, now_ms);
    if left.saturating_add(incoming) > policy.max_bytes {
        return Err(Refusal { floor_bytes: left });
    }
    Ok(ids)
}

/// Eligible records, least recently used first, until `incoming` more
/// bytes fit or none are left; with the bytes that would remain. `gc`
/// uses this directly: it frees what it may even when the cap stays
/// out of reach.
pub fn evict_lru(
    records: &[Candidate],
    total: u64,
    incoming: u64,
    policy: Retention,
    now_ms: i64,
) -> (Vec<i64>, u64) {
    let cutoff = now_ms.saturating_sub(policy.min_age.as_millis() as i64);
    let mut eligible: Vec<&Candidate> = records.iter().filter(|c| c.used_ms <= cutoff).collect();
    eligible.sort_by_key(|c| (c.used_ms, c.id));
    let mut left = total;
    let mut out = Vec::new();
    for c in eligible {
        if left.saturating_add(incoming) <= policy.max_bytes {
            break;
        }
        left = left.saturating_sub(c.stored_bytes);
        out.push(c.id);
    }
    (out, left)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOUR: i64 = 3_600_000;

    fn c(id: i64, used_ms: i64, stored_bytes: u64) -> Candidate {
        Candidate {
            id,
            used_ms,
            stored_bytes,
        }
    }

    fn policy(max_bytes: u64) -> Retention {
        Retention {
            max_bytes,
            min_age: Duration::from_secs(3600),
        }
    }

    #[test]
    fn nothing_to_do_under_the_cap() {
        let recs = [c(1, 0, 10)];
        assert_eq!(
            plan_eviction(&recs, 10, 5, policy(100), 10 * HOUR),
            Ok(vec![])
        );
    }

    #[test]
    fn least_recently_used_go_first() {
        let recs = [c(1, 3 * HOUR, 40), c(2, HOUR, 40), c(3, 2 * HOUR, 40)];
        let now = 10 * HOUR;
        assert_eq!(plan_eviction(&recs, 120, 30, policy(120), now), Ok(vec![2]));
        assert_eq!(
            plan_eviction(&recs, 120, 50, policy(120), now),
            Ok(vec![2, 3])
        );
    }

    #[test]
    fn young_records_are_never_evicted() {
        let now = 10 * HOUR;
        // Record 2 was used 59 minutes ago: under the minimum age.
        let recs = [c(1, now - 2 * HOUR, 10), c(2, now - HOUR + 60_000, 90)];
        assert_eq!(
            plan_eviction(&recs, 100, 50, policy(100), now),
            Err(Refusal { floor_bytes: 90 })
        );
        assert_eq!(plan_eviction(&recs, 100, 10, policy(100), now), Ok(vec![1]));
        // Exactly the minimum age is old enough.
        let recs = [c(3, now - HOUR, 100)];
        assert_eq!(plan_eviction(&recs, 100, 1, policy(100), now), Ok(vec![3]));
    }

    #[test]
    fn gc_frees_what_it_may() {
        let now = 10 * HOUR;
        let recs = [c(1, now - 2 * HOUR, 10), c(2, now, 90)];
        assert_eq!(evict_lru(&recs, 100, 0, policy(50), now), (vec![1], 90));
    }

    #[test]
    fn a_record_bigger_than_the_cap_is_refused() {
        assert!(plan_eviction(&[], 0, 101, policy(100), 0).is_err());
    }

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_bytes("1048576"), Some(1 << 20));
        assert_eq!(parse_bytes("512k"), Some(512 << 10));
        assert_eq!(parse_bytes("64MiB"), Some(64 << 20));
        assert_eq!(parse_bytes("2G"), Some(2 << 30));
        assert_eq!(parse_bytes("1.5gb"), Some(3 << 29));
        assert_eq!(parse_bytes("ten"), None);
        assert_eq!(parse_bytes("5 parsecs"), None);
    }

    #[test]
    fn min_age_has_a_floor() {
        assert_eq!(clamp_min_age(Duration::from_secs(60)), FLOOR_MIN_AGE);
        assert_eq!(
            clamp_min_age(Duration::from_secs(7200)),
            Duration::from_secs(7200)
        );
    }
}
