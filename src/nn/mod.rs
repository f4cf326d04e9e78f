//! A small neural-network toolkit for the learned models (BoilerNet, the page classifier): the
//! principal type is [`Param`], a trainable row-major matrix with its gradient. Layers keep
//! their own forward caches and write gradients into their params; [`Adam`] updates them;
//! [`loss`] gives weighted binary cross-entropy on logits; [`io`] stores named params with a
//! JSON header in one little-endian file (small enough to ship in the repository).
//!
//! Everything is `f32`, row-major, batch-first (`rows × cols`, one example per row). The only
//! dependency is `matrixmultiply`'s SGEMM ([`gemm`]).

pub mod adam;
pub mod dense;
pub mod gemm;
pub mod io;
pub mod loss;
pub mod lstm;
pub mod param;

pub use adam::Adam;
pub use dense::Dense;
pub use lstm::{BiLstm, Dropout, Lstm};
pub use param::Param;

/// Errors of the model files and of shape checks.
#[derive(Debug, thiserror::Error)]
pub enum NnError {
    /// Reading or writing a model file failed.
    #[error("model file {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The bytes are not a webcorpus model file, or not of this version.
    #[error("not a webcorpus model file (or a newer version): {0}")]
    Format(String),
    /// A param the model needs is missing from the file, or has another shape.
    #[error("param {name}: {problem}")]
    Param {
        /// Param name.
        name: String,
        /// What is wrong.
        problem: String,
    },
}
