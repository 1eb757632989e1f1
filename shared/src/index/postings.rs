//! A word's postings list, as `postings.zst` holds it (the layout is in
//! the module above): writing it, reading it whole ([`decode_postings`]),
//! and reading it in place ([`for_each_posting`]), which allocates nothing
//! for the holders a caller skips or only counts.
//!
//! Promise: [`decode_postings`] gives back exactly what [`encode_postings`]
//! wrote, and `None` for bytes it did not write (truncated, ids past the
//! page table, holders out of order or not as many as said, a census that
//! does not add up, an unknown flag); [`for_each_posting`] reads the same
//! entries and refuses the same damage, except in the holders it is not
//! asked for, which [`HeldBy::count_in`] checks when asked.

use super::{fields, LayerName};

/// Appends `v` as a LEB128 varint.
pub(crate) fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Reads a varint at `*at`, advancing it; `None` on a truncated value.
pub(crate) fn get_varint(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *bytes.get(*at)?;
        *at += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            return Some(v);
        }
    }
    None
}

/// One page of a word's postings: its id, how many of its videos (chat
/// threads, posts) hold the word, and which, when the index can say.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Posting {
    /// The page's id in the index's page table.
    pub page: u32,
    /// Videos on that page holding the word (0 when only a page-wide
    /// field such as the channel name does).
    pub videos: u32,
    /// The positions on the page of the videos holding the word in their
    /// own fields, ascending, on a transcript page where only some do;
    /// `None` means any video of the page may hold it.
    pub holders: Option<Vec<u32>>,
    /// In which fields they hold it; `None` when each holds it in the
    /// page layer's own field alone ([`fields::Fields::of_layer`]).
    pub census: Option<fields::Census>,
    /// The word is also in a page-wide field (the channel's name), so in
    /// the metadata scope every video of the page holds it, named or not.
    pub page_wide: bool,
}

impl Posting {
    /// Units of the page (of `layer`) holding the word in some field of
    /// `f`.
    pub fn units_in(&self, layer: LayerName, f: fields::Fields) -> u32 {
        units_in(self.census.as_ref(), self.videos, layer, f)
    }

    /// The holders of a transcript page's posting when it names them and
    /// every one holds the word in some field of `f` (so they are exactly
    /// the videos holding it there); `None` when the page must be read to
    /// say.
    pub fn named_in(&self, f: fields::Fields) -> Option<&[u32]> {
        let all = self.units_in(LayerName::Transcripts, f) == self.videos;
        self.holders.as_deref().filter(|_| all)
    }
}

/// A postings list: the count, then per page (ascending) its id delta, its
/// video count, a flag byte, the holders when its bit 1 is set (as many
/// as the count, each a delta from the one before) and the census when
/// its bit 2 is.
pub(crate) fn encode_postings(out: &mut Vec<u8>, postings: &[Posting]) {
    put_varint(out, postings.len() as u64);
    let mut prev = 0;
    for p in postings {
        encode_posting(out, p, prev);
        prev = p.page;
    }
}

/// One entry of a postings list, its page id a delta from `prev`, the
/// id of the entry before it (0 for the first).
pub(crate) fn encode_posting(out: &mut Vec<u8>, p: &Posting, prev: u32) {
    encode_entry(
        out,
        (p.page, prev),
        p.videos,
        p.holders.as_deref(),
        (p.census.as_ref(), p.page_wide),
    );
}

/// The flag bit that says the holders follow.
const HOLDERS_FOLLOW: u8 = 1;
/// The flag bit that says a census follows.
const CENSUS_FOLLOWS: u8 = 2;
/// With [`HOLDERS_FOLLOW`]: the holders are a bitmap, not a list.
const HOLDERS_AS_BITMAP: u8 = 4;
/// The flag bit that says a page-wide field holds the word too.
const PAGE_WIDE: u8 = 8;

/// [`encode_posting`] from the parts of a posting: page `page` after page
/// `prev`, `videos` holding the word, which when `holders`, in which
/// fields when `census`, and whether a page-wide field holds it.
pub(crate) fn encode_entry(
    out: &mut Vec<u8>,
    (page, prev): (u32, u32),
    videos: u32,
    holders: Option<&[u32]>,
    (census, page_wide): (Option<&fields::Census>, bool),
) {
    put_varint(out, u64::from(page - prev));
    let count = holders.map_or(videos, |h| h.len() as u32);
    put_varint(out, u64::from(count));
    let list = holders.map(holder_list);
    let bitmap = holders.map(holder_bitmap).filter(|b| {
        let mut prefix = Vec::new();
        put_varint(&mut prefix, b.len() as u64);
        list.as_ref()
            .is_some_and(|l| prefix.len() + b.len() < l.len())
    });
    let flag = holders.map_or(0, |_| HOLDERS_FOLLOW)
        | bitmap.as_ref().map_or(0, |_| HOLDERS_AS_BITMAP)
        | census.map_or(0, |_| CENSUS_FOLLOWS)
        | if page_wide { PAGE_WIDE } else { 0 };
    out.push(flag);
    match (bitmap, list) {
        (Some(bitmap), _) => {
            put_varint(out, bitmap.len() as u64);
            out.extend_from_slice(&bitmap);
        }
        (None, Some(list)) => out.extend_from_slice(&list),
        (None, None) => {}
    }
    if let Some(census) = census {
        put_varint(out, census.0.len() as u64);
        for (f, n) in &census.0 {
            out.push(f.bits());
            put_varint(out, u64::from(*n));
        }
    }
}

/// Ascending holders as varint deltas from the one before (the first
/// from 0).
fn holder_list(holders: &[u32]) -> Vec<u8> {
    let mut out = Vec::with_capacity(holders.len());
    let mut last = 0;
    for &h in holders {
        put_varint(&mut out, u64::from(h - last));
        last = h;
    }
    out
}

/// Holders as a bitmap: bit `h % 8` of byte `h / 8` for each holder `h`,
/// no byte past the last holder's.
pub(crate) fn holder_bitmap(holders: &[u32]) -> Vec<u8> {
    let len = holders.last().map_or(0, |&h| h as usize / 8 + 1);
    let mut out = vec![0u8; len];
    for &h in holders {
        out[h as usize / 8] |= 1 << (h % 8);
    }
    out
}

/// The inverse of [`holder_bitmap`], `count` holders; `None` when the
/// bitmap does not hold exactly `count`, or ends in an empty byte.
fn bitmap_holders(bitmap: &[u8], count: u32) -> Option<Vec<u32>> {
    if bitmap.last() == Some(&0) {
        return None;
    }
    let mut holders = Vec::with_capacity(count.min(1 << 16) as usize);
    for (i, &byte) in bitmap.iter().enumerate() {
        let mut bits = byte;
        while bits != 0 {
            holders.push(i as u32 * 8 + bits.trailing_zeros());
            bits &= bits - 1;
        }
    }
    (holders.len() == count as usize).then_some(holders)
}

/// One entry of a postings list read in place: its holders are left
/// encoded until asked for.
pub(crate) struct PostingView<'a> {
    /// The page's id.
    pub page: u32,
    /// Videos on it holding the word.
    pub videos: u32,
    /// Which, when the posting names them.
    pub holders: Option<HeldBy<'a>>,
    /// In which fields.
    pub census: Option<fields::Census>,
    /// Whether a page-wide field holds it too.
    pub page_wide: bool,
}

/// Holders as the posting encodes them: `count` deltas, or a bitmap.
#[derive(Clone, Copy)]
pub(crate) enum HeldBy<'a> {
    /// Varint deltas, strictly ascending.
    List(&'a [u8], u32),
    /// Bit `i % 8` of byte `i / 8` for the video at position `i`.
    Bitmap(&'a [u8], u32),
}

impl HeldBy<'_> {
    /// The positions, ascending; `None` when they are damaged.
    pub fn to_vec(self) -> Option<Vec<u32>> {
        match self {
            HeldBy::List(bytes, count) => decode_holders(bytes, &mut 0, count),
            HeldBy::Bitmap(bytes, count) => bitmap_holders(bytes, count),
        }
    }

    /// How many of the holders are set in `mask` (a bitmap of positions
    /// as [`holder_bitmap`] writes it); `None` when they are damaged.
    pub fn count_in(self, mask: &[u8]) -> Option<u64> {
        let set = |h: u32| {
            mask.get(h as usize / 8)
                .is_some_and(|b| b & (1 << (h % 8)) != 0)
        };
        match self {
            HeldBy::List(bytes, count) => {
                let (mut at, mut n, mut last) = (0, 0, None);
                for _ in 0..count {
                    let h = next_holder(bytes, &mut at, last)?;
                    n += u64::from(set(h));
                    last = Some(h);
                }
                Some(n)
            }
            HeldBy::Bitmap(bytes, count) => {
                let ones: u32 = bytes.iter().map(|b| b.count_ones()).sum();
                (ones == count && bytes.last() != Some(&0)).then(|| {
                    bytes
                        .iter()
                        .zip(mask)
                        .map(|(a, b)| u64::from((a & b).count_ones()))
                        .sum()
                })
            }
        }
    }
}

impl PostingView<'_> {
    /// The posting, its holders decoded; `None` when they are damaged.
    pub fn to_owned(&self) -> Option<Posting> {
        Some(Posting {
            page: self.page,
            videos: self.videos,
            holders: match self.holders {
                Some(h) => Some(h.to_vec()?),
                None => None,
            },
            census: self.census.clone(),
            page_wide: self.page_wide,
        })
    }

    /// As [`Posting::units_in`].
    pub fn units_in(&self, layer: LayerName, f: fields::Fields) -> u32 {
        units_in(self.census.as_ref(), self.videos, layer, f)
    }

    /// As [`Posting::named_in`], the holders left encoded.
    pub fn named_in(&self, f: fields::Fields) -> Option<HeldBy<'_>> {
        let all = self.units_in(LayerName::Transcripts, f) == self.videos;
        self.holders.filter(|_| all)
    }
}

/// Units of a page (of `layer`) holding a word in some field of `f`, from
/// its posting's `census` or, without one, its `videos` in the layer's
/// own field.
fn units_in(
    census: Option<&fields::Census>,
    videos: u32,
    layer: LayerName,
    f: fields::Fields,
) -> u32 {
    match census {
        Some(c) => c.units_in(f),
        None if fields::Fields::of_layer(layer).meets(f) => videos,
        None => 0,
    }
}

/// Calls `each` with every entry of the postings list at `offset`, in
/// page order, reading the holders' bytes without decoding them; `None`
/// if the list is damaged (as [`decode_postings`] says, but for holders,
/// which [`HeldBy`] checks when they are read).
pub(crate) fn for_each_posting<'a>(
    bytes: &'a [u8],
    offset: usize,
    limit: u32,
    mut each: impl FnMut(PostingView<'a>) -> Option<()>,
) -> Option<()> {
    let mut at = offset;
    let n = get_varint(bytes, &mut at)?;
    if n > u64::from(limit) {
        return None;
    }
    let mut cur = 0u64;
    for _ in 0..n {
        cur += get_varint(bytes, &mut at)?;
        if cur >= u64::from(limit) {
            return None;
        }
        let videos = u32::try_from(get_varint(bytes, &mut at)?).ok()?;
        let flag = *bytes.get(at)?;
        at += 1;
        if flag & !(HOLDERS_FOLLOW | CENSUS_FOLLOWS | HOLDERS_AS_BITMAP | PAGE_WIDE) != 0 {
            return None;
        }
        let holders = match flag & (HOLDERS_FOLLOW | HOLDERS_AS_BITMAP) {
            0 => None,
            HOLDERS_FOLLOW => {
                let start = at;
                for _ in 0..videos {
                    get_varint(bytes, &mut at)?;
                }
                Some(HeldBy::List(&bytes[start..at], videos))
            }
            HOLDERS_AS_BITMAP => return None,
            _ => {
                let len = usize::try_from(get_varint(bytes, &mut at)?).ok()?;
                let bitmap = bytes.get(at..at.checked_add(len)?)?;
                at += len;
                Some(HeldBy::Bitmap(bitmap, videos))
            }
        };
        let census = match flag & CENSUS_FOLLOWS {
            0 => None,
            _ => Some(decode_census(bytes, &mut at, videos)?),
        };
        each(PostingView {
            page: cur as u32,
            videos,
            holders,
            census,
            page_wide: flag & PAGE_WIDE != 0,
        })?;
    }
    Some(())
}

/// The inverse of [`encode_postings`]; `None` if the bytes are damaged
/// (truncated, ids past `limit`, holders out of order or a flag unknown).
pub(crate) fn decode_postings(bytes: &[u8], offset: usize, limit: u32) -> Option<Vec<Posting>> {
    let mut out = Vec::new();
    for_each_posting(bytes, offset, limit, |p| {
        out.push(p.to_owned()?);
        Some(())
    })?;
    Some(out)
}

/// A census of `videos` holders: combinations ascending, each of known
/// fields and a count above 0, the counts summing to `videos`.
fn decode_census(bytes: &[u8], at: &mut usize, videos: u32) -> Option<fields::Census> {
    let n = get_varint(bytes, at)?;
    if n > 63 {
        return None;
    }
    let mut out: Vec<(fields::Fields, u32)> = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let f = fields::Fields::from_bits(*bytes.get(*at)?)?;
        *at += 1;
        let count = u32::try_from(get_varint(bytes, at)?)
            .ok()
            .filter(|&c| c > 0)?;
        if out.last().is_some_and(|(last, _)| *last >= f) {
            return None;
        }
        out.push((f, count));
    }
    let sum: u64 = out.iter().map(|(_, c)| u64::from(*c)).sum();
    (sum == u64::from(videos)).then_some(fields::Census(out))
}

/// `count` delta-coded positions, strictly ascending.
fn decode_holders(bytes: &[u8], at: &mut usize, count: u32) -> Option<Vec<u32>> {
    let mut holders = Vec::with_capacity(count.min(4096) as usize);
    for _ in 0..count {
        holders.push(next_holder(bytes, at, holders.last().copied())?);
    }
    Some(holders)
}

/// The holder after `last` (the first when `None`), read at `*at`;
/// `None` when truncated, not above `last`, or past `u32`.
fn next_holder(bytes: &[u8], at: &mut usize, last: Option<u32>) -> Option<u32> {
    let delta = get_varint(bytes, at)?;
    let h = match last {
        Some(_) if delta == 0 => return None,
        Some(l) => u64::from(l).checked_add(delta)?,
        None => delta,
    };
    u32::try_from(h).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn postings_round_trip_and_damage_is_detected() {
        let mut buf = Vec::new();
        let mut postings: Vec<Posting> = [(0, 1), (3, 0), (4, 12), (200, 3), (70_000, 300)]
            .iter()
            .map(|&(page, videos)| Posting {
                page,
                videos,
                holders: None,
                census: None,
                page_wide: false,
            })
            .collect();
        postings[1].page_wide = true;
        postings[3].holders = Some(vec![0, 7, 300]);
        postings[2].holders = Some(vec![0, 1, 2, 3, 5, 8, 9, 10, 11, 12, 13, 15]);
        let (c, t) = (fields::Fields::CAPTIONS, fields::Fields::TITLE);
        postings[3].census = Some(fields::Census(vec![(c, 1), (t, 2)]));
        postings[4].census = Some(fields::Census(vec![(c, 299), (c.with(t), 1)]));
        encode_postings(&mut buf, &postings);
        assert_eq!(decode_postings(&buf, 0, 70_001), Some(postings.clone()));
        let mut wrong = postings.clone();
        wrong[4].census = Some(fields::Census(vec![(c, 1)]));
        let mut bad = Vec::new();
        encode_postings(&mut bad, &wrong);
        assert_eq!(
            decode_postings(&bad, 0, 70_001),
            None,
            "a census that does not add up to the holders"
        );
        assert_eq!(
            decode_postings(&buf, 0, 1000),
            None,
            "an id past the page table"
        );
        assert_eq!(
            decode_postings(&buf[..buf.len() - 1], 0, 70_001),
            None,
            "truncated"
        );
    }
}
