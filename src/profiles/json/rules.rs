//! Which records are anomalies: the words and shapes that make one item
//! of a data set matter more than the rest. Shared by JSON and tables.

/// Field names whose value is a state or verdict.
pub const STATUS_KEYS: &[&str] = &[
    "status",
    "state",
    "conclusion",
    "result",
    "outcome",
    "phase",
    "health",
    "level",
];

/// Field names whose non-empty value is an error.
pub const ERROR_KEYS: &[&str] = &[
    "error",
    "errors",
    "err",
    "exception",
    "failure",
    "failures",
    "problems",
];

/// Field names whose `false` is a failure.
pub const TRUE_KEYS: &[&str] = &["ok", "success", "succeeded", "passed", "healthy", "ready"];

/// Field names whose `true` is a failure.
pub const FALSE_KEYS: &[&str] = &[
    "failed",
    "error",
    "crashed",
    "oomkilled",
    "missing",
    "invalid",
    "extraneous",
    "deprecated",
];

/// Field names holding an exit status (non-zero is a failure).
pub const EXIT_KEYS: &[&str] = &["exit_code", "exitcode", "returncode", "return_code"];

/// Field names holding an HTTP status (400 and above is a failure).
pub const HTTP_KEYS: &[&str] = &["status_code", "statuscode", "http_status"];

/// State words that are a failure wherever they appear.
pub const BAD_WORDS: &[&str] = &[
    "error",
    "errored",
    "failed",
    "failure",
    "fail",
    "fatal",
    "critical",
    "crit",
    "panic",
    "cancelled",
    "canceled",
    "timed_out",
    "timeout",
    "timedout",
    "crashed",
    "crashloopbackoff",
    "dead",
    "exited",
    "unhealthy",
    "degraded",
    "down",
    "rejected",
    "invalid",
    "missing",
    "broken",
    "conflict",
    "evicted",
    "oomkilled",
    "imagepullbackoff",
    "errimagepull",
    "unknown",
    "notready",
    "not ready",
    "lost",
    "terminating",
    "unbound",
    "unavailable",
    "action_required",
    "startup_failure",
    "stale",
];

/// State words that are the normal answer.
pub const OK_WORDS: &[&str] = &[
    "ok",
    "success",
    "succeeded",
    "successful",
    "passed",
    "pass",
    "completed",
    "complete",
    "done",
    "running",
    "active",
    "healthy",
    "ready",
    "true",
    "up",
    "installed",
    "available",
    "bound",
    "enabled",
    "open",
    "listen",
    "established",
    "info",
    "debug",
    "trace",
    "notice",
    "neutral",
    "skipped",
    "queued",
    "in_progress",
    "pending",
    "created",
    "closed",
    "merged",
    "published",
    "mounted",
];

pub fn lower_in(word: &str, set: &[&str]) -> bool {
    let w = word.trim().to_ascii_lowercase();
    set.contains(&w.as_str())
}

/// Why a state value is an anomaly: a failure word always, any other word
/// not on the normal list when fewer than one item in ten has it.
pub fn state_anomaly(value: &str, share_percent: usize) -> bool {
    if lower_in(value, BAD_WORDS) {
        return true;
    }
    let v = value.trim();
    !v.is_empty() && !lower_in(v, OK_WORDS) && share_percent < 10
}

/// The quartile bounds beyond which a number is an outlier (3 × IQR), or
/// None when the values are too few or too alike to tell.
pub fn outlier_bounds(values: &[f64]) -> Option<(f64, f64)> {
    if values.len() < 20 {
        return None;
    }
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    v.sort_by(|a, b| a.total_cmp(b));
    let q = |p: f64| v[((v.len() - 1) as f64 * p).round() as usize];
    let (q1, q3) = (q(0.25), q(0.75));
    let iqr = q3 - q1;
    (iqr > 0.0).then_some((q1 - 3.0 * iqr, q3 + 3.0 * iqr))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states() {
        assert!(state_anomaly("Failed", 50));
        assert!(state_anomaly("CrashLoopBackOff", 50));
        assert!(!state_anomaly("Running", 1));
        assert!(state_anomaly("weird", 2));
        assert!(!state_anomaly("weird", 40));
    }

    #[test]
    fn outliers_need_spread_and_numbers() {
        let mut v: Vec<f64> = (0..30).map(|i| 10.0 + f64::from(i % 5)).collect();
        assert!(outlier_bounds(&v[..10]).is_none());
        let (_, hi) = outlier_bounds(&v).unwrap();
        v.push(1000.0);
        assert!(1000.0 > hi);
    }
}
