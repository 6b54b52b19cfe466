//! Every time flag of the `mancala` command (`--time`, `--movetime`, `--move-time`,
//! `--time-per-move`, `--game-time`, `--wait`) takes a number with its unit: `ms`, `s`, `m`
//! (or `min`) or `h`, such as `500ms`, `2s`, `1.5m`. A bare number is refused, since one flag
//! counted it in milliseconds and another in seconds: saying the unit leaves no doubt.

use std::time::Duration;

/// `s` read as a time from `min` to `max`, its unit required.
pub fn parse(s: &str, min: Duration, max: Duration) -> Result<Duration, String> {
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: f64 = num
        .parse()
        .ok()
        .filter(|n: &f64| n.is_finite())
        .ok_or_else(|| format!("`{s}` is not a time (write e.g. `500ms`, `30s`, `10m`)"))?;
    let unit = match unit.trim() {
        "" => {
            return Err(format!(
                "`{t}` has no unit: write `{t}ms` or `{t}s` (or `m`, `h`)"
            ))
        }
        "ms" => Duration::from_millis(1),
        "s" => Duration::from_secs(1),
        "m" | "min" => Duration::from_secs(60),
        "h" => Duration::from_secs(3600),
        u => return Err(format!("unknown time unit `{u}` (use ms, s, m or h)")),
    };
    let secs = n * unit.as_secs_f64();
    if !(min.as_secs_f64()..=max.as_secs_f64()).contains(&secs) {
        return Err(format!(
            "`{s}` is out of range: from {} to {}",
            shown(min),
            shown(max)
        ));
    }
    Ok(Duration::from_secs_f64(secs))
}

/// A limit as the range in an error says it: `1 ms`, `10 s`, `24 h`.
fn shown(d: Duration) -> String {
    let ms = d.as_millis();
    match ms {
        _ if ms < 1000 || !ms.is_multiple_of(1000) => format!("{ms} ms"),
        _ if ms.is_multiple_of(3_600_000) => format!("{} h", ms / 3_600_000),
        _ => format!("{} s", ms / 1000),
    }
}

/// A parser for clap: a time from `min_ms` milliseconds to `max_s` seconds.
pub fn within(min_ms: u64, max_s: u64) -> impl Fn(&str) -> Result<Duration, String> + Clone {
    move |s: &str| parse(s, Duration::from_millis(min_ms), Duration::from_secs(max_s))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_time_needs_its_unit() {
        let p = within(1, 86_400);
        assert_eq!(p("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(p(" 2s "), Ok(Duration::from_secs(2)));
        assert_eq!(p("1.5m"), Ok(Duration::from_secs(90)));
        assert_eq!(p("1h"), Ok(Duration::from_secs(3600)));
        assert_eq!(
            p("5"),
            Err("`5` has no unit: write `5ms` or `5s` (or `m`, `h`)".into())
        );
        assert_eq!(
            p("0ms"),
            Err("`0ms` is out of range: from 1 ms to 24 h".into())
        );
        assert_eq!(
            p("2d"),
            Err("unknown time unit `d` (use ms, s, m or h)".into())
        );
        assert!(p("ms").is_err() && p("1e400s").is_err() && p("-1s").is_err());
        assert_eq!(
            within(10, 600)("1ms"),
            Err("`1ms` is out of range: from 10 ms to 600 s".into())
        );
    }
}
