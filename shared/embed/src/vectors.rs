//! Unit vectors kept as int8, and the nearest of them to a query.
//!
//! A vector is stored as `dim` signed bytes, `round(x / scale)` with
//! `scale = max |x| / 127`, its scale kept by the caller beside it; a
//! cosine is then the two scales times `Σ q·v`, the query quantized the
//! same way. That is a quarter of f32's bytes, and on unit vectors of
//! 384 dimensions the cosine moves by about 0.003 (pinned by
//! `quantized_cosines_stay_within_a_hundredth_of_the_exact_ones`).
//!
//! [`Vectors`] reads the file through a memory map, so a query touches
//! the pages it scans and the process holds none of it as its own
//! memory; the file is only ever replaced by a rename, never written in
//! place, so a map stays valid while it is open.

use std::path::Path;

use crate::EmbedError;

/// `v` as int8, and the scale that brings it back (`x ≈ scale × q`).
pub fn quantize(v: &[f32]) -> (Vec<i8>, f32) {
    let max = v.iter().fold(0f32, |m, x| m.max(x.abs()));
    if max == 0.0 {
        return (vec![0; v.len()], 0.0);
    }
    let scale = max / 127.0;
    let q = v
        .iter()
        .map(|x| (x / scale).round().clamp(-127.0, 127.0) as i8)
        .collect();
    (q, scale)
}

/// A file of `count` int8 vectors of `dim` bytes each, back to back.
pub struct Vectors {
    map: memmap2::Mmap,
    dim: usize,
}

impl Vectors {
    /// Maps the file at `path`, which must hold whole vectors of `dim`.
    pub fn open(path: &Path, dim: usize) -> Result<Vectors, EmbedError> {
        let file = std::fs::File::open(path).map_err(|e| EmbedError::io(path, e))?;
        let map = map(&file).map_err(|e| EmbedError::io(path, e))?;
        if dim == 0 || map.len() % dim != 0 {
            return Err(EmbedError::model(format!(
                "{} holds {} bytes, not whole vectors of {dim}",
                path.display(),
                map.len()
            )));
        }
        Ok(Vectors { map, dim })
    }

    /// How many vectors the file holds.
    pub fn len(&self) -> usize {
        self.map.len() / self.dim
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Every vector's bytes, back to back, as mapped.
    pub fn bytes(&self) -> &[u8] {
        &self.map
    }

    /// Vector `i`'s bytes (each an `i8` stored as its two's-complement
    /// byte).
    pub fn get(&self, i: usize) -> &[u8] {
        &self.map[i * self.dim..(i + 1) * self.dim]
    }

    /// The raw dot products `Σ q·v` of `query` with vector `i` for each
    /// `i` of `ids`, over `threads` threads (multiply by a vector's scale
    /// for its cosine). The query is quantized as the vectors are, so
    /// the products are exact integer sums, the same on every machine.
    pub fn dots(&self, query: &[f32], ids: &[u32], threads: usize) -> Vec<f32> {
        let (query, scale) = quantize(query);
        let chunk = ids.len().div_ceil(threads.max(1)).max(1);
        let mut out = vec![0f32; ids.len()];
        // On rayon's threads, as the embedder's layers are.
        use rayon::prelude::*;
        out.par_chunks_mut(chunk)
            .zip(ids.par_chunks(chunk))
            .for_each(|(part, ids)| dots_into(&query, scale, &self.map, ids, part));
        out
    }
}

/// `part[k] = scale × Σ q·v` for vector `ids[k]` of `vectors`; compiled
/// for AVX2 too, chosen at run time.
#[allow(unsafe_code)] // the dispatch multiversion generates
#[multiversion::multiversion(targets("x86_64+avx2", "x86_64+sse4.1", "aarch64+neon"))]
fn dots_into(query: &[i8], scale: f32, vectors: &[u8], ids: &[u32], part: &mut [f32]) {
    let dim = query.len();
    for (o, &i) in part.iter_mut().zip(ids) {
        let at = i as usize * dim;
        *o = scale * dot(query, &vectors[at..at + dim]) as f32;
    }
}

/// `Σ q·v` over int8 values (each of `v` stored as its two's-complement
/// byte), in i32: exact, and a sum the compiler turns into the CPU's
/// multiply-add of pairs.
#[inline(always)]
pub fn dot(q: &[i8], v: &[u8]) -> i32 {
    q.iter()
        .zip(v)
        .map(|(&a, &b)| i32::from(a) * i32::from(b as i8))
        .sum()
}

#[allow(unsafe_code)]
fn map(file: &std::fs::File) -> std::io::Result<memmap2::Mmap> {
    // SAFETY: the vector files are written under a temporary name and
    // renamed into place, never changed in place (see the module's
    // documentation), so the mapped bytes do not change under the map.
    unsafe { memmap2::Mmap::map(file) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    fn unit(rng: &mut impl Rng, dim: usize) -> Vec<f32> {
        let v: Vec<f32> = (0..dim).map(|_| rng.random_range(-1.0f32..1.0)).collect();
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.iter().map(|x| x / n).collect()
    }

    #[test]
    fn quantized_cosines_stay_within_a_hundredth_of_the_exact_ones() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v.i8");
        let dim = 384;
        let vs: Vec<Vec<f32>> = (0..200).map(|_| unit(&mut rng, dim)).collect();
        let (bytes, scales): (Vec<Vec<i8>>, Vec<f32>) = vs.iter().map(|v| quantize(v)).unzip();
        let flat: Vec<u8> = bytes.iter().flatten().map(|&b| b as u8).collect();
        std::fs::write(&path, flat).unwrap();
        let stored = Vectors::open(&path, dim).unwrap();
        assert_eq!(stored.len(), 200);
        let q = unit(&mut rng, dim);
        let ids: Vec<u32> = (0..200).collect();
        let dots = stored.dots(&q, &ids, 3);
        for (i, v) in vs.iter().enumerate() {
            let exact: f32 = q.iter().zip(v).map(|(a, b)| a * b).sum();
            assert!((dots[i] * scales[i] - exact).abs() < 0.01, "{i}");
        }
    }

    #[test]
    fn a_file_of_partial_vectors_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v.i8");
        std::fs::write(&path, [0u8; 10]).unwrap();
        let e = Vectors::open(&path, 4).err().unwrap().to_string();
        assert!(e.contains("not whole vectors of 4"), "{e}");
    }
}
