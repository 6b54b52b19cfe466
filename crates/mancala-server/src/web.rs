//! The browser client's files (`web/` at the repository root) and the translation files
//! (`locales/`, served at `/locales/LANG.json`, the same files `mancala_core::i18n` reads),
//! embedded in the binary; with `--web-dir` they are read from disk on every request instead
//! (for working on the client; the translations from `locales/` beside that folder).

use std::path::PathBuf;

use axum::extract::Path;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

use crate::response::ApiError;

/// `(name, content type, contents)` of every file of the client.
pub const FILES: &[(&str, &str, &str)] = &[
    (
        "index.html",
        "text/html; charset=utf-8",
        include_str!("../../../web/index.html"),
    ),
    (
        "style.css",
        "text/css; charset=utf-8",
        include_str!("../../../web/style.css"),
    ),
    (
        "app.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/app.js"),
    ),
    (
        "board.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/board.js"),
    ),
    (
        "api.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/api.js"),
    ),
    (
        "dom.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/dom.js"),
    ),
    (
        "account.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/account.js"),
    ),
    (
        "between.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/between.js"),
    ),
    (
        "text.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/text.js"),
    ),
    (
        "i18n.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/i18n.js"),
    ),
    (
        "prefs.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/prefs.js"),
    ),
    (
        "sound.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/sound.js"),
    ),
    (
        "settings.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/settings.js"),
    ),
    (
        "turn.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/turn.js"),
    ),
    (
        "value.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/value.js"),
    ),
    (
        "announce.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/announce.js"),
    ),
    (
        "graph.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/graph.js"),
    ),
    (
        "movelist.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/movelist.js"),
    ),
    (
        "engine-worker.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../web/engine-worker.js"),
    ),
    (
        "locales/en.json",
        "application/json",
        include_str!("../../../locales/en.json"),
    ),
    (
        "locales/pt.json",
        "application/json",
        include_str!("../../../locales/pt.json"),
    ),
    (
        "locales/es.json",
        "application/json",
        include_str!("../../../locales/es.json"),
    ),
    (
        "locales/it.json",
        "application/json",
        include_str!("../../../locales/it.json"),
    ),
    (
        "favicon.svg",
        "image/svg+xml",
        include_str!("../../../web/favicon.svg"),
    ),
];

/// The static copy's service worker, before [`export`] fills in its cache name and assets.
const SERVICE_WORKER: &str = include_str!("../../../web/sw.js");

/// Writes into `dir` a static copy of the client that any file server can serve: the
/// client's files, the engine built for the browser (`pkg`: the folder
/// scripts/wasm-build.sh writes, web/pkg/), a web app manifest and a service worker that
/// caches every file on the first visit so that the site then starts and plays offline. The
/// page is marked (`<meta name="mancala-engine" content="browser">`) so that the client asks
/// the engine in a Web Worker instead of a server. The cache is named after a hash of every
/// file, so that a new build is picked up on the next visit. Answers the files written.
pub fn export(dir: &std::path::Path, pkg: &std::path::Path) -> anyhow::Result<Vec<String>> {
    use anyhow::Context;
    use std::hash::{Hash, Hasher};
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    for &(name, _, body) in FILES {
        let body = if name == "index.html" {
            body.replacen(
                "</head>",
                "<meta name=\"mancala-engine\" content=\"browser\">\n\
                 <link rel=\"manifest\" href=\"/manifest.webmanifest\">\n</head>",
                1,
            )
        } else {
            body.to_string()
        };
        files.push((name.to_string(), body.into_bytes()));
    }
    for name in ["mancala_wasm.js", "mancala_wasm_bg.wasm"] {
        let path = pkg.join(name);
        let body = std::fs::read(&path).with_context(|| {
            format!(
                "{}: the engine for the browser is missing (build it with scripts/wasm-build.sh)",
                path.display()
            )
        })?;
        files.push((format!("pkg/{name}"), body));
    }
    let manifest = serde_json::json!({
        "name": "Mancala",
        "short_name": "Mancala",
        "start_url": "/",
        "display": "standalone",
        "background_color": "#f5efe2",
        "theme_color": "#7a4b1e",
        "icons": [{ "src": "/favicon.svg", "sizes": "any", "type": "image/svg+xml" }],
    });
    files.push((
        "manifest.webmanifest".into(),
        serde_json::to_vec_pretty(&manifest)?,
    ));
    // The cache's name: a hash of every file (std's SipHash with its fixed keys).
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for (name, body) in &files {
        name.hash(&mut h);
        body.hash(&mut h);
    }
    let mut assets: Vec<String> = vec!["/".into()];
    assets.extend(files.iter().map(|(n, _)| format!("/{n}")));
    let sw = SERVICE_WORKER
        .replace("__CACHE__", &format!("mancala-{:016x}", h.finish()))
        .replace("__ASSETS__", &serde_json::to_string(&assets)?);
    files.push(("sw.js".into(), sw.into_bytes()));
    for (name, body) in &files {
        let path = dir.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot create {}", parent.display()))?;
        }
        std::fs::write(&path, body).with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(files.into_iter().map(|(n, _)| n).collect())
}

fn file(dir: Option<&PathBuf>, name: &str) -> Response {
    let Some(&(_, ctype, embedded)) = FILES.iter().find(|f| f.0 == name) else {
        return ApiError::new(StatusCode::NOT_FOUND, format!("no file `{name}`")).into_response();
    };
    let body = match dir {
        Some(d) => match std::fs::read_to_string(if name.starts_with("locales/") {
            d.join("..").join(name)
        } else {
            d.join(name)
        }) {
            Ok(s) => s,
            Err(e) => {
                return ApiError::new(StatusCode::NOT_FOUND, format!("{name}: {e}")).into_response()
            }
        },
        None => embedded.to_string(),
    };
    let mut r = ([(header::CONTENT_TYPE, ctype)], body).into_response();
    let h = r.headers_mut();
    h.insert(header::CACHE_CONTROL, "no-cache".parse().expect("header"));
    h.insert("x-content-type-options", "nosniff".parse().expect("header"));
    if name == "index.html" {
        h.insert(
            "content-security-policy",
            "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
                .parse()
                .expect("header"),
        );
        h.insert("referrer-policy", "no-referrer".parse().expect("header"));
    }
    r
}

/// The routes of the browser client's files: `/` (its `index.html`) and `/{name}`, from
/// `dir` when given, else from the copy built in; they read no state, so they join a
/// router of any.
pub fn routes<S: Clone + Send + Sync + 'static>(dir: Option<PathBuf>) -> Router<S> {
    let d1 = dir.clone();
    let d2 = dir.clone();
    Router::new()
        .route(
            "/",
            get(move || {
                let d = d1.clone();
                async move { file(d.as_ref(), "index.html") }
            }),
        )
        .route(
            "/locales/{name}",
            get(move |Path(name): Path<String>| {
                let d = d2.clone();
                async move { file(d.as_ref(), &format!("locales/{name}")) }
            }),
        )
        .route(
            "/{name}",
            get(move |Path(name): Path<String>| {
                let d = dir.clone();
                async move { file(d.as_ref(), &name) }
            }),
        )
}

#[cfg(test)]
mod tests {
    use super::FILES;
    use mancala_core::i18n::{text, Lang};

    /// The keys the client's files name (`t('KEY'`, `tn('KEY'`, `data-i18n="KEY"`, and the
    /// keys written whole in quotes, such as `'web.keys.aids.8'`).
    fn keys_named() -> Vec<String> {
        let mut keys = Vec::new();
        for (name, _, body) in FILES
            .iter()
            .filter(|f| f.0.ends_with(".js") || f.0.ends_with(".html"))
        {
            for quote in ['\'', '"'] {
                for (i, _) in body.match_indices(quote) {
                    let rest = &body[i + 1..];
                    let Some(end) = rest.find(quote) else {
                        continue;
                    };
                    let k = &rest[..end];
                    let looks = [
                        "web.", "side.", "result.", "rules.", "option.", "preset.", "value.",
                    ]
                    .iter()
                    .any(|p| k.starts_with(p));
                    if looks
                        && k.chars()
                            .all(|c| c.is_ascii_alphanumeric() || ".-_".contains(c))
                        && !k.ends_with('.')
                    {
                        keys.push(format!("{name}: {k}"));
                    }
                }
            }
        }
        keys
    }

    /// Every key the client names is in English (and so, by `mancala_core::i18n`'s test, in
    /// every language): the client never shows a bare key.
    #[test]
    fn every_key_the_client_names_exists() {
        let keys = keys_named();
        assert!(keys.len() > 150, "{} keys found", keys.len());
        let missing: Vec<_> = keys
            .iter()
            .filter(|nk| {
                let k = nk.split(": ").nth(1).unwrap();
                text(Lang::En, k) == k && text(Lang::En, &format!("{k}.one")) == format!("{k}.one")
            })
            .collect();
        assert!(
            missing.is_empty(),
            "keys missing from locales/en.json: {missing:?}"
        );
    }
}
