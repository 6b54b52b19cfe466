//! What a value the engine reports means: [`Evaluation`], the one place that decides from whose
//! view a value is, whether lower is better, and whether it is proven or a search's estimate.
//! Every front end (terminal, full-screen, server, records) shows values through it.

use mancala_core::i18n::{self, Lang};
use mancala_core::Side;

/// How much a value is worth.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Quality {
    /// Proven to the end of the game with perfect play from both sides.
    Proven,
    /// The estimate of a search to this many plies (moves, each one sowing).
    Searched {
        /// The search's depth in plies.
        depth: u32,
    },
}

impl Quality {
    /// Whether values of quality `self` may be compared against values of quality `other`
    /// to call a move worse: `other` must be as good or better (a proof beats any search, a
    /// deeper search a shallower one).
    pub fn at_least(self, other: Quality) -> bool {
        match (self, other) {
            (Quality::Proven, _) => true,
            (Quality::Searched { .. }, Quality::Proven) => false,
            (Quality::Searched { depth: a }, Quality::Searched { depth: b }) => a >= b,
        }
    }

    /// `proven` or `search to depth D`.
    pub fn text(self) -> String {
        self.text_in(Lang::En)
    }

    /// [`Quality::text`] in `lang`.
    pub fn text_in(self, lang: Lang) -> String {
        match self {
            Quality::Proven => i18n::text(lang, "value.proven").into(),
            Quality::Searched { depth } => i18n::format(lang, "value.depth", &[("depth", &depth)]),
        }
    }
}

/// A value as shown to people and scripts: the final seed margin one side is expected to reach
/// (its seeds minus the opponent's at the end), from that side's view, with its quality.
///
/// In a misère game (Dracala) fewer seeds win, so a lower margin is better for the side named.
/// [`Evaluation::score`] turns either kind into "higher is better for the side named", which is
/// what comparisons between moves use. In Kauri a tie decided by the cowrie rule counts one
/// seed for its winner: where [`Evaluation::decided_ties`], a margin of one seed is that
/// tie, and the words say so.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Evaluation {
    /// The side whose view the margin is from.
    pub side: Side,
    /// Final seeds of `side` minus the other side's.
    pub margin: i32,
    /// Fewer seeds win (misère): a lower margin is better for `side`.
    pub lower_is_better: bool,
    /// A margin of one seed stands for equal seeds and a tie won by the rules (Kauri's cowrie
    /// rule, with an even count of seeds, where no game ends one seed apart).
    pub decided_ties: bool,
    /// Proven, or a search's estimate to some depth.
    pub quality: Quality,
}

impl Evaluation {
    /// The value of a finished game for `side`: its final margin, proven (the engine adds
    /// Kauri's tie-break seed).
    pub fn final_margin(pos: &mancala_core::Position, side: Side) -> Evaluation {
        let s = pos.scores();
        Evaluation {
            side,
            margin: s[side.index()] as i32 - s[side.other().index()] as i32,
            lower_is_better: pos.rules().misere(),
            decided_ties: mancala_core::with_family!(pos, p => {
                crate::game::SearchGame::decided_ties(p)
            }),
            quality: Quality::Proven,
        }
    }

    /// How good the value is for [`Evaluation::side`]: the margin, negated in a misère game,
    /// so that higher is always better. Positive: `side` wins by that much.
    pub fn score(&self) -> i32 {
        if self.lower_is_better {
            -self.margin
        } else {
            self.margin
        }
    }

    /// The same value from `side`'s view.
    pub fn seen_by(self, side: Side) -> Evaluation {
        if side == self.side {
            self
        } else {
            Evaluation {
                side,
                margin: -self.margin,
                ..self
            }
        }
    }

    /// Whether the value is a tie on seeds decided by the rules (Kauri's cowrie rule).
    pub fn is_tie_break(&self) -> bool {
        self.decided_ties && self.margin.abs() == 1
    }

    /// Whether the value is proven (not a search's estimate).
    pub fn is_proven(&self) -> bool {
        self.quality == Quality::Proven
    }

    /// The seeds a move valued `self` gives away against a move valued `best` (both from the
    /// mover's view), where that can be said: `best` must be of the same or better quality.
    /// Never negative.
    pub fn loss_against(&self, best: &Evaluation) -> Option<i32> {
        let best = best.seen_by(self.side);
        best.quality
            .at_least(self.quality)
            .then(|| (best.score() - self.score()).max(0))
    }

    /// The outcome in words for [`Evaluation::side`]: `South wins by 4`, `a draw`, in a
    /// misère game `South loses by 3 (fewer seeds win)`, and in Kauri `South wins on equal
    /// seeds by the cowrie rule`.
    pub fn outcome_text(&self) -> String {
        self.outcome_in(Lang::En, "value.misere-outcome")
    }

    /// The outcome in `lang`, a misère note as `misere` words it (in brackets alone, after a
    /// comma within [`Evaluation::text`]'s).
    fn outcome_in(&self, lang: Lang, misere: &str) -> String {
        let s = self.score();
        let side = i18n::side_name(lang, self.side);
        if self.is_tie_break() {
            let key = if s > 0 {
                "value.tie-wins"
            } else {
                "value.tie-loses"
            };
            return i18n::format(lang, key, &[("side", &side)]);
        }
        let n = s.abs();
        let one = if n == 1 { "one" } else { "other" };
        let what = match s.cmp(&0) {
            core::cmp::Ordering::Greater => i18n::format(
                lang,
                &format!("value.wins.{one}"),
                &[("side", &side), ("n", &n)],
            ),
            core::cmp::Ordering::Less => i18n::format(
                lang,
                &format!("value.loses.{one}"),
                &[("side", &side), ("n", &n)],
            ),
            core::cmp::Ordering::Equal => i18n::text(lang, "value.draw").into(),
        };
        if self.lower_is_better {
            i18n::format(lang, misere, &[("outcome", &what)])
        } else {
            what
        }
    }

    /// One line for people: `+4 for South (South wins by 4), proven`, or with a search's
    /// depth; in a misère game `+3 for South (South loses by 3, fewer seeds win), search to
    /// depth 12`; a tie decided by the rules `tie won by South (South wins on equal seeds by
    /// the cowrie rule), proven`.
    pub fn text(&self) -> String {
        self.text_in(Lang::En)
    }

    /// [`Evaluation::text`] in `lang`, from the keys `value.*` of the translation files (the
    /// browser client words a value from the same keys).
    pub fn text_in(&self, lang: Lang) -> String {
        // One pair of brackets: a misère outcome's own note goes after a comma.
        let outcome = self.outcome_in(lang, "value.misere");
        let how = self.quality.text_in(lang);
        if self.is_tie_break() {
            let winner = if self.score() > 0 {
                self.side
            } else {
                self.side.other()
            };
            return i18n::format(
                lang,
                "value.tie",
                &[
                    ("winner", &i18n::side_name(lang, winner)),
                    ("outcome", &outcome),
                    ("how", &how),
                ],
            );
        }
        i18n::format(
            lang,
            "value.text",
            &[
                ("margin", &format!("{:+}", self.margin)),
                ("side", &i18n::side_name(lang, self.side)),
                ("outcome", &outcome),
                ("how", &how),
            ],
        )
    }
}

/// As JSON: `{"side": "south", "margin": 4, "score": 4, "lower_is_better": false,
/// "tie_break": false, "proven": true, "depth": null, "text": "+4 for South (South wins by
/// 4), proven"}`; `score` is the margin turned so that higher is better for `side`,
/// `tie_break` whether a margin of one is a tie decided by the rules (Kauri's cowrie rule),
/// `depth` a search's depth.
impl serde::Serialize for Evaluation {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut m = s.serialize_struct("Evaluation", 8)?;
        m.serialize_field("side", &self.side)?;
        m.serialize_field("margin", &self.margin)?;
        m.serialize_field("score", &self.score())?;
        m.serialize_field("lower_is_better", &self.lower_is_better)?;
        m.serialize_field("tie_break", &self.is_tie_break())?;
        m.serialize_field("proven", &self.is_proven())?;
        m.serialize_field(
            "depth",
            &match self.quality {
                Quality::Proven => None,
                Quality::Searched { depth } => Some(depth),
            },
        )?;
        m.serialize_field("text", &self.text())?;
        m.end()
    }
}

impl core::fmt::Display for Evaluation {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(&self.text())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The words in another language say the same: whose view, which way is better, how sure.
    #[test]
    fn a_value_in_other_languages() {
        let e = ev(3, true, Quality::Searched { depth: 12 });
        assert_eq!(
            e.text(),
            "+3 for South (South loses by 3, fewer seeds win), search to depth 12"
        );
        assert_eq!(
            e.text_in(Lang::Pt),
            "+3 para Sul (Sul perde por 3, menos sementes vence), busca à profundidade 12"
        );
        assert_eq!(
            ev(-1, false, Quality::Proven).text_in(Lang::It),
            "-1 per Sud (Sud perde di 1), provato"
        );
        assert_eq!(
            ev(0, false, Quality::Proven).text_in(Lang::Es),
            "+0 para Sur (empate), probado"
        );
    }

    fn ev(margin: i32, misere: bool, quality: Quality) -> Evaluation {
        Evaluation {
            side: Side::South,
            margin,
            lower_is_better: misere,
            decided_ties: false,
            quality,
        }
    }

    #[test]
    fn misere_values_read_the_right_way_round() {
        let e = ev(3, true, Quality::Proven);
        assert_eq!(e.score(), -3);
        assert_eq!(e.outcome_text(), "South loses by 3 (fewer seeds win)");
        assert_eq!(
            e.text(),
            "+3 for South (South loses by 3, fewer seeds win), proven"
        );
        assert_eq!(
            e.seen_by(Side::North).outcome_text(),
            "North wins by 3 (fewer seeds win)"
        );
        assert_eq!(
            ev(4, false, Quality::Searched { depth: 12 }).text(),
            "+4 for South (South wins by 4), search to depth 12"
        );
    }

    #[test]
    fn a_kauri_tie_decided_by_the_cowries_is_no_seed_margin() {
        let tie = Evaluation {
            decided_ties: true,
            ..ev(-1, false, Quality::Proven)
        };
        assert!(tie.is_tie_break());
        assert_eq!(tie.score(), -1);
        assert_eq!(
            tie.text(),
            "tie won by North (South loses on equal seeds by the cowrie rule), proven"
        );
        assert_eq!(
            tie.seen_by(Side::North).outcome_text(),
            "North wins on equal seeds by the cowrie rule"
        );
        let two = Evaluation {
            decided_ties: true,
            ..ev(2, false, Quality::Proven)
        };
        assert_eq!(two.outcome_text(), "South wins by 2");
    }

    #[test]
    fn a_loss_needs_a_best_value_as_good_as_the_played_one() {
        let proven = |m| ev(m, false, Quality::Proven);
        let deep = |m| ev(m, false, Quality::Searched { depth: 10 });
        assert_eq!(deep(1).loss_against(&proven(4)), Some(3));
        assert_eq!(proven(1).loss_against(&deep(4)), None);
        assert_eq!(
            deep(1).loss_against(&ev(4, false, Quality::Searched { depth: 8 })),
            None
        );
        assert_eq!(proven(5).loss_against(&proven(4)), Some(0));
        // Misère: the best is the lowest margin.
        let m = |x| ev(x, true, Quality::Proven);
        assert_eq!(m(5).loss_against(&m(-1)), Some(6));
    }
}
