//! Well-formed protocols of the nuscr dialect parse and lower to the expected global types.

use crate::parse_common;

use mpst_scribble::{ErrorKind, Global, parse};
use parse_common::{parse_ok, show, shown};

const TWO_BUYER: &str = r#"
global protocol TwoBuyer(role B1, role B2, role S) {
    title(String) from B1 to S;
    quote(price: int) from S to B1, B2;
    share(int) from B1 to B2;
    choice at B2 {
        ok(String) from B2 to S;
        date(java.util.Date) from S to B2;
    } or {
        quit() from B2 to S;
    }
}
"#;

#[test]
fn two_buyer_multicast_is_one_message_per_receiver() {
    assert_eq!(
        shown(TWO_BUYER, "TwoBuyer"),
        "B1->S:title(String); S->B1:quote(price: i32); S->B2:quote(price: i32); \
         B1->B2:share(i32); choice at B2 { B2->S:ok(String); S->B2:date(java::util::Date); end } \
         or { B2->S:quit(); end }"
    );
}

const THREE_BUYER: &str = r#"
global protocol ThreeBuyer(role A, role B, role C, role S) {
    empty1(int) from A to S;
    empty2(int) from S to A;
    empty3(int) from S to B;
    empty4(int) from A to B;
    do Delegate(B, C, S);
}

aux global protocol Delegate(role B, role C, role S) {
    choice at B {
        ok(int) from B to C;
        empty5(int) from B to S;
        empty6(int) from S to B;
    } or {
        quit() from B to C;
        quit() from B to S;
    }
}
"#;

#[test]
fn three_buyer_inlines_aux_protocol() {
    let protocols = parse_ok(THREE_BUYER);
    assert_eq!(protocols.len(), 2, "aux protocols are returned too");
    assert_eq!(
        show(&protocols[0].body),
        "A->S:empty1(i32); S->A:empty2(i32); S->B:empty3(i32); A->B:empty4(i32); \
         choice at B { B->C:ok(i32); B->S:empty5(i32); S->B:empty6(i32); end } \
         or { B->C:quit(); B->S:quit(); end }"
    );
}

const TRAVEL_AGENCY: &str = r#"
global protocol TravelAgency(role C, role A, role S) {
    rec Loop {
        choice at C {
            query(journey: String) from C to A;
            quote(price: int) from A to C;
            dummy() from A to S;   // keep S informed
            continue Loop;
        } or {
            choice at C {
                ACCEPT() from C to A;
                ACCEPT() from A to S;
                Address(address: String) from C to S;
                date(Date) from S to C;
            } or {
                REJECT() from C to A;
                REJECT() from A to S;
            }
        }
    }
}
"#;

#[test]
fn travel_agency_nested_choice_in_recursion() {
    assert_eq!(
        shown(TRAVEL_AGENCY, "TravelAgency"),
        "rec Loop { choice at C { C->A:query(journey: String); A->C:quote(price: i32); \
         A->S:dummy(); continue Loop } or { choice at C { C->A:ACCEPT(); A->S:ACCEPT(); \
         C->S:Address(address: String); S->C:date(Date); end } or { C->A:REJECT(); \
         A->S:REJECT(); end } } }"
    );
}

const OAUTH: &str = r#"
(*# NestedProtocols, ShowPragmas #*)
global protocol OAuth(role s, role c, role a) {
    choice at s {
        login() from s to c;
        password(String) from c to a;
        auth(Bool) from a to s;
    } or {
        cancel() from s to c;
        quit() from c to a;
    } or {
        1() from s to c;
        2() from c to a;
    }
}
"#;

#[test]
fn oauth_three_branches_and_numeric_labels() {
    assert_eq!(
        shown(OAUTH, "OAuth"),
        "choice at s { s->c:login(); c->a:password(String); a->s:auth(Bool); end } \
         or { s->c:cancel(); c->a:quit(); end } or { s->c:1(); c->a:2(); end }"
    );
}

const RING: &str = r#"
global protocol Ring(role A, role B, role C) {
    rec Loop {
        value(i32) from A to B;
        value(i32) from B to C;
        value(i32) from C to A;
        continue Loop;
    }
}
"#;

#[test]
fn ring_is_a_loop() {
    assert_eq!(
        shown(RING, "Ring"),
        "rec Loop { A->B:value(i32); B->C:value(i32); C->A:value(i32); continue Loop }"
    );
}

#[test]
fn statements_after_a_choice_continue_every_branch() {
    let src = r#"
    global protocol P(role A, role B) {
        choice at A { l() from A to B; } or { r() from A to B; }
        choice at B { x() from B to A; } or { y() from B to A; }
        done() from A to B;
    }"#;
    assert_eq!(
        shown(src, "P"),
        "choice at A { A->B:l(); choice at B { B->A:x(); A->B:done(); end } or { B->A:y(); \
         A->B:done(); end } } or { A->B:r(); choice at B { B->A:x(); A->B:done(); end } or { \
         B->A:y(); A->B:done(); end } }"
    );
}

#[test]
fn statements_after_a_rec_follow_its_exit() {
    let src = r#"
    global protocol P(role A, role B) {
        rec X { choice at A { more() from A to B; continue X; } or { stop() from A to B; } }
        bye() from B to A;
    }"#;
    assert_eq!(
        shown(src, "P"),
        "rec X { choice at A { A->B:more(); continue X } or { A->B:stop(); B->A:bye(); end } }"
    );
}

#[test]
fn inner_rec_with_the_same_name_does_not_capture_the_outer_continue() {
    let src = r#"
    global protocol P(role A, role B) {
        rec X {
            choice at A {
                rec X { a() from A to B; }
            } or {
                b() from A to B;
            }
            continue X;
        }
    }"#;
    assert_eq!(
        shown(src, "P"),
        "rec X { choice at A { rec X_2 { A->B:a(); continue X } } or { A->B:b(); continue X } }"
    );
}

#[test]
fn do_substitutes_roles_in_order() {
    let src = r#"
    global protocol Main(role Client, role Server) {
        hello() from Client to Server;
        do Echo(Server, Client);
        bye() from Client to Server;
    }
    global protocol Echo(role X, role Y) { ping() from X to Y; pong() from Y to X; }
    "#;
    assert_eq!(
        shown(src, "Main"),
        "Client->Server:hello(); Server->Client:ping(); Client->Server:pong(); \
         Client->Server:bye(); end"
    );
}

#[test]
fn direct_recursive_do_becomes_rec_and_continue() {
    let src = r#"
    global protocol Stream(role S, role T) {
        choice at S { value(i32) from S to T; do Stream(S, T); } or { stop() from S to T; }
    }"#;
    assert_eq!(
        shown(src, "Stream"),
        "rec Stream { choice at S { S->T:value(i32); continue Stream } or { S->T:stop(); end } }"
    );
}

#[test]
fn mutually_recursive_do_becomes_one_loop() {
    let src = r#"
    global protocol Ping(role A, role B) { ping() from A to B; do Pong(B, A); }
    global protocol Pong(role X, role Y) {
        choice at X { pong() from X to Y; do Ping(Y, X); } or { stop() from X to Y; }
    }"#;
    assert_eq!(
        shown(src, "Ping"),
        "rec Ping { A->B:ping(); choice at B { B->A:pong(); continue Ping } or { B->A:stop(); end } }"
    );
    assert_eq!(
        shown(src, "Pong"),
        "rec Pong { choice at X { X->Y:pong(); Y->X:ping(); continue Pong } or { X->Y:stop(); end } }"
    );
}

#[test]
fn recursive_do_called_from_another_protocol_keeps_what_follows() {
    let src = r#"
    global protocol Main(role A, role B) { do Loop(A, B); done() from B to A; }
    global protocol Loop(role P, role Q) {
        choice at P { more() from P to Q; do Loop(P, Q); } or { stop() from P to Q; }
    }"#;
    assert_eq!(
        shown(src, "Main"),
        "rec Loop { choice at A { A->B:more(); continue Loop } or { A->B:stop(); \
         B->A:done(); end } }"
    );
}

#[test]
fn annotations_stay_in_the_syntax_tree_and_leave_the_lowering_alone() {
    let src = r#"
    global protocol P(role A, role B) @"cost: 3" {
        m(int) from A to B; @"timeout: 10"
        do Q(A, B); @"inline"
    }
    global protocol Q(role A, role B) { n() from B to A; }"#;
    let (module, diagnostics) = mpst_scribble::syntax::parse_module(src);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    let p = &module.protocols[0];
    assert_eq!(
        p.annotation.as_ref().map(|a| a.text.as_str()),
        Some("cost: 3")
    );
    let anns: Vec<_> = p
        .body
        .interactions
        .iter()
        .map(|i| i.annotation.as_ref().map(|a| a.text.clone()))
        .collect();
    assert_eq!(
        anns,
        [Some("timeout: 10".to_string()), Some("inline".to_string())]
    );
    let annotation = p.body.interactions[0].annotation.as_ref().map(|a| a.span);
    assert_eq!(
        annotation.map(|s| &src[s.start..s.end]),
        Some("@\"timeout: 10\"")
    );
    assert_eq!(shown(src, "P"), "A->B:m(i32); B->A:n(); end");
}

#[test]
fn comments_of_all_three_kinds_and_nested_ml_comments() {
    let src = r#"
    // a line comment
    /* a block
       comment */
    (* an ML comment (* nested *) still a comment *)
    global protocol P(role A, role B) { (*) ML line comment
        m() from /* inline */ A to B; // trailing
        (* m2() from A to B; *)
    }"#;
    assert_eq!(shown(src, "P"), "A->B:m(); end");
}

#[test]
fn pragma_refinement_types_over_plain_payloads_is_ordinary() {
    let src = r#"(*# RefinementTypes, SenderValidateRefinements: true #*)
    global protocol P(role A, role B) { m(x: int) from A to B; }"#;
    assert_eq!(shown(src, "P"), "A->B:m(x: i32); end");
    let (module, _) = mpst_scribble::syntax::parse_module(src);
    let keys: Vec<_> = module
        .pragmas
        .iter()
        .map(|p| (p.key.as_str(), p.value.as_deref()))
        .collect();
    assert_eq!(
        keys,
        [
            ("RefinementTypes", None),
            ("SenderValidateRefinements", Some("true"))
        ]
    );
}

#[test]
fn names_digits_primes_dotted_types_and_bare_labels() {
    let src = r#"
    module org.example.names;
    type <java> "java.lang.String" from "rt.jar" as Str;
    sig <java> "org.Msg" from "msg.jar" as Msg;
    global protocol P(role x', role 2PC) {
        1() from x' to 2PC;
        ack from 2PC to x';
        data(v: String, Str, i32) from x' to 2PC;
        x''() from 2PC to x';
    }"#;
    assert_eq!(
        shown(src, "P"),
        "x'->2PC:1(); 2PC->x':ack(); x'->2PC:data(v: String, Str, i32); 2PC->x':x''(); end"
    );
    let (module, _) = mpst_scribble::syntax::parse_module(src);
    assert_eq!(
        module.name.as_ref().map(|n| n.text.as_str()),
        Some("org.example.names")
    );
    assert_eq!(module.type_decls.len(), 2);
    assert_eq!(module.type_decls[0].external, "java.lang.String");
    assert_eq!(module.type_decls[1].alias.text, "Msg");
}

#[test]
fn header_spellings_nuscr_accepts() {
    let src = r#"
    global P(role A, role B) { m() from A to B; }
    protocol Q(role A, role B) { m() from A to B; }
    aux global protocol R(role A, role B) { m() from A to B; }
    global protocol Empty(role A) { }"#;
    let protocols = parse_ok(src);
    let names: Vec<_> = protocols.iter().map(|p| p.name.text.as_str()).collect();
    assert_eq!(names, ["P", "Q", "R", "Empty"]);
    assert_eq!(protocols[3].body, Global::End);
}

#[test]
fn spans_point_at_the_source() {
    let src = "global protocol P(role A, role B) {\n  m(int) from A to B, A;\n  choice at B { n() from B to A; }\n}";
    let protocols = parse_ok(src);
    let p = &protocols[0];
    let text = |s: mpst_scribble::Span| &src[s.start..s.end];
    assert_eq!(text(p.name.span), "P");
    assert_eq!(text(p.roles[1].span), "B");
    let Global::Message { span, to, cont, .. } = &p.body else {
        panic!("{:?}", p.body)
    };
    assert_eq!(text(*span), "m(int) from A to B, A;");
    assert_eq!(text(to.span), "B");
    let Global::Message { to, cont, .. } = &**cont else {
        panic!()
    };
    assert_eq!((to.text.as_str(), text(to.span)), ("A", "A"));
    let Global::Choice { span, at, .. } = &**cont else {
        panic!()
    };
    assert_eq!(text(*span), "choice at B");
    assert_eq!(text(at.span), "B");
}

#[test]
fn every_example_protocol_of_the_repository_parses() {
    let examples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut count = 0;
    for entry in std::fs::read_dir(&examples).expect("examples directory") {
        let dir = entry.expect("entry").path();
        let Ok(files) = std::fs::read_dir(&dir) else {
            continue;
        };
        for file in files {
            let path = file.expect("entry").path();
            if path.extension().is_some_and(|e| e == "scr") {
                let src = std::fs::read_to_string(&path).expect("readable");
                let protocols = parse(&src).unwrap_or_else(|d| panic!("{}: {d:?}", path.display()));
                assert!(!protocols.is_empty(), "{}", path.display());
                count += 1;
            }
        }
    }
    assert!(count >= 5, "found only {count} example protocols");
}

#[test]
fn several_errors_are_reported_together() {
    let src = "global protocol P(role A, role B) {\n  m() from A to C;\n  n() from A B;\n  continue X;\n}";
    let diagnostics = parse(src).expect_err("invalid");
    let kinds: Vec<_> = diagnostics.iter().map(|d| d.kind).collect();
    assert_eq!(
        kinds,
        [
            ErrorKind::UnboundRole,
            ErrorKind::Syntax,
            ErrorKind::UnboundVariable
        ]
    );
}
