//! An on-disk cache of HTTP bodies under the cache dir, kept within a byte
//! budget by evicting the least recently used entries.
//!
//! An entry is a body plus the validators (`ETag`, `Last-Modified`) it was
//! served with. Keys are hashed into file names, so any key is safe. Writes
//! go to a temporary file and are renamed into place: a reader never sees
//! half a body. A damaged entry is treated as absent.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use super::sha256_hex;

/// Validators a server gave with a body.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Validators {
    pub etag: Option<String>,
    pub last_modified: Option<String>,
}

/// One directory of cached bodies with a byte budget.
#[derive(Debug)]
pub struct DiskCache {
    dir: PathBuf,
    budget: u64,
    /// File stem → (bytes, last use), read from the directory when first
    /// needed: a process that reads only local files never lists it.
    entries: OnceLock<Mutex<HashMap<String, (u64, SystemTime)>>>,
}

impl DiskCache {
    /// Opens (creating) `dir` with a budget in bytes. Fails only when the
    /// directory cannot be created; callers then run without a disk cache.
    pub fn open(dir: &Path, budget: u64) -> std::io::Result<Self> {
        std::fs::create_dir_all(dir)?;
        Ok(DiskCache {
            dir: dir.to_path_buf(),
            budget,
            entries: OnceLock::new(),
        })
    }

    /// The entries, listed from the directory on first use.
    fn entries(&self) -> &Mutex<HashMap<String, (u64, SystemTime)>> {
        self.entries.get_or_init(|| {
            let mut entries = HashMap::new();
            for entry in std::fs::read_dir(&self.dir).into_iter().flatten().flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                let Some(stem) = name.strip_suffix(".body") else {
                    continue;
                };
                if let Ok(meta) = entry.metadata() {
                    let used = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
                    entries.insert(stem.to_string(), (meta.len(), used));
                }
            }
            Mutex::new(entries)
        })
    }

    /// The body and validators stored under `key`, marking it used.
    pub fn get(&self, key: &str) -> Option<(Vec<u8>, Validators)> {
        let stem = sha256_hex(key.as_bytes());
        let body = std::fs::read(self.dir.join(format!("{stem}.body"))).ok()?;
        let validators = std::fs::read(self.dir.join(format!("{stem}.meta")))
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default();
        if let Some(e) = self.entries().lock().unwrap().get_mut(&stem) {
            e.1 = SystemTime::now();
        }
        Some((body, validators))
    }

    /// Stores `body` under `key`, then evicts old entries past the budget.
    /// A body larger than the whole budget is not stored. Failures are
    /// logged and ignored: the cache only ever saves requests.
    pub fn put(&self, key: &str, body: &[u8], validators: &Validators) {
        if body.len() as u64 > self.budget {
            return;
        }
        let stem = sha256_hex(key.as_bytes());
        if let Err(e) = self.write(&stem, body, validators) {
            tracing::warn!(
                "page cache at {}: cannot store an entry: {e}",
                self.dir.display()
            );
            return;
        }
        let mut entries = self.entries().lock().unwrap();
        entries.insert(stem.clone(), (body.len() as u64, SystemTime::now()));
        self.evict(&mut entries, &stem);
    }

    /// Total bytes of the bodies held.
    pub fn bytes(&self) -> u64 {
        self.entries().lock().unwrap().values().map(|e| e.0).sum()
    }

    fn write(&self, stem: &str, body: &[u8], validators: &Validators) -> std::io::Result<()> {
        let meta = serde_json::to_vec(validators)?;
        for (suffix, bytes) in [("meta", meta.as_slice()), ("body", body)] {
            let mut tmp = tempfile::NamedTempFile::new_in(&self.dir)?;
            std::io::Write::write_all(&mut tmp, bytes)?;
            tmp.persist(self.dir.join(format!("{stem}.{suffix}")))
                .map_err(|e| e.error)?;
        }
        Ok(())
    }

    fn evict(&self, entries: &mut HashMap<String, (u64, SystemTime)>, keep: &str) {
        let mut total: u64 = entries.values().map(|e| e.0).sum();
        if total <= self.budget {
            return;
        }
        let mut by_age: Vec<(SystemTime, String, u64)> = entries
            .iter()
            .filter(|(stem, _)| stem.as_str() != keep)
            .map(|(stem, (bytes, used))| (*used, stem.clone(), *bytes))
            .collect();
        by_age.sort();
        for (_, stem, bytes) in by_age {
            if total <= self.budget {
                break;
            }
            for suffix in ["body", "meta"] {
                let _ = std::fs::remove_file(self.dir.join(format!("{stem}.{suffix}")));
            }
            entries.remove(&stem);
            total -= bytes;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_disk_cache_stays_within_its_budget_and_keeps_the_newest() {
        let dir = tempfile::tempdir().unwrap();
        let cache = DiskCache::open(dir.path(), 250).unwrap();
        let v = Validators {
            etag: Some("\"e1\"".into()),
            last_modified: None,
        };
        for i in 0..5 {
            cache.put(&format!("k{i}"), &[i as u8; 100], &v);
        }
        assert!(cache.bytes() <= 250, "{}", cache.bytes());
        let (body, got) = cache.get("k4").expect("newest entry kept");
        assert_eq!(body, vec![4u8; 100]);
        assert_eq!(got, v);
        assert!(cache.get("k0").is_none(), "oldest entry evicted");
        cache.put("huge", &[0u8; 1000], &v);
        assert!(
            cache.get("huge").is_none(),
            "larger than the budget: not stored"
        );
        // A reopened cache knows what is on disk.
        let again = DiskCache::open(dir.path(), 250).unwrap();
        assert_eq!(again.bytes(), cache.bytes());
    }
}
