//! A model folder's shape: `config.json` (the encoder),
//! `1_Pooling/config.json` (how token vectors become one) and
//! `sentence_bert_config.json` (how many tokens a text keeps).
//!
//! Promises: a folder whose encoder is not a BERT, or whose shape does not
//! add up (heads that do not divide the width), is refused with the file
//! and the value named; nothing is guessed but the defaults
//! sentence-transformers itself applies (mean pooling, and the
//! position table's length as the token limit).

use std::path::Path;

use crate::EmbedError;

/// How the token vectors of a text become its vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pooling {
    /// The mean of every token's vector.
    Mean,
    /// The `[CLS]` token's vector.
    Cls,
}

/// The encoder's shape and the text limit.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// Width of every token vector (the embedding's dimension).
    pub hidden: usize,
    /// Encoder layers.
    pub layers: usize,
    /// Attention heads per layer.
    pub heads: usize,
    /// Width of the feed-forward layer.
    pub intermediate: usize,
    /// Word pieces known.
    pub vocab: usize,
    /// Rows of the position table.
    pub positions: usize,
    /// Rows of the token-type table.
    pub type_vocab: usize,
    /// Layer norms' epsilon.
    pub layer_norm_eps: f32,
    /// How a text's vector is pooled.
    pub pooling: Pooling,
    /// Most tokens a text keeps, its frame included.
    pub max_tokens: usize,
}

#[derive(serde::Deserialize)]
struct BertJson {
    model_type: Option<String>,
    hidden_size: usize,
    num_hidden_layers: usize,
    num_attention_heads: usize,
    intermediate_size: usize,
    vocab_size: usize,
    max_position_embeddings: usize,
    #[serde(default = "two")]
    type_vocab_size: usize,
    #[serde(default = "eps")]
    layer_norm_eps: f32,
    #[serde(default = "gelu")]
    hidden_act: String,
}

fn two() -> usize {
    2
}
fn eps() -> f32 {
    1e-12
}
fn gelu() -> String {
    "gelu".into()
}

#[derive(serde::Deserialize, Default)]
struct PoolingJson {
    #[serde(default)]
    pooling_mode_cls_token: bool,
    #[serde(default)]
    pooling_mode_max_tokens: bool,
    #[serde(default)]
    pooling_mode_mean_sqrt_len_tokens: bool,
}

#[derive(serde::Deserialize, Default)]
struct SentenceJson {
    max_seq_length: Option<usize>,
}

impl Config {
    /// The shape of the model in `dir`.
    pub fn read(dir: &Path) -> Result<Config, EmbedError> {
        let bert: BertJson = read_json(dir, "config.json")?
            .ok_or_else(|| EmbedError::model(format!("{} has no config.json", dir.display())))?;
        if bert.model_type.as_deref().is_some_and(|t| t != "bert") {
            return Err(EmbedError::model(format!(
                "config.json says model_type {:?}; only BERT encoders are supported",
                bert.model_type.unwrap_or_default()
            )));
        }
        if bert.hidden_act != "gelu" {
            return Err(EmbedError::model(format!(
                "config.json says hidden_act {:?}; only \"gelu\" is supported",
                bert.hidden_act
            )));
        }
        if bert.num_attention_heads == 0
            || !bert.hidden_size.is_multiple_of(bert.num_attention_heads)
        {
            return Err(EmbedError::model(format!(
                "config.json: {} heads do not divide hidden_size {}",
                bert.num_attention_heads, bert.hidden_size
            )));
        }
        let pooling: PoolingJson = read_json(dir, "1_Pooling/config.json")?.unwrap_or_default();
        if pooling.pooling_mode_max_tokens || pooling.pooling_mode_mean_sqrt_len_tokens {
            return Err(EmbedError::model(
                "1_Pooling/config.json asks for max or sqrt-length pooling; only mean and CLS are supported",
            ));
        }
        let sentence: SentenceJson =
            read_json(dir, "sentence_bert_config.json")?.unwrap_or_default();
        let max_tokens = sentence
            .max_seq_length
            .unwrap_or(bert.max_position_embeddings)
            .clamp(2, bert.max_position_embeddings);
        Ok(Config {
            hidden: bert.hidden_size,
            layers: bert.num_hidden_layers,
            heads: bert.num_attention_heads,
            intermediate: bert.intermediate_size,
            vocab: bert.vocab_size,
            positions: bert.max_position_embeddings,
            type_vocab: bert.type_vocab_size,
            layer_norm_eps: bert.layer_norm_eps,
            pooling: if pooling.pooling_mode_cls_token {
                Pooling::Cls
            } else {
                Pooling::Mean
            },
            max_tokens,
        })
    }
}

/// The JSON file `name` of `dir`, or `None` when it is absent.
fn read_json<T: serde::de::DeserializeOwned>(
    dir: &Path,
    name: &str,
) -> Result<Option<T>, EmbedError> {
    let path = dir.join(name);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(EmbedError::io(&path, e)),
    };
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| EmbedError::model(format!("{name} is not readable: {e}")))
}
