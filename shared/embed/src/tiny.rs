//! A tiny model with random weights, in the real layout: what the tests of
//! every crate embed with, so they run in a clone with no model beside it.
//!
//! Its vocabulary is the special tokens, a few hundred common English
//! words, and every ASCII letter and digit alone and as a `##` piece, so
//! any text tokenises without `[UNK]` for plain words. Its vectors mean
//! nothing, but they are deterministic for a seed and pass through every
//! step the real model does (tokeniser, attention, pooling, the files).

use std::collections::HashMap;
use std::path::Path;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use safetensors::tensor::TensorView;
use safetensors::Dtype;

use crate::EmbedError;

const HIDDEN: usize = 32;
const LAYERS: usize = 2;
const HEADS: usize = 4;
const INTERMEDIATE: usize = 64;
const POSITIONS: usize = 128;

const WORDS: &str = "the of and to a in is it you that he was for on are with as i his they be at one have this from or had by not word but what some we can out other were all there when up use your how said an each she which do their time if will way about many then them write would like so these her long make thing see him two has look more day could go come did number sound no most people my over know water than call first who may down side been now find any new work part take get place made live where after back little only round man year came show every good me give our under name very through just form sentence great think say help low line differ turn cause much mean before move right boy old too same tell does set three want air well also play small end put home read hand port large spell add even land here must big high such follow act why ask men change went light kind off need house picture try us again animal point mother world near build self earth father learning model data machine neural network reinforcement reward agent language";

/// Writes the tiny model, its weights drawn from `seed`, into `dir`.
pub fn write(dir: &Path, seed: u64) -> Result<(), EmbedError> {
    let io = |path: &Path, e| EmbedError::io(path, e);
    std::fs::create_dir_all(dir.join("1_Pooling")).map_err(|e| io(dir, e))?;
    let vocab = vocabulary();
    let files = [
        ("config.json", config(vocab.len())),
        ("tokenizer.json", tokenizer(&vocab)),
        (
            "1_Pooling/config.json",
            serde_json::json!({"word_embedding_dimension": HIDDEN, "pooling_mode_mean_tokens": true}),
        ),
        (
            "sentence_bert_config.json",
            serde_json::json!({"max_seq_length": 64}),
        ),
    ];
    for (name, value) in files {
        let path = dir.join(name);
        std::fs::write(&path, value.to_string()).map_err(|e| io(&path, e))?;
    }
    let path = dir.join("model.safetensors");
    std::fs::write(&path, weights(vocab.len(), seed)?).map_err(|e| io(&path, e))
}

fn vocabulary() -> Vec<String> {
    let mut vocab: Vec<String> = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let singles = ('a'..='z').chain('0'..='9');
    vocab.extend(singles.clone().map(String::from));
    vocab.extend(singles.map(|c| format!("##{c}")));
    vocab.extend(
        "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"
            .chars()
            .map(String::from),
    );
    for w in WORDS.split_whitespace() {
        if !vocab.iter().any(|v| v == w) {
            vocab.push(w.to_string());
        }
    }
    vocab
}

fn config(vocab: usize) -> serde_json::Value {
    serde_json::json!({
        "model_type": "bert", "hidden_size": HIDDEN, "num_hidden_layers": LAYERS,
        "num_attention_heads": HEADS, "intermediate_size": INTERMEDIATE,
        "vocab_size": vocab, "max_position_embeddings": POSITIONS,
        "type_vocab_size": 2, "layer_norm_eps": 1e-12, "hidden_act": "gelu"
    })
}

fn tokenizer(vocab: &[String]) -> serde_json::Value {
    let ids: HashMap<&str, usize> = vocab
        .iter()
        .enumerate()
        .map(|(i, w)| (w.as_str(), i))
        .collect();
    serde_json::json!({
        "version": "1.0",
        "normalizer": {"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true,
            "strip_accents": null, "lowercase": true},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
            "max_input_chars_per_word": 100, "vocab": ids}
    })
}

/// Every tensor the encoder reads, as (name, shape), norms apart.
fn shapes(vocab: usize) -> Vec<(String, Vec<usize>)> {
    let (h, i) = (HIDDEN, INTERMEDIATE);
    let mut t = vec![
        (
            "embeddings.word_embeddings.weight".to_string(),
            vec![vocab, h],
        ),
        (
            "embeddings.position_embeddings.weight".into(),
            vec![POSITIONS, h],
        ),
        ("embeddings.token_type_embeddings.weight".into(), vec![2, h]),
    ];
    for l in 0..LAYERS {
        let p = format!("encoder.layer.{l}");
        for (name, out, inp) in [
            ("attention.self.query", h, h),
            ("attention.self.key", h, h),
            ("attention.self.value", h, h),
            ("attention.output.dense", h, h),
            ("intermediate.dense", i, h),
            ("output.dense", h, i),
        ] {
            t.push((format!("{p}.{name}.weight"), vec![out, inp]));
            t.push((format!("{p}.{name}.bias"), vec![out]));
        }
    }
    t
}

fn norms() -> Vec<String> {
    let mut n = vec!["embeddings.LayerNorm".to_string()];
    for l in 0..LAYERS {
        n.push(format!("encoder.layer.{l}.attention.output.LayerNorm"));
        n.push(format!("encoder.layer.{l}.output.LayerNorm"));
    }
    n
}

fn weights(vocab: usize, seed: u64) -> Result<Vec<u8>, EmbedError> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut tensors: Vec<(String, Vec<usize>, Vec<u8>)> = Vec::new();
    for (name, shape) in shapes(vocab) {
        let n: usize = shape.iter().product();
        let bytes = (0..n)
            .flat_map(|_| rng.random_range(-0.3f32..0.3).to_le_bytes())
            .collect();
        tensors.push((name, shape, bytes));
    }
    for norm in norms() {
        let ones = (0..HIDDEN).flat_map(|_| 1f32.to_le_bytes()).collect();
        let zeros = vec![0u8; HIDDEN * 4];
        tensors.push((format!("{norm}.weight"), vec![HIDDEN], ones));
        tensors.push((format!("{norm}.bias"), vec![HIDDEN], zeros));
    }
    let views: Vec<(String, TensorView)> = tensors
        .iter()
        .map(|(name, shape, bytes)| {
            let view = TensorView::new(Dtype::F32, shape.clone(), bytes).expect("sizes agree");
            (name.clone(), view)
        })
        .collect();
    safetensors::serialize(views, None)
        .map_err(|e| EmbedError::model(format!("the tiny model's weights: {e}")))
}

#[cfg(test)]
mod tests {
    use crate::Embedder;

    #[test]
    fn the_tiny_model_loads_and_gives_unit_vectors_that_depend_on_the_text() {
        let dir = tempfile::tempdir().unwrap();
        super::write(dir.path(), 7).unwrap();
        let model = Embedder::load(dir.path(), "tiny").unwrap();
        let v = model.embed(&["the reward of an agent", "the reward of an agent", "water"]);
        assert_eq!(v.len(), 3);
        assert_eq!(v[0].len(), super::HIDDEN);
        let norm: f32 = v[0].iter().map(|x| x * x).sum();
        assert!((norm - 1.0).abs() < 1e-4);
        assert_eq!(v[0], v[1]);
        assert_ne!(v[0], v[2]);
        assert_eq!(model.embed_one("water"), v[2]);
    }

    #[test]
    fn embedding_is_the_same_on_one_thread_or_many_and_in_batches_or_alone() {
        let dir = tempfile::tempdir().unwrap();
        super::write(dir.path(), 3).unwrap();
        let model = Embedder::load(dir.path(), "tiny").unwrap();
        let texts: Vec<String> = (0..40)
            .map(|i| format!("data model number {i} and more words"))
            .collect();
        let many = model.embed(&texts);
        let model = model.with_threads(1);
        for (t, v) in texts.iter().zip(&many) {
            let one = model.embed_one(t);
            let cos: f32 = one.iter().zip(v).map(|(a, b)| a * b).sum();
            assert!(cos > 0.99999, "{cos}");
        }
    }
}
