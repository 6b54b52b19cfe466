//! The handlers' shared state: the app and the rate limiter, a token bucket a client
//! address.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use axum::http::HeaderMap;

use crate::app::App;

/// Shared state of the handlers.
#[derive(Clone)]
pub struct Ctx {
    /// The games, the database and the settings.
    pub app: Arc<App>,
    /// The request rate limiter shared by every client address.
    pub limiter: Arc<Limiter>,
}

/// A rate limiter: a token bucket for each client address, refilled at `rate` requests a
/// second up to `burst`.
pub struct Limiter {
    rate: f64,
    burst: f64,
    buckets: Mutex<HashMap<IpAddr, (f64, Instant)>>,
}

impl Limiter {
    /// `rate` requests a second on average, `burst` at once; a rate of 0 allows everything.
    pub fn new(rate: f64, burst: f64) -> Limiter {
        Limiter {
            rate,
            burst: burst.max(1.0),
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// Whether a request from `ip` may go ahead now; takes a token from its bucket when it may.
    /// Always true when the rate is 0.
    pub fn allow(&self, ip: IpAddr) -> bool {
        if self.rate <= 0.0 {
            return true;
        }
        let now = Instant::now();
        let mut b = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        if b.len() > 10_000 {
            let (rate, burst) = (self.rate, self.burst);
            b.retain(|_, (tokens, t)| {
                *tokens + now.duration_since(*t).as_secs_f64() * rate < burst
            });
        }
        let (tokens, last) = b.entry(ip).or_insert((self.burst, now));
        *tokens = (*tokens + now.duration_since(*last).as_secs_f64() * self.rate).min(self.burst);
        *last = now;
        if *tokens >= 1.0 {
            *tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

/// The client's address of a request, for the rate limit: the peer's, or the one a trusted
/// proxy names (`client_addr`). `None` where the server was not given peers' addresses.
pub(super) fn client_ip(
    c: &Ctx,
    ext: &axum::http::Extensions,
    headers: &HeaderMap,
) -> Option<IpAddr> {
    c.app.cfg.trusted_proxies.of_request(ext, headers)
}
