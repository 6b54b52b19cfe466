//! The one clock every budget, search and proof reads: `std::time::Instant` natively, and in
//! the browser (wasm32, where std has no clock) `web-time`'s `Instant` over `performance.now()`,
//! which has the same interface.

#[cfg(not(target_arch = "wasm32"))]
pub use std::time::Instant;
#[cfg(target_arch = "wasm32")]
pub use web_time::Instant;
