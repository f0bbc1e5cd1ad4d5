//! The words of an install's notes (`InstallNote`).

use crate::delivery_plan::InstallNote;
use crate::words::count;

/// How many warning classes the note names before "… N more".
const TOP_CLASSES: usize = 6;

pub fn words(note: &InstallNote) -> String {
    match note {
        InstallNote::Warnings { total, classes } => {
            let mut parts: Vec<String> = classes
                .iter()
                .take(TOP_CLASSES)
                .map(|(c, n)| format!("{c} ×{}", count(*n)))
                .collect();
            if classes.len() > TOP_CLASSES {
                parts.push(format!(
                    "… {} more kinds",
                    count(classes.len() - TOP_CLASSES)
                ));
            }
            let noun = if *total == 1 { "warning" } else { "warnings" };
            format!("{} {noun}: {}", count(*total), parts.join(" · "))
        }
        InstallNote::NoFailureLine => "no failure line recognised: the end of the output".into(),
    }
}
