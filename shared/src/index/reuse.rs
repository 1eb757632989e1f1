//! Which pages of the previous index a build carries over unread.
//!
//! A page is carried over when the index read it without failure and its
//! manifest sha256 is the one the index recorded, and either
//!
//! - its file stamp (a local file's size and mtime) is the recorded one,
//!   or the page is remote (the store checks remote bytes against the
//!   sha256 itself); or
//! - its stamp changed but its bytes, hashed now, are that sha256: what a
//!   re-import that wrote the same bytes anew, a copy or a restore does.
//!   Hashing is far cheaper than tokenising, and the page's new stamp is
//!   what the new index records, so searches vouch for it again by stamp.
//!
//! Nothing is carried over from a previous index that is not whole (a
//! file damaged or missing, [`RawIndex::whole`]): the build starts from
//! nothing. When every page is carried over by its stamp, in the same
//! order, the previous index is already the one the build would write,
//! and nothing is written ([`already_built`]).
//!
//! Promise (invariant 1 stays): a page whose bytes are not the ones the
//! index read is never carried over; it is read again.

use super::read::RawIndex;
use super::PageKey;
use crate::archive::{Archive, PageRef};

/// What a build carries over: per page of the table, the previous index's
/// page id, and how many were proved unchanged by hashing.
pub struct Reuse {
    /// The previous page id of each page carried over.
    pub ids: Vec<Option<u32>>,
    /// Pages carried over after hashing their bytes (their stamp had
    /// changed).
    pub rehashed: usize,
}

/// The pages of `pages` (keyed `keys`) that `old` can give unread.
pub fn carried_over(
    archive: &Archive,
    pages: &[PageRef],
    keys: &[PageKey],
    old: Option<&RawIndex>,
) -> Reuse {
    let Some(old) = old else {
        return Reuse {
            ids: vec![None; pages.len()],
            rehashed: 0,
        };
    };
    let mut ids: Vec<Option<u32>> = keys
        .iter()
        .zip(pages)
        .map(|(k, p)| old.reusable(k, &p.sha256, p.stamp.as_deref()))
        .collect();
    // Same sha256, read before, but a new stamp: hash the bytes.
    let suspects: Vec<(usize, u32)> = (0..pages.len())
        .filter(|&i| ids[i].is_none() && pages[i].stamp.is_some())
        .filter_map(|i| Some((i, old.read_with_sha(&keys[i], &pages[i].sha256)?)))
        .collect();
    let proved = prove_unchanged(archive, pages, &suspects);
    let rehashed = proved.len();
    for (i, id) in proved {
        ids[i] = Some(id);
    }
    Reuse { ids, rehashed }
}

/// Whether `old` (whole: a build carries over nothing from an index that
/// is not, see [`RawIndex::whole`]) is already the index a build of
/// `pages` pages would write: the same pages in the same order, each
/// carried over by its stamp (a rehashed page has a new stamp to record).
/// A build then writes nothing: an incremental build that reads no page
/// would write the same bytes again but for the build time.
pub fn already_built(old: &RawIndex, reuse: &Reuse, pages: usize) -> bool {
    reuse.rehashed == 0
        && old.meta.pages.len() == pages
        && reuse.ids.len() == pages
        && (0..pages).all(|i| reuse.ids[i] == Some(i as u32))
}

/// The suspects whose bytes hash to their manifest's sha256, hashed on
/// every core.
fn prove_unchanged(
    archive: &Archive,
    pages: &[PageRef],
    suspects: &[(usize, u32)],
) -> Vec<(usize, u32)> {
    if suspects.is_empty() {
        return Vec::new();
    }
    let workers = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .min(suspects.len());
    let chunk = suspects.len().div_ceil(workers);
    std::thread::scope(|s| {
        let handles: Vec<_> = suspects
            .chunks(chunk)
            .map(|part| {
                s.spawn(move || {
                    part.iter()
                        .filter(|(i, _)| same_bytes(archive, &pages[*i]))
                        .copied()
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    })
}

/// Whether page `p`'s bytes, as stored now, hash to its manifest sha256.
fn same_bytes(archive: &Archive, p: &PageRef) -> bool {
    let site = &archive.sites()[p.site];
    match site.page_bytes(p.layer, &p.channel, p.page) {
        Ok((bytes, sha256)) => crate::source::sha256_hex(&bytes).eq_ignore_ascii_case(&sha256),
        Err(_) => false,
    }
}
