//! The Rust identifier of a protocol name: one rule shared by the code generator and the
//! comparisons of serialised session types with projections, so they cannot drift apart.

/// Rust's strict and reserved keywords, which cannot be identifiers.
const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub",
    "ref", "return", "self", "Self", "static", "struct", "super", "trait", "true", "type",
    "unsafe", "use", "where", "while", "abstract", "become", "box", "do", "final", "macro",
    "override", "priv", "try", "typeof", "unsized", "virtual", "yield", "gen",
];

/// Whether `word` is a Rust keyword (strict or reserved).
pub fn is_keyword(word: &str) -> bool {
    KEYWORDS.contains(&word)
}

/// The Rust type name of a protocol name (role or label): upper camel case.
///
/// `ready` -> `Ready`, `get_price` -> `GetPrice`, `x'` -> `XPrime`; a name that would start
/// with a digit (or is empty) gets `prefix` in front (`1` -> `L1` with prefix `L`); a
/// keyword gets a trailing `_` (`self` -> `Self_`). Characters that cannot be in an
/// identifier are dropped and start a new word. Names that already are such identifiers
/// are left as they are (`Ready`, `GetPrice`, `L1`), so the rule can be applied to both
/// sides of a comparison.
pub fn rust_name(name: &str, prefix: &str) -> String {
    let mut out = String::new();
    let mut upper = true;
    for c in name.chars() {
        match c {
            '\'' => {
                out.push_str("Prime");
                upper = true;
            }
            c if c.is_alphanumeric() => {
                if upper {
                    out.extend(c.to_uppercase());
                    upper = false;
                } else {
                    out.push(c);
                }
            }
            _ => upper = true,
        }
    }
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert_str(0, prefix);
    }
    if is_keyword(&out) {
        out.push('_');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn camel_case_of_protocol_names() {
        assert_eq!(rust_name("ready", "L"), "Ready");
        assert_eq!(rust_name("get_price", "L"), "GetPrice");
        assert_eq!(rust_name("GetPrice", "L"), "GetPrice");
        assert_eq!(rust_name("1", "L"), "L1");
        assert_eq!(rust_name("x'", "L"), "XPrime");
        assert_eq!(rust_name("self", "R"), "Self_");
        assert_eq!(rust_name("", "R"), "R");
        assert!(is_keyword("fn") && !is_keyword("Fn"));
    }
}
