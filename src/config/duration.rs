//! Durations as written in config and on the command line: `500ms`, `10s`, `2m`, `1h`, or a
//! bare number of seconds. Kept tiny and strict so a typo (`10 sec`) is an error, not a guess.

use std::time::Duration;

/// Parses `500ms`, `10s`, `2m`, `1h` or a bare number of seconds (`10`, `0.5`).
pub fn parse(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let value: f64 = number.parse().map_err(|_| expected(text))?;
    let seconds = match unit.trim() {
        "" | "s" => value,
        "ms" => value / 1000.0,
        "m" | "min" => value * 60.0,
        "h" => value * 3600.0,
        _ => return Err(expected(text)),
    };
    if !seconds.is_finite() || seconds <= 0.0 {
        return Err(format!(
            "a duration must be greater than zero, got `{text}`"
        ));
    }
    Ok(Duration::from_secs_f64(seconds))
}

/// Formats a duration the way `parse` reads it (`10s`, `500ms`, `2m`).
pub fn format(d: Duration) -> String {
    let ms = d.as_millis();
    if ms.is_multiple_of(60_000) && ms >= 60_000 {
        format!("{}m", ms / 60_000)
    } else if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        format!("{ms}ms")
    }
}

fn expected(text: &str) -> String {
    format!("expected a duration like `500ms`, `10s` or `2m`, got `{text}`")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units() {
        assert_eq!(parse("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse("10s"), Ok(Duration::from_secs(10)));
        assert_eq!(parse("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse("1h"), Ok(Duration::from_secs(3600)));
        assert_eq!(parse("15"), Ok(Duration::from_secs(15)));
        assert_eq!(parse("1.5s"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse(" 3s "), Ok(Duration::from_secs(3)));
    }

    #[test]
    fn rejects_garbage() {
        for bad in ["", "s", "10 sec", "ten", "-1s", "0s", "10x", "1..2s"] {
            assert!(parse(bad).is_err(), "{bad:?} should be rejected");
        }
        assert!(parse("10 sec").expect_err("bad").contains("`10 sec`"));
    }

    #[test]
    fn round_trips() {
        for d in ["500ms", "10s", "2m", "1500ms"] {
            assert_eq!(format(parse(d).expect("valid")), d);
        }
    }
}
