//! What the client reads before any game: the rules in words, the new-game menus, and the
//! server's health.

use axum::extract::{Query, State};
use axum::routing::get;
use axum::{Json, Router};
use mancala_core::i18n::Lang;
use mancala_core::{Position, Rules};
use serde::Deserialize;

use super::ctx::Ctx;
use crate::response::{ApiError, ApiResult, Health, RulesText};
use crate::store::MIGRATIONS;
use crate::view;

#[derive(Deserialize)]
struct RulesQuery {
    variant: Option<String>,
    lang: Option<String>,
}

#[derive(Deserialize)]
struct LangQuery {
    lang: Option<String>,
}

/// The language a request asks for (`?lang=pt`); English where it names none.
fn lang_of(q: Option<&str>) -> ApiResult<Lang> {
    match q {
        None | Some("") => Ok(Lang::En),
        Some(l) => l.parse().map_err(ApiError::from),
    }
}

async fn rules_text(Query(q): Query<RulesQuery>) -> ApiResult<Json<RulesText>> {
    let r: Rules = q
        .variant
        .as_deref()
        .unwrap_or("kalah")
        .parse()
        .map_err(ApiError::from)?;
    let lang = lang_of(q.lang.as_deref())?;
    let start = Position::start(&r).map_err(ApiError::from)?;
    Ok(Json(RulesText {
        name: r.to_string(),
        rules: r,
        lang: lang.code().to_string(),
        title: r.title_in(lang),
        summary: r.preset.summary_in(lang),
        restriction: r.move_restriction_in(lang),
        text: r.describe_in(lang),
        start: view::board(&start),
    }))
}

async fn variants(Query(q): Query<LangQuery>) -> ApiResult<Json<view::Variants>> {
    Ok(Json(view::variants(lang_of(q.lang.as_deref())?)))
}

async fn health(State(c): State<Ctx>) -> Json<Health> {
    Json(Health {
        ok: true,
        schema: MIGRATIONS.len(),
        ai_threads: c.app.cfg.ai_threads,
    })
}

/// The routes of what the client reads before any game.
pub(super) fn routes() -> Router<Ctx> {
    Router::new()
        .route("/api/health", get(health))
        .route("/api/variants", get(variants))
        .route("/api/rules", get(rules_text))
}
