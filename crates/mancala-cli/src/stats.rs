//! `mancala stats`: plays many games between random or engine players (on every core, seeded,
//! reproducible; the games and their statistics are `mancala_play::stats`) and prints the
//! report, or JSON; optionally plots the distributions.

use std::path::Path;

use anyhow::{bail, Context, Result};
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use mancala_core::{Position, Rules};
use mancala_play::stats::{
    play_games, summarize, Complexity, Config, Distribution, Rate, Sample, Summary, TURN_COUNT_CAP,
};
use mancala_play::{Besides, Player};

use crate::RulesArgs;

#[derive(Args, Debug)]
pub struct StatsArgs {
    #[command(flatten)]
    pub rules: RulesArgs,
    /// Number of games, 1 to 10000000.
    #[arg(long, short = 'n', default_value_t = 1000,
          value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    pub games: u64,
    /// Players: `random`, `greedy` or a level 1-8, one for both or `SOUTH,NORTH`
    /// (`random,5`).
    /// Levels with a time limit (7 and 8) give games that are not exactly reproducible.
    #[arg(long, default_value = "random")]
    pub players: String,
    /// Seed of every random choice; the same seed gives the same output.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Plies played at random at the start of every game, whoever the players are (gives
    /// deterministic engine players varied games).
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=1000))]
    pub opening: u32,
    /// A game still going after this many plies is stopped and counted as unfinished (1 to
    /// 1000000).
    #[arg(long, default_value_t = 5000, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub max_plies: u32,
    /// Worker threads, 1-256 (default: every core).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub threads: Option<u16>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    /// Draw the distributions of game length and final margin to FILE.svg or FILE.png.
    #[arg(long, value_name = "FILE")]
    pub plot: Option<String>,
}

/// `random`, `greedy`, `3`, `random,5`: the players of South and North.
pub fn parse_players(s: &str) -> Result<[Player; 2]> {
    let parts: Vec<&str> = s.split(',').collect();
    match parts.as_slice() {
        [one] => {
            let p = Player::parse(one, Besides::Random)?;
            Ok([p, p])
        }
        [a, b] => Ok([
            Player::parse(a, Besides::Random)?,
            Player::parse(b, Besides::Random)?,
        ]),
        _ => bail!("--players takes one player or two separated by a comma, got `{s}`"),
    }
}

fn sci(log10: f64) -> String {
    let e = log10.floor();
    let m = 10f64.powf(log10 - e);
    format!("{m:.1}e{e}")
}

fn dist_line(d: &Distribution) -> String {
    format!(
        "mean {:.1} (sd {:.1}); min {}, p10 {}, p25 {}, median {}, p75 {}, p90 {}, max {}",
        d.mean, d.sd, d.min, d.p10, d.p25, d.median, d.p75, d.p90, d.max
    )
}

fn pct(r: &Rate) -> String {
    format!(
        "{:.1} % (± {:.1})",
        r.rate * 100.0,
        r.standard_error * 100.0
    )
}

/// The text report. Depends only on the games, never on time or threads.
pub fn report(s: &Summary, rules: &Rules) -> String {
    let mut rows: Vec<(String, String)> = Vec::new();
    let mut row = |label: &str, text: String| rows.push((label.to_string(), text));
    let b = &s.branching_per_ply;
    row("game length, plies", dist_line(&s.plies));
    row("game length, turns", dist_line(&s.turns));
    row(
        "branching per ply",
        format!(
            "{:.2} legal moves (sd {:.2}, ± {:.3}) over {} plies; {:.1} % forced, {:.2} without them",
            b.mean,
            b.sd,
            b.standard_error,
            b.decisions,
            s.forced_share * 100.0,
            s.branching_per_ply_unforced.mean
        ),
    );
    if let Some(t) = &s.branching_per_turn {
        row(
            "branching per turn",
            format!(
                "{:.2} distinct turns (sd {:.2}, ± {:.3}) over {} turns{}",
                t.mean,
                t.sd,
                t.standard_error,
                t.decisions,
                if s.turns_capped > 0 {
                    format!(", {} turn(s) capped at {TURN_COUNT_CAP}", s.turns_capped)
                } else {
                    String::new()
                }
            ),
        );
    }
    let complexity = |b: f64, d: &Distribution, c: &Complexity| {
        format!(
            "{b:.2}^{:.1} = {} (95 % range {} to {}); with the median length {}: {}",
            d.mean,
            sci(c.log10),
            sci(c.log10_low),
            sci(c.log10_high),
            d.median,
            sci(d.median as f64 * b.log10())
        )
    };
    row(
        "complexity by ply",
        complexity(b.mean, &s.plies, &s.complexity_by_ply),
    );
    if let (Some(t), Some(c)) = (&s.branching_per_turn, &s.complexity_by_turn) {
        row("complexity by turn", complexity(t.mean, &s.turns, c));
    }
    row(
        &format!("first player ({})", s.first_player),
        format!(
            "wins {}, draws {}, losses {} (± standard error)",
            pct(&s.first_wins),
            pct(&s.draws),
            pct(&s.first_losses)
        ),
    );
    row(
        "final margin",
        format!(
            "first player's seeds minus the second's{}: {}",
            if rules.misere() {
                " (misère: fewer wins)"
            } else {
                ""
            },
            dist_line(&s.margin)
        ),
    );
    row(
        "endings",
        format!(
            "{} by the rules, {} by repetition, {} unfinished",
            s.ended_by_rules, s.ended_by_repetition, s.unfinished
        ),
    );
    let mut out = format!(
        "{}: {} games, South {} v North {}, seed {}{}\n",
        s.variant,
        s.games,
        s.players[0],
        s.players[1],
        s.seed,
        if s.opening > 0 {
            format!(", first {} plies random", s.opening)
        } else {
            String::new()
        }
    );
    for (label, text) in rows {
        out += &format!("{:<20} {text}\n", format!("{label}:"));
    }
    out
}

pub fn run(a: StatsArgs) -> Result<()> {
    let rules = a.rules.rules()?;
    let players = parse_players(&a.players)?;
    if let Some(p) = &a.plot {
        if !(p.ends_with(".svg") || p.ends_with(".png")) {
            bail!("--plot: the file must end in .svg or .png, got `{p}`");
        }
        // Before the games are played: a plot that cannot be written fails at once.
        std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .open(p)
            .with_context(|| format!("--plot {p}: cannot write the file"))?;
    }
    let mut clocked: Vec<String> = players
        .iter()
        .filter(|p| !p.reproducible())
        .map(|p| p.name())
        .collect();
    clocked.dedup();
    for name in &clocked {
        eprintln!("note: {name} searches against the clock: results vary from run to run");
    }
    if a.opening == 0 && clocked.is_empty() && players.iter().all(|p| p.deterministic()) {
        eprintln!(
            "note: both players are deterministic, so every game is the same; add --opening K for K random plies"
        );
    }
    let cfg = Config {
        start: Position::start(&rules)?,
        players,
        seed: a.seed,
        opening: a.opening,
        max_plies: a.max_plies,
        count_turns: true,
    };
    let threads = a.threads.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        usize::from,
    );
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("starting threads")?;
    let bar = ProgressBar::with_draw_target(Some(a.games), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} games, {elapsed} (eta {eta})")
            .expect("a valid template"),
    );
    let samples = pool.install(|| play_games(&cfg, a.games, || bar.inc(1)));
    bar.finish_and_clear();
    let summary = summarize(&cfg, &samples);
    if let Some(path) = &a.plot {
        plot(Path::new(path), &summary, &samples)?;
    }
    if a.json {
        println!("{}", serde_json::to_string_pretty(&summary)?);
    } else {
        print!("{}", report(&summary, &rules));
        if let Some(path) = &a.plot {
            println!("{:<20} {path}", "plot:");
        }
    }
    Ok(())
}

/// Bins integer values into at most `max_bins` bins of equal width: (first bin's start, width,
/// counts). Values above `cap` go into the last bin.
fn bins(values: &[i64], max_bins: i64, cap: i64) -> (i64, i64, Vec<u32>) {
    let lo = values.iter().copied().min().unwrap_or(0);
    let hi = values.iter().copied().max().unwrap_or(0).min(cap).max(lo);
    let span = hi - lo + 1;
    let width = ((span + max_bins - 1) / max_bins).max(1);
    let mut counts = vec![0u32; ((span + width - 1) / width) as usize];
    for &v in values {
        counts[((v.min(hi) - lo) / width) as usize] += 1;
    }
    (lo, width, counts)
}

fn register_font() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let _ = plotters::style::register_font(
            "sans-serif",
            plotters::style::FontStyle::Normal,
            dejavu::sans::regular(),
        );
    });
}

/// Two histograms side by side: game length in plies, and the final margin. Drawn in
/// memory and then written, so a write that fails (a full disk) says so in one line.
pub fn plot(path: &Path, s: &Summary, samples: &[Sample]) -> Result<()> {
    use plotters::prelude::*;
    register_font();
    let (w, h) = (1200, 500);
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    let drawing = || format!("drawing {}", path.display());
    let bytes = match ext {
        "svg" => {
            let mut svg = String::new();
            draw(
                SVGBackend::with_string(&mut svg, (w, h)).into_drawing_area(),
                s,
                samples,
            )
            .with_context(drawing)?;
            svg.into_bytes()
        }
        "png" => {
            let mut rgb = vec![0u8; w as usize * h as usize * 3];
            draw(
                BitMapBackend::with_buffer(&mut rgb, (w, h)).into_drawing_area(),
                s,
                samples,
            )
            .with_context(drawing)?;
            let mut png = Vec::new();
            let mut encoder = png::Encoder::new(&mut png, w, h);
            encoder.set_color(png::ColorType::Rgb);
            encoder.set_depth(png::BitDepth::Eight);
            let mut writer = encoder.write_header().with_context(drawing)?;
            writer.write_image_data(&rgb).with_context(drawing)?;
            writer.finish().with_context(drawing)?;
            png
        }
        _ => bail!("--plot: the file must end in .svg or .png"),
    };
    std::fs::write(path, bytes)
        .with_context(|| format!("--plot {}: cannot write the file", path.display()))
}

fn draw<DB: plotters::prelude::DrawingBackend>(
    root: plotters::prelude::DrawingArea<DB, plotters::coord::Shift>,
    s: &Summary,
    samples: &[Sample],
) -> Result<()> {
    use plotters::prelude::*;
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| anyhow::anyhow!("{e}");
    root.fill(&WHITE).map_err(e)?;
    let title = format!(
        "{}: {} games, South {} v North {}",
        s.variant, s.games, s.players[0], s.players[1]
    );
    let root = root.titled(&title, ("sans-serif", 22)).map_err(e)?;
    let width = root.dim_in_pixel().0;
    let (left, right) = root.split_horizontally(width / 2);
    let plies: Vec<i64> = samples.iter().map(|x| x.plies as i64).collect();
    let margins: Vec<i64> = samples.iter().map(|x| x.margin() as i64).collect();
    for (area, values, what, axis, colour, d) in [
        (
            &left,
            &plies,
            "game length",
            "plies",
            RGBColor(0x2b, 0x6c, 0xb0),
            &s.plies,
        ),
        (
            &right,
            &margins,
            "final margin",
            "first player's seeds minus the second's",
            RGBColor(0xc0, 0x5a, 0x1e),
            &s.margin,
        ),
    ] {
        // A long tail (random players wandering in an endgame) would squash the rest: when the
        // tail past the 99th percentile is over half as wide as the body, the last bar holds it.
        let mut sorted = values.to_vec();
        sorted.sort_unstable();
        let p99 = sorted
            .get((sorted.len() * 99).div_ceil(100).saturating_sub(1))
            .copied()
            .unwrap_or(0);
        let cap = if d.max > p99 + (p99 - d.min) / 2 {
            p99
        } else {
            d.max
        };
        let (lo, bin, counts) = bins(values, 120, cap);
        let top = counts.iter().copied().max().unwrap_or(1).max(1);
        let x_hi = lo + bin * counts.len() as i64;
        let tail = values.iter().filter(|&&v| v > cap).count();
        let caption = format!(
            "{what}: mean {:.1}, median {}, range {} to {}{}",
            d.mean,
            d.median,
            d.min,
            d.max,
            if tail > 0 {
                format!(" ({tail} over {cap} in the last bar)")
            } else {
                String::new()
            }
        );
        let mut chart = ChartBuilder::on(area)
            .caption(caption, ("sans-serif", 16))
            .margin(15)
            .x_label_area_size(45)
            .y_label_area_size(60)
            .build_cartesian_2d(lo as f64..x_hi.max(lo + 1) as f64, 0u32..top + top / 10 + 1)
            .map_err(e)?;
        chart
            .configure_mesh()
            .x_desc(axis)
            .y_desc("games")
            .x_label_formatter(&|x| format!("{x:.0}"))
            .label_style(("sans-serif", 13))
            .axis_desc_style(("sans-serif", 14))
            .disable_x_mesh()
            .draw()
            .map_err(e)?;
        chart
            .draw_series(counts.iter().enumerate().map(|(i, &c)| {
                let x0 = (lo + i as i64 * bin) as f64;
                Rectangle::new([(x0, 0), (x0 + bin as f64, c)], colour.filled())
            }))
            .map_err(e)?;
    }
    root.present().map_err(e)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use mancala_engine::Level;

    #[test]
    fn players_parse() {
        assert_eq!(parse_players("random").unwrap(), [Player::Random; 2]);
        let p = parse_players("random,5").unwrap();
        assert_eq!(p[0], Player::Random);
        assert_eq!(p[1], Player::Engine(Level::new(5).unwrap()));
        assert!(parse_players("9").is_err());
        assert!(parse_players("1,2,3").is_err());
    }

    #[test]
    fn plots_svg_and_png() {
        let c = Config {
            start: Position::start(&Rules::default()).unwrap(),
            players: [Player::Random; 2],
            seed: 1,
            opening: 0,
            max_plies: 5000,
            count_turns: true,
        };
        let samples = play_games(&c, 200, || {});
        let s = summarize(&c, &samples);
        let dir = std::env::temp_dir().join(format!("mancala-stats-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let svg = dir.join("p.svg");
        plot(&svg, &s, &samples).unwrap();
        let text = std::fs::read_to_string(&svg).unwrap();
        assert!(text.contains("<svg") && text.contains("game length"));
        let png = dir.join("p.png");
        plot(&png, &s, &samples).unwrap();
        let bytes = std::fs::read(&png).unwrap();
        assert_eq!(&bytes[1..4], b"PNG");
        std::fs::remove_dir_all(&dir).ok();
    }
}
