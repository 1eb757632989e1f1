//! Answers a loaded index has already given, kept so a warm server works
//! each out once: the index's files do not change while it is loaded (a
//! changed index is loaded anew, with empty memos).
//!
//! Promise: [`Memo::get`] gives back only what [`Memo::put`] stored under
//! the same key, and a memo never holds more than its bound: when full,
//! it forgets every answer at once, so a burst of new questions costs
//! their work again, never memory.

use std::hash::Hash;

use rustc_hash::FxHashMap;
use std::sync::Mutex;

/// A bounded memo of answers, by their arguments.
pub struct Memo<K, V> {
    /// Keyed with a fast hash: the keys are the index's own words, not
    /// chosen by an attacker who could make them collide to any effect
    /// but a slower answer.
    answers: Mutex<FxHashMap<K, V>>,
    bound: usize,
}

impl<K: Hash + Eq, V: Clone> Memo<K, V> {
    /// An empty memo keeping at most `bound` answers.
    pub fn new(bound: usize) -> Self {
        Memo {
            answers: Mutex::new(FxHashMap::default()),
            bound,
        }
    }

    /// The answer stored for `key`.
    pub fn get(&self, key: &K) -> Option<V> {
        self.answers.lock().ok()?.get(key).cloned()
    }

    /// Stores `answer` for `key`, first forgetting every answer when the
    /// memo is full.
    pub fn put(&self, key: K, answer: V) {
        if let Ok(mut answers) = self.answers.lock() {
            if answers.len() >= self.bound {
                answers.clear();
            }
            answers.insert(key, answer);
        }
    }

    /// `key`'s answer, worked out by `work` when not stored yet (and
    /// then stored).
    pub fn get_or(&self, key: K, work: impl FnOnce() -> V) -> V {
        if let Some(answer) = self.get(&key) {
            return answer;
        }
        let answer = work();
        self.put(key, answer.clone());
        answer
    }
}

impl<K, V> std::fmt::Debug for Memo<K, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Memo(at most {})", self.bound)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_memo_forgets_everything_and_never_passes_its_bound() {
        let memo = Memo::new(2);
        memo.put(1, "one");
        memo.put(2, "two");
        assert_eq!((memo.get(&1), memo.get(&2)), (Some("one"), Some("two")));
        memo.put(3, "three");
        assert_eq!((memo.get(&1), memo.get(&2)), (None, None));
        assert_eq!(memo.get(&3), Some("three"));
        let mut worked = 0;
        assert_eq!(
            memo.get_or(3, || {
                worked += 1;
                "again"
            }),
            "three"
        );
        assert_eq!(
            memo.get_or(4, || {
                worked += 1;
                "four"
            }),
            "four"
        );
        assert_eq!(worked, 1);
        assert_eq!(memo.answers.lock().unwrap().len(), 2);
    }
}
