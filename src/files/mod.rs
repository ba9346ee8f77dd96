//! Files: deepagents' backend protocol, its native state backend, and the path, glob and
//! text rules the file tools share. The tools themselves are a chain entry
//! (`middleware::filesystem`).

pub mod backend;
pub mod composite;
pub mod disk;
pub mod disk_change;
pub mod disk_file;
pub mod disk_paths;
pub mod file_data;
pub mod glob;
pub mod grep_context;
pub mod interrupt_rules;
pub mod media;
pub mod path;
pub mod permissions;
pub mod ripgrep;
pub mod sandbox;
pub mod sandbox_capture;
pub mod sandbox_ops;
pub mod sandbox_scripts;
pub mod sandbox_search;
pub mod sandbox_texts;
pub mod shell;
pub mod state_backend;
pub mod store;
pub mod text;
pub mod utf8;
pub mod video;

pub use backend::{Backend, FilesScope};

/// The lowercase hex SHA-256 of `bytes`, as Python's `hashlib.sha256(b).hexdigest()`: the
/// names of content-addressed files (offloaded blobs and media, long tool call ids).
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
pub use state_backend::StateBackend;
