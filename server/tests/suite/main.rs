//! The server's integration tests, one module per concern, built as one
//! test binary (see indexer/tests/suite/main.rs for why). `faults.rs`, which
//! sets the process's environment, is a binary of its own beside this one.

#[path = "../common/mod.rs"]
mod common;

mod catalog;
mod contract;
mod editor;
mod notes;
mod protocol;
mod registry;
mod share;
mod startup;
mod transcript;
mod trend;
mod worklist;
