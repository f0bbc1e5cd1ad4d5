//! A fixed synthetic corpus for measuring the estimator against o200k_base:
//! English prose, source code, JSON, logs with hex ids and UUIDs, test-runner
//! output, hex and base64 dumps, ANSI-coloured output and non-ASCII text.
//!
//! Generated from a fixed seed with integer-only arithmetic, so every
//! platform builds byte-identical samples and the exact counts pinned in the
//! tests stay valid until this file changes.

/// One named sample.
pub struct Sample {
    pub name: &'static str,
    pub bytes: Vec<u8>,
}

/// Every sample, in a fixed order.
pub fn corpus() -> Vec<Sample> {
    vec![
        Sample {
            name: "prose",
            bytes: prose(1, 60_000),
        },
        Sample {
            name: "rust",
            bytes: rust_code(2, 60_000),
        },
        Sample {
            name: "python",
            bytes: python_code(3, 60_000),
        },
        Sample {
            name: "json-pretty",
            bytes: json(4, 60_000, true),
        },
        Sample {
            name: "json-compact",
            bytes: json(5, 60_000, false),
        },
        Sample {
            name: "log",
            bytes: log(6, 60_000),
        },
        Sample {
            name: "test-output",
            bytes: test_output(7, 60_000),
        },
        Sample {
            name: "hex-base64",
            bytes: hex_dump(8, 40_000),
        },
        Sample {
            name: "ansi",
            bytes: ansi(9, 40_000),
        },
        Sample {
            name: "non-ascii",
            bytes: non_ascii(10, 40_000),
        },
        Sample {
            name: "table",
            bytes: table(11, 40_000),
        },
    ]
}

/// splitmix64: tiny, fast, and the same everywhere.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
    fn hex(&mut self, out: &mut String, digits: usize) {
        for _ in 0..digits {
            out.push(char::from(b"0123456789abcdef"[self.below(16)]));
        }
    }
}

const WORDS: &[&str] = &[
    "the",
    "of",
    "and",
    "to",
    "in",
    "is",
    "that",
    "for",
    "it",
    "as",
    "was",
    "with",
    "be",
    "by",
    "on",
    "not",
    "this",
    "are",
    "or",
    "from",
    "at",
    "which",
    "but",
    "have",
    "an",
    "had",
    "they",
    "you",
    "were",
    "their",
    "one",
    "all",
    "we",
    "can",
    "her",
    "has",
    "there",
    "been",
    "if",
    "more",
    "when",
    "will",
    "would",
    "who",
    "so",
    "no",
    "output",
    "command",
    "error",
    "warning",
    "file",
    "line",
    "value",
    "result",
    "test",
    "build",
    "function",
    "module",
    "package",
    "request",
    "response",
    "server",
    "client",
    "message",
    "because",
    "through",
    "between",
    "however",
    "without",
    "configuration",
    "dependency",
    "environment",
    "performance",
    "reasonable",
    "particular",
    "information",
    "available",
    "different",
    "important",
    "necessary",
    "something",
    "everything",
    "understand",
    "development",
    "experience",
    "whether",
    "although",
    "previous",
    "following",
    "especially",
    "immediately",
    "implementation",
    "responsibility",
    "characteristics",
    "unfortunately",
    "approximately",
    "temperature",
    "neighbourhood",
    "mountain",
    "river",
    "garden",
    "kitchen",
    "window",
    "morning",
    "evening",
    "quietly",
    "suddenly",
    "carefully",
    "remember",
    "question",
    "answer",
    "reader",
    "writer",
    "journey",
    "village",
    "harbour",
    "lantern",
    "orchard",
    "whisper",
    "thunder",
    "silver",
    "copper",
    "meadow",
    "weather",
    "letter",
    "station",
];

const PARTS: &[&str] = &[
    "get", "set", "parse", "load", "store", "read", "write", "user", "account", "config", "buffer",
    "index", "token", "stream", "chunk", "line", "span", "key", "value", "cache", "handle",
    "request", "response", "client", "server", "event", "queue", "worker", "task", "retry",
    "timeout", "limit", "count", "total", "hash", "digest", "ledger", "archive", "profile",
    "render", "plan", "budget", "state", "error", "result", "item", "node", "tree", "path", "name",
    "id", "len", "max", "min", "tmp", "ctx", "cfg", "db", "sql", "http", "json",
];

fn ident(r: &mut Rng, parts: usize, style: usize) -> String {
    let mut s = String::new();
    for i in 0..parts {
        let p = r.pick(PARTS);
        match style {
            0 => {
                if i > 0 {
                    s.push('_');
                }
                s.push_str(p);
            }
            1 => {
                let mut c = p.chars();
                if let Some(first) = c.next() {
                    s.push(first.to_ascii_uppercase());
                    s.push_str(c.as_str());
                }
            }
            2 => {
                if i > 0 {
                    s.push('_');
                }
                s.push_str(&p.to_ascii_uppercase());
            }
            _ => {
                if i == 0 {
                    s.push_str(p);
                } else {
                    let mut c = p.chars();
                    if let Some(first) = c.next() {
                        s.push(first.to_ascii_uppercase());
                        s.push_str(c.as_str());
                    }
                }
            }
        }
    }
    s
}

fn sentence(r: &mut Rng, out: &mut String) {
    let n = 6 + r.below(14);
    for i in 0..n {
        let w = r.pick(WORDS);
        if i == 0 {
            let mut c = w.chars();
            if let Some(first) = c.next() {
                out.push(first.to_ascii_uppercase());
                out.push_str(c.as_str());
            }
        } else {
            out.push(' ');
            out.push_str(w);
        }
        if i + 1 < n && r.chance(8) {
            out.push(',');
        }
    }
    out.push_str(r.pick(&[".", ".", ".", "?", "!", ";"]));
}

const PROSE: &str = "When a program finishes, the interesting part of what it printed is \
usually small: the one test that failed, the two warnings that matter, the line where the \
build stopped. Everything else is scaffolding. A careful reader skims the scaffolding, but \
a reader who pays for every word would rather not see it at all, provided nothing important \
was thrown away and anything left out can be fetched again on request.\n\nThat is the whole \
bargain. It's simple to state and surprisingly hard to keep, because \"important\" depends \
on what the reader will do next. If they're about to fix a failing assertion, they need the \
assertion, the values it compared, and the place it lives; they don't need the four hundred \
lines announcing that other tests passed. If they're deciding whether to merge, they need \
the totals, and they'd like to know the totals weren't guessed.\n\n";

fn prose(seed: u64, size: usize) -> Vec<u8> {
    let mut r = Rng(seed);
    let mut s = String::from(PROSE);
    while s.len() < size {
        let sentences = 2 + r.below(6);
        for i in 0..sentences {
            if i > 0 {
                s.push(' ');
            }
            sentence(&mut r, &mut s);
        }
        s.push_str("\n\n");
    }
    s.into_bytes()
}

fn rust_code(seed: u64, size: usize) -> Vec<u8> {
    let mut r = Rng(seed);
    let mut s = String::new();
    while s.len() < size {
        let ty = {
            let k = 1 + r.below(2);
            ident(&mut r, k, 1)
        };
        let f = {
            let k = 1 + r.below(3);
            ident(&mut r, k, 0)
        };
        let a = ident(&mut r, 1, 0);
        let b = ident(&mut r, 2, 0);
        let k = ident(&mut r, 2, 2);
        s.push_str(&format!(
            "/// Returns the {a} of the {b}, or an error when it is missing.\n\
             pub fn {f}(&self, {a}: &{ty}, {b}: usize) -> Result<Option<{ty}>, Error> {{\n    \
             let mut {b}_{a} = Vec::with_capacity({b} + {n});\n    \
             for (i, item) in self.{a}.iter().enumerate() {{\n        \
             if item.{b} >= {k} && i % {m} == 0 {{\n            \
             {b}_{a}.push(item.clone());\n        }}\n    }}\n    \
             match {b}_{a}.first() {{\n        Some(x) => Ok(Some(x.clone())),\n        \
             None => Err(Error::NotFound(format!(\"no {a} in {{:?}}\", {b}))),\n    }}\n}}\n\n",
            n = r.below(1000),
            m = 1 + r.below(16),
        ));
        if r.chance(30) {
            s.push_str(&format!(
                "const {k}: usize = 0x{h:x};\n\n#[derive(Debug, Clone, PartialEq)]\nstruct {ty} {{\n    \
                 {a}: Vec<u8>,\n    {b}: Option<Box<{ty}>>,\n}}\n\n",
                h = r.next() & 0xffff_ffff
            ));
        }
    }
    s.into_bytes()
}

fn python_code(seed: u64, size: usize) -> Vec<u8> {
    let mut r = Rng(seed);
    let mut s = String::from("import os\nimport sys\nfrom typing import Any, Optional\n\n\n");
    while s.len() < size {
        let cls = ident(&mut r, 2, 1);
        let f = ident(&mut r, 2, 0);
        let a = ident(&mut r, 1, 0);
        let b = ident(&mut r, 2, 0);
        s.push_str(&format!(
            "class {cls}:\n    \"\"\"Keeps the {a} for one {b}.\"\"\"\n\n    \
             def __init__(self, {a}: str, {b}: Optional[int] = None) -> None:\n        \
             self.{a} = {a}\n        self.{b} = {b} or {n}\n\n    \
             def {f}(self, *args: Any, **kwargs: Any) -> dict[str, Any]:\n        \
             if not self.{a}:\n            raise ValueError(f\"missing {a}: {{self.{b}!r}}\")\n        \
             return {{\"{a}\": self.{a}, \"{b}\": self.{b}, \"path\": os.path.join(\"/tmp\", \"{f}.json\")}}\n\n\n",
            n = r.below(100_000)
        ));
    }
    s.into_bytes()
}

fn json_value(r: &mut Rng, s: &mut String, depth: usize, pretty: bool, indent: usize) {
    let pad = |s: &mut String, n: usize| {
        if pretty {
            s.push('\n');
            for _ in 0..n {
                s.push_str("  ");
            }
        }
    };
    match if depth > 3 {
        2 + r.below(4)
    } else {
        r.below(6)
    } {
        0 => {
            s.push('{');
            let n = 1 + r.below(5);
            for i in 0..n {
                if i > 0 {
                    s.push(',');
                }
                pad(s, indent + 1);
                s.push('"');
                let k = 1 + r.below(2);
                let style = if r.chance(50) { 0 } else { 3 };
                s.push_str(&ident(r, k, style));
                s.push_str(if pretty { "\": " } else { "\":" });
                json_value(r, s, depth + 1, pretty, indent + 1);
            }
            pad(s, indent);
            s.push('}');
        }
        1 => {
            s.push('[');
            let n = r.below(4);
            for i in 0..n {
                if i > 0 {
                    s.push_str(if pretty { ", " } else { "," });
                }
                json_value(r, s, depth + 1, false, indent + 1);
            }
            s.push(']');
        }
        2 => {
            s.push('"');
            match r.below(4) {
                0 => {
                    let n = 8 + r.below(24);
                    r.hex(s, n)
                }
                1 => {
                    for i in 0..1 + r.below(4) {
                        if i > 0 {
                            s.push(' ');
                        }
                        s.push_str(r.pick(WORDS));
                    }
                }
                2 => {
                    s.push_str("2026-");
                    s.push_str(&format!(
                        "{:02}-{:02}T{:02}:{:02}:{:02}Z",
                        1 + r.below(12),
                        1 + r.below(28),
                        r.below(24),
                        r.below(60),
                        r.below(60)
                    ));
                }
                _ => s.push_str(&format!(
                    "/usr/lib/{}/{}.so",
                    ident(r, 1, 0),
                    ident(r, 2, 0)
                )),
            }
            s.push('"');
        }
        3 => s.push_str(&format!("{}", r.below(1 << 20))),
        4 => s.push_str(&format!("{}.{:03}", r.below(1000), r.below(1000))),
        _ => s.push_str(r.pick(&["true", "false", "null"])),
    }
}

fn json(seed: u64, size: usize, pretty: bool) -> Vec<u8> {
    let mut r = Rng(seed);
    let mut s = String::new();
    while s.len() < size {
        json_value(&mut r, &mut s, 0, pretty, 0);
        s.push('\n');
    }
    s.into_bytes()
}

fn uuid(r: &mut Rng, s: &mut String) {
    r.hex(s, 8);
    s.push('-');
    r.hex(s, 4);
    s.push('-');
    r.hex(s, 4);
    s.push('-');
    r.hex(s, 4);
    s.push('-');
    r.hex(s, 12);
}

fn log(seed: u64, size: usize) -> Vec<u8> {
    let mut r = Rng(seed);
    let mut s = String::new();
    let mut t = 0usize;
    while s.len() < size {
        t += r.below(5000);
        s.push_str(&format!(
            "2026-11-{:02}T{:02}:{:02}:{:02}.{:03}Z {:5} [{}] ",
            1 + t / 86_400_000 % 28,
            t / 3_600_000 % 24,
            t / 60_000 % 60,
            t / 1000 % 60,
            t % 1000,
            r.pick(&["INFO", "DEBUG", "WARN", "ERROR", "INFO", "TRACE"]),
            ident(&mut r, 2, 0)
        ));
        match r.below(5) {
            0 => {
                s.push_str("request_id=");
                uuid(&mut r, &mut s);
                s.push_str(&format!(
                    " method={} path=/api/v{}/{}/{} status={} duration_ms={}.{}",
                    r.pick(&["GET", "POST", "PUT", "DELETE"]),
                    1 + r.below(3),
                    ident(&mut r, 1, 0),
                    r.below(100_000),
                    r.pick(&["200", "201", "204", "400", "404", "500"]),
                    r.below(2000),
                    r.below(10)
                ));
            }
            1 => {
                s.push_str("commit ");
                r.hex(&mut s, 40);
                s.push_str(" pushed by ");
                s.push_str(&ident(&mut r, 1, 0));
                s.push_str(&format!(
                    " from 10.{}.{}.{}:{}",
                    r.below(256),
                    r.below(256),
                    r.below(256),
                    1024 + r.below(60000)
                ));
            }
            2 => {
                s.push_str(&format!(
                    "retrying {} (attempt {}/5) after {}ms: connection reset by peer",
                    ident(&mut r, 2, 0),
                    1 + r.below(5),
                    r.below(10_000)
                ));
            }
            3 => {
                s.push_str("span=0x");
                r.hex(&mut s, 16);
                s.push_str(" trace=");
                r.hex(&mut s, 32);
                s.push_str(&format!(" {}", ident(&mut r, 3, 3)));
            }
            _ => {
                sentence(&mut r, &mut s);
            }
        }
        s.push('\n');
    }
    s.into_bytes()
}

fn test_output(seed: u64, size: usize) -> Vec<u8> {
    let mut r = Rng(seed);
    let mut s = String::from(
        "============================= test session starts ==============================\n\
         platform linux -- Python 3.12.1, pytest-8.3.4, pluggy-1.5.0\nrootdir: /home/dev/project\n\
         collected 1284 items\n\n",
    );
    while s.len() < size {
        let module = ident(&mut r, 2, 0);
        let cls = ident(&mut r, 2, 1);
        match r.below(4) {
            0 => {
                let dots = 10 + r.below(60);
                s.push_str(&format!("tests/test_{module}.py "));
                for _ in 0..dots {
                    s.push(if r.chance(3) { 'F' } else { '.' });
                }
                s.push_str(&format!(
                    "{:>width$}[{:3}%]\n",
                    "",
                    r.below(101),
                    width = 80usize.saturating_sub(dots + module.len() + 15)
                ));
            }
            1 => {
                s.push_str(&format!(
                    "test {module}::tests::{} ... {}\n",
                    ident(&mut r, 3, 0),
                    r.pick(&["ok", "ok", "ok", "FAILED", "ignored"])
                ));
            }
            2 => {
                s.push_str(&format!(
                    "FAILED tests/test_{module}.py::Test{cls}::test_{} - AssertionError: assert {} == {}\n",
                    ident(&mut r, 2, 0),
                    r.below(1000),
                    r.below(1000)
                ));
            }
            _ => {
                s.push_str(&format!(
                    "    def test_{m}(self):\n>       assert self.{m}(\"{w}\") == {{'{a}': {n}}}\nE       AssertionError: assert {{'{a}': {k}}} == {{'{a}': {n}}}\nE         Differing items:\nE         {{'{a}': {k}}} != {{'{a}': {n}}}\n\ntests/test_{module}.py:{l}: AssertionError\n",
                    m = ident(&mut r, 2, 0),
                    w = r.pick(WORDS),
                    a = ident(&mut r, 1, 0),
                    n = r.below(100),
                    k = r.below(100),
                    l = 1 + r.below(900)
                ));
            }
        }
    }
    s.push_str(
        "=========================== short test summary info ============================\n",
    );
    s.push_str("============ 17 failed, 1262 passed, 5 skipped in 41.27s ============\n");
    s.into_bytes()
}

fn hex_dump(seed: u64, size: usize) -> Vec<u8> {
    const B64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut r = Rng(seed);
    let mut s = String::new();
    while s.len() < size {
        match r.below(3) {
            0 => {
                r.hex(&mut s, 64);
                s.push_str(&format!(
                    "  ./target/release/deps/lib{}-",
                    ident(&mut r, 1, 0)
                ));
                r.hex(&mut s, 16);
                s.push_str(".rlib\n");
            }
            1 => {
                s.push_str(&format!("{:08x}: ", r.below(1 << 24) * 16));
                for _ in 0..8 {
                    r.hex(&mut s, 4);
                    s.push(' ');
                }
                s.push_str(" ................\n");
            }
            _ => {
                for _ in 0..76 {
                    s.push(char::from(B64[r.below(64)]));
                }
                s.push('\n');
            }
        }
    }
    s.into_bytes()
}

fn ansi(seed: u64, size: usize) -> Vec<u8> {
    let mut r = Rng(seed);
    let mut s = String::new();
    while s.len() < size {
        let c = r.pick(&["31", "32", "33", "1;31", "1;32", "36", "90"]);
        s.push_str(&format!(
            "\x1b[{c}m{:>12}\x1b[0m {} v{}.{}.{} ({})\n",
            r.pick(&[
                "Compiling",
                "Checking",
                "Finished",
                "warning",
                "error",
                "Running"
            ]),
            ident(&mut r, 2, 0).replace('_', "-"),
            r.below(3),
            r.below(40),
            r.below(20),
            ident(&mut r, 1, 0)
        ));
        if r.chance(20) {
            s.push_str("\x1b[2K\r[=====>            ] 31%\r[===========>      ] 63%\r[==================] 100%\n");
        }
    }
    s.into_bytes()
}

const INTL: &[&str] = &[
    "Die Datei konnte nicht geöffnet werden: Zugriff verweigert.",
    "Größe überschreitet das zulässige Maximum für Übertragungen.",
    "Impossible d'écrire le fichier « résultat.txt » : espace disque insuffisant.",
    "La compilation a échoué après trois tentatives répétées.",
    "Не удалось подключиться к серверу базы данных: превышено время ожидания.",
    "Ошибка в строке 42: неожиданный символ после выражения.",
    "无法打开文件：权限被拒绝。请检查配置后重试。",
    "测试失败：期望值为三，实际值为五。",
    "ファイルを開けませんでした。設定を確認してください。",
    "テストが失敗しました：予期しない値が返されました。",
    "Η σύνδεση με τον διακομιστή απέτυχε λόγω λήξης χρόνου.",
    "파일을 열 수 없습니다. 권한을 확인하세요.",
    "El archivo de configuración contiene un valor inválido en la línea 17.",
    "✓ builds the parser  ✗ rejects trailing commas  → see details below",
    "🎉 All checks passed! 🚀 Deployed in 3.2s ⏱️",
    "│ name │ status │ time │",
    "├──────┼────────┼──────┤",
    "└──────┴────────┴──────┘",
    "• first item · second item — third item … done",
    "Temperature: 23 °C ± 0.5 · humidity 40 % · 1 µs latency × 3",
];

fn non_ascii(seed: u64, size: usize) -> Vec<u8> {
    let mut r = Rng(seed);
    let mut s = String::new();
    while s.len() < size {
        let line = r.pick(INTL);
        if r.chance(40) {
            s.push_str(&format!("[{}] ", r.pick(&["INFO", "ERROR", "WARN"])));
        }
        s.push_str(line);
        if r.chance(30) {
            s.push(' ');
            sentence(&mut r, &mut s);
        }
        s.push('\n');
    }
    s.into_bytes()
}

fn table(seed: u64, size: usize) -> Vec<u8> {
    let mut r = Rng(seed);
    let mut s = String::from(
        "NAME                                READY   STATUS             RESTARTS   AGE\n",
    );
    while s.len() < size {
        let mut name = ident(&mut r, 2, 0).replace('_', "-");
        name.push('-');
        r.hex(&mut name, 10);
        name.push('-');
        for _ in 0..5 {
            name.push(char::from(b"bcdfghjklmnpqrstvwxz2456789"[r.below(27)]));
        }
        s.push_str(&format!(
            "{name:<36}{}/{}     {:<18} {:<10} {}{}\n",
            r.below(3),
            1 + r.below(2),
            r.pick(&[
                "Running",
                "Pending",
                "CrashLoopBackOff",
                "Completed",
                "Error"
            ]),
            r.below(40),
            1 + r.below(59),
            r.pick(&["s", "m", "h", "d"])
        ));
    }
    s.into_bytes()
}
