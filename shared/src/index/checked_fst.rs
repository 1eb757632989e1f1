//! The fst maps of the index (`terms.fst`, `places.fst`), opened only
//! when their checksum holds.
//!
//! `fst` walks its bytes trusting them: one flipped byte can send a lookup
//! past the end and panic. So every fst the index reads is verified once,
//! when it is read, before any lookup; a damaged one is refused like any
//! other damaged file (a full scan, or span reads, instead). Pinned by
//! `a_dictionary_with_one_flipped_byte_is_checked_before_any_lookup`.

/// The fst map in `bytes`, or why it cannot be trusted.
pub(crate) fn open(bytes: Vec<u8>) -> Result<fst::Map<Vec<u8>>, fst::Error> {
    let map = fst::Map::new(bytes)?;
    map.as_fst().verify()?;
    Ok(map)
}
