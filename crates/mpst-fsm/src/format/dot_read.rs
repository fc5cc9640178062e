//! The DOT reader: one [`Fsm`] per `digraph`, in nuscr's, Rumpsteak's and our dialect.

use std::borrow::Cow;

use rustc_hash::FxHashMap;

use super::DotError;
use super::dot_lex::{Kind, Lexer, Token, source_offset};
use super::dot_spans::{DotSpans, LocatedFsm};
use super::dot_split::{Share, read_shares};
use super::dot_states::Graph;
use super::label::parse_label;
use crate::ident::{SortTable, normal_sort};
use crate::{Action, Fsm, FsmError, Message, StateId};

/// Reads every `digraph` of `input` as a communicating FSM.
///
/// Each digraph becomes one [`Fsm`] whose role is the digraph's name. The accepted
/// language is the part of Graphviz's DOT that describes a state machine:
///
/// - `[strict] digraph NAME { ... }`, several per input; IDs are plain identifiers,
///   numerals or double-quoted strings (`\"` escapes, `\` line continuations);
/// - node statements `0;` or `0 [attributes];` declare states (node attributes, such
///   as nuscr's refinement annotations on states, are ignored);
/// - edge statements `0 -> 1 [label="s!ready()"];` (chains `0 -> 1 -> 2` give every
///   hop the same label) declare transitions; states used by edges need no declaration;
/// - attribute lists may end with a separator (nuscr writes `[label="...", ]`), may be
///   repeated, and use `,` or `;` between attributes;
/// - `graph`/`node`/`edge [...]` statements and `key = value` graph attributes are
///   ignored, and so are `//`, `/* */` and `#` comment lines.
///
/// Edge labels are actions `peer!label(payloads)` or `peer?label(payloads)` with
/// payloads `name: Sort` or `Sort` (nuscr, ours), or `peer?label` without a payload
/// list (the original Rumpsteak). Sorts are kept as written, up to
/// [`normal_sort`] without aliases (use [`parse_dot_with`] to give a front end's).
///
/// **Initial state**: the state named `0` if there is one (nuscr always numbers its
/// initial state `0`, and so does [`write_dot`](super::write_dot)); otherwise the
/// first state mentioned in the digraph, by declaration or by an edge (the original
/// Rumpsteak serialiser writes its initial state first). States are numbered in order
/// of first mention.
///
/// # Errors
/// The first problem found, with its line and column: a syntax error, an edge
/// without a `label`, a malformed label, an undirected graph or edge, unsupported DOT
/// features (subgraphs, ports, HTML strings), a nondeterministic state (two
/// transitions with the same peer, direction and label) or a role communicating with
/// itself. An input without any digraph is an error too. The reader never panics.
pub fn parse_dot(input: &str) -> Result<Vec<Fsm>, DotError> {
    Ok(parse(input, true, &SortTable::NONE)?
        .into_iter()
        .map(|m| m.fsm)
        .collect())
}

/// [`parse_dot`] with every payload sort put in normal form by [`normal_sort`] with
/// `sorts` (e.g. Scribble's table, which reads nuscr's `int` as `i32`), the rule that
/// projection applies too.
///
/// # Errors
/// As [`parse_dot`].
pub fn parse_dot_with(input: &str, sorts: &SortTable) -> Result<Vec<Fsm>, DotError> {
    Ok(parse(input, true, sorts)?
        .into_iter()
        .map(|m| m.fsm)
        .collect())
}

/// [`parse_dot`] that also accepts non-deterministic states (several transitions with
/// the same peer, direction and label), which k-MC checks; subtyping and code
/// generation read with [`parse_dot`].
///
/// # Errors
/// As [`parse_dot`], except for non-determinism.
pub fn parse_dot_nondeterministic(input: &str) -> Result<Vec<Fsm>, DotError> {
    Ok(parse(input, false, &SortTable::NONE)?
        .into_iter()
        .map(|m| m.fsm)
        .collect())
}

/// [`parse_dot_nondeterministic`] with sorts normalised as by [`parse_dot_with`].
///
/// # Errors
/// As [`parse_dot_nondeterministic`].
pub fn parse_dot_nondeterministic_with(
    input: &str,
    sorts: &SortTable,
) -> Result<Vec<Fsm>, DotError> {
    Ok(parse(input, false, sorts)?
        .into_iter()
        .map(|m| m.fsm)
        .collect())
}

/// [`parse_dot_with`] (or, if `deterministic` is false, [`parse_dot_nondeterministic_with`])
/// keeping where each digraph, state and transition is written, so that problems found
/// later (see [`LocatedFsm`]) can be reported at a line and column.
///
/// # Errors
/// As [`parse_dot`].
pub fn parse_dot_located(
    input: &str,
    deterministic: bool,
    sorts: &SortTable,
) -> Result<Vec<LocatedFsm>, DotError> {
    parse(input, deterministic, sorts)
}

fn parse(input: &str, deterministic: bool, sorts: &SortTable) -> Result<Vec<LocatedFsm>, DotError> {
    let read = |start: usize, cut: usize| read_share(input, start, cut, deterministic, sorts);
    let shares = match read_shares(input, read) {
        Some(shares) => shares,
        None => vec![read(0, usize::MAX)],
    };
    let mut fsms: Vec<LocatedFsm> = Vec::new();
    // Each role's digraph, so that a duplicate is found without scanning the others.
    let mut roles: FxHashMap<String, usize> = FxHashMap::default();
    for share in shares {
        for (name, machine) in share.machines {
            let role = machine.fsm.role();
            if let Some(&first) = roles.get(role) {
                let line = DotError::at(input, fsms[first].spans.digraph.start, 0, "").line;
                return Err(DotError::at(
                    input,
                    name.start,
                    name.end - name.start,
                    format!(
                        "two digraphs are named `{role}` (the first on line {line}): expected \
                         one digraph per role"
                    ),
                ));
            }
            roles.insert(role.to_owned(), fsms.len());
            fsms.push(machine);
        }
        if let Some(error) = share.error {
            return Err(error);
        }
    }
    if fsms.is_empty() {
        return Err(Parser::new_at(input, 0)?.expected("`digraph`"));
    }
    Ok(fsms)
}

/// Reads digraphs from byte `start` (where a token starts) until the next token
/// starts at or beyond `cut` or the input ends; see [`read_shares`].
fn read_share(
    input: &str,
    start: usize,
    cut: usize,
    deterministic: bool,
    sorts: &SortTable,
) -> Share {
    let mut machines = Vec::new();
    let mut parser = match Parser::new_at(input, start) {
        Ok(parser) => parser,
        Err(error) => {
            return Share {
                machines,
                error: Some(error),
                stop: start,
            };
        }
    };
    parser.deterministic = deterministic;
    parser.sorts = *sorts;
    while parser.peek.kind != Kind::Eof && parser.peek.start < cut {
        let name = parser.peek.start..parser.peek.end;
        match parser.digraph() {
            Ok(machine) => machines.push((name, machine)),
            Err(error) => {
                return Share {
                    machines,
                    error: Some(error),
                    stop: parser.peek.start,
                };
            }
        }
    }
    Share {
        machines,
        error: None,
        stop: parser.peek.start,
    }
}

struct Parser<'a> {
    input: &'a str,
    lexer: Lexer<'a>,
    peek: Token<'a>,
    /// Whether a second transition with the same peer, direction and label is an error.
    deterministic: bool,
    /// The front end's sort spellings, for [`normal_sort`].
    sorts: SortTable,
    /// The states of an edge chain, kept between edges so that reading an edge
    /// allocates nothing for it.
    ids: Vec<StateId>,
    /// The states of an edge chain as written, kept likewise.
    chain: Vec<(Cow<'a, str>, Token<'a>)>,
}

/// One `key = value` attribute, with the value's token for error positions.
struct Attribute<'a> {
    key: Cow<'a, str>,
    value: Option<(Cow<'a, str>, Token<'a>)>,
}

impl<'a> Parser<'a> {
    /// A parser whose first token starts at byte `start` of `input`.
    fn new_at(input: &'a str, start: usize) -> Result<Self, DotError> {
        let mut lexer = Lexer::new_at(input, start);
        let peek = lexer.next_token()?;
        Ok(Parser {
            input,
            lexer,
            peek,
            deterministic: true,
            sorts: SortTable::NONE,
            ids: Vec::new(),
            chain: Vec::new(),
        })
    }

    fn bump(&mut self) -> Result<Token<'a>, DotError> {
        let next = self.lexer.next_token()?;
        Ok(std::mem::replace(&mut self.peek, next))
    }

    fn error_at(&self, token: &Token<'_>, message: impl Into<String>) -> DotError {
        DotError::at(self.input, token.start, token.end - token.start, message)
    }

    fn expected(&self, what: &str) -> DotError {
        let found = self.peek.describe(self.input);
        self.error_at(&self.peek, format!("expected {what}, found {found}"))
    }

    fn eat(&mut self, kind: &Kind<'_>) -> Result<bool, DotError> {
        if &self.peek.kind == kind {
            self.bump()?;
            Ok(true)
        } else {
            Ok(false)
        }
    }

    fn expect(&mut self, kind: &Kind<'_>, what: &str) -> Result<Token<'a>, DotError> {
        if &self.peek.kind == kind {
            self.bump()
        } else {
            Err(self.expected(what))
        }
    }

    fn id(&mut self, what: &str) -> Result<(Cow<'a, str>, Token<'a>), DotError> {
        if !matches!(self.peek.kind, Kind::Id { .. }) {
            return Err(self.expected(what));
        }
        let mut token = self.bump()?;
        let text = match &mut token.kind {
            Kind::Id { text, .. } => std::mem::take(text),
            _ => Cow::Borrowed(""),
        };
        Ok((text, token))
    }

    fn digraph(&mut self) -> Result<LocatedFsm, DotError> {
        if self.peek.is_keyword("strict") {
            self.bump()?;
        }
        if self.peek.is_keyword("graph") {
            return Err(self.error_at(
                &self.peek,
                "an undirected `graph` is not a state machine: expected `digraph`",
            ));
        }
        if !self.peek.is_keyword("digraph") {
            return Err(self.expected("`digraph`"));
        }
        self.bump()?;
        if self.peek.kind == Kind::LBrace {
            return Err(self.expected("the role name after `digraph` (as in `digraph R {`)"));
        }
        let (role, name) = self.id("the role name after `digraph`")?;
        let open = self.expect(&Kind::LBrace, "`{` after the role name")?;
        let mut graph = Graph {
            fsm: Fsm::new(role.as_ref()),
            names: FxHashMap::default(),
            numbered: Vec::new(),
            count: 0,
            spans: DotSpans::new(name.start..name.end),
        };
        loop {
            match &self.peek.kind {
                Kind::RBrace => {
                    self.bump()?;
                    break;
                }
                Kind::Semi => {
                    self.bump()?;
                }
                Kind::Eof => {
                    let line = DotError::at(self.input, open.start, 0, "").line;
                    return Err(self.expected(&format!(
                        "`}}` to close digraph `{role}` opened on line {line}"
                    )));
                }
                Kind::LBrace => {
                    return Err(self.error_at(&self.peek, "subgraphs are not supported"));
                }
                Kind::Id { .. } => self.statement(&mut graph)?,
                _ => return Err(self.expected("a state, an edge, an attribute statement or `}`")),
            }
        }
        let zero = graph.get("0");
        let mut fsm = graph.fsm;
        if let Some(zero) = zero {
            // Every state in `names` exists, so this cannot fail.
            let _ = fsm.set_initial(zero);
        }
        if graph.count == 0 {
            // `Fsm::new` made state 0: it is where the digraph is.
            graph.spans.add_state(&role, name.start..name.end);
        }
        Ok(LocatedFsm {
            fsm,
            spans: graph.spans,
        })
    }

    fn statement(&mut self, graph: &mut Graph<'a>) -> Result<(), DotError> {
        if ["graph", "node", "edge"]
            .iter()
            .any(|k| self.peek.is_keyword(k))
        {
            self.bump()?;
            if self.peek.kind != Kind::LBracket {
                return Err(self.expected("`[` after an attribute statement keyword"));
            }
            self.attributes()?;
            return Ok(());
        }
        if self.peek.is_keyword("subgraph") {
            return Err(self.error_at(&self.peek, "subgraphs are not supported"));
        }
        if self.peek.is_keyword("digraph") || self.peek.is_keyword("strict") {
            return Err(self.expected("`}` to close the digraph before the next one"));
        }
        let (name, first) = self.id("a state")?;
        match self.peek.kind {
            Kind::Equal => {
                self.bump()?;
                self.id("a value after `=`")?;
                Ok(())
            }
            Kind::Colon => {
                Err(self.error_at(&self.peek, "node ports (`state:port`) are not supported"))
            }
            Kind::Dash => Err(self.error_at(
                &self.peek,
                "undirected edge `--` in a digraph: expected `->`",
            )),
            Kind::Arrow => self.edge(graph, name, first),
            _ => {
                graph.state(name, &first);
                if self.peek.kind == Kind::LBracket {
                    self.attributes()?;
                }
                Ok(())
            }
        }
    }

    fn edge(
        &mut self,
        graph: &mut Graph<'a>,
        first: Cow<'a, str>,
        first_token: Token<'a>,
    ) -> Result<(), DotError> {
        let mut chain = std::mem::take(&mut self.chain);
        chain.clear();
        chain.push((first, first_token));
        while self.eat(&Kind::Arrow)? {
            if self.peek.kind == Kind::LBrace || self.peek.is_keyword("subgraph") {
                return Err(self.error_at(&self.peek, "subgraphs are not supported"));
            }
            chain.push(self.id("a target state after `->`")?);
            if self.peek.kind == Kind::Colon {
                return Err(
                    self.error_at(&self.peek, "node ports (`state:port`) are not supported")
                );
            }
            if self.peek.kind == Kind::Dash {
                return Err(self.error_at(
                    &self.peek,
                    "undirected edge `--` in a digraph: expected `->`",
                ));
            }
        }
        let mut ids = std::mem::take(&mut self.ids);
        ids.clear();
        ids.extend(
            chain
                .iter()
                .map(|(name, token)| graph.state(name.clone(), token)),
        );
        let attributes = if self.peek.kind == Kind::LBracket {
            self.attributes()?
        } else {
            Vec::new()
        };
        let label = attributes.into_iter().rev().find(|a| a.key == "label");
        let Some((text, label_token)) = label.and_then(|a| a.value) else {
            let (from, to) = (&chain[0].0, &chain[1].0);
            return Err(self.error_at(
                &chain[0].1,
                format!(
                    "the edge `{from} -> {to}` has no label: expected `[label=\"peer!message()\"]`"
                ),
            ));
        };
        let mut action = parse_label(&text).map_err(|e| {
            let start = source_offset(self.input, &label_token, e.offset);
            let end = source_offset(self.input, &label_token, e.offset + e.length);
            DotError::at(
                self.input,
                start,
                end.saturating_sub(start),
                format!(
                    "in the label {}: {}",
                    label_token.describe(self.input),
                    e.message
                ),
            )
        })?;
        for payload in &mut action.message.payloads {
            payload.ty = normal_sort(&payload.ty, &self.sorts);
        }
        let hops = ids.len() - 1;
        for (hop, pair) in ids.windows(2).enumerate() {
            // The last hop (the only one, but in a chain) takes the action itself.
            let action = if hop + 1 == hops {
                std::mem::replace(&mut action, Action::send("", Message::new("")))
            } else {
                action.clone()
            };
            let added = if self.deterministic {
                graph.fsm.add_transition(pair[0], action, pair[1])
            } else {
                graph
                    .fsm
                    .add_nondeterministic_transition(pair[0], action, pair[1])
            };
            if let Err(e) = added {
                let source = &chain[hop].0;
                let message = match e {
                    FsmError::Nondeterministic { action, .. } => format!(
                        "state `{source}` already has a transition `{}{}{}`: machines must be deterministic (one transition per peer, direction and label)",
                        action.peer,
                        action.direction.symbol(),
                        action.message.label
                    ),
                    FsmError::SelfCommunication { action, .. } => format!(
                        "`{action}` communicates with `{}` itself: expected another role as the peer",
                        graph.fsm.role()
                    ),
                    other => other.to_string(),
                };
                return Err(self.error_at(&label_token, message));
            }
            graph
                .spans
                .add_transition(pair[0], label_token.start..label_token.end);
        }
        self.ids = ids;
        self.chain = chain;
        Ok(())
    }

    /// One or more `[key = value, ...]` lists.
    fn attributes(&mut self) -> Result<Vec<Attribute<'a>>, DotError> {
        let mut out = Vec::new();
        while self.eat(&Kind::LBracket)? {
            loop {
                if self.eat(&Kind::RBracket)? {
                    break;
                }
                let (key, _) = self.id("an attribute name or `]`")?;
                let value = if self.eat(&Kind::Equal)? {
                    Some(self.id("an attribute value after `=`")?)
                } else {
                    None
                };
                out.push(Attribute { key, value });
                if !self.eat(&Kind::Comma)? {
                    self.eat(&Kind::Semi)?;
                }
            }
        }
        Ok(out)
    }
}
