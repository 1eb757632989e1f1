//! Work on several threads, results in order: what the scanner (pages of
//! a search) and the index build (pages to tokenise) both need.
//!
//! Promise: `take` sees every item's result exactly once, in the items'
//! order, and as soon as the results of all the items before it are in;
//! only results that came in ahead of the next one are held, so memory
//! does not grow with the number of items. When `take` breaks, no item
//! is started afterwards and no result is handed on.

use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicUsize, Ordering};

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
    let mut taken = 0;
    std::thread::scope(|s| {
        let (tx, rx) = std::sync::mpsc::sync_channel::<(usize, R)>(workers * 2);
        for _ in 0..workers {
            let (tx, next, state, work) = (tx.clone(), &next, &state, &work);
            s.spawn(move || {
                let mut own = state();
                loop {
                    let n = next.fetch_add(1, Ordering::SeqCst);
                    let Some(item) = items.get(n) else { break };
                    if tx.send((n, work(&mut own, item))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
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
            }
        }
    });
    taken
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
}
