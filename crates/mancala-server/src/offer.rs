//! Offers between the players of a game: what one may offer the other (a draw, a takeback, a
//! rematch), as a request names it, as the database stores it and as the client shows it.
//! What an offer does is [`crate::between`]'s.

use mancala_core::Side;

use crate::view::{parse_side, side_str, OfferView};

/// What one player may offer the other.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OfferKind {
    /// A draw by agreement (a live game).
    Draw,
    /// Taking back the offerer's last move, as undo would (a live game).
    Takeback,
    /// Another game, seats swapped, same rules and clock (a finished game).
    Rematch,
}

/// An offer standing in a game: what, and who made it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Offer {
    /// What is offered.
    pub kind: OfferKind,
    /// Who offered it.
    pub by: Side,
}

impl OfferKind {
    fn name(self) -> &'static str {
        match self {
            OfferKind::Draw => "draw",
            OfferKind::Takeback => "takeback",
            OfferKind::Rematch => "rematch",
        }
    }

    /// `draw`, `takeback` or `rematch`.
    pub fn parse(s: &str) -> Option<OfferKind> {
        match s {
            "draw" => Some(OfferKind::Draw),
            "takeback" => Some(OfferKind::Takeback),
            "rematch" => Some(OfferKind::Rematch),
            _ => None,
        }
    }
}

impl Offer {
    /// As stored: `draw:south`.
    pub fn text(self) -> String {
        format!("{}:{}", self.kind.name(), side_str(self.by))
    }

    /// Read back from [`Offer::text`].
    pub fn from_text(t: &str) -> Option<Offer> {
        let (k, s) = t.split_once(':')?;
        let by = parse_side(s)?;
        Some(Offer {
            kind: OfferKind::parse(k)?,
            by,
        })
    }
}

impl From<Offer> for OfferView {
    fn from(o: Offer) -> OfferView {
        OfferView {
            kind: o.kind.name(),
            by: side_str(o.by),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offers_read_back_and_nothing_else_reads() {
        for kind in [OfferKind::Draw, OfferKind::Takeback, OfferKind::Rematch] {
            for by in Side::BOTH {
                let o = Offer { kind, by };
                assert_eq!(Offer::from_text(&o.text()), Some(o));
            }
        }
        for bad in [
            "",
            "draw",
            "draw:",
            ":south",
            "draw:east",
            "dance:south",
            "draw:south:x",
        ] {
            assert_eq!(Offer::from_text(bad), None, "{bad}");
        }
    }
}
