//! A byte-budgeted LRU of parsed pages that coalesces concurrent loads.
//!
//! Promises: the sum of the costs (raw page bytes) of the entries held
//! never exceeds the budget; callers asking for the same key while it is
//! being loaded wait for that one load instead of starting their own; a
//! failed load is handed to every waiter and is not cached, so the next
//! call tries again.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex, OnceLock};

use lru::LruCache;

/// The default budget: 48 MB of raw page bytes (a parsed page holds about
/// 2.7 times its file size, so about 130 MB resident).
pub const DEFAULT_BUDGET_MB: u64 = 48;

/// The budget from `TRANSCRIPT_MCP_PAGE_CACHE_MB`, else the default.
pub fn budget_from_env() -> u64 {
    std::env::var("TRANSCRIPT_MCP_PAGE_CACHE_MB")
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok())
        .unwrap_or(DEFAULT_BUDGET_MB)
        * 1024
        * 1024
}

type Loaded<V, E> = Result<(Arc<V>, u64), Arc<E>>;

struct Inner<K, V, E> {
    lru: LruCache<K, (Arc<V>, u64)>,
    held: u64,
    in_flight: HashMap<K, Arc<OnceLock<Loaded<V, E>>>>,
}

/// Keys `K` to shared values `V`; loads fail with `E`.
pub struct PageCache<K, V, E> {
    budget: u64,
    inner: Mutex<Inner<K, V, E>>,
}

impl<K: Hash + Eq + Clone, V, E> PageCache<K, V, E> {
    /// An empty cache that holds at most `budget_bytes` of page bytes.
    pub fn new(budget_bytes: u64) -> Self {
        PageCache {
            budget: budget_bytes,
            inner: Mutex::new(Inner {
                lru: LruCache::unbounded(),
                held: 0,
                in_flight: HashMap::new(),
            }),
        }
    }

    /// The value for `key` if the cache holds it now (nothing is loaded).
    pub fn get(&self, key: &K) -> Option<Arc<V>> {
        let mut inner = self.inner.lock().unwrap();
        inner.lru.get(key).map(|(v, _)| v.clone())
    }

    /// The value for `key`, from the cache, from a load already under way,
    /// or from `load`, which returns the value and its cost in bytes.
    pub fn get_or_load(
        &self,
        key: &K,
        load: impl FnOnce() -> Result<(V, u64), E>,
    ) -> Result<Arc<V>, Arc<E>> {
        let cell = {
            let mut inner = self.inner.lock().unwrap();
            if let Some((v, _)) = inner.lru.get(key) {
                return Ok(v.clone());
            }
            inner.in_flight.entry(key.clone()).or_default().clone()
        };
        let mut ran_load = false;
        let result = cell
            .get_or_init(|| {
                ran_load = true;
                load()
                    .map(|(v, cost)| (Arc::new(v), cost))
                    .map_err(Arc::new)
            })
            .clone();
        if ran_load {
            self.settle(key, &result);
        }
        result.map(|(v, _)| v)
    }

    /// Moves a finished load from in-flight into the LRU (when it
    /// succeeded and fits), evicting the least recently used past budget.
    fn settle(&self, key: &K, result: &Loaded<V, E>) {
        let mut inner = self.inner.lock().unwrap();
        inner.in_flight.remove(key);
        let Ok((value, cost)) = result else { return };
        if *cost > self.budget {
            return;
        }
        if let Some((_, old)) = inner.lru.put(key.clone(), (value.clone(), *cost)) {
            inner.held -= old;
        }
        inner.held += cost;
        while inner.held > self.budget {
            match inner.lru.pop_lru() {
                Some((_, (_, c))) => inner.held -= c,
                None => break,
            }
        }
    }

    /// Bytes held now.
    pub fn held_bytes(&self) -> u64 {
        self.inner.lock().unwrap().held
    }

    /// Drops every entry (a load under way still completes for its callers).
    pub fn clear(&self) {
        let mut inner = self.inner.lock().unwrap();
        inner.lru.clear();
        inner.held = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU32, Ordering};
    use std::sync::Barrier;

    #[test]
    fn the_page_cache_holds_at_most_its_budget() {
        let cache: PageCache<u32, u32, String> = PageCache::new(100);
        for k in 0..10 {
            cache.get_or_load(&k, || Ok((k, 40))).unwrap();
            assert!(cache.held_bytes() <= 100);
        }
        let loads = AtomicU32::new(0);
        let count = || {
            loads.fetch_add(1, Ordering::SeqCst);
            Ok((0, 40))
        };
        cache.get_or_load(&9, count).unwrap();
        assert_eq!(loads.load(Ordering::SeqCst), 0, "the newest entry is held");
        cache.get_or_load(&0, count).unwrap();
        assert_eq!(loads.load(Ordering::SeqCst), 1, "the oldest was evicted");
    }

    #[test]
    fn concurrent_reads_of_one_page_coalesce_into_one_load() {
        let cache: Arc<PageCache<u32, u32, String>> = Arc::new(PageCache::new(1000));
        let loads = Arc::new(AtomicU32::new(0));
        let barrier = Arc::new(Barrier::new(8));
        let threads: Vec<_> = (0..8)
            .map(|_| {
                let (cache, loads, barrier) = (cache.clone(), loads.clone(), barrier.clone());
                std::thread::spawn(move || {
                    barrier.wait();
                    cache
                        .get_or_load(&7, || {
                            loads.fetch_add(1, Ordering::SeqCst);
                            std::thread::sleep(std::time::Duration::from_millis(100));
                            Ok((42, 10))
                        })
                        .unwrap()
                })
            })
            .collect();
        for t in threads {
            assert_eq!(*t.join().unwrap(), 42);
        }
        assert_eq!(loads.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn a_failed_load_is_not_cached() {
        let cache: PageCache<u32, u32, String> = PageCache::new(1000);
        let err = cache
            .get_or_load(&1, || Err("disk on fire".to_string()))
            .unwrap_err();
        assert_eq!(*err, "disk on fire");
        assert_eq!(*cache.get_or_load(&1, || Ok((5, 1))).unwrap(), 5);
    }
}
