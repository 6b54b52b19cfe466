//! The HTTP and WebSocket API. Every error is a 4xx (or 5xx) with `{"error": "..."}`.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{DefaultBodyLimit, Path, Query, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use futures_util::{SinkExt, StreamExt};
use mancala_core::i18n::Lang;
use mancala_core::{Msg, Position, Record, Rules, Side};
use serde::Deserialize;
use serde_json::Value;

use crate::app::{ApiError, ApiResult, App, MoveChoice, NewGame};
use crate::request::{bearer, clean_name, clock_from, parse_json, rules_from, seat_choice};
use crate::response::{
    GameView, Health, Hint, Joined, Player, RecordPlayer, RulesText, Seats, WsMessage,
};
use crate::view;

/// Shared state of the handlers.
#[derive(Clone)]
pub struct Ctx {
    /// The games, the database and the settings.
    pub app: Arc<App>,
    /// The request rate limiter shared by every client address.
    pub limiter: Arc<Limiter>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CreateReq {
    #[serde(default)]
    rules: Option<Value>,
    #[serde(default)]
    options: Option<HashMap<String, Value>>,
    /// "computer" (default) or "friend".
    #[serde(default)]
    opponent: Option<String>,
    #[serde(default)]
    level: Option<i64>,
    /// "south", "north" or "random".
    #[serde(default)]
    side: Option<String>,
    #[serde(default)]
    name: Option<String>,
    /// A start position string (its rules must match).
    #[serde(default)]
    position: Option<String>,
    /// A clock for a game between people: `3+2` (minutes, seconds more a turn) or `3d`
    /// (days a move); none: untimed.
    #[serde(default)]
    clock: Option<String>,
}

async fn create(State(c): State<Ctx>, body: Result<Bytes, BytesRejection>) -> ApiResult<Response> {
    let req: CreateReq = parse_json(body)?;
    let mut rules = rules_from(req.rules.as_ref(), req.options.as_ref())?;
    let start = match &req.position {
        Some(p) => {
            let p: Position = p.parse().map_err(ApiError::from)?;
            if req.rules.is_some() && p.rules() != &rules {
                return Err(ApiError::bad(format!(
                    "the position plays `{}`, not `{rules}`",
                    p.rules()
                )));
            }
            rules = *p.rules();
            Some(p)
        }
        None => None,
    };
    let level = match req.opponent.as_deref().unwrap_or("computer") {
        "computer" => {
            let l = req.level.unwrap_or(3);
            if !(1..=8).contains(&l) {
                return Err(ApiError::bad(format!("level must be 1 to 8, got {l}")));
            }
            Some(l as u8)
        }
        "friend" => {
            if req.level.is_some() {
                return Err(ApiError::bad(
                    "a level is only for games against the computer",
                ));
            }
            None
        }
        other => {
            return Err(ApiError::bad(format!(
                "opponent must be \"computer\" or \"friend\", got \"{other}\""
            )))
        }
    };
    let side = seat_choice(req.side.as_deref())?;
    let v = c
        .app
        .create(NewGame {
            rules,
            start,
            level,
            side,
            name: clean_name(req.name)?,
            clock: match (clock_from(req.clock.as_deref())?, level) {
                (Some(_), Some(_)) => {
                    return Err(ApiError::bad(
                        "a clock is for a game between people (`\"opponent\": \"friend\"`), not against the computer",
                    ))
                }
                (clock, _) => clock,
            },
        })
        .await?;
    Ok((StatusCode::CREATED, Json(v)).into_response())
}

async fn get_game(
    State(c): State<Ctx>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> ApiResult<Json<GameView>> {
    Ok(Json(c.app.state(&id, bearer(&headers).as_deref()).await?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MoveReq {
    pit: Value,
    #[serde(default)]
    ply: Option<i64>,
}

/// A move's `pit`: a number (1 = the mover's leftmost pit) or `"swap"` (the pie rule).
fn pit_number(v: &Value) -> ApiResult<MoveChoice> {
    match v {
        Value::Number(n) => n.as_i64().map(MoveChoice::Pit).ok_or_else(|| {
            ApiError::bad("pit must be a whole number (1 = your leftmost pit) or \"swap\"")
        }),
        Value::String(s) if s.eq_ignore_ascii_case("swap") => Ok(MoveChoice::Swap),
        _ => Err(ApiError::bad(
            "pit must be a number (1 = your leftmost pit) or \"swap\"",
        )),
    }
}

async fn play(
    State(c): State<Ctx>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult<Json<GameView>> {
    let req: MoveReq = parse_json(body)?;
    let pit = pit_number(&req.pit)?;
    Ok(Json(
        c.app
            .play(&id, bearer(&headers).as_deref(), pit, req.ply)
            .await?,
    ))
}

async fn undo(
    State(c): State<Ctx>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> ApiResult<Json<GameView>> {
    Ok(Json(c.app.undo(&id, bearer(&headers).as_deref()).await?))
}

async fn resign(
    State(c): State<Ctx>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> ApiResult<Json<GameView>> {
    Ok(Json(c.app.resign(&id, bearer(&headers).as_deref()).await?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OfferReq {
    kind: String,
}

fn offer_kind(k: &str) -> ApiResult<crate::between::OfferKind> {
    crate::between::OfferKind::parse(k).ok_or_else(|| {
        ApiError::bad(format!(
            "an offer's kind is \"draw\", \"takeback\" or \"rematch\", not {:?}",
            k.chars().take(20).collect::<String>()
        ))
    })
}

/// `POST /api/games/ID/offer` `{"kind": "draw" | "takeback" | "rematch"}`.
async fn offer(
    State(c): State<Ctx>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult<Json<GameView>> {
    let req: OfferReq = parse_json(body)?;
    let kind = offer_kind(&req.kind)?;
    Ok(Json(
        c.app.offer(&id, bearer(&headers).as_deref(), kind).await?,
    ))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AnswerReq {
    accept: bool,
}

/// `POST /api/games/ID/answer` `{"accept": true | false}`: the opponent's offer.
async fn answer(
    State(c): State<Ctx>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult<Json<GameView>> {
    let req: AnswerReq = parse_json(body)?;
    let token = bearer(&headers);
    Ok(Json(c.app.answer(&id, token.as_deref(), req.accept).await?))
}

/// `POST /api/games/ID/claim`: the game, against an opponent gone too long.
async fn claim(
    State(c): State<Ctx>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> ApiResult<Json<GameView>> {
    Ok(Json(c.app.claim(&id, bearer(&headers).as_deref()).await?))
}

/// `POST /api/games/ID/rematch`: the asker's seat (and a guest's token) in the rematch.
async fn rematch_seat(
    State(c): State<Ctx>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> ApiResult<Json<crate::between::RematchSeat>> {
    Ok(Json(
        c.app.rematch_seat(&id, bearer(&headers).as_deref()).await?,
    ))
}

async fn hint(
    State(c): State<Ctx>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> ApiResult<Json<Hint>> {
    Ok(Json(c.app.hint(&id, bearer(&headers).as_deref()).await?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JoinReq {
    invite: String,
    #[serde(default)]
    name: Option<String>,
}

async fn join(
    State(c): State<Ctx>,
    Path(id): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult<Json<Joined>> {
    let req: JoinReq = parse_json(body)?;
    Ok(Json(
        c.app.join(&id, &req.invite, clean_name(req.name)?).await?,
    ))
}

#[derive(Deserialize)]
struct RecordQuery {
    format: Option<String>,
}

async fn record(
    State(c): State<Ctx>,
    Path(id): Path<String>,
    Query(q): Query<RecordQuery>,
) -> ApiResult<Response> {
    let entry = c.app.entry(&id).await?;
    let live = entry.live.lock().await;
    let (body, ctype, ext) = match q.format.as_deref().unwrap_or("json") {
        "json" => (
            serde_json::to_string_pretty(&live.record()).map_err(ApiError::internal)? + "\n",
            "application/json",
            "json",
        ),
        "text" | "txt" => (live.record_text()?, "text/plain; charset=utf-8", "txt"),
        f => {
            return Err(ApiError::bad(format!(
                "format must be json or text, got `{f}`"
            )))
        }
    };
    let disp = format!("attachment; filename=\"mancala-{id}.{ext}\"");
    Ok((
        [
            (header::CONTENT_TYPE, ctype.to_string()),
            (header::CONTENT_DISPOSITION, disp),
        ],
        body,
    )
        .into_response())
}

/// The newest games of KGP bots (`serve --kgp-addr`), each watchable as any game.
async fn bot_games(State(c): State<Ctx>) -> ApiResult<Json<crate::response::BotGames>> {
    Ok(Json(c.app.bot_games().await?))
}

/// The games between people and bots going on now, to watch.
async fn live_games(State(c): State<Ctx>) -> ApiResult<Json<crate::response::BotGames>> {
    Ok(Json(c.app.live_games().await?))
}

/// The bots waiting in the KGP lobby (`serve --kgp-lobby`).
async fn lobby_bots(State(c): State<Ctx>) -> Json<crate::response::LobbyBots> {
    Json(c.app.lobby_bots())
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct ChallengeReq {
    #[serde(default)]
    side: Option<String>,
    #[serde(default)]
    name: Option<String>,
}

/// A person challenges a waiting bot: `{"side": "south"|"north"|"random", "name": N}`, both
/// optional (an empty body too); answers as a new game does.
async fn challenge(
    State(c): State<Ctx>,
    Path(bot): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult<Response> {
    let req: ChallengeReq = match &body {
        Ok(b) if b.iter().all(u8::is_ascii_whitespace) => ChallengeReq::default(),
        _ => parse_json(body)?,
    };
    let side = seat_choice(req.side.as_deref())?;
    let v = c
        .app
        .challenge_bot(&bot, side, clean_name(req.name)?)
        .await?;
    Ok((StatusCode::CREATED, Json(v)).into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PairReq {
    south: Value,
    north: Value,
}

/// Two waiting bots play each other: `{"south": ID, "north": ID}`; answers the new game's
/// state.
async fn pair(State(c): State<Ctx>, body: Result<Bytes, BytesRejection>) -> ApiResult<Response> {
    let req: PairReq = parse_json(body)?;
    let id = |v: &Value| match v {
        Value::String(s) => s.clone(),
        v => v.to_string(),
    };
    let game = c.app.pair_bots(&id(&req.south), &id(&req.north)).await?;
    Ok((
        StatusCode::CREATED,
        Json(serde_json::json!({ "game": game })),
    )
        .into_response())
}

/// `?values=false` leaves the engine's values out (the game screen's look back at a ply).
#[derive(Deserialize)]
struct ReplayQuery {
    #[serde(default = "yes")]
    values: bool,
}

fn yes() -> bool {
    true
}

async fn replay_game(
    State(c): State<Ctx>,
    Path(id): Path<String>,
    Query(q): Query<ReplayQuery>,
) -> ApiResult<Json<view::Replay<Seats<Player>>>> {
    Ok(Json(c.app.replay(&id, q.values).await?))
}

/// Replays an uploaded record (JSON or text) for the replay viewer.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AnalysisReq {
    position: String,
    #[serde(default)]
    history: Vec<String>,
}

/// Most earlier positions an analysis request may give (a long game's).
const MAX_HISTORY: usize = 4096;

/// `POST /api/analysis`: every legal move of a position valued, and the best line (none in
/// a finished game, whose board is still shown).
async fn analysis(
    State(c): State<Ctx>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult<Json<view::Analysis>> {
    let req: AnalysisReq = parse_json(body)?;
    let pos = view::analysis_position(&req.position).map_err(ApiError::from)?;
    if req.history.len() > MAX_HISTORY {
        return Err(ApiError::bad(format!(
            "history: at most {MAX_HISTORY} earlier positions"
        )));
    }
    let history = req
        .history
        .iter()
        .enumerate()
        .map(|(k, text)| {
            let p = view::analysis_position(text).map_err(|e| {
                ApiError::said(
                    StatusCode::BAD_REQUEST,
                    Msg::new("server.history").arg("k", k).error("error", e),
                )
            })?;
            if p.rules() != pos.rules() {
                return Err(ApiError::bad(format!(
                    "history[{k}]: rules {} differ from the position's ({})",
                    p.rules(),
                    pos.rules()
                )));
            }
            Ok(p)
        })
        .collect::<ApiResult<Vec<_>>>()?;
    Ok(Json(c.app.analyse(pos, history).await?))
}

async fn replay_record(
    State(c): State<Ctx>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult<Json<view::Replay<Seats<RecordPlayer>>>> {
    let bytes = body.map_err(|e| {
        if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::new(e.status(), "record too large")
        } else {
            ApiError::new(e.status(), e.body_text())
        }
    })?;
    let text =
        std::str::from_utf8(&bytes).map_err(|_| ApiError::bad("the record is not UTF-8 text"))?;
    if text.trim().is_empty() {
        return Err(ApiError::bad(
            "send a game record (JSON or text) as the body",
        ));
    }
    // Checked whole, as `mancala replay` does; a record whose moves replay but whose
    // annotations or score disagree is shown anyway, with the disagreement as a note.
    let (rec, game, note) = Record::parse_noting(text, None).map_err(ApiError::from)?;
    let players = Seats {
        south: RecordPlayer::named(rec.players.south),
        north: RecordPlayer::named(rec.players.north),
    };
    let stop = rec.result.as_ref().and_then(|r| r.stop());
    let mut view = c.app.replay_game(game, players, stop).await?;
    view.note = note.as_ref().map(|n| n.to_string());
    view.note_message = note.map(|n| n.msg());
    Ok(Json(view))
}

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
        schema: crate::store::MIGRATIONS.len(),
        ai_threads: c.app.cfg.ai_threads,
    })
}

// ---------------------------------------------------------------------------------------
// WebSocket: the state after every change; moves, undo and resignation may be sent too.

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WsReq {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    token: Option<String>,
    #[serde(default)]
    pit: Option<Value>,
    #[serde(default)]
    ply: Option<i64>,
    /// Echoed in the answer.
    #[serde(default)]
    id: Option<Value>,
    /// `offer`'s kind: `draw`, `takeback` or `rematch`.
    #[serde(default)]
    offer: Option<String>,
    /// `answer`'s choice.
    #[serde(default)]
    accept: Option<bool>,
}

async fn ws(
    State(c): State<Ctx>,
    Path(id): Path<String>,
    ext: axum::http::Extensions,
    headers: HeaderMap,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> ApiResult<Response> {
    // An unknown game is refused before the upgrade.
    c.app.entry(&id).await?;
    let upgrade = upgrade.map_err(ApiError::not_a_websocket)?;
    let ip = client_ip(&c, &ext, &headers);
    // A signed-in player's connection is his seat's (his cookie gave the token).
    let token = bearer(&headers);
    Ok(upgrade
        .max_message_size(16 * 1024)
        .on_upgrade(move |socket| ws_session(socket, c, id, ip, token)))
}

async fn ws_answer(
    c: &Ctx,
    game: &str,
    text: &str,
    ip: Option<IpAddr>,
    seat: &mut Option<Side>,
) -> WsMessage {
    if let Some(ip) = ip {
        if !c.limiter.allow(ip) {
            return WsMessage::error(
                None,
                ApiError::said(
                    StatusCode::TOO_MANY_REQUESTS,
                    Msg::new("server.too-many-messages"),
                ),
            );
        }
    }
    let req: WsReq = match serde_json::from_str(text) {
        Ok(r) => r,
        Err(e) => return WsMessage::error(None, ApiError::bad(format!("malformed JSON: {e}"))),
    };
    let token = req.token.as_deref();
    let result = match req.kind.as_str() {
        "move" => match req.pit.as_ref().map(pit_number) {
            Some(Ok(p)) => c.app.play(game, token, p, req.ply).await,
            Some(Err(e)) => Err(e),
            None => Err(ApiError::bad("a move needs `pit`")),
        },
        "undo" => c.app.undo(game, token).await,
        "resign" => c.app.resign(game, token).await,
        "state" => c.app.state(game, token).await,
        "offer" => match offer_kind(req.offer.as_deref().unwrap_or("")) {
            Ok(k) => c.app.offer(game, token, k).await,
            Err(e) => Err(e),
        },
        "answer" => match req.accept {
            Some(a) => c.app.answer(game, token, a).await,
            None => Err(ApiError::bad("an answer needs `accept`: true or false")),
        },
        "claim" => c.app.claim(game, token).await,
        // Says this connection is the seat's player's (for claims against the absent).
        "here" if seat.is_some() => c.app.state(game, token).await,
        "here" => match c.app.here(game, token).await {
            Ok(side) => {
                *seat = Some(side);
                c.app.state(game, token).await
            }
            Err(e) => Err(e),
        },
        other => Err(ApiError::bad(format!(
            "unknown message type `{other}` (move, undo, resign, state, offer, answer, claim, here)"
        ))),
    };
    match result {
        Ok(game) => WsMessage::Ack { id: req.id, game },
        Err(e) => WsMessage::error(Some(req.id.unwrap_or(Value::Null)), e),
    }
}

async fn ws_session(
    socket: WebSocket,
    c: Ctx,
    id: String,
    ip: Option<IpAddr>,
    token: Option<String>,
) {
    let Ok(entry) = c.app.watch(&id).await else {
        return;
    };
    let mut seat = match token {
        Some(t) => c.app.here(&id, Some(&t)).await.ok(),
        None => None,
    };
    ws_loop(socket, &c, &id, &entry, ip, &mut seat).await;
    if let Some(side) = seat {
        c.app.presence(&id, side, false).await;
    }
}

async fn ws_loop(
    socket: WebSocket,
    c: &Ctx,
    id: &str,
    entry: &crate::app::Entry,
    ip: Option<IpAddr>,
    seat: &mut Option<Side>,
) {
    let mut rx = entry.tx.subscribe();
    let (mut tx, mut incoming) = socket.split();
    let hello = {
        let live = entry.live.lock().await;
        WsMessage::State {
            game: live.view(None),
        }
        .text()
    };
    if tx.send(Message::Text(hello.into())).await.is_err() {
        return;
    }
    loop {
        tokio::select! {
            msg = rx.recv() => {
                let text: String = match msg {
                    Ok(m) => m.to_string(),
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {
                        let live = entry.live.lock().await;
                        WsMessage::State { game: live.view(None) }.text()
                    }
                    Err(_) => break,
                };
                if tx.send(Message::Text(text.into())).await.is_err() {
                    break;
                }
            }
            m = incoming.next() => {
                let answer = match m {
                    Some(Ok(Message::Text(t))) => ws_answer(c, id, t.as_str(), ip, seat).await,
                    Some(Ok(Message::Binary(_))) => {
                        WsMessage::error(None, ApiError::bad("send JSON text messages"))
                    }
                    Some(Ok(Message::Close(_))) | None => break,
                    Some(Err(e)) => {
                        // A message the socket cannot read (over 16 KiB, text that is not
                        // UTF-8): the connection cannot go on, but the client is told why.
                        let why = format!("unreadable message ({e}): send JSON text of at most 16 KiB");
                        let error = WsMessage::error(None, ApiError::bad(why));
                        let _ = tx.send(Message::Text(error.text().into())).await;
                        let close = axum::extract::ws::CloseFrame {
                            code: axum::extract::ws::close_code::POLICY,
                            reason: "unreadable message".into(),
                        };
                        let _ = tx.send(Message::Close(Some(close))).await;
                        break;
                    }
                    Some(Ok(_)) => continue, // ping/pong
                };
                if tx.send(Message::Text(answer.text().into())).await.is_err() {
                    break;
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Rate limiting: a token bucket a client address.

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
fn client_ip(c: &Ctx, ext: &axum::http::Extensions, headers: &HeaderMap) -> Option<IpAddr> {
    c.app.cfg.trusted_proxies.of_request(ext, headers)
}

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
        .route("/api/health", get(health))
        .route("/api/variants", get(variants))
        .route("/api/rules", get(rules_text))
        .route("/api/games", post(create))
        .route("/api/games/live", get(live_games))
        .route("/api/games/{id}", get(get_game))
        .route("/api/games/{id}/moves", post(play))
        .route("/api/games/{id}/undo", post(undo))
        .route("/api/games/{id}/resign", post(resign))
        .route("/api/games/{id}/hint", get(hint))
        .route("/api/games/{id}/offer", post(offer))
        .route("/api/games/{id}/answer", post(answer))
        .route("/api/games/{id}/claim", post(claim))
        .route("/api/games/{id}/rematch", post(rematch_seat))
        .route("/api/games/{id}/join", post(join))
        .route("/api/games/{id}/record", get(record))
        .route("/api/games/{id}/replay", get(replay_game))
        .route("/api/games/{id}/ws", get(ws))
        .route("/api/kgp/games", get(bot_games))
        .route("/api/kgp/bots", get(lobby_bots))
        .route("/api/kgp/bots/{id}/challenge", post(challenge))
        .route("/api/kgp/pair", post(pair))
        .route(
            "/api/analysis",
            post(analysis).layer(DefaultBodyLimit::max(max_body.max(256 * 1024))),
        )
        .route(
            "/api/replay",
            post(replay_record).layer(DefaultBodyLimit::max(max_body.max(256 * 1024))),
        )
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
