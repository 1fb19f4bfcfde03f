//! Cooperative interruption: long loops poll [`check`], which fails once an interrupt was
//! requested (by the CLI's Ctrl-C handler or the Python binding's signal check).
//!
//! ```
//! assert!(serpsim::interrupt::check().is_ok());
//! ```

use crate::error::{Error, Result};
use std::sync::atomic::{AtomicBool, Ordering};

static REQUESTED: AtomicBool = AtomicBool::new(false);

/// Asks running work to stop at its next check.
pub fn request() {
    REQUESTED.store(true, Ordering::SeqCst);
}

/// Clears a request (the Python binding does this before each call).
pub fn reset() {
    REQUESTED.store(false, Ordering::SeqCst);
}

/// Whether an interrupt was requested.
#[inline]
pub fn requested() -> bool {
    REQUESTED.load(Ordering::Relaxed)
}

/// `Err(Error::Interrupted)` once an interrupt was requested.
#[inline]
pub fn check() -> Result<()> {
    if requested() {
        Err(Error::Interrupted)
    } else {
        Ok(())
    }
}
