//! The generator's words: a Zipf-distributed vocabulary with topic
//! locality, and the "trap" phrases that exercise normalisation.
//!
//! Promises: the same seed gives the same vocabulary and the same draws;
//! rank 1 is the most common word; a video's topic words come from the
//! middle and tail of the ranking, so they are rare across the archive and
//! frequent inside the few videos that lean on them.

use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// Words common in speech, most frequent first; they head the ranking.
const FUNCTION_WORDS: &[&str] = &[
    "the", "and", "to", "of", "a", "I", "that", "you", "it", "is", "in", "we", "so", "this",
    "like", "know", "they", "was", "what", "just", "but", "be", "on", "have", "for", "not", "with",
    "right", "about", "yeah", "do", "there", "going", "think", "it's", "don't", "really", "if",
    "people", "one", "can", "all", "at", "are", "he", "my", "me", "or", "get", "because", "when",
    "then", "would", "out", "no", "up", "now", "said", "okay", "I'm", "how", "who", "from", "here",
    "thing", "well", "time", "want", "see", "go", "very", "mean",
];

/// Syllables from which the rest of the vocabulary is built.
const SYLLABLES: &[&str] = &[
    "ka", "ro", "mi", "ten", "sol", "var", "lin", "po", "dra", "que", "zel", "bor", "an", "tis",
    "gor", "ve", "pla", "nor", "xi", "fen", "dal", "mur", "sy", "ket", "or", "bri", "cas", "lum",
    "ter", "vo", "gan", "hel", "is", "jor", "pen", "ru", "sta", "tor", "ul", "wen", "ca", "den",
    "fi", "gra", "hu", "ly", "mo", "nex",
];

/// Phrases that test normalisation: punctuation between words, case,
/// diacritics and the Unicode case-folding traps (the long s, the Kelvin
/// sign, dotted capital I), and near-misses (`hiccups` is not `cup`).
pub const TRAP_PHRASES: &[&str] = &[
    "K-Cups",
    "k cups",
    "k. cups",
    "cake cups",
    "DON'T",
    "café au lait",
    "CAFÉ",
    "cafe",
    "naïve",
    "NAÏVE",
    "Straße",
    "ſtraße",
    "İstanbul",
    "ISTANBUL",
    "Zürich",
    "zurich",
    "\u{212A}elvin scale",
    "hiccups",
    "cupcake",
    "world cup",
    "a cup",
    "résumé",
    "São Paulo",
];

/// A ranked vocabulary with a cumulative distribution for Zipf draws.
pub struct Vocabulary {
    words: Vec<String>,
    /// `cdf[i]` = P(rank <= i + 1), scaled to `u64::MAX`.
    cdf: Vec<u64>,
}

impl Vocabulary {
    /// `size` words, Zipf exponent `s`, drawn with `rng`.
    pub fn new(size: usize, s: f64, rng: &mut ChaCha8Rng) -> Self {
        let mut words: Vec<String> = FUNCTION_WORDS.iter().map(|w| w.to_string()).collect();
        let mut seen: std::collections::HashSet<String> = words.iter().cloned().collect();
        while words.len() < size {
            let n = 1 + (rng.random::<u32>() % 3) as usize + usize::from(words.len() > size / 4);
            let w: String = (0..n)
                .map(|_| SYLLABLES[rng.random_range(0..SYLLABLES.len())])
                .collect();
            if seen.insert(w.clone()) {
                words.push(w);
            }
        }
        let weights: Vec<f64> = (1..=size).map(|r| 1.0 / (r as f64).powf(s)).collect();
        let total: f64 = weights.iter().sum();
        let mut acc = 0.0;
        let cdf = weights
            .iter()
            .map(|w| {
                acc += w / total;
                (acc.min(1.0) * u64::MAX as f64) as u64
            })
            .collect();
        Vocabulary { words, cdf }
    }

    /// How many words it holds.
    pub fn len(&self) -> usize {
        self.words.len()
    }

    /// Whether it holds no word.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// The word of a rank (0 = most common).
    pub fn word(&self, rank: usize) -> &str {
        &self.words[rank]
    }

    /// One Zipf draw.
    pub fn draw(&self, rng: &mut ChaCha8Rng) -> &str {
        let u: u64 = rng.random();
        let i = self
            .cdf
            .partition_point(|&c| c < u)
            .min(self.words.len() - 1);
        &self.words[i]
    }

    /// `n` topic words for one video: ranks from the middle and tail.
    pub fn topic(&self, n: usize, rng: &mut ChaCha8Rng) -> Vec<&str> {
        let lo = (self.words.len() / 20).max(FUNCTION_WORDS.len());
        (0..n)
            .map(|_| self.word(rng.random_range(lo..self.words.len())))
            .collect()
    }
}
