//! The command line's integration tests, one module per concern, built as
//! one test binary: a binary per file linked the whole workspace again for
//! each file, and ran the files one after another.
//! No test owns the process: what a test sets (an archive's memory
//! budget, its caches) is in the options it opens archives with.

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
mod kept_pages;
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
