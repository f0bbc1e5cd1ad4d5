//! One entry of a listing as the readers find it, and what its printed
//! mode, size and link target say about it.

/// What kind of entry a line names, as far as the listing tells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Dir,
    File,
    Link,
    /// A device, socket or pipe.
    Other,
    /// The listing does not say (plain `ls`, `find` without `-ls`).
    Unknown,
}

impl Kind {
    /// From the first character of an `ls -l` mode string.
    pub fn from_mode(mode: &str) -> Kind {
        match mode.as_bytes().first() {
            Some(b'd') => Kind::Dir,
            Some(b'-') => Kind::File,
            Some(b'l') => Kind::Link,
            Some(_) => Kind::Other,
            None => Kind::Unknown,
        }
    }
}

/// Something about an entry the reader must see, whatever the budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Anomaly {
    DanglingLink,
    Setuid,
    Setgid,
    WorldWritable,
    Empty,
    Largest,
}

impl Anomaly {
    pub fn word(self) -> &'static str {
        match self {
            Anomaly::DanglingLink => "dangling symlink",
            Anomaly::Setuid => "setuid",
            Anomaly::Setgid => "setgid",
            Anomaly::WorldWritable => "world-writable",
            Anomaly::Empty => "empty file",
            Anomaly::Largest => "largest",
        }
    }
}

/// One listed entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The artifact line that names it.
    pub line: usize,
    /// Its path as the tool's own convention names it (`./src/a.rs` for
    /// find, `src/a.rs` under an `ls -R src` section, `a.rs` for `ls`).
    pub path: String,
    pub kind: Kind,
    /// Bytes, when the listing prints a size (`-h` sizes read back).
    pub size: Option<u64>,
    /// The `ls -l` mode string (`-rwsr-xr-x`), when printed.
    pub mode: Option<String>,
    /// A symlink's target as printed after ` -> `.
    pub target: Option<String>,
    pub anomalies: Vec<Anomaly>,
}

impl Entry {
    pub fn new(line: usize, path: String, kind: Kind) -> Entry {
        Entry {
            line,
            path,
            kind,
            size: None,
            mode: None,
            target: None,
            anomalies: Vec::new(),
        }
    }

    /// The last path component.
    pub fn name(&self) -> &str {
        self.path
            .trim_end_matches('/')
            .rsplit('/')
            .next()
            .unwrap_or(&self.path)
    }

    /// `.rs`, `.tar.gz` counts as `.gz`; a dotfile without another dot or
    /// a name without one has no extension.
    pub fn extension(&self) -> Option<&str> {
        let name = self.name();
        let dot = name.rfind('.')?;
        (dot > 0 && dot + 1 < name.len()).then(|| &name[dot..])
    }

    /// Marks what the mode and size say (the dangling-link and largest
    /// checks need the whole listing and are made by the caller).
    pub fn mark_from_mode(&mut self) {
        if let Some(mode) = self.mode.as_deref() {
            let b = mode.as_bytes();
            if matches!(b.get(3), Some(b's' | b'S')) {
                self.anomalies.push(Anomaly::Setuid);
            }
            if matches!(b.get(6), Some(b's' | b'S')) && self.kind != Kind::Dir {
                self.anomalies.push(Anomaly::Setgid);
            }
            // A symlink's mode is always lrwxrwxrwx: its target's counts.
            if b.get(8) == Some(&b'w') && self.kind != Kind::Link {
                self.anomalies.push(Anomaly::WorldWritable);
            }
        }
        if self.kind == Kind::File && self.size == Some(0) {
            self.anomalies.push(Anomaly::Empty);
        }
    }
}

/// `4096`, `4.0K`, `1.1M`, `12G` (ls -h, du -h: powers of 1024) → bytes.
pub fn parse_size(s: &str) -> Option<u64> {
    if let Ok(n) = s.parse::<u64>() {
        return Some(n);
    }
    let (num, unit) = s.split_at(s.len().checked_sub(1)?);
    let scale: u64 = match unit {
        "K" | "k" => 1 << 10,
        "M" => 1 << 20,
        "G" => 1 << 30,
        "T" => 1 << 40,
        "P" => 1 << 50,
        _ => return None,
    };
    let value: f64 = num.parse().ok()?;
    (value >= 0.0).then_some((value * scale as f64) as u64)
}

/// Whether `s` is an `ls -l` mode string: a type letter and nine
/// permission letters, maybe an ACL `+` or SELinux `.` after.
pub fn is_mode(s: &str) -> bool {
    let b = s.as_bytes();
    (b.len() == 10 || (b.len() == 11 && matches!(b[10], b'+' | b'.' | b'@')))
        && b"-dlcbps?".contains(&b[0])
        && b[1..10].iter().all(|c| b"-rwxsStT?".contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_plain_and_human() {
        assert_eq!(parse_size("4096"), Some(4096));
        assert_eq!(parse_size("4.0K"), Some(4096));
        assert_eq!(parse_size("1.5M"), Some(1_572_864));
        assert_eq!(parse_size("x"), None);
        assert_eq!(parse_size(""), None);
    }

    #[test]
    fn modes_and_their_anomalies() {
        assert!(is_mode("-rwsr-xr-x"));
        assert!(is_mode("drwxrwxrwt"));
        assert!(is_mode("-rw-r--r--+"));
        assert!(!is_mode("total"));
        let mut e = Entry::new(1, "tool".into(), Kind::File);
        e.mode = Some("-rwsr-xr-x".into());
        e.size = Some(18);
        e.mark_from_mode();
        assert_eq!(e.anomalies, [Anomaly::Setuid]);
        let mut e = Entry::new(1, "open.log".into(), Kind::File);
        e.mode = Some("-rw-rw-rw-".into());
        e.size = Some(0);
        e.mark_from_mode();
        assert_eq!(e.anomalies, [Anomaly::WorldWritable, Anomaly::Empty]);
        let mut e = Entry::new(1, "l".into(), Kind::Link);
        e.mode = Some("lrwxrwxrwx".into());
        e.mark_from_mode();
        assert!(e.anomalies.is_empty());
    }

    #[test]
    fn extensions() {
        let e = |p: &str| Entry::new(1, p.into(), Kind::File);
        assert_eq!(e("src/a.rs").extension(), Some(".rs"));
        assert_eq!(e("a.tar.gz").extension(), Some(".gz"));
        assert_eq!(e(".keep").extension(), None);
        assert_eq!(e("Makefile").extension(), None);
    }
}
