//! Durations in configuration files: `"250ms"`, `"10s"`, `"2m"`, `"1h"` (a whole number
//! and a unit), and `"none"` where waiting forever is allowed.

use std::time::Duration;

/// Parses a duration such as `"250ms"`, `"10s"`, `"2m"` or `"1h"`.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let digits = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(digits);
    let expected =
        || format!("{text:?} is not a duration such as \"250ms\", \"10s\", \"2m\" or \"1h\"");
    let number: u64 = number.parse().map_err(|_| expected())?;
    let seconds = |factor: u64| {
        number
            .checked_mul(factor)
            .map(Duration::from_secs)
            .ok_or_else(|| format!("{text:?} is too long"))
    };
    match unit.trim() {
        "ms" => Ok(Duration::from_millis(number)),
        "s" => seconds(1),
        "m" | "min" => seconds(60),
        "h" => seconds(3600),
        _ => Err(expected()),
    }
}

/// Like [`parse_duration`], with `"none"` for no limit.
pub fn parse_optional_duration(text: &str) -> Result<Option<Duration>, String> {
    if text.trim() == "none" {
        return Ok(None);
    }
    parse_duration(text).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_and_errors() {
        assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_duration("10s"), Ok(Duration::from_secs(10)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("1h"), Ok(Duration::from_secs(3600)));
        assert_eq!(parse_optional_duration("none"), Ok(None));
        for bad in [
            "",
            "10",
            "s",
            "1.5s",
            "-1s",
            "10 parsecs",
            "99999999999999999999h",
        ] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }
}
