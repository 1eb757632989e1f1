//! The command line's integration tests, one module per concern, built as
//! one test binary: a binary per file linked the whole workspace again for
//! each file, and ran the files one after another.
//! A test that must own the process (its environment, its working
//! directory) lives in a binary of its own beside this one.

#[path = "../common/mod.rs"]
mod common;
#[path = "../doc_sections/mod.rs"]
mod doc_sections;

mod differential;
mod docs;
mod faults;
mod first_run;
mod format;
mod hosts;
mod import;
mod index;
mod nginx;
mod ownership;
mod passages;
mod related;
mod remote;
mod share;
mod site_owned;
mod source;
mod spans;
mod trend;
