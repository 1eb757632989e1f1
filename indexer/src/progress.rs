//! Progress of long work on stderr: a bar on a terminal, plain lines
//! (about every 10%) otherwise, so logs stay readable in CI.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};

use indicatif::{ProgressBar, ProgressStyle};

/// Counts units of work towards a total.
pub struct Progress {
    label: String,
    /// What is counted (`pages`, `videos`).
    unit: &'static str,
    bar: Option<ProgressBar>,
    total: AtomicU64,
    done: AtomicU64,
}

impl Progress {
    /// Progress of `label`, counted in `unit`s.
    pub fn new(label: &str, unit: &'static str) -> Self {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::new(0);
            bar.set_style(
                ProgressStyle::with_template(&format!(
                    "{{msg}} [{{bar:40}}] {{pos}}/{{len}} {unit}, {{elapsed}}"
                ))
                .expect("a valid template")
                .progress_chars("=> "),
            );
            bar.set_message(label.to_string());
            bar
        });
        Progress {
            label: label.to_string(),
            unit,
            bar,
            total: AtomicU64::new(0),
            done: AtomicU64::new(0),
        }
    }

    pub fn set_total(&self, total: u64) {
        self.total.store(total, Ordering::SeqCst);
        match &self.bar {
            Some(bar) => bar.set_length(total),
            None => eprintln!("{}: {total} {} to read", self.label, self.unit),
        }
    }

    pub fn tick(&self) {
        let done = self.done.fetch_add(1, Ordering::SeqCst) + 1;
        let total = self.total.load(Ordering::SeqCst).max(1);
        match &self.bar {
            Some(bar) => bar.inc(1),
            None if done * 10 / total != (done - 1) * 10 / total || done == total => {
                eprintln!("{}: {done}/{total} {}", self.label, self.unit)
            }
            None => {}
        }
    }

    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
