//! Progress of long work on stderr: a bar on a terminal, plain lines
//! (about every 10%) otherwise, so logs stay readable in CI.
//!
//! Promise: a bar is drawn only once its length is known
//! ([`Progress::set_total`]), so it never shows `0/0`.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use indicatif::{ProgressBar, ProgressStyle};

/// Counts units of work towards a total.
pub struct Progress {
    label: String,
    /// What is counted (`pages`, `videos`).
    unit: &'static str,
    /// What is done to them, for the plain line (`to read`).
    verb: &'static str,
    /// Whether stderr is a terminal (a bar) or not (plain lines).
    on_terminal: bool,
    /// The bar, made when the total is known.
    bar: OnceLock<ProgressBar>,
    total: AtomicU64,
    done: AtomicU64,
    /// When the total became known: what the time left is estimated from.
    started: OnceLock<std::time::Instant>,
}

impl Progress {
    /// Progress of `label`, counted in `unit`s.
    pub fn new(label: &str, unit: &'static str) -> Self {
        Progress {
            label: label.to_string(),
            unit,
            verb: "to read",
            on_terminal: std::io::stderr().is_terminal(),
            bar: OnceLock::new(),
            total: AtomicU64::new(0),
            done: AtomicU64::new(0),
            started: OnceLock::new(),
        }
    }

    /// The same, its plain lines saying `verb` (`to embed`) of the total.
    pub fn doing(mut self, verb: &'static str) -> Self {
        self.verb = verb;
        self
    }

    /// Sets how many steps there are, once known.
    pub fn set_total(&self, total: u64) {
        self.total.store(total, Ordering::SeqCst);
        let _ = self.started.set(std::time::Instant::now());
        if !self.on_terminal {
            eprintln!("{}: {total} {} {}", self.label, self.unit, self.verb);
            return;
        }
        match self.bar.get() {
            Some(bar) => bar.set_length(total),
            None => {
                let bar = self.make_bar(total);
                bar.set_position(self.done.load(Ordering::SeqCst));
                let _ = self.bar.set(bar);
            }
        }
    }

    fn make_bar(&self, total: u64) -> ProgressBar {
        let bar = ProgressBar::new(total);
        bar.set_style(
            ProgressStyle::with_template(&format!(
                "{{msg}} [{{bar:40}}] {{pos}}/{{len}} {}, {{elapsed}}, about {{eta}} left",
                self.unit
            ))
            .expect("a valid template")
            .progress_chars("=> "),
        );
        bar.set_message(self.label.clone());
        bar
    }

    /// One step done.
    pub fn tick(&self) {
        self.inc(1)
    }

    /// `n` steps done.
    pub fn inc(&self, n: u64) {
        if n == 0 {
            return;
        }
        let done = self.done.fetch_add(n, Ordering::SeqCst) + n;
        let total = self.total.load(Ordering::SeqCst).max(1);
        if self.on_terminal {
            if let Some(bar) = self.bar.get() {
                bar.inc(n);
            }
        } else if done * 10 / total != (done - n) * 10 / total || done == total {
            eprintln!(
                "{}: {done}/{total} {}{}",
                self.label,
                self.unit,
                self.time_left(done, total)
            )
        }
    }

    /// `, N s, about M s left` from the pace so far (empty before any
    /// step).
    fn time_left(&self, done: u64, total: u64) -> String {
        let Some(started) = self.started.get() else {
            return String::new();
        };
        let spent = started.elapsed().as_secs_f64();
        let left = spent / done as f64 * total.saturating_sub(done) as f64;
        format!(", {spent:.0} s, about {left:.0} s left")
    }

    /// Every step done: clears a bar, or says so in one line.
    pub fn finish(&self) {
        if let Some(bar) = self.bar.get() {
            bar.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bar_is_drawn_only_once_its_length_is_known() {
        let mut p = Progress::new("build", "pages");
        p.on_terminal = true;
        p.tick();
        assert!(p.bar.get().is_none(), "no 0/0 bar before the total");
        p.set_total(42);
        let bar = p.bar.get().expect("a bar once the total is known");
        assert_eq!((bar.position(), bar.length()), (1, Some(42)));
        p.finish();
    }
}
