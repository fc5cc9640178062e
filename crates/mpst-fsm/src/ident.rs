//! The Rust identifier of a protocol name and the Rust type of a payload sort: one rule
//! shared by the code generator and the comparisons of serialised session types with
//! projections, so they cannot drift apart.

/// Rust's strict and reserved keywords (2015 to 2024 editions), which cannot be
/// identifiers.
pub const KEYWORDS: &[&str] = &[
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

/// The Rust type of a Scribble payload sort, or `None` if the sort is not a valid Rust
/// type path (then the user must rename it).
///
/// Java and nuscr spellings of the usual sorts map to Rust's (`int` -> `i32`,
/// `java.lang.String` -> `String`, `boolean` -> `bool`, `double` -> `f64`); any other sort
/// that is a Rust path (`i64`, `u8`, `Date`, `crate::Price`, `my.pkg.Date` ->
/// `my::pkg::Date`) is kept as written.
pub fn rust_sort(sort: &str) -> Option<String> {
    match well_known(sort) {
        Some(mapped) => Some(mapped.to_string()),
        None => {
            let path = sort.replace('.', "::");
            let valid = path.split("::").all(|segment| {
                let mut chars = segment.chars();
                chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
                    && chars.all(|c| c.is_alphanumeric() || c == '_')
                    && !is_keyword(segment)
                    || matches!(segment, "crate" | "self" | "super")
            });
            valid.then_some(path)
        }
    }
}

/// The one spelling of a sort in every output (projections, DOT, charts, JSON, verdicts):
/// the Rust name of a well-known sort, whatever its Scribble, Java or nuscr spelling
/// (`int` -> `i32`, `string` -> `String`, `boolean` -> `bool`, `double` -> `f64`, as in
/// [`rust_sort`]); any other sort as written. So one protocol never prints `i32` beside
/// `string`. (`unit` stays `unit`: `()` would not read back as a payload.)
pub fn canonical_sort(sort: &str) -> String {
    match well_known(sort) {
        Some(mapped) if mapped != "()" => mapped.to_string(),
        _ => sort.to_string(),
    }
}

/// The Rust name of a sort with a usual spelling in Java, Scribble or nuscr.
fn well_known(sort: &str) -> Option<&'static str> {
    let mapped = match sort {
        "int" | "Int" | "integer" | "Integer" | "java.lang.Integer" => "i32",
        "long" | "Long" | "java.lang.Long" => "i64",
        "short" => "i16",
        "byte" => "i8",
        "nat" | "Nat" => "u64",
        "float" | "Float" => "f32",
        "double" | "Double" | "number" | "Number" => "f64",
        "bool" | "boolean" | "Boolean" | "java.lang.Boolean" => "bool",
        "string" | "str" | "String" | "java.lang.String" => "String",
        "char" | "Char" | "Character" => "char",
        "unit" | "Unit" | "()" => "()",
        _ => return None,
    };
    Some(mapped)
}

/// Whether a Rust type (as [`rust_sort`] returns it) is one of the language's own.
pub fn is_builtin(ty: &str) -> bool {
    matches!(
        ty,
        "i8" | "i16"
            | "i32"
            | "i64"
            | "i128"
            | "isize"
            | "u8"
            | "u16"
            | "u32"
            | "u64"
            | "u128"
            | "usize"
            | "f32"
            | "f64"
            | "bool"
            | "char"
            | "String"
            | "()"
    )
}

/// The short spelling of a Rust type under which payloads are compared: whitespace only
/// between two words, and every path reduced to its last segment
/// (`std::string::String` -> `String`, `Vec < crate::Point >` -> `Vec<Point>`,
/// `& 'static str` -> `&'static str`).
///
/// Two types with one short spelling are taken to be the same type: a label's payload is
/// compared with the protocol's sort by name, as the code generator writes it; type
/// aliases are not resolved.
pub fn short_type(ty: &str) -> String {
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == '\'';
    let mut out = String::with_capacity(ty.len());
    // Where the path being written started in `out`.
    let mut path_start = 0;
    let mut pending_space = false;
    let mut chars = ty.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_whitespace() {
            pending_space = true;
            continue;
        }
        if c == ':' && chars.peek() == Some(&':') {
            chars.next();
            out.truncate(path_start);
            pending_space = false;
            continue;
        }
        if pending_space && word(c) && out.ends_with(word) {
            out.push(' ');
        }
        pending_space = false;
        if !word(c) || !out.ends_with(word) {
            path_start = out.len();
        }
        out.push(c);
    }
    out
}

/// The Rust type under which a protocol's payload sort is compared with a label's field:
/// [`short_type`] of [`rust_sort`] (or of the sort as written, if it is no Rust path).
pub fn sort_key(sort: &str) -> String {
    short_type(&rust_sort(sort).unwrap_or_else(|| sort.to_string()))
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

    #[test]
    fn sorts_map_to_rust_types() {
        assert_eq!(rust_sort("int").as_deref(), Some("i32"));
        assert_eq!(canonical_sort("int"), "i32");
        assert_eq!(canonical_sort("string"), "String");
        assert_eq!(canonical_sort("boolean"), "bool");
        assert_eq!(canonical_sort("my.pkg.Date"), "my.pkg.Date");
        assert_eq!(canonical_sort("unit"), "unit");
        assert_eq!(rust_sort("java.lang.String").as_deref(), Some("String"));
        assert_eq!(rust_sort("u64").as_deref(), Some("u64"));
        assert_eq!(rust_sort("my.pkg.Date").as_deref(), Some("my::pkg::Date"));
        assert_eq!(rust_sort("Vec<u8>"), None);
        assert_eq!(rust_sort("fn"), None);
        assert!(is_builtin("f64") && !is_builtin("Date"));
    }

    #[test]
    fn types_are_compared_by_their_short_spelling() {
        for (written, short) in [
            ("i32", "i32"),
            ("std::string::String", "String"),
            ("::std::string::String", "String"),
            ("Vec < crate :: model :: Point >", "Vec<Point>"),
            (
                "HashMap<String, alloc::vec::Vec<u8>>",
                "HashMap<String,Vec<u8>>",
            ),
            ("& 'static str", "&'static str"),
            ("(i32 , f64)", "(i32,f64)"),
            ("[u8 ; 4]", "[u8;4]"),
            ("dyn Fn(u8) -> u8", "dyn Fn(u8)->u8"),
        ] {
            assert_eq!(short_type(written), short, "{written}");
            assert_eq!(short_type(short), short, "{short} is not a fixed point");
        }
        assert_eq!(sort_key("int"), "i32");
        assert_eq!(sort_key("my.pkg.Date"), "Date");
        assert_eq!(sort_key("Vec<u8>"), "Vec<u8>");
    }
}
