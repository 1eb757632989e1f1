//! The BERT encoder: word-piece ids → one unit vector per text.
//!
//! Owns the weights (read from `model.safetensors`) and the forward pass:
//! embeddings, then `layers` × (self-attention, feed-forward), each with a
//! residual and a layer norm, then the pooling the model's
//! `1_Pooling/config.json` names (mean of the tokens, or the `[CLS]`
//! token), scaled to unit length. Promises the vectors of
//! sentence-transformers for the same ids, to float rounding: the
//! reference check compares them (cosine ≥ 0.999).
//!
//! Several texts go through the linear layers as one matrix (their tokens
//! stacked), and only attention looks at one text at a time, so no text is
//! padded and the matrix products are large enough to run at the
//! machine's pace.

use std::collections::HashMap;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use ndarray::{s, Array1, Array2, ArrayView2, Axis};
use serde::Deserialize;

use crate::config::{Config, Pooling};
use crate::EmbedError;

/// A dense layer, `y = x Wᵀ + b`, `W` (out × in, as the file has it)
/// kept as f16.
///
/// f16 halves the bytes: a query streams 21 MB of weights rather than
/// 42 MB, and they stay in a 32 MB L3 cache between queries; a loaded
/// model holds about 45 MB rather than 110 MB. Every product widens the
/// weights back to f32 exactly ([`widen`]) and sums in f32, so rounding
/// the weights is the only change: a vector moves by about 1e-5 in
/// cosine (the reference check, `scripts/embed_reference.py`, holds it
/// to sentence-transformers').
struct Linear {
    half: Vec<half::f16>,
    bias: Array1<f32>,
    /// Inputs per output (the width of `W`).
    width: usize,
}

/// Rows at most this many go through [`Linear::apply`] as dot products
/// rather than a matrix product, which packs the whole weight matrix
/// first: for a query of a few tokens that costs as much as the
/// arithmetic.
const FEW_ROWS: usize = 32;

/// Multiply-adds a dot-product layer must have before its outputs are
/// split between threads: below it, starting a thread costs more than
/// it saves.
const SPLIT_AT: usize = 1 << 18;

impl Linear {
    #[cfg(test)]
    fn new(weight: Array2<f32>, bias: Array1<f32>) -> Linear {
        Linear {
            half: weight.iter().map(|&w| half::f16::from_f32(w)).collect(),
            bias,
            width: weight.ncols(),
        }
    }

    /// The layers' outputs one after another, as one layer (they share
    /// their input width).
    fn stack(layers: [Linear; 3]) -> Linear {
        let width = layers[0].width;
        let biases: Vec<f32> = layers.iter().flat_map(|l| l.bias.iter().copied()).collect();
        Linear {
            half: layers.into_iter().flat_map(|l| l.half).collect(),
            bias: Array1::from(biases),
            width,
        }
    }

    /// How many outputs.
    fn outs(&self) -> usize {
        self.bias.len()
    }

    /// `x Wᵀ + b`, a few rows over at most `threads` threads.
    fn apply(&self, x: &Array2<f32>, threads: usize) -> Array2<f32> {
        if x.nrows() <= FEW_ROWS {
            return self.apply_rowwise(x, threads);
        }
        self.apply_matrix(x)
    }

    /// `x Wᵀ + b` as one matrix product, `W` widened to f32 for it.
    fn apply_matrix(&self, x: &Array2<f32>) -> Array2<f32> {
        let weight = Array2::from_shape_fn((self.outs(), self.width), |(j, k)| {
            widen(self.half[j * self.width + k])
        });
        let mut y = x.dot(&weight.t());
        y += &self.bias;
        y
    }

    /// `x Wᵀ + b` as one dot product per output, each row of `W` read
    /// once for all the rows of `x` (the weights do not fit in the
    /// cache; reading them once per row of `x` costs memory bandwidth),
    /// the outputs split between the machine's cores.
    fn apply_rowwise(&self, x: &Array2<f32>, threads: usize) -> Array2<f32> {
        let x = x.as_standard_layout();
        let xs = x.as_slice().expect("a standard-layout array is one slice");
        let w = &self.half;
        let bias = self.bias.as_slice().expect("a bias is one slice");
        let (rows, width, outs) = (x.nrows(), x.ncols(), self.outs());
        let threads = if rows * width * outs < SPLIT_AT {
            1
        } else {
            threads.max(1)
        };
        // Output-major (one row of `yt` per output), so each thread
        // fills a slice of its own.
        let mut yt = vec![0f32; outs * rows];
        if threads == 1 {
            dot_rows(xs, width, w, bias, &mut yt);
        } else {
            // On rayon's threads, kept between calls: starting threads
            // for each layer cost about what splitting saved.
            use rayon::prelude::*;
            let per_thread = outs.div_ceil(threads);
            yt.par_chunks_mut(per_thread * rows)
                .enumerate()
                .for_each(|(t, block)| {
                    let start = t * per_thread;
                    dot_rows(xs, width, &w[start * width..], &bias[start..], block);
                });
        }
        Array2::from_shape_fn((rows, outs), |(i, j)| yt[j * rows + i])
    }
}

/// `out[j·rows + i] = x_i · w_j + bias_j` for the rows `x_i` of `xs` and
/// as many weight rows `w_j` (f16, widened a row at a time) as `out` has
/// room for; compiled for AVX2 too, chosen at run time. Rows go
/// [`BLOCK`] at a time, so each weight is loaded once for all of them and
/// the sums run side by side. Every row's sum is taken in the same order
/// ([`dot`], [`dot4`]) whatever its block and whatever the machine (no
/// fused multiply-add), so a text's vector does not depend on where it
/// was computed.
#[allow(unsafe_code)] // the dispatch multiversion generates
#[multiversion::multiversion(targets("x86_64+avx2", "x86_64+avx", "aarch64+neon"))]
fn dot_rows(xs: &[f32], width: usize, w: &[half::f16], bias: &[f32], out: &mut [f32]) {
    let rows = xs.len() / width;
    let row = |i: usize| &xs[i * width..(i + 1) * width];
    let mut wj = vec![0f32; width];
    for (j, outputs) in out.chunks_mut(rows).enumerate() {
        for (f, h) in wj.iter_mut().zip(&w[j * width..(j + 1) * width]) {
            *f = widen(*h);
        }
        let mut blocks = outputs.chunks_exact_mut(BLOCK);
        for (b, block) in blocks.by_ref().enumerate() {
            let i = b * BLOCK;
            let sums = dot4([row(i), row(i + 1), row(i + 2), row(i + 3)], &wj);
            for (o, d) in block.iter_mut().zip(sums) {
                *o = d + bias[j];
            }
        }
        let done = rows - blocks.into_remainder().len();
        for (k, o) in outputs.iter_mut().enumerate().skip(done) {
            *o = dot(row(k), &wj) + bias[j];
        }
    }
}

/// `h` as f32, exactly (the weights hold no infinity or NaN): its
/// exponent and mantissa moved into f32's places, then scaled by 2¹¹²,
/// the difference of the two formats' exponent biases, which also turns
/// an f16 subnormal into the right f32. Written out, rather than
/// `f16::to_f32`, so the compiler widens sixteen at a time inside
/// [`dot_rows`].
#[inline(always)]
fn widen(h: half::f16) -> f32 {
    const BIAS_GAP: f32 = f32::from_bits((127 + 112) << 23); // 2¹¹²
    let bits = h.to_bits();
    let sign = u32::from(bits & 0x8000) << 16;
    let magnitude = f32::from_bits(u32::from(bits & 0x7fff) << 13) * BIAS_GAP;
    f32::from_bits(magnitude.to_bits() | sign)
}

/// Rows [`dot_rows`] takes at a time: four rows of sixteen lanes are
/// eight AVX registers of sums, half the machine's sixteen.
const BLOCK: usize = 4;

/// `Σ aᵢbᵢ` in sixteen lanes (which the compiler turns into vector
/// instructions), the lanes then summed in order and the tail last.
#[inline(always)]
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut lanes = [0f32; 16];
    for (ac, bc) in a.chunks_exact(16).zip(b.chunks_exact(16)) {
        for k in 0..16 {
            lanes[k] += ac[k] * bc[k];
        }
    }
    finish(&lanes, a, b)
}

/// [`dot`] of four rows with one `b` at once, each sum taken exactly as
/// [`dot`] takes it.
#[inline(always)]
fn dot4(a: [&[f32]; BLOCK], b: &[f32]) -> [f32; BLOCK] {
    let (mut l0, mut l1, mut l2, mut l3) = ([0f32; 16], [0f32; 16], [0f32; 16], [0f32; 16]);
    let chunks = b
        .chunks_exact(16)
        .zip(a[0].chunks_exact(16))
        .zip(a[1].chunks_exact(16))
        .zip(a[2].chunks_exact(16))
        .zip(a[3].chunks_exact(16));
    for ((((bc, c0), c1), c2), c3) in chunks {
        for k in 0..16 {
            l0[k] += c0[k] * bc[k];
            l1[k] += c1[k] * bc[k];
            l2[k] += c2[k] * bc[k];
            l3[k] += c3[k] * bc[k];
        }
    }
    [
        finish(&l0, a[0], b),
        finish(&l1, a[1], b),
        finish(&l2, a[2], b),
        finish(&l3, a[3], b),
    ]
}

/// A dot product's lanes summed in order, then the products past the
/// last whole chunk of sixteen.
#[inline(always)]
fn finish(lanes: &[f32; 16], a: &[f32], b: &[f32]) -> f32 {
    let whole = b.len() - b.len() % 16;
    let tail: f32 = a[whole..].iter().zip(&b[whole..]).map(|(x, y)| x * y).sum();
    lanes.iter().sum::<f32>() + tail
}

/// A layer norm over the last axis.
struct Norm {
    gain: Array1<f32>,
    bias: Array1<f32>,
    eps: f32,
}

impl Norm {
    fn apply(&self, x: &mut Array2<f32>) {
        let width = x.ncols() as f32;
        for mut row in x.rows_mut() {
            let mean = row.sum() / width;
            let var = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / width;
            let scale = 1.0 / (var + self.eps).sqrt();
            for ((v, g), b) in row.iter_mut().zip(&self.gain).zip(&self.bias) {
                *v = (*v - mean) * scale * g + b;
            }
        }
    }
}

struct Layer {
    /// Query, key and value as one layer (their weights stacked), so one
    /// matrix product makes all three.
    qkv: Linear,
    attention_out: Linear,
    attention_norm: Norm,
    intermediate: Linear,
    output: Linear,
    output_norm: Norm,
}

/// The encoder's weights and shape.
pub struct Bert {
    config: Config,
    /// The word-piece embeddings, `vocab × hidden`, as f16 (like the
    /// layers' weights: 23 MB rather than 47 MB).
    words: Vec<half::f16>,
    positions: Array2<f32>,
    token_type: Array1<f32>,
    embedding_norm: Norm,
    layers: Vec<Layer>,
}

impl Bert {
    /// The encoder `config` describes, its weights read from the
    /// safetensors file at `safetensors`; an error naming the first tensor
    /// missing or of the wrong shape.
    pub fn load(config: Config, safetensors: &Path) -> Result<Bert, EmbedError> {
        let weights = Weights::open(safetensors)?;
        let (h, i) = (config.hidden, config.intermediate);
        let linear = |name: &str, out: usize, inp: usize| -> Result<Linear, EmbedError> {
            Ok(Linear {
                half: weights.halves(&format!("{name}.weight"), out, inp)?,
                bias: weights.vector(&format!("{name}.bias"), out)?,
                width: inp,
            })
        };
        let norm = |name: &str| -> Result<Norm, EmbedError> {
            Ok(Norm {
                gain: weights.vector(&format!("{name}.weight"), h)?,
                bias: weights.vector(&format!("{name}.bias"), h)?,
                eps: config.layer_norm_eps,
            })
        };
        let mut layers = Vec::with_capacity(config.layers);
        for l in 0..config.layers {
            let p = format!("encoder.layer.{l}");
            let parts =
                ["query", "key", "value"].map(|n| linear(&format!("{p}.attention.self.{n}"), h, h));
            let [q, k, v] = parts;
            let (q, k, v) = (q?, k?, v?);
            layers.push(Layer {
                qkv: Linear::stack([q, k, v]),
                attention_out: linear(&format!("{p}.attention.output.dense"), h, h)?,
                attention_norm: norm(&format!("{p}.attention.output.LayerNorm"))?,
                intermediate: linear(&format!("{p}.intermediate.dense"), i, h)?,
                output: linear(&format!("{p}.output.dense"), h, i)?,
                output_norm: norm(&format!("{p}.output.LayerNorm"))?,
            });
        }
        let types = weights.matrix(
            "embeddings.token_type_embeddings.weight",
            config.type_vocab,
            h,
        )?;
        Ok(Bert {
            words: weights.halves("embeddings.word_embeddings.weight", config.vocab, h)?,
            positions: weights.matrix(
                "embeddings.position_embeddings.weight",
                config.positions,
                h,
            )?,
            token_type: types.row(0).to_owned(),
            embedding_norm: norm("embeddings.LayerNorm")?,
            layers,
            config,
        })
    }

    /// The shape the weights were read with.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// One unit vector per id sequence (each framed and at most
    /// `config.max_tokens` long, as [`crate::WordPiece::encode`] makes
    /// them), a few rows' dense layers split over at most `threads`
    /// threads.
    pub fn embed(&self, texts: &[Vec<u32>], threads: usize) -> Vec<Vec<f32>> {
        let rows: Vec<std::ops::Range<usize>> = texts
            .iter()
            .scan(0, |at, ids| {
                let r = *at..*at + ids.len();
                *at = r.end;
                Some(r)
            })
            .collect();
        let mut x = self.embeddings(texts);
        for layer in &self.layers {
            x = self.layer(layer, x, &rows, threads);
        }
        rows.iter()
            .map(|r| self.pool(x.slice(s![r.clone(), ..])))
            .collect()
    }

    fn embeddings(&self, texts: &[Vec<u32>]) -> Array2<f32> {
        let total = texts.iter().map(Vec::len).sum();
        let mut x = Array2::zeros((total, self.config.hidden));
        let mut row = 0;
        for ids in texts {
            for (pos, &id) in ids.iter().enumerate() {
                let h = self.config.hidden;
                let word = &self.words[id as usize * h..(id as usize + 1) * h];
                let mut out = x.row_mut(row);
                for (o, &w) in out.iter_mut().zip(word) {
                    *o = widen(w);
                }
                out += &self.positions.row(pos);
                out += &self.token_type;
                row += 1;
            }
        }
        self.embedding_norm.apply(&mut x);
        x
    }

    fn layer(
        &self,
        layer: &Layer,
        x: Array2<f32>,
        rows: &[std::ops::Range<usize>],
        threads: usize,
    ) -> Array2<f32> {
        let qkv = layer.qkv.apply(&x, threads);
        let hidden = self.config.hidden;
        let q = qkv.slice(s![.., ..hidden]);
        let k = qkv.slice(s![.., hidden..2 * hidden]);
        let v = qkv.slice(s![.., 2 * hidden..]);
        let mut context = Array2::zeros(x.raw_dim());
        let heads = self.config.heads;
        let width = hidden / heads;
        let scale = 1.0 / (width as f32).sqrt();
        for r in rows {
            for head in 0..heads {
                let cols = head * width..(head + 1) * width;
                let qh = q.slice(s![r.clone(), cols.clone()]);
                let kh = k.slice(s![r.clone(), cols.clone()]);
                let vh = v.slice(s![r.clone(), cols.clone()]);
                let mut scores = qh.dot(&kh.t());
                scores *= scale;
                softmax_rows(&mut scores);
                context
                    .slice_mut(s![r.clone(), cols])
                    .assign(&scores.dot(&vh));
            }
        }
        let mut h = layer.attention_out.apply(&context, threads);
        h += &x;
        layer.attention_norm.apply(&mut h);
        let mut inner = layer.intermediate.apply(&h, threads);
        inner.mapv_inplace(gelu);
        let mut out = layer.output.apply(&inner, threads);
        out += &h;
        layer.output_norm.apply(&mut out);
        out
    }

    fn pool(&self, tokens: ArrayView2<f32>) -> Vec<f32> {
        let pooled = match self.config.pooling {
            Pooling::Mean => tokens
                .mean_axis(Axis(0))
                .expect("a text has its frame's two tokens"),
            Pooling::Cls => tokens.row(0).to_owned(),
        };
        let length = pooled.dot(&pooled).sqrt().max(1e-12);
        pooled.iter().map(|v| v / length).collect()
    }
}

fn softmax_rows(x: &mut Array2<f32>) {
    for mut row in x.rows_mut() {
        let max = row.fold(f32::NEG_INFINITY, |m, &v| m.max(v));
        row.mapv_inplace(|v| (v - max).exp());
        let sum = row.sum();
        row /= sum;
    }
}

/// BERT's GELU, `x Φ(x)`, with the error function to within 1.5e-7
/// ([`erf`]): a fifth of the forward pass's time went to libm's `erff`.
fn gelu(x: f32) -> f32 {
    0.5 * x * (1.0 + erf(x * std::f32::consts::FRAC_1_SQRT_2))
}

/// The error function by Abramowitz and Stegun's formula 7.1.26 (absolute
/// error under 1.5e-7, below f32's resolution of the sum it is added to).
fn erf(x: f32) -> f32 {
    let t = 1.0 / (1.0 + 0.327_591_1 * x.abs());
    let poly = t
        * (0.254_829_6
            + t * (-0.284_496_74 + t * (1.421_413_7 + t * (-1.453_152 + t * 1.061_405_4))));
    (1.0 - poly * (-x * x).exp()).copysign(x)
}

/// The tensors of a safetensors file, read from disk one at a time, by
/// name, with or without the `bert.` prefix some exports add. The file
/// is never held whole: loading peaks at the weights kept plus the
/// largest tensor's bytes, not the 90 MB file besides (a server that
/// loads the model mid-run stays within its memory bound).
///
/// The format: an 8-byte little-endian length, a JSON header of that
/// length naming each tensor's dtype, shape and byte range, then the
/// bytes.
struct Weights {
    file: std::fs::File,
    /// Where the tensors' bytes begin.
    start: u64,
    tensors: HashMap<String, Entry>,
    prefix: &'static str,
}

/// One tensor as the header describes it.
#[derive(Deserialize)]
struct Entry {
    dtype: String,
    shape: Vec<usize>,
    data_offsets: (u64, u64),
}

/// A header longer than this is not a model's.
const MOST_HEADER_BYTES: u64 = 100 << 20;

impl Weights {
    fn open(path: &Path) -> Result<Weights, EmbedError> {
        let io = |e| EmbedError::io(path, e);
        let bad =
            |why: String| EmbedError::model(format!("model.safetensors is not readable: {why}"));
        let mut file = std::fs::File::open(path).map_err(io)?;
        let mut length = [0u8; 8];
        file.read_exact(&mut length).map_err(io)?;
        let n = u64::from_le_bytes(length);
        if n > MOST_HEADER_BYTES {
            return Err(bad(format!("a header of {n} bytes")));
        }
        let mut header = vec![0u8; n as usize];
        file.read_exact(&mut header).map_err(io)?;
        let raw: HashMap<String, serde_json::Value> =
            serde_json::from_slice(&header).map_err(|e| bad(e.to_string()))?;
        let size = file.metadata().map_err(io)?.len();
        let start = 8 + n;
        let mut tensors = HashMap::new();
        for (name, value) in raw.into_iter().filter(|(name, _)| name != "__metadata__") {
            let entry: Entry =
                serde_json::from_value(value).map_err(|e| bad(format!("tensor {name}: {e}")))?;
            let (from, to) = entry.data_offsets;
            if from > to || start + to > size {
                return Err(bad(format!("tensor {name} lies outside the file")));
            }
            tensors.insert(name, entry);
        }
        let prefixed = tensors.keys().any(|n| n.starts_with("bert.embeddings."));
        Ok(Weights {
            file,
            start,
            tensors,
            prefix: if prefixed { "bert." } else { "" },
        })
    }

    /// Tensor `name`'s dtype and bytes, checked to be of `shape`.
    fn bytes(&self, name: &str, shape: &[usize]) -> Result<(&str, Vec<u8>), EmbedError> {
        let full = format!("{}{name}", self.prefix);
        let t = self
            .tensors
            .get(&full)
            .ok_or_else(|| EmbedError::model(format!("model.safetensors has no tensor {full}")))?;
        if t.shape != shape {
            return Err(EmbedError::model(format!(
                "tensor {full} is {:?}, config.json says {shape:?}",
                t.shape
            )));
        }
        let (from, to) = t.data_offsets;
        let mut bytes = vec![0u8; (to - from) as usize];
        let mut file = &self.file;
        file.seek(SeekFrom::Start(self.start + from))
            .and_then(|_| file.read_exact(&mut bytes))
            .map_err(|e| EmbedError::model(format!("model.safetensors: tensor {full}: {e}")))?;
        let width = match t.dtype.as_str() {
            "F32" => 4,
            "F16" | "BF16" => 2,
            other => {
                return Err(EmbedError::model(format!(
                    "tensor {full} is {other}; only f32, f16 and bf16 weights are supported"
                )))
            }
        };
        if bytes.len() != shape.iter().product::<usize>() * width {
            return Err(EmbedError::model(format!(
                "tensor {full} holds {} bytes, not {shape:?} of {}",
                bytes.len(),
                t.dtype
            )));
        }
        Ok((t.dtype.as_str(), bytes))
    }

    /// Tensor `name` as f32 values, f16 and bf16 widened.
    fn values(&self, name: &str, shape: &[usize]) -> Result<Vec<f32>, EmbedError> {
        let (dtype, bytes) = self.bytes(name, shape)?;
        Ok(match dtype {
            "F32" => bytes
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect(),
            "F16" => bytes
                .chunks_exact(2)
                .map(|b| half::f16::from_le_bytes([b[0], b[1]]).to_f32())
                .collect(),
            _ => bytes
                .chunks_exact(2)
                .map(|b| half::bf16::from_le_bytes([b[0], b[1]]).to_f32())
                .collect(),
        })
    }

    /// Matrix `name` (`rows × cols`) as f16, rounded straight from the
    /// file's bytes.
    fn halves(&self, name: &str, rows: usize, cols: usize) -> Result<Vec<half::f16>, EmbedError> {
        let (dtype, bytes) = self.bytes(name, &[rows, cols])?;
        Ok(match dtype {
            "F32" => bytes
                .chunks_exact(4)
                .map(|b| half::f16::from_f32(f32::from_le_bytes([b[0], b[1], b[2], b[3]])))
                .collect(),
            "F16" => bytes
                .chunks_exact(2)
                .map(|b| half::f16::from_le_bytes([b[0], b[1]]))
                .collect(),
            _ => bytes
                .chunks_exact(2)
                .map(|b| half::f16::from_f32(half::bf16::from_le_bytes([b[0], b[1]]).to_f32()))
                .collect(),
        })
    }

    fn matrix(&self, name: &str, rows: usize, cols: usize) -> Result<Array2<f32>, EmbedError> {
        let values = self.values(name, &[rows, cols])?;
        Ok(Array2::from_shape_vec((rows, cols), values).expect("shape checked"))
    }

    fn vector(&self, name: &str, len: usize) -> Result<Array1<f32>, EmbedError> {
        Ok(Array1::from(self.values(name, &[len])?))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_few_rows_give_what_the_matrix_product_gives() {
        use ndarray::Array2;
        // The second shape is large enough to be split between threads,
        // in blocks of unequal size.
        for (rows, width, outs) in [(3, 37, 40), (5, 300, 401)] {
            let weight =
                Array2::from_shape_fn((outs, width), |(i, j)| ((i * 7 + j * 3) % 11) as f32 - 5.0);
            let layer =
                super::Linear::new(weight, ndarray::Array1::from_shape_fn(outs, |i| i as f32));
            let x = Array2::from_shape_fn((rows, width), |(i, j)| ((i + j) % 5) as f32 * 0.5);
            let product = layer.apply_matrix(&x);
            let rowwise = layer.apply_rowwise(&x, 3);
            assert_eq!(rowwise.dim(), product.dim());
            for (a, b) in product.iter().zip(rowwise.iter()) {
                assert!((a - b).abs() < 1e-3, "{a} {b}");
            }
        }
    }

    #[test]
    fn widen_is_f16s_own_conversion_for_every_finite_value() {
        for bits in 0..=u16::MAX {
            let h = half::f16::from_bits(bits);
            if h.is_finite() {
                assert_eq!(super::widen(h).to_bits(), h.to_f32().to_bits(), "{bits:#x}");
            }
        }
    }

    #[test]
    fn erf_agrees_with_libm_to_a_millionth() {
        for i in -4000..=4000 {
            let x = i as f32 / 1000.0;
            assert!((super::erf(x) - libm::erff(x)).abs() < 1e-6, "{x}");
        }
    }
}
