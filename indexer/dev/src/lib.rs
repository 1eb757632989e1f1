//! archilyzer-dev: the developers' tools, a crate of their own so that
//! nothing of them (nor the seeded random numbers they need) is in what
//! people install.
//!
//! - [`generate`]: the deterministic archive generator (`gen`): four
//!   composed dirs of any size, the same bytes for the same seed.
//! - [`bench`](mod@bench): the reference query set, each run a fresh process, timed
//!   beside a full scan by `rg`.
//! - [`serve`]: a composed dir over HTTP on loopback, slowed on purpose,
//!   for the benchmark's remote rows.
#![forbid(unsafe_code)]

pub mod bench;
pub mod generate;
pub mod grow;
pub mod serve;
