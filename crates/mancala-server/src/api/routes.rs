//! The API's routes, and the layers in front of every one: the body limit, the rate limit,
//! JSON errors, a caught panic.

use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::Router;
use mancala_core::Msg;

use super::ctx::{client_ip, Ctx};
use super::{games, lists, replay, rules, ws};
use crate::response::ApiError;

/// Limits the API's requests by client address. The browser client's own files (built into
/// the server, answered from memory) are not counted: a page loads a score of them at once.
async fn rate_limit(State(c): State<Ctx>, req: Request, next: Next) -> Response {
    if !req.uri().path().starts_with("/api/") {
        return next.run(req).await;
    }
    let ip = client_ip(&c, req.extensions(), req.headers());
    if let Some(ip) = ip {
        if !c.limiter.allow(ip) {
            let mut r = ApiError::said(
                StatusCode::TOO_MANY_REQUESTS,
                Msg::new("server.too-many-requests"),
            )
            .into_response();
            r.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
            return r;
        }
    }
    next.run(req).await
}

/// Any error response that is not JSON yet (unknown route, wrong method, a failed extractor)
/// becomes `{"error": ...}` with the same status.
async fn json_errors(req: Request, next: Next) -> Response {
    let res = next.run(req).await;
    let status = res.status();
    if !(status.is_client_error() || status.is_server_error()) {
        return res;
    }
    let is_json = res
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if is_json {
        return res;
    }
    let (parts, body) = res.into_parts();
    let text = axum::body::to_bytes(body, 4096).await.unwrap_or_default();
    let text = String::from_utf8_lossy(&text).trim().to_string();
    let message = if text.is_empty() || text.len() > 400 {
        match status {
            StatusCode::NOT_FOUND => "no such endpoint".to_string(),
            StatusCode::METHOD_NOT_ALLOWED => "method not allowed here".to_string(),
            s => s.canonical_reason().unwrap_or("error").to_string(),
        }
    } else {
        text
    };
    let mut r = ApiError::new(status, message).into_response();
    for (k, v) in parts.headers.iter() {
        if k != header::CONTENT_TYPE && k != header::CONTENT_LENGTH {
            r.headers_mut().insert(k.clone(), v.clone());
        }
    }
    r
}

/// The API routes, `extra` routes (the accounts') and the client's files, with the body
/// limit, rate limit, JSON errors and panic catching layers.
pub fn router(c: Ctx, extra: Router<Ctx>) -> Router {
    let max_body = c.app.cfg.max_body;
    let api = Router::new()
        .merge(rules::routes())
        .merge(games::routes())
        .merge(lists::routes())
        .merge(replay::routes(max_body))
        .merge(ws::routes())
        .merge(extra)
        .layer(DefaultBodyLimit::max(max_body));
    let catch =
        tower_http::catch_panic::CatchPanicLayer::custom(|_: Box<dyn std::any::Any + Send>| {
            ApiError::internal("the server hit a bug; the game is safe").into_response()
        });
    api.merge(crate::web::routes(c.app.cfg.web_dir.clone()))
        .fallback(|| async { ApiError::new(StatusCode::NOT_FOUND, "no such page or endpoint") })
        .layer(middleware::from_fn(json_errors))
        .layer(middleware::from_fn_with_state(c.clone(), rate_limit))
        .layer(catch)
        .with_state(c)
}
