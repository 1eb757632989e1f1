//! One memory budget, in bytes, for the page bytes a process holds while
//! it works: every whole-page read takes a share of it before the bytes
//! are read ([`crate::archive::Site::page_bytes`]) and gives it back when
//! the bytes are dropped ([`PageBytes`]).
//!
//! A share is [`PARSE_FACTOR`] times the page's size as its manifest
//! gives it: the bytes, and what parsing them holds beside them. The
//! budget belongs to whoever opens archives: it is in their
//! [`crate::archive::OpenOptions`], shared by every archive opened with
//! them. A long-running server makes one of its `--max-memory`; the
//! command line leaves it unlimited ([`Budget::unlimited`]).
//!
//! Promise: the shares held at once never add up to more than the limit,
//! except for one share that alone is larger than the limit, which is
//! then the only one held (so a page larger than the budget is still
//! readable, one at a time). A share waits for room at most
//! [`WAIT_FOR_ROOM`]; past that the read fails with [`Spent`], whose
//! message says what to do, never with an allocation failure.

use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// How much a page's share is, per byte of its file.
pub const PARSE_FACTOR: u64 = 2;

/// The longest a read waits for room in the budget.
pub const WAIT_FOR_ROOM: Duration = Duration::from_secs(30);

/// The budget: its limit and what is held.
#[derive(Debug)]
pub struct Budget {
    limit: u64,
    held: Mutex<u64>,
    freed: Condvar,
}

/// No room was made in the budget in time.
#[derive(Debug, Clone, thiserror::Error)]
#[error("the memory budget ({limit_mb} MB, --max-memory) is spent by other calls reading pages, and no room was made within {waited_s} s: try again shortly, narrow the call (channels, dates, fewer videos), or raise --max-memory")]
pub struct Spent {
    /// The limit, in MB.
    pub limit_mb: u64,
    /// How long the read waited.
    pub waited_s: u64,
}

impl Budget {
    /// A budget of `limit` bytes.
    pub fn new(limit: u64) -> Budget {
        Budget {
            limit,
            held: Mutex::new(0),
            freed: Condvar::new(),
        }
    }

    /// A budget with no limit, which keeps no page between calls (the
    /// command line's: it reads each page once).
    pub fn unlimited() -> Budget {
        Budget::new(u64::MAX)
    }

    /// The limit, in bytes.
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// The part of the limit that parsed pages kept between calls may
    /// hold ([`crate::archive::Site::page_view`]): half, so the other half
    /// is always there for the calls' own reads; none when the budget is
    /// unlimited (the command line, which reads each page once).
    pub fn keep_limit(&self) -> u64 {
        if self.limit == u64::MAX {
            0
        } else {
            self.limit / 2
        }
    }

    /// Bytes held now.
    pub fn held(&self) -> u64 {
        *self.held.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A share of `bytes` (capped at the limit), waiting at most `wait`
    /// for room.
    pub fn take(self: &Arc<Self>, bytes: u64, wait: Duration) -> Result<Share, Spent> {
        let bytes = bytes.min(self.limit);
        let deadline = Instant::now() + wait;
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        while *held + bytes > self.limit {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(Spent {
                    limit_mb: self.limit >> 20,
                    waited_s: wait.as_secs(),
                });
            }
            held = self
                .freed
                .wait_timeout(held, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        *held += bytes;
        Ok(Share {
            budget: self.clone(),
            bytes,
        })
    }
}

/// A part of the budget, given back when dropped.
pub struct Share {
    budget: Arc<Budget>,
    bytes: u64,
}

impl Drop for Share {
    fn drop(&mut self) {
        let mut held = self.budget.held.lock().unwrap_or_else(|e| e.into_inner());
        *held -= self.bytes;
        self.budget.freed.notify_all();
    }
}

/// A page's bytes with the share of the budget they hold.
pub struct PageBytes {
    bytes: Vec<u8>,
    share: Share,
}

impl PageBytes {
    /// `bytes`, holding `share`.
    pub fn new(bytes: Vec<u8>, share: Share) -> PageBytes {
        PageBytes { bytes, share }
    }

    /// The size of the share these bytes hold.
    pub fn share_bytes(&self) -> u64 {
        self.share.bytes
    }
}

impl AsRef<[u8]> for PageBytes {
    fn as_ref(&self) -> &[u8] {
        &self.bytes
    }
}

impl std::ops::Deref for PageBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn budget(limit: u64) -> Arc<Budget> {
        Arc::new(Budget::new(limit))
    }

    #[test]
    fn shares_never_exceed_the_limit_and_wait_for_room() {
        let b = budget(100);
        let first = b.take(60, Duration::ZERO).unwrap();
        let refused = b.take(50, Duration::from_millis(20)).err().unwrap();
        assert!(refused.to_string().contains("--max-memory"), "{refused}");
        assert_eq!(b.held(), 60);
        let waiter = b.clone();
        let waiting =
            std::thread::spawn(move || waiter.take(50, Duration::from_secs(5)).map(|s| s.bytes));
        std::thread::sleep(Duration::from_millis(50));
        drop(first);
        assert_eq!(waiting.join().unwrap().unwrap(), 50);
        assert_eq!(
            b.held(),
            0,
            "the waiter's share was given back when dropped"
        );
    }

    #[test]
    fn a_share_larger_than_the_limit_runs_alone() {
        let b = budget(100);
        let big = b.take(500, Duration::ZERO).unwrap();
        assert_eq!(b.held(), 100);
        assert!(b.take(1, Duration::from_millis(10)).is_err());
        drop(big);
        assert!(b.take(100, Duration::ZERO).is_ok());
    }
}
