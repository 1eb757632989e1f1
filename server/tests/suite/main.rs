//! The server's integration tests, one module per concern, built as one
//! test binary (see indexer/tests/suite/main.rs for why); no test sets
//! anything process-wide.

#[path = "../common/mod.rs"]
mod common;

mod catalog;
mod contract;
mod editor;
mod faults;
mod notes;
mod protocol;
mod registry;
mod share;
mod startup;
mod transcript;
mod trend;
mod worklist;
