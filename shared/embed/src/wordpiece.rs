//! BERT's tokeniser, read from a `tokenizer.json`: text → word-piece ids.
//!
//! Owns the three steps Hugging Face's `tokenizers` runs for a BERT model
//! (`BertNormalizer`, `BertPreTokenizer`, `WordPiece`) and the
//! `[CLS] … [SEP]` frame, and promises the same ids that library gives
//! for the same text: the reference check (`scripts/embed_reference.py`)
//! compares them over real passages.
//!
//! Why not the `tokenizers` crate: it builds in minutes (C regex engine,
//! every model family), this is the one family the embedder runs, and its
//! rules fit on a page.

use std::collections::HashMap;

use unicode_general_category::{get_general_category, GeneralCategory as G};
use unicode_normalization::UnicodeNormalization;

use crate::EmbedError;

/// The tokeniser of one model.
#[derive(Debug, Clone)]
pub struct WordPiece {
    vocab: HashMap<String, u32>,
    unk: u32,
    cls: u32,
    sep: u32,
    lowercase: bool,
    strip_accents: bool,
    chinese_chars: bool,
    clean_text: bool,
    max_word_chars: usize,
    prefix: String,
}

/// The parts of `tokenizer.json` read here; other keys are ignored.
#[derive(serde::Deserialize)]
struct File {
    normalizer: Option<Normalizer>,
    model: Model,
}

#[derive(serde::Deserialize)]
struct Normalizer {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default = "yes")]
    clean_text: bool,
    #[serde(default = "yes")]
    handle_chinese_chars: bool,
    strip_accents: Option<bool>,
    #[serde(default = "yes")]
    lowercase: bool,
}

fn yes() -> bool {
    true
}

#[derive(serde::Deserialize)]
struct Model {
    #[serde(rename = "type")]
    kind: String,
    vocab: HashMap<String, u32>,
    unk_token: String,
    #[serde(default = "hashes")]
    continuing_subword_prefix: String,
    #[serde(default = "hundred")]
    max_input_chars_per_word: usize,
}

fn hashes() -> String {
    "##".into()
}

fn hundred() -> usize {
    100
}

impl WordPiece {
    /// The tokeniser `tokenizer.json`'s text describes; an error naming
    /// what is missing when it is not a BERT word-piece tokeniser.
    pub fn from_json(text: &str) -> Result<WordPiece, EmbedError> {
        let file: File = serde_json::from_str(text)
            .map_err(|e| EmbedError::model(format!("tokenizer.json is not readable: {e}")))?;
        if file.model.kind != "WordPiece" {
            return Err(EmbedError::model(format!(
                "tokenizer.json holds a {} model; only BERT's WordPiece is supported",
                file.model.kind
            )));
        }
        let norm = file.normalizer.unwrap_or(Normalizer {
            kind: "BertNormalizer".into(),
            clean_text: false,
            handle_chinese_chars: false,
            strip_accents: Some(false),
            lowercase: false,
        });
        if norm.kind != "BertNormalizer" {
            return Err(EmbedError::model(format!(
                "tokenizer.json's normalizer is {}; only BertNormalizer is supported",
                norm.kind
            )));
        }
        let id = |token: &str| {
            file.model.vocab.get(token).copied().ok_or_else(|| {
                EmbedError::model(format!("tokenizer.json's vocabulary has no {token}"))
            })
        };
        Ok(WordPiece {
            unk: id(&file.model.unk_token)?,
            cls: id("[CLS]")?,
            sep: id("[SEP]")?,
            lowercase: norm.lowercase,
            strip_accents: norm.strip_accents.unwrap_or(norm.lowercase),
            chinese_chars: norm.handle_chinese_chars,
            clean_text: norm.clean_text,
            max_word_chars: file.model.max_input_chars_per_word,
            prefix: file.model.continuing_subword_prefix,
            vocab: file.model.vocab,
        })
    }

    /// The ids of `text` framed as `[CLS] … [SEP]`, at most `max` in all
    /// (the pieces past `max - 2` are dropped, as the reference truncates).
    pub fn encode(&self, text: &str, max: usize) -> Vec<u32> {
        let mut ids = vec![self.cls];
        let room = max.saturating_sub(2);
        'words: for word in split_words(&self.normalize(text)) {
            for id in self.pieces(word) {
                if ids.len() > room {
                    break 'words;
                }
                ids.push(id);
            }
        }
        ids.push(self.sep);
        ids
    }

    /// `BertNormalizer`: drop control characters and map whitespace to a
    /// space, pad CJK ideographs with spaces, strip accents, lowercase.
    fn normalize(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        for c in text.chars() {
            if self.clean_text {
                if c == '\0' || c == '\u{fffd}' || is_control(c) {
                    continue;
                }
                if is_whitespace(c) {
                    out.push(' ');
                    continue;
                }
            }
            if self.chinese_chars && is_cjk(c) {
                out.extend([' ', c, ' ']);
            } else {
                out.push(c);
            }
        }
        if self.strip_accents {
            out = out
                .nfd()
                .filter(|&c| get_general_category(c) != G::NonspacingMark)
                .collect();
        }
        if self.lowercase {
            out = out.to_lowercase();
        }
        out
    }

    /// `WordPiece`: the longest known piece from the left, again and
    /// again; a word with any unknown stretch is one `[UNK]`.
    fn pieces(&self, word: &str) -> Vec<u32> {
        if word.chars().count() > self.max_word_chars {
            return vec![self.unk];
        }
        let mut ids = Vec::new();
        let mut start = 0;
        let mut candidate = String::new();
        while start < word.len() {
            let mut end = word.len();
            let found = loop {
                candidate.clear();
                if start > 0 {
                    candidate.push_str(&self.prefix);
                }
                candidate.push_str(&word[start..end]);
                if let Some(&id) = self.vocab.get(&candidate) {
                    break Some(id);
                }
                match word[start..end].char_indices().last() {
                    Some((0, _)) | None => break None,
                    Some((last, _)) => end = start + last,
                }
            };
            match found {
                Some(id) => ids.push(id),
                None => return vec![self.unk],
            }
            start = end;
        }
        ids
    }
}

/// `BertPreTokenizer`: words split at whitespace, each punctuation mark a
/// word of its own.
fn split_words(text: &str) -> impl Iterator<Item = &str> {
    text.split(is_whitespace)
        .flat_map(|chunk| {
            let mut words = Vec::new();
            let mut from = 0;
            for (i, c) in chunk.char_indices() {
                if is_punctuation(c) {
                    words.push(&chunk[from..i]);
                    words.push(&chunk[i..i + c.len_utf8()]);
                    from = i + c.len_utf8();
                }
            }
            words.push(&chunk[from..]);
            words
        })
        .filter(|w| !w.is_empty())
}

fn is_whitespace(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r') || c.is_whitespace()
}

fn is_control(c: char) -> bool {
    if matches!(c, '\t' | '\n' | '\r') {
        return false;
    }
    matches!(
        get_general_category(c),
        G::Control | G::Format | G::Surrogate | G::PrivateUse | G::Unassigned
    )
}

fn is_punctuation(c: char) -> bool {
    c.is_ascii_punctuation()
        || matches!(
            get_general_category(c),
            G::ConnectorPunctuation
                | G::DashPunctuation
                | G::OpenPunctuation
                | G::ClosePunctuation
                | G::InitialPunctuation
                | G::FinalPunctuation
                | G::OtherPunctuation
        )
}

fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x4E00..=0x9FFF
        | 0x3400..=0x4DBF
        | 0x20000..=0x2A6DF
        | 0x2A700..=0x2B73F
        | 0x2B740..=0x2B81F
        | 0x2B920..=0x2CEAF
        | 0xF900..=0xFAFF
        | 0x2F800..=0x2FA1F)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokenizer() -> WordPiece {
        let vocab: Vec<&str> = vec![
            "[PAD]", "[UNK]", "[CLS]", "[SEP]", "the", "un", "##aff", "##able", "cafe", ",", "!",
            "中",
        ];
        let vocab: serde_json::Map<String, serde_json::Value> = vocab
            .iter()
            .enumerate()
            .map(|(i, t)| (t.to_string(), i.into()))
            .collect();
        let json = serde_json::json!({
            "normalizer": {"type": "BertNormalizer", "clean_text": true,
                "handle_chinese_chars": true, "strip_accents": null, "lowercase": true},
            "model": {"type": "WordPiece", "vocab": vocab, "unk_token": "[UNK]",
                "continuing_subword_prefix": "##", "max_input_chars_per_word": 100}
        });
        WordPiece::from_json(&json.to_string()).unwrap()
    }

    #[test]
    fn words_split_at_punctuation_and_pieces_take_the_longest_known_prefix() {
        let t = tokenizer();
        // [CLS] the un ##aff ##able , café→cafe ! 中 [UNK] [SEP]
        assert_eq!(
            t.encode("The UNAFFABLE, Café!中 zebra", 64),
            vec![2, 4, 5, 6, 7, 9, 8, 10, 11, 1, 3]
        );
    }

    #[test]
    fn a_long_text_is_cut_to_the_limit_with_its_frame_kept() {
        let t = tokenizer();
        let ids = t.encode(&"the ".repeat(50), 8);
        assert_eq!(ids, vec![2, 4, 4, 4, 4, 4, 4, 3]);
    }

    #[test]
    fn a_tokenizer_of_another_family_is_refused_by_name() {
        let json = r#"{"model": {"type": "BPE", "vocab": {}, "unk_token": "x"}}"#;
        let e = WordPiece::from_json(json).unwrap_err().to_string();
        assert!(e.contains("holds a BPE model"), "{e}");
    }
}
