//! Where a connection's missing pieces come from, as libpq does it: the
//! URL first, then the `PG*` environment variables, then `~/.pgpass` for
//! the password. The Rust client reads none of these itself, and a team's
//! runners are usually configured through them.
//!
//! The password file is skipped (with a warning) when anyone but its
//! owner may read it, as libpq does: a readable secret is a leaked one.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use tokio_postgres::Config;
use tokio_postgres::config::Host;

/// Fills what `config` leaves unset. `env` reads an environment variable
/// (a parameter so tests need not touch the process's environment).
/// Returns the warnings worth showing.
pub fn complete(config: &mut Config, env: &dyn Fn(&str) -> Option<String>) -> Vec<String> {
    let mut warnings = Vec::new();
    if config.get_hosts().is_empty() {
        let hosts = env("PGHOST").unwrap_or_else(|| "localhost".into());
        for host in hosts.split(',').filter(|h| !h.is_empty()) {
            config.host(host);
        }
    }
    if let (true, Some(port)) = (config.get_ports().is_empty(), env("PGPORT")) {
        match port.trim().parse::<u16>() {
            Ok(p) => {
                config.port(p);
            }
            Err(_) => warnings.push(format!("PGPORT={port:?} is not a port; using 5432")),
        }
    }
    if config.get_user().is_none() {
        let user = env("PGUSER").unwrap_or_else(os_user);
        config.user(&user);
    }
    if let (None, Some(db)) = (config.get_dbname(), env("PGDATABASE")) {
        config.dbname(&db);
    }
    if config.get_password().is_none() {
        if let Some(password) = env("PGPASSWORD") {
            config.password(password);
        } else if let Some(file) = passfile(env) {
            match lookup(&file, config) {
                Ok(Some(password)) => {
                    config.password(password);
                }
                Ok(None) => {}
                Err(why) => warnings.push(why),
            }
        }
    }
    warnings
}

/// The password file: `PGPASSFILE`, else `~/.pgpass`.
fn passfile(env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    env("PGPASSFILE")
        .map(PathBuf::from)
        .or_else(|| dirs::home_dir().map(|h| h.join(".pgpass")))
}

/// The password of the first line of `file` matching the connection.
/// A missing file is no password; a loose one is a warning.
fn lookup(file: &Path, config: &Config) -> Result<Option<String>, String> {
    let Ok(meta) = std::fs::metadata(file) else {
        return Ok(None);
    };
    if meta.mode() & 0o077 != 0 {
        return Err(format!(
            "{} is readable by others (chmod 0600 it); not used",
            file.display()
        ));
    }
    let text =
        std::fs::read_to_string(file).map_err(|e| format!("{}: {e}; not used", file.display()))?;
    let host = match config.get_hosts().first() {
        Some(Host::Tcp(h)) => h.clone(),
        // libpq matches a socket connection as `localhost`.
        Some(Host::Unix(_)) | None => "localhost".into(),
    };
    let port = config
        .get_ports()
        .first()
        .copied()
        .unwrap_or(5432)
        .to_string();
    let user = config.get_user().unwrap_or_default().to_string();
    let db = config.get_dbname().unwrap_or(&user).to_string();
    let wanted = [host.as_str(), port.as_str(), db.as_str(), user.as_str()];
    Ok(text
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .filter_map(fields)
        .find(|f| {
            f[..4]
                .iter()
                .zip(wanted)
                .all(|(have, want)| have == "*" || have == want)
        })
        .map(|mut f| f.swap_remove(4)))
}

/// The five fields of a password-file line (`host:port:db:user:password`,
/// `\:` and `\\` escaped), or `None` for a malformed line.
fn fields(line: &str) -> Option<Vec<String>> {
    let mut out = vec![String::new()];
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.last_mut()?.push(chars.next().unwrap_or('\\')),
            ':' if out.len() < 5 => out.push(String::new()),
            c => out.last_mut()?.push(c),
        }
    }
    (out.len() == 5).then_some(out)
}

/// libpq's default user: the account's name.
fn os_user() -> String {
    super::account_name().unwrap_or_else(|| "postgres".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;
    use std::str::FromStr;

    fn config(url: &str) -> Config {
        Config::from_str(url).unwrap()
    }

    fn pgpass(text: &str, mode: u32) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pgpass");
        std::fs::write(&path, text).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
        (dir, path)
    }

    #[test]
    fn the_environment_fills_an_empty_url() {
        let mut c = config("postgres://");
        let env = |k: &str| {
            Some(
                match k {
                    "PGHOST" => "db.example",
                    "PGPORT" => "6543",
                    "PGUSER" => "ci",
                    "PGDATABASE" => "archive",
                    "PGPASSWORD" => "s3cret",
                    _ => return None,
                }
                .to_string(),
            )
        };
        assert!(complete(&mut c, &env).is_empty());
        assert_eq!(c.get_hosts(), &[Host::Tcp("db.example".into())]);
        assert_eq!(c.get_ports(), &[6543]);
        assert_eq!(c.get_user(), Some("ci"));
        assert_eq!(c.get_dbname(), Some("archive"));
        assert_eq!(c.get_password(), Some(&b"s3cret"[..]));
    }

    #[test]
    fn the_url_wins_over_the_environment() {
        let mut c = config("postgres://me:pw@host:1/db");
        let env = |_: &str| Some("other".to_string());
        complete(&mut c, &env);
        assert_eq!(c.get_hosts(), &[Host::Tcp("host".into())]);
        assert_eq!(c.get_user(), Some("me"));
        assert_eq!(c.get_password(), Some(&b"pw"[..]));
        assert_eq!(c.get_dbname(), Some("db"));
    }

    #[test]
    fn the_password_file_is_matched_field_by_field() {
        let (_d, path) = pgpass(
            "# comment\nother:5432:*:ci:wrong\ndb:*:ctx:ci:pa\\:ss\ndb:*:*:*:fallback\n",
            0o600,
        );
        let file = path.display().to_string();
        let env = |k: &str| (k == "PGPASSFILE").then(|| file.clone());
        let mut c = config("postgres://ci@db/ctx");
        assert!(complete(&mut c, &env).is_empty());
        assert_eq!(c.get_password(), Some(&b"pa:ss"[..]));
        let mut c = config("postgres://ci@db/elsewhere");
        complete(&mut c, &env);
        assert_eq!(c.get_password(), Some(&b"fallback"[..]));
        let mut c = config("postgres://ci@nowhere/ctx");
        complete(&mut c, &env);
        assert_eq!(c.get_password(), None);
    }

    #[test]
    fn a_password_file_others_can_read_is_not_used() {
        let (_d, path) = pgpass("*:*:*:*:secret\n", 0o644);
        let file = path.display().to_string();
        let env = |k: &str| (k == "PGPASSFILE").then(|| file.clone());
        let mut c = config("postgres://ci@db/ctx");
        let warnings = complete(&mut c, &env);
        assert_eq!(c.get_password(), None);
        assert!(warnings[0].contains("chmod 0600"), "{warnings:?}");
        assert!(!warnings[0].contains("secret"));
    }
}
