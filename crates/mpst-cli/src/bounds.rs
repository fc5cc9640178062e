//! The one checked range of every bound of the command line (`--visits`, `--k`,
//! `generate --visits`): a whole number from 1 to [`MAX_BOUND`].

/// The largest bound accepted: a bound never allocates in proportion to itself, and
/// the budgets (`--max-steps`, `--max-configurations`) stop a search long before.
pub const MAX_BOUND: u64 = u32::MAX as u64;

/// Parses a bound, saying what was expected when it is not one.
pub fn parse_bound(text: &str) -> Result<usize, String> {
    let text = text.trim();
    let value: u64 = text
        .parse()
        .map_err(|_| format!("expected a bound from 1 to {MAX_BOUND}, found `{text}`"))?;
    if value == 0 {
        return Err("a bound must be at least 1".to_string());
    }
    if value > MAX_BOUND {
        return Err(format!(
            "a bound must be at most {MAX_BOUND}, found {value}"
        ));
    }
    usize::try_from(value).map_err(|_| format!("a bound must fit this machine, found {value}"))
}

/// Parses a budget: a whole number from 1 to `u64::MAX`.
pub fn parse_budget(text: &str) -> Result<u64, String> {
    let text = text.trim();
    match text.parse::<u64>() {
        Ok(0) => Err("a budget must be at least 1".to_string()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!(
            "expected a whole number at least 1, found `{text}`"
        )),
    }
}

/// The longest `--time-limit` accepted, in seconds (a day).
pub const MAX_SECONDS: f64 = 86_400.0;

/// Parses a time limit in seconds (decimals allowed) from 0.001 to [`MAX_SECONDS`].
pub fn parse_seconds(text: &str) -> Result<std::time::Duration, String> {
    let text = text.trim();
    let value: f64 = text.parse().map_err(|_| {
        format!("expected a number of seconds from 0.001 to {MAX_SECONDS}, found `{text}`")
    })?;
    if !(0.001..=MAX_SECONDS).contains(&value) {
        return Err(format!(
            "a time limit must be from 0.001 to {MAX_SECONDS} seconds, found {text}"
        ));
    }
    Ok(std::time::Duration::from_secs_f64(value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_are_checked_the_same_way_everywhere() {
        assert_eq!(parse_bound("1"), Ok(1));
        assert_eq!(parse_bound("4294967295"), Ok(4_294_967_295));
        assert!(parse_bound("0").unwrap_err().contains("at least 1"));
        let max = u64::MAX.to_string();
        assert!(
            parse_bound(&max)
                .unwrap_err()
                .contains("at most 4294967295")
        );
        assert!(parse_bound("x").unwrap_err().contains("found `x`"));
        assert!(parse_bound("-1").unwrap_err().contains("found `-1`"));
        assert_eq!(parse_budget("10"), Ok(10));
        assert_eq!(
            parse_seconds("1.5"),
            Ok(std::time::Duration::from_millis(1500))
        );
        assert!(parse_seconds("0").unwrap_err().contains("from 0.001"));
        assert!(parse_seconds("1e9").unwrap_err().contains("86400"));
        assert!(parse_seconds("NaN").is_err());
        assert!(parse_seconds("soon").unwrap_err().contains("found `soon`"));
        assert!(parse_budget("0").is_err());
    }
}
