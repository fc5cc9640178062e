//! The Rust identifier of a protocol name, the normal form of a payload sort and its Rust
//! type: one rule shared by the FSM readers, the code generator and the comparisons of
//! serialised session types with projections, so they cannot drift apart.

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
///
/// It is not `heck`'s upper camel case: on the 172 role, label and protocol names of the
/// repository's protocols the two differ on 4 (test `heck_names` of `mpst-scribble`):
/// heck lowers capitals inside a word (`CS` -> `Cs`, renaming a type the protocol
/// spells) and keeps a leading digit (`1`, not an identifier); it also drops primes and
/// does not avoid keywords.
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

/// Spellings of payload sorts and the normal sort each one stands for, supplied by a
/// front end (e.g. `mpst_scribble::sorts::SCRIBBLE` maps `int` to `i32`). This crate
/// knows no front end's names; it only applies the table ([`normal_sort`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SortTable {
    aliases: &'static [(&'static str, &'static str)],
}

impl SortTable {
    /// No aliases: every sort stands for itself.
    pub const NONE: SortTable = SortTable { aliases: &[] };

    /// A table of `(spelling, normal sort)` pairs.
    pub const fn new(aliases: &'static [(&'static str, &'static str)]) -> Self {
        SortTable { aliases }
    }

    /// The normal sort that `spelling` stands for, if the table has it.
    pub fn get(&self, spelling: &str) -> Option<&'static str> {
        self.aliases
            .iter()
            .find(|(from, _)| *from == spelling)
            .map(|&(_, to)| to)
    }
}

/// The one rule that normalises a payload sort wherever FSMs enter the system
/// (projection, the DOT reader): surrounding whitespace is dropped, a spelling of
/// `table` becomes its normal sort (`int` -> `i32` with Scribble's table), and a dotted
/// path of identifiers becomes a Rust path (`my.pkg.Date` -> `my::pkg::Date`); any other
/// sort is kept as written.
///
/// Two FSMs read from any front end then carry the same sort for the same type, so
/// subtyping, comparisons and code generation agree.
pub fn normal_sort(sort: &str, table: &SortTable) -> String {
    let sort = sort.trim();
    if let Some(normal) = table.get(sort) {
        return normal.to_string();
    }
    let identifier = |segment: &str| {
        let mut chars = segment.chars();
        chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
            && chars.all(|c| c.is_alphanumeric() || c == '_')
    };
    if sort.contains('.') && sort.split('.').all(identifier) {
        return sort.replace('.', "::");
    }
    sort.to_string()
}

/// The Rust type of a payload sort in normal form ([`normal_sort`]), or `None` if the
/// sort is not a valid Rust type path (then the user must rename it).
///
/// Any sort that is a Rust path (`i32`, `u8`, `Date`, `crate::Price`, `my::pkg::Date`) is
/// kept as written (a dotted path `my.pkg.Date` is read as `my::pkg::Date`).
pub fn rust_sort(sort: &str) -> Option<String> {
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

/// The Rust type under which a protocol's payload sort (in normal form, see
/// [`normal_sort`]) is compared with a label's field: [`short_type`] of [`rust_sort`]
/// (or of the sort as written, if it is no Rust path).
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
    fn sorts_are_normalised_by_the_table_and_paths() {
        const TABLE: SortTable = SortTable::new(&[("int", "i32")]);
        assert_eq!(normal_sort(" int ", &TABLE), "i32");
        assert_eq!(normal_sort("int", &SortTable::NONE), "int");
        assert_eq!(normal_sort("my.pkg.Date", &TABLE), "my::pkg::Date");
        assert_eq!(normal_sort("Vec<u8>", &TABLE), "Vec<u8>");
        assert_eq!(normal_sort("1.5", &TABLE), "1.5");
        for sort in ["i32", "my::pkg::Date", "Vec<u8>"] {
            let once = normal_sort(sort, &TABLE);
            assert_eq!(normal_sort(&once, &TABLE), once, "not a fixed point");
        }
    }

    #[test]
    fn sorts_map_to_rust_types() {
        assert_eq!(rust_sort("i32").as_deref(), Some("i32"));
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
        assert_eq!(sort_key("i32"), "i32");
        assert_eq!(sort_key("my.pkg.Date"), "Date");
        assert_eq!(sort_key("Vec<u8>"), "Vec<u8>");
    }
}
