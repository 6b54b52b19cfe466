//! A lobby of KGP bots (`serve --kgp-lobby`): a bot that asks for `freeplay` waits there,
//! pinged, until a game is made for it, against a person whose moves come from outside (the
//! web) or against another waiting bot; between games it waits again, and a bot that leaves
//! (a closed connection, a fault) leaves the lobby.
//!
//! A connection stays on its own thread all along ([`wait`]): it answers its bot's pings,
//! refuses what the bot sends unasked and pings it every [`Lobby::ping_every`]. A game runs on
//! a thread of its own, which asks each bot's thread for its moves; that thread plays them
//! with the server's own [`bot_move`], so a bot's faults are found and told as in any game.

use std::collections::BTreeMap;
use std::sync::{mpsc, Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime};

use mancala_core::{Position, Rules, Side};

use super::conn::{bot_move, Conn};
use super::recording::Recording;
use super::{Arg, Message};

/// How often a waiting bot's thread looks for orders and for what its bot sent.
const POLL: Duration = Duration::from_millis(20);

/// The bots waiting for a game and those playing one.
pub struct Lobby {
    state: Mutex<State>,
    /// How often a waiting bot is sent `ping` (its `pong` is not required: a dead connection
    /// shows when the ping cannot be written).
    pub ping_every: Duration,
    /// Most time a person has for a move; past it, the person's seat resigns.
    pub person_time: Duration,
}

impl std::fmt::Debug for Lobby {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Lobby({} bots)", self.lock().bots.len())
    }
}

#[derive(Default)]
struct State {
    next_id: u64,
    bots: BTreeMap<u64, Entry>,
    /// Bots that left during a game of theirs, with why, until that game reads it.
    left: BTreeMap<u64, String>,
    /// Why the latest bots to leave left, any time ([`DEPARTED`] at most, the oldest dropped).
    departed: BTreeMap<u64, String>,
    /// Set by [`Lobby::close`]: why bots that come now are sent away.
    closed: Option<String>,
}

/// Departures whose reason [`Lobby::why_left`] keeps.
const DEPARTED: usize = 4096;

struct Entry {
    info: LobbyBot,
    orders: mpsc::Sender<Order>,
    /// It plays a game (or one is being made for it).
    busy: bool,
}

/// A bot in the lobby, as it is listed.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct LobbyBot {
    /// Its number in the lobby (from 1; never reused while the server runs).
    pub id: u64,
    /// Its `info:name`, where it sent one.
    pub name: Option<String>,
    /// Its `info:authors`, where it sent them.
    pub authors: Option<String>,
    /// When it came in, in milliseconds since the Unix epoch.
    pub since: u64,
    /// The game it is offered (the server's rules, Kalah with KGP's end rule).
    pub rules: String,
}

/// What a game asks of a bot's connection thread.
enum Order {
    /// A game begins: `set game:id`.
    Begin(String),
    /// The bot's move in a position, answered on `reply` (an error is the bot's fault).
    Move {
        pos: Position,
        reply: mpsc::Sender<Result<u8, String>>,
    },
    /// The connection ends, the bot told why.
    Dismiss(String),
}

/// A person's move (0-based, the mover's own pit) or resignation, from outside, in a lobby
/// game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PersonMove {
    /// A pit played (already stored by whoever took it).
    Pit(u8),
    /// The person resigned (already stored).
    Resigned,
}

/// Who sits on a seat of a lobby game.
pub enum Seat {
    /// The lobby's bot with this id.
    Bot(u64),
    /// A person, whose moves come over this channel (a dropped sender is a resignation).
    Person(mpsc::Receiver<PersonMove>),
}

/// Why a game cannot be made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LobbyError {
    /// No bot of that id is in the lobby.
    NoBot(u64),
    /// The bot plays another game.
    Busy(u64),
    /// A bot cannot play itself.
    Same(u64),
}

impl std::fmt::Display for LobbyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LobbyError::NoBot(id) => write!(f, "no bot {id} waits in the lobby"),
            LobbyError::Busy(id) => write!(f, "bot {id} is playing a game"),
            LobbyError::Same(id) => write!(f, "bot {id} cannot play itself"),
        }
    }
}

/// Bots taken for a game that is being made: given back to the lobby unless the game
/// starts ([`Reservation::start`]).
pub struct Reservation {
    lobby: Arc<Lobby>,
    ids: Vec<u64>,
}

impl Drop for Reservation {
    fn drop(&mut self) {
        self.lobby.release(&self.ids);
    }
}

impl Lobby {
    /// An empty lobby: a ping every `ping_every`, `person_time` a person's move.
    pub fn new(ping_every: Duration, person_time: Duration) -> Lobby {
        Lobby {
            state: Mutex::new(State::default()),
            ping_every,
            person_time,
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The bots waiting for a game, longest waiting first.
    pub fn waiting(&self) -> Vec<LobbyBot> {
        self.lock()
            .bots
            .values()
            .filter(|e| !e.busy)
            .map(|e| e.info.clone())
            .collect()
    }

    /// Bot `id` as it is listed, waiting or playing.
    pub fn bot(&self, id: u64) -> Option<LobbyBot> {
        self.lock().bots.get(&id).map(|e| e.info.clone())
    }

    /// Takes the waiting bots `ids` for a game; each must be waiting, none twice.
    pub fn reserve(self: &Arc<Self>, ids: &[u64]) -> Result<Reservation, LobbyError> {
        let mut st = self.lock();
        for (k, id) in ids.iter().enumerate() {
            if ids[..k].contains(id) {
                return Err(LobbyError::Same(*id));
            }
            match st.bots.get(id) {
                None => return Err(LobbyError::NoBot(*id)),
                Some(e) if e.busy => return Err(LobbyError::Busy(*id)),
                Some(_) => {}
            }
        }
        for id in ids {
            if let Some(e) = st.bots.get_mut(id) {
                e.busy = true;
            }
        }
        Ok(Reservation {
            lobby: self.clone(),
            ids: ids.to_vec(),
        })
    }

    /// From now on, a bot that comes is sent away at once, told `why` (an `error`) and
    /// `goodbye`; the bots already in the lobby stay.
    pub fn close(&self, why: &str) {
        self.lock().closed = Some(why.to_string());
    }

    /// Ends every bot's connection, each told `goodbye` (within 20 ms); a game under way
    /// ends as the bots' connections do. Bots that connect later wait as before, unless the
    /// lobby is closed.
    pub fn dismiss_all(&self) {
        let mut st = self.lock();
        st.bots.clear();
        st.left.clear();
    }

    /// The bots `ids` wait again (those still connected).
    fn release(&self, ids: &[u64]) {
        let mut st = self.lock();
        for id in ids {
            if let Some(e) = st.bots.get_mut(id) {
                e.busy = false;
            }
            st.left.remove(id);
        }
    }

    fn enter(
        &self,
        name: Option<String>,
        authors: Option<String>,
        rules: &Rules,
    ) -> (u64, mpsc::Receiver<Order>) {
        let (tx, rx) = mpsc::channel();
        let since = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        let mut st = self.lock();
        st.next_id += 1;
        let id = st.next_id;
        if let Some(why) = &st.closed {
            let _ = tx.send(Order::Dismiss(why.clone()));
            return (id, rx);
        }
        let info = LobbyBot {
            id,
            name,
            authors,
            since,
            rules: rules.to_string(),
        };
        st.bots.insert(
            id,
            Entry {
                info,
                orders: tx,
                busy: false,
            },
        );
        (id, rx)
    }

    fn leave(&self, id: u64, why: &str) {
        let mut st = self.lock();
        if st.bots.remove(&id).is_some_and(|e| e.busy) {
            st.left.insert(id, why.to_string());
        }
        st.departed.insert(id, why.to_string());
        if st.departed.len() > DEPARTED {
            st.departed.pop_first();
        }
    }

    /// Why bot `id` left the lobby, where it has (among the latest to leave).
    pub fn why_left(&self, id: u64) -> Option<String> {
        self.lock().departed.get(&id).cloned()
    }

    /// Ends the connection of waiting bot `id`, telling it `why` (an `error`) and `goodbye`;
    /// false where no such bot waits.
    pub fn dismiss(&self, id: u64, why: &str) -> bool {
        let st = self.lock();
        match st.bots.get(&id) {
            Some(e) if !e.busy => e.orders.send(Order::Dismiss(why.to_string())).is_ok(),
            _ => false,
        }
    }

    /// Why bot `id` left during its game, where it did.
    fn left(&self, id: u64) -> Option<String> {
        self.lock().left.get(&id).cloned()
    }

    fn order(&self, id: u64, order: Order) -> Result<(), String> {
        let tx = self.lock().bots.get(&id).map(|e| e.orders.clone());
        match tx {
            Some(tx) => tx
                .send(order)
                .map_err(|_| "the bot closed the connection".to_string()),
            None => Err(self
                .left(id)
                .unwrap_or_else(|| "the bot closed the connection".into())),
        }
    }
}

impl Reservation {
    /// The bots taken, in the order asked.
    pub fn ids(&self) -> &[u64] {
        &self.ids
    }

    /// Starts the game of `rules` between `seats` (South first) on a thread of its own,
    /// named `game` to the bots (`set game:id`); bots' moves and a forfeit go to `recording`.
    /// Each bot has `move_time` a move. When it ends, the bots wait again.
    pub fn start(
        self,
        seats: [Seat; 2],
        rules: Rules,
        move_time: Duration,
        game: String,
        recording: Box<dyn Recording>,
    ) {
        std::thread::spawn(move || {
            play(&self.lobby, &seats, &rules, move_time, &game, recording);
            drop(self);
        });
    }
}

/// A lobby game to its end: by the rules, a bot's fault, or the person's resignation or time.
fn play(
    lobby: &Lobby,
    seats: &[Seat; 2],
    rules: &Rules,
    move_time: Duration,
    game: &str,
    mut rec: Box<dyn Recording>,
) {
    let bots: Vec<(Side, u64)> = Side::BOTH
        .into_iter()
        .filter_map(|s| match seats[s.index()] {
            Seat::Bot(id) => Some((s, id)),
            Seat::Person(_) => None,
        })
        .collect();
    for &(side, id) in &bots {
        if let Err(why) = lobby.order(id, Order::Begin(game.to_string())) {
            return rec.forfeited(side, &why);
        }
    }
    let Ok(mut pos) = Position::start(rules) else {
        return;
    };
    while !pos.is_over() {
        let side = pos.to_move();
        let start = Instant::now();
        let pit = match &seats[side.index()] {
            Seat::Bot(id) => {
                let (reply, answer) = mpsc::channel();
                let asked = lobby.order(*id, Order::Move { pos, reply });
                // The bot's thread stops it at `move_time`; the margin is for its writes.
                match asked.and_then(|()| {
                    answer
                        .recv_timeout(move_time + Duration::from_secs(15))
                        .map_err(|_| "the bot closed the connection".to_string())
                        .and_then(|r| r)
                }) {
                    Ok(pit) => {
                        rec.moved(pit, true, start.elapsed());
                        pit
                    }
                    Err(why) => return forfeit(lobby, &bots, side, &why, rec),
                }
            }
            Seat::Person(moves) => loop {
                match moves.recv_timeout(POLL * 5) {
                    Ok(PersonMove::Pit(pit)) => break pit,
                    // Stored by whoever took it.
                    Ok(PersonMove::Resigned) | Err(mpsc::RecvTimeoutError::Disconnected) => return,
                    Err(mpsc::RecvTimeoutError::Timeout) => {}
                }
                // The bot left while the person thinks: its forfeit.
                if let Some((bot_side, why)) = bots
                    .iter()
                    .find_map(|&(s, id)| lobby.left(id).map(|why| (s, why)))
                {
                    return rec.forfeited(bot_side, &why);
                }
                if start.elapsed() > lobby.person_time {
                    return rec.forfeited(side, "no move in time");
                }
            },
        };
        if let Err(e) = pos.play(pit) {
            // Never: the bot's move was checked, the person's by the web before it came.
            return rec.forfeited(side, &format!("move {}: {e}", pit + 1));
        }
    }
}

/// The bot on move at `side` faulted (`why`). Where the other seat's bot has left as well
/// (seen within a moment: two bots cut off together leave within a poll of each other),
/// both are at fault.
fn forfeit(
    lobby: &Lobby,
    bots: &[(Side, u64)],
    side: Side,
    why: &str,
    mut rec: Box<dyn Recording>,
) {
    if let Some(&(_, other)) = bots.iter().find(|(s, _)| *s != side) {
        std::thread::sleep(POLL * 5);
        if let Some(gone) = lobby.left(other) {
            return rec.forfeited_both(side, why, &gone);
        }
    }
    rec.forfeited(side, why)
}

/// Keeps a freeplay bot in `lobby` until it leaves: pinged while it waits, its moves asked
/// by the games made for it. Returns the fault that ended the connection (a closed
/// connection is one, as in any game).
pub(crate) fn wait(
    conn: &mut Conn,
    rules: &Rules,
    move_time: Duration,
    lobby: &Lobby,
) -> Result<(), String> {
    let (id, orders) = lobby.enter(conn.name.clone(), conn.authors.clone(), rules);
    let r = serve_orders(conn, move_time, lobby, &orders);
    lobby.leave(id, r.as_ref().err().map_or("the bot left", String::as_str));
    r
}

fn serve_orders(
    conn: &mut Conn,
    move_time: Duration,
    lobby: &Lobby,
    orders: &mpsc::Receiver<Order>,
) -> Result<(), String> {
    let mut ping = Instant::now() + lobby.ping_every;
    loop {
        match orders.recv_timeout(POLL) {
            Ok(Order::Begin(game)) => {
                let m = Message::new("set", vec![Arg::Text("game:id".into()), Arg::Text(game)]);
                conn.send(&m)?;
            }
            Ok(Order::Move { pos, reply }) => {
                let r = bot_move(conn, move_time, &pos);
                let _ = reply.send(r.clone());
                r?;
            }
            Ok(Order::Dismiss(why)) => return Err(why),
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => return Ok(()),
        }
        conn.nothing_asked()?;
        if Instant::now() >= ping {
            conn.send_new(Message::new("ping", vec![]))?;
            ping = Instant::now() + lobby.ping_every;
        }
    }
}
