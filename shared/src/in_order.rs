//! Work on several threads, results in order: what the scanner (pages of
//! a search) and the index build (pages to tokenise) both need.
//!
//! Promise: `take` sees every item's result exactly once, in the items'
//! order, and as soon as the results of all the items before it are in.
//! No worker starts an item more than [`AHEAD`] per worker past the next
//! one `take` waits for, so the results held at once (finished, not yet
//! taken) are bounded by the workers, never by the number of items. When
//! `take` breaks, no item is started afterwards and no result is handed
//! on; when a worker panics, the others stop and the caller panics.

use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};

/// How many items past the one `take` waits for each worker may start.
pub const AHEAD: usize = 2;

/// Runs `work` on each of `items` on up to `workers` threads, each with
/// its own state from `state`, and hands `take` each result with its
/// item's position. Returns how many results `take` was handed.
pub fn in_order<T: Sync, S, R: Send>(
    items: &[T],
    workers: usize,
    state: impl Fn() -> S + Sync,
    work: impl Fn(&mut S, &T) -> R + Sync,
    mut take: impl FnMut(usize, R) -> ControlFlow<()>,
) -> usize {
    let workers = workers.clamp(1, items.len().max(1));
    if workers == 1 {
        // One worker: the calling thread, with no thread started.
        let mut own = state();
        for (n, item) in items.iter().enumerate() {
            if take(n, work(&mut own, item)).is_break() {
                return n + 1;
            }
        }
        return items.len();
    }
    let next = AtomicUsize::new(0);
    let gate = Gate::new(workers * AHEAD);
    let mut taken = 0;
    std::thread::scope(|s| {
        let (tx, rx) = std::sync::mpsc::sync_channel::<(usize, R)>(workers * AHEAD);
        for _ in 0..workers {
            let (tx, next, state, work, gate) = (tx.clone(), &next, &state, &work, &gate);
            s.spawn(move || {
                let _stops_the_rest_on_panic = gate.close_on_unwind();
                let mut own = state();
                loop {
                    let n = next.fetch_add(1, Ordering::SeqCst);
                    let Some(item) = items.get(n) else { break };
                    if !gate.wait_for_room(n) || tx.send((n, work(&mut own, item))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        // Closes the gate however this ends (a break, or `take` panicking),
        // so no worker waits for room that will never come.
        let _closes = gate.close_on_drop();
        let mut pending = BTreeMap::new();
        'receive: for (n, result) in rx {
            pending.insert(n, result);
            while let Some(result) = pending.remove(&taken) {
                taken += 1;
                if take(taken - 1, result).is_break() {
                    // Stop the workers: they take no new item, and their
                    // next send fails once the receiver is gone.
                    next.store(items.len(), Ordering::SeqCst);
                    break 'receive;
                }
                gate.taken(taken);
            }
        }
    });
    taken
}

/// How far the workers may run ahead of `take`: item `n` may start once
/// fewer than `ahead` items separate it from the next one to be taken.
struct Gate {
    ahead: usize,
    state: Mutex<GateState>,
    moved: Condvar,
}

#[derive(Default)]
struct GateState {
    taken: usize,
    closed: bool,
}

impl Gate {
    fn new(ahead: usize) -> Gate {
        Gate {
            ahead: ahead.max(1),
            state: Mutex::default(),
            moved: Condvar::new(),
        }
    }

    /// Waits until item `n` may start; `false` when the work was stopped.
    /// The item `take` waits for never waits here (it is 0 items ahead),
    /// so the wait always ends.
    fn wait_for_room(&self, n: usize) -> bool {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        while n >= state.taken + self.ahead && !state.closed {
            state = self.moved.wait(state).unwrap_or_else(|e| e.into_inner());
        }
        !state.closed
    }

    fn taken(&self, taken: usize) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.taken = taken;
        drop(state);
        self.moved.notify_all();
    }

    fn close(&self) {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).closed = true;
        self.moved.notify_all();
    }

    /// Closes the gate when dropped.
    fn close_on_drop(&self) -> Closer<'_> {
        Closer(self, false)
    }

    /// Closes the gate when dropped while its thread panics.
    fn close_on_unwind(&self) -> Closer<'_> {
        Closer(self, true)
    }
}

/// Closes its gate when dropped (only in a panic, when `.1` says so).
struct Closer<'a>(&'a Gate, bool);

impl Drop for Closer<'_> {
    fn drop(&mut self) {
        if !self.1 || std::thread::panicking() {
            self.0.close();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_worker_runs_on_the_calling_thread_and_a_break_stops_the_work() {
        let me = std::thread::current().id();
        let items: Vec<u64> = (0..10).collect();
        let mut seen = Vec::new();
        let taken = in_order(
            &items,
            1,
            || (),
            |_, &x| (x, std::thread::current().id()),
            |n, (x, thread)| {
                assert_eq!(thread, me);
                seen.push((n, x));
                if n == 4 {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            },
        );
        assert_eq!(taken, 5);
        assert_eq!(seen, (0..5).map(|n| (n as usize, n)).collect::<Vec<_>>());
    }

    #[test]
    fn results_come_in_the_items_order_and_a_break_stops_the_work() {
        let items: Vec<u64> = (0..200).collect();
        // Later items finish first, so results arrive out of order.
        let slow_first = |_: &mut (), &x: &u64| {
            std::thread::sleep(std::time::Duration::from_micros(200 - x));
            x * 2
        };
        let mut seen = Vec::new();
        let taken = in_order(
            &items,
            4,
            || (),
            slow_first,
            |n, r| {
                seen.push((n, r));
                ControlFlow::Continue(())
            },
        );
        assert_eq!(taken, 200);
        assert_eq!(
            seen,
            (0..200).map(|n| (n as usize, n * 2)).collect::<Vec<_>>()
        );
        // How far the workers got ahead of `take` depends on the
        // scheduler; what is promised is that none starts an item after
        // the break, beyond the one each may have claimed just before it.
        let started = AtomicUsize::new(0);
        let at_break = AtomicUsize::new(0);
        let count = |_: &mut (), _: &u64| started.fetch_add(1, Ordering::SeqCst);
        let taken = in_order(
            &items,
            2,
            || (),
            count,
            |n, _| {
                if n == 9 {
                    at_break.store(started.load(Ordering::SeqCst), Ordering::SeqCst);
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            },
        );
        assert_eq!(taken, 10);
        let (started, at_break) = (started.into_inner(), at_break.into_inner());
        assert!(
            started <= at_break + 2,
            "work stopped at the break: {started} started, {at_break} before it"
        );
    }

    #[test]
    fn no_item_starts_more_than_ahead_per_worker_past_the_one_take_waits_for() {
        let items: Vec<usize> = (0..100).collect();
        let workers = 2;
        // Item 0 is slow, so without a bound the other worker would run
        // every other item while `take` waits for it.
        let taken = AtomicUsize::new(0);
        let furthest = AtomicUsize::new(0);
        let work = |_: &mut (), &n: &usize| {
            furthest.fetch_max(n - taken.load(Ordering::SeqCst).min(n), Ordering::SeqCst);
            if n == 0 {
                std::thread::sleep(std::time::Duration::from_millis(30));
            }
            n
        };
        let handed = in_order(
            &items,
            workers,
            || (),
            work,
            |n, r| {
                assert_eq!(n, r);
                taken.store(n + 1, Ordering::SeqCst);
                ControlFlow::Continue(())
            },
        );
        assert_eq!(handed, 100);
        let furthest = furthest.into_inner();
        assert!(
            furthest < workers * AHEAD,
            "an item started {furthest} past the one `take` waited for (bound {})",
            workers * AHEAD
        );
    }

    #[test]
    fn a_worker_that_panics_stops_the_others_and_the_panic_reaches_the_caller() {
        let items: Vec<usize> = (0..100).collect();
        let outcome = std::panic::catch_unwind(|| {
            in_order(
                &items,
                2,
                || (),
                |_: &mut (), &n: &usize| {
                    if n == 0 {
                        // The others are held at the gate while this waits.
                        std::thread::sleep(std::time::Duration::from_millis(20));
                        panic!("item 0 failed");
                    }
                    n
                },
                |_, _| ControlFlow::Continue(()),
            )
        });
        // The scope re-raises it as its own panic, once every worker has
        // stopped; the test ends rather than waiting at the gate.
        assert!(outcome.is_err(), "the worker's panic reaches the caller");
    }
}
