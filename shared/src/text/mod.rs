//! The one normaliser and tokeniser, shared by the index builder and the
//! query engine (invariant 4 of the crate docs: one normaliser).
//!
//! Normalisation: canonical decomposition (NFD) with the combining marks
//! dropped, then Unicode *simple* case folding (not lowercasing: the long
//! s `ſ` folds to `s`, the Kelvin sign to `k`; `İ` decomposes to `I` + a
//! dot, which is dropped, then folds to `i`). Words are the maximal runs of
//! letters and digits of the normalised text; everything else separates
//! them, and a dropped mark separates nothing (`cafe\u{301}` is one word).
//! So `K-Cups`, `k cups` and `k. cups` are the same two words, `don't` is
//! `don t`, and `cup` is not a word of `hiccups`.
//!
//! Promise: [`NORMALIZER_VERSION`] changes whenever the output of
//! [`for_each_token`] could change for any input, so an index built by
//! another version is recognised and ignored, never misused.

use icu_casemap::CaseMapper;
use unicode_normalization::char::{decompose_canonical, is_combining_mark};

/// The version of the normalisation and tokenisation below.
pub const NORMALIZER_VERSION: u32 = 1;

/// Calls `emit` with the normalised form of `c`: zero chars (a combining
/// mark), one, or several (a decomposed letter without its marks).
fn normalize_char(c: char, emit: &mut impl FnMut(char)) {
    if c.is_ascii() {
        emit(c.to_ascii_lowercase());
        return;
    }
    let folder = CaseMapper::new();
    decompose_canonical(c, |d| {
        if is_combining_mark(d) {
            return;
        }
        let folded = folder.simple_fold(d);
        if folded == d || folded.is_ascii() {
            emit(folded);
        } else {
            // A fold can land on a precomposed letter: decompose it too.
            decompose_canonical(folded, |e| {
                if !is_combining_mark(e) {
                    emit(e)
                }
            });
        }
    });
}

/// Whether `c` only ever separates words: it normalises to at least one
/// char and to no letter or digit, so text holding it tokenises as if it
/// were an ASCII space. (A char that normalises to nothing, a combining
/// mark, joins the letters around it; one that normalises to a letter
/// adds to a word.) The raw-byte prefilters rely on this to treat such a
/// char as they treat ASCII punctuation.
pub fn only_separates(c: char) -> bool {
    if c.is_ascii() {
        return !c.is_ascii_alphanumeric();
    }
    let mut emitted = false;
    let mut letter = false;
    normalize_char(c, &mut |n| {
        emitted = true;
        letter |= n.is_alphanumeric();
    });
    emitted && !letter
}

/// The normalised text of `text`, separators kept as they normalise.
pub fn normalize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        normalize_char(c, &mut |n| out.push(n));
    }
    out
}

/// Calls `f(token, start)` for each word of `text`, in order: the
/// normalised word and the byte offset in `text` of the char it begins at.
pub fn for_each_token(text: &str, mut f: impl FnMut(&str, usize)) {
    if text.is_ascii() {
        ascii_tokens(text, &mut f);
    } else {
        char_tokens(text, &mut f);
    }
}

/// [`for_each_token`] over ASCII text, where normalising is lowercasing:
/// a word already in lower case is handed out as a slice of `text`,
/// uncopied (most caption words are).
fn ascii_tokens(text: &str, f: &mut impl FnMut(&str, usize)) {
    let bytes = text.as_bytes();
    let mut lowered = String::new();
    let mut i = 0;
    while i < bytes.len() {
        if ASCII_CLASS[usize::from(bytes[i])] == SEPARATES {
            i += 1;
            continue;
        }
        let start = i;
        let mut upper = false;
        while let Some(&class) = bytes.get(i).map(|&b| &ASCII_CLASS[usize::from(b)]) {
            if class == SEPARATES {
                break;
            }
            upper |= class == UPPER;
            i += 1;
        }
        if upper {
            lowered.clear();
            lowered.push_str(&text[start..i]);
            lowered.make_ascii_lowercase();
            f(&lowered, start);
        } else {
            f(&text[start..i], start);
        }
    }
}

/// What an ASCII byte is to [`ascii_tokens`]: a separator, a letter to
/// lower, or a letter or digit kept as it is (one table lookup a byte).
const ASCII_CLASS: [u8; 256] = {
    let mut class = [SEPARATES; 256];
    let mut b = 0;
    while b < 128 {
        let c = b as u8;
        if c.is_ascii_uppercase() {
            class[b] = UPPER;
        } else if c.is_ascii_alphanumeric() {
            class[b] = KEPT;
        }
        b += 1;
    }
    class
};
/// [`ASCII_CLASS`]: the byte separates words.
const SEPARATES: u8 = 0;
/// [`ASCII_CLASS`]: an upper-case letter, lowered in the word.
const UPPER: u8 = 1;
/// [`ASCII_CLASS`]: a lower-case letter or a digit.
const KEPT: u8 = 2;

/// [`for_each_token`] for any text, char by char.
fn char_tokens(text: &str, f: &mut impl FnMut(&str, usize)) {
    let mut word = String::new();
    let mut start = 0;
    for (at, c) in text.char_indices() {
        if c.is_ascii() {
            if c.is_ascii_alphanumeric() {
                if word.is_empty() {
                    start = at;
                }
                word.push(c.to_ascii_lowercase());
            } else if !word.is_empty() {
                f(&word, start);
                word.clear();
            }
            continue;
        }
        normalize_char(c, &mut |n| {
            if n.is_alphanumeric() {
                if word.is_empty() {
                    start = at;
                }
                word.push(n);
            } else if !word.is_empty() {
                f(&word, start);
                word.clear();
            }
        });
    }
    if !word.is_empty() {
        f(&word, start);
    }
}

/// Appends the words of `text` to `out` as `" w1 w2"` (each word after
/// one space), calling `at_word(byte offset in out)` at each word's space.
/// The same words as [`for_each_token`], with a fast path for ASCII text.
pub fn append_words(text: &str, out: &mut String, mut at_word: impl FnMut(usize)) {
    if !text.is_ascii() {
        for_each_token(text, |t, _| {
            at_word(out.len());
            out.push(' ');
            out.push_str(t);
        });
        return;
    }
    let mut in_word = false;
    for &b in text.as_bytes() {
        if b.is_ascii_alphanumeric() {
            if !in_word {
                at_word(out.len());
                out.push(' ');
                in_word = true;
            }
            out.push(char::from(b.to_ascii_lowercase()));
        } else {
            in_word = false;
        }
    }
}

/// The words of `text`, normalised.
pub fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for_each_token(text, |t, _| out.push(t.to_string()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn punctuation_separates_words_and_case_folds() {
        assert_eq!(tokens("K-Cups"), ["k", "cups"]);
        assert_eq!(tokens("k. cups"), ["k", "cups"]);
        assert_eq!(tokens("k cups"), ["k", "cups"]);
        assert_eq!(tokens("DON'T"), ["don", "t"]);
        assert_eq!(tokens("hiccups, cupcake"), ["hiccups", "cupcake"]);
        assert_eq!(tokens("  10K-run_2x "), ["10k", "run", "2x"]);
    }

    #[test]
    fn diacritics_drop_and_simple_folding_is_not_lowercasing() {
        assert_eq!(tokens("Café CAFÉ cafe\u{301}"), ["cafe", "cafe", "cafe"]);
        assert_eq!(
            tokens("naïve NAÏVE résumé São Zürich"),
            ["naive", "naive", "resume", "sao", "zurich"]
        );
        assert_eq!(
            tokens("ſtraße Straße"),
            ["straße", "straße"],
            "long s folds to s; ß is not ss under simple folding"
        );
        assert_eq!(
            tokens("\u{212A}elvin"),
            ["kelvin"],
            "the Kelvin sign folds to k"
        );
        assert_eq!(tokens("İstanbul ISTANBUL"), ["istanbul", "istanbul"]);
        assert_eq!(
            tokens("ΣΊΣΥΦΟΣ σίσυφος"),
            ["σισυφοσ", "σισυφοσ"],
            "final sigma folds to sigma"
        );
    }

    #[test]
    fn token_offsets_point_at_the_original_text() {
        let text = "a Café, ſtraße";
        let mut seen = Vec::new();
        for_each_token(text, |t, at| seen.push((t.to_string(), at)));
        assert_eq!(
            seen,
            [("a".into(), 0), ("cafe".into(), 2), ("straße".into(), 9)]
        );
        assert_eq!(&text[9..11], "ſ");
    }

    #[test]
    fn append_words_gives_the_same_words_as_the_tokeniser() {
        for text in [
            "K-Cups, don't STOP 10x",
            "Café ſtraße \u{212A}",
            "",
            "  ",
            "a",
        ] {
            let mut out = String::from("x");
            let mut starts = Vec::new();
            append_words(text, &mut out, |at| starts.push(at));
            let expected: String = tokens(text).iter().map(|t| format!(" {t}")).collect();
            assert_eq!(out, format!("x{expected}"), "{text:?}");
            assert_eq!(starts.len(), tokens(text).len());
            assert!(starts.iter().all(|&s| out.as_bytes()[s] == b' '));
        }
    }

    #[test]
    fn the_ascii_path_gives_the_words_and_offsets_of_the_char_path() {
        let words = [
            "a", "K", "cups", "DON", "t", "10x", "Run_2", "", "--", " ", ".", "\n",
        ];
        let mut seed = 7u64;
        for _ in 0..2000 {
            let mut text = String::new();
            for _ in 0..(seed % 9) {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                text.push_str(words[(seed >> 33) as usize % words.len()]);
            }
            let (mut fast, mut slow) = (Vec::new(), Vec::new());
            ascii_tokens(&text, &mut |t, at| fast.push((t.to_string(), at)));
            char_tokens(&text, &mut |t, at| slow.push((t.to_string(), at)));
            assert_eq!(fast, slow, "{text:?}");
        }
    }

    #[test]
    fn normalize_keeps_separators() {
        assert_eq!(normalize("K-Cups, CAFÉ!"), "k-cups, cafe!");
    }
}
