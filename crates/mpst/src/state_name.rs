//! Shortens the `std::any::type_name` of a session type to what a person reads in an error
//! message: `Send<B, Add, Receive<B, Sum, End>>` rather than the full paths with the
//! lifetime and the role repeated in every step.

/// How many levels of type arguments are shown; deeper ones become `…`.
const MAX_DEPTH: usize = 3;

/// A parsed type: a name and its arguments (`(..)` tuples have an empty name).
#[derive(Debug)]
struct Node {
    name: String,
    open: Option<char>,
    args: Vec<Node>,
}

/// Shortens `type_name` (as printed by [`std::any::type_name`]) of a session type run by
/// the role named `role`: module paths, lifetimes and `role` arguments are left out and
/// nesting deeper than three levels is elided. Never fails: an unexpected shape is only
/// stripped of its paths.
pub(crate) fn short(type_name: &str, role: &str) -> String {
    let tokens = tokenize(type_name);
    let mut position = 0;
    match parse(&tokens, &mut position) {
        Some(node) if position == tokens.len() => {
            let mut out = String::new();
            render(&node, role, 0, &mut out);
            out
        }
        _ => tokens.concat(),
    }
}

/// Splits at brackets and commas, and strips the path of every name.
fn tokenize(text: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    let mut word = String::new();
    let flush = |word: &mut String, tokens: &mut Vec<String>| {
        let trimmed = word.trim();
        if !trimmed.is_empty() {
            let short = trimmed.rsplit("::").next().unwrap_or(trimmed);
            tokens.push(short.to_string());
        }
        word.clear();
    };
    for c in text.chars() {
        if matches!(c, '<' | '>' | ',' | '(' | ')') {
            flush(&mut word, &mut tokens);
            tokens.push(c.to_string());
        } else {
            word.push(c);
        }
    }
    flush(&mut word, &mut tokens);
    tokens
}

/// `node := name? ( ('<' | '(') node (',' node)* ('>' | ')') )?`
fn parse(tokens: &[String], position: &mut usize) -> Option<Node> {
    let mut node = Node {
        name: String::new(),
        open: None,
        args: Vec::new(),
    };
    if let Some(token) = tokens.get(*position) {
        if !matches!(token.as_str(), "<" | ">" | "," | "(" | ")") {
            node.name = token.clone();
            *position += 1;
        }
    }
    let open = match tokens.get(*position).map(String::as_str) {
        Some("<") => '<',
        Some("(") => '(',
        _ => return Some(node),
    };
    let close = if open == '<' { ">" } else { ")" };
    *position += 1;
    node.open = Some(open);
    if tokens.get(*position).map(String::as_str) == Some(close) {
        *position += 1;
        return Some(node);
    }
    loop {
        node.args.push(parse(tokens, position)?);
        match tokens.get(*position).map(String::as_str) {
            Some(",") => *position += 1,
            Some(t) if t == close => {
                *position += 1;
                return Some(node);
            }
            _ => return None,
        }
    }
}

fn render(node: &Node, role: &str, depth: usize, out: &mut String) {
    out.push_str(&node.name);
    let Some(open) = node.open else { return };
    let args: Vec<&Node> = node
        .args
        .iter()
        .filter(|arg| !(arg.name.starts_with('\'') || (arg.name == role && arg.open.is_none())))
        .collect();
    let close = if open == '<' { '>' } else { ')' };
    if args.is_empty() {
        if open == '(' {
            out.push_str("()");
        }
        return;
    }
    out.push(open);
    if depth + 1 >= MAX_DEPTH && args.iter().any(|a| a.open.is_some()) {
        out.push('…');
    } else {
        for (i, arg) in args.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            render(arg, role, depth + 1, out);
        }
    }
    out.push(close);
}

#[cfg(test)]
mod tests {
    use super::short;

    #[test]
    fn paths_lifetimes_and_the_role_are_left_out() {
        let full = "mpst::primitives::Send<'_, adder::A, adder::B, adder::Add, \
                    mpst::primitives::Receive<'_, adder::A, adder::B, adder::Sum, \
                    mpst::session::End<'_, adder::A>>>";
        assert_eq!(short(full, "A"), "Send<B, Add, Receive<B, Sum, End>>");
    }

    #[test]
    fn deep_nesting_is_elided() {
        let full = "Send<A, B, X, Send<A, B, X, Send<A, B, X, Send<A, B, X, End<A>>>>>";
        assert_eq!(short(full, "A"), "Send<B, X, Send<B, X, Send<…>>>");
    }

    #[test]
    fn named_types_lose_their_parameters_and_odd_shapes_survive() {
        assert_eq!(
            short("m::Branch<m::T, m::SinkChoice<m::T>>", "T"),
            "Branch<SinkChoice>"
        );
        assert_eq!(short("a::X<(u8, b::Y)>", "R"), "X<(u8, Y)>");
        assert_eq!(short("a::X<<u8>", "R"), "X<<u8>");
        assert_eq!(short("", "R"), "");
    }
}
