//! Generated state names are stable: adding a message in one branch of a choice leaves
//! the names (and definitions) of every other branch's state types unchanged.

use std::collections::BTreeMap;

/// A sale: `B` bids or passes on the lot; each branch has states for every role.
const BEFORE: &str = "
global protocol Sale(role A, role B, role C) {
  lot(String) from A to B;
  choice at B {
    bid(i32) from B to A;
    price(i32) from A to C;
    confirm() from C to A;
    sold() from A to B;
  } or {
    pass() from B to A;
    unsold() from A to C;
    ack() from C to A;
    done() from A to B;
  }
}
";

/// The first branch (`bid`, seen as `price` by `C`) gets one more message.
fn after() -> String {
    BEFORE.replace(
        "    price(i32) from A to C;\n",
        "    price(i32) from A to C;\n    note(String) from A to C;\n",
    )
}

/// The session types of the generated code of `source`: name -> its item (docs and
/// definition, with the choice enum's variants).
fn state_types(source: &str) -> BTreeMap<String, String> {
    let code = mpst_codegen::generate_scribble("sale.scr", source, None, &[], 10).unwrap();
    code.split("\n\n")
        .filter(|item| item.contains("#[session]"))
        .map(|item| {
            let name = item
                .lines()
                .find_map(|line| {
                    ["pub type ", "pub struct ", "pub enum "]
                        .iter()
                        .find_map(|kw| line.strip_prefix(kw))
                })
                .expect("a session item defines a type")
                .split(|c: char| !c.is_alphanumeric())
                .next()
                .unwrap()
                .to_string();
            (name, item.trim_end().to_string())
        })
        .collect()
}

/// Whether a state type belongs to the edited branch: its name (after the role) starts
/// with the label of the branch as the role sees it.
fn in_edited_branch(name: &str) -> bool {
    let rest = &name[1..];
    rest.starts_with("Bid") || rest.starts_with("Price")
}

#[test]
fn names_of_other_branches_survive_an_edit() {
    let before = state_types(BEFORE);
    let after = state_types(&after());
    let others = |types: &BTreeMap<String, String>| -> BTreeMap<String, String> {
        types
            .iter()
            .filter(|(name, _)| !in_edited_branch(name))
            .map(|(n, i)| (n.clone(), i.clone()))
            .collect()
    };
    // The untouched part: everything before the choice, the choices themselves and the
    // whole `pass` branch of every role, deep states included.
    for name in ["APass", "APassAfterUnsold", "CUnsold", "BAfterLotChoice"] {
        assert!(before.contains_key(name), "{name} in {:?}", before.keys());
    }
    assert_eq!(others(&before), others(&after));
    // The edit did reach the edited branch: `C` has a new state there.
    let edited = |types: &BTreeMap<String, String>| {
        types
            .keys()
            .filter(|n| in_edited_branch(n))
            .cloned()
            .collect::<Vec<_>>()
    };
    assert!(edited(&after).len() > edited(&before).len());
    assert!(after.contains_key("CPriceAfterNote"), "{:?}", after.keys());
}

/// A loop after an opening message; the edit adds a message before the loop.
const LOOP: &str = "
global protocol Rounds(role A, role B) {
  hello() from A to B;
  rec Round {
    choice at A {
      bid(i32) from A to B;
      ack() from B to A;
      continue Round;
    } or {
      stop() from A to B;
    }
  }
}
";

#[test]
fn names_inside_a_loop_survive_an_edit_before_it() {
    let edited = LOOP.replace(
        "  hello() from A to B;\n",
        "  hello() from A to B;\n  extra() from A to B;\n",
    );
    let inside = |types: BTreeMap<String, String>| -> BTreeMap<String, String> {
        types
            .into_iter()
            .filter(|(name, _)| name[1..].starts_with("Round"))
            .collect()
    };
    let before = inside(state_types(LOOP));
    for name in ["ARound", "ARoundChoice", "ARoundBid", "BRound", "BRoundBid"] {
        assert!(before.contains_key(name), "{name} in {:?}", before.keys());
    }
    assert_eq!(before, inside(state_types(&edited)));
}

#[test]
fn snapshots_of_a_protocol_and_its_edit() {
    let code =
        |source: &str| mpst_codegen::generate_scribble("sale.scr", source, None, &[], 10).unwrap();
    insta::assert_snapshot!("sale_before", code(BEFORE));
    insta::assert_snapshot!(
        "sale_after_one_message_more_in_the_bid_branch",
        code(&after())
    );
}
