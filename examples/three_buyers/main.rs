//! Three buyers (Honda, Yoshida and Carbone), top-down without a CLI step: the session API
//! is generated at build time from `three_buyers.scr` (`examples/build.rs` calls
//! `mpst_codegen::build::scribble`) and each role below is a hand-written process against
//! it.
//!
//! Buyer `A` asks the seller `S` for a book's price; `S` quotes it to `A` and `B`; `A` tells
//! `B` how much it contributes. `B` buys if it can pay the rest, else asks `C` to take over
//! (`C` buys if it can pay the rest, else declines), or quits when nobody can.
//!
//! `cargo run -p mpst-examples --example three_buyers` runs the four outcomes. The
//! processes live in `buyers.rs`, shared with `net.rs`, which runs them as separate OS
//! processes over TCP.

use futures::executor::block_on;
use futures::future::try_join4;

/// The generated API of `three_buyers.scr` (labels with serde derives, routes that run in
/// memory or over TCP: see `examples/build.rs`).
mod api {
    include!(concat!(env!("OUT_DIR"), "/three_buyers.rs"));
}
mod buyers;

use api::*;
use buyers::{Outcome, buyer_a, buyer_b, buyer_c, seller};

/// One purchase: (price, `B`'s outcome, `C`'s outcome, where the seller ships).
type Purchase = (i32, Outcome, Outcome, Option<String>);

/// Runs one purchase of `title` with the buyers' contributions and budgets.
fn purchase(title: &str, share_a: i32, budget_b: i32, ask_c: bool, budget_c: i32) -> Purchase {
    let Roles {
        mut a,
        mut b,
        mut c,
        mut s,
    } = Roles::default();
    block_on(try_join4(
        buyer_a(&mut a, title, share_a),
        buyer_b(&mut b, budget_b, ask_c),
        buyer_c(&mut c, budget_c),
        seller(&mut s),
    ))
    .unwrap_or_else(|error| panic!("three buyers failed: {error}"))
}

fn main() {
    for (title, a, b, ask, c) in [
        ("Types and Programming Languages", 200, 200, false, 0),
        ("Session Types", 50, 10, true, 100),
        ("Session Types", 50, 10, true, 20),
        ("Session Types", 50, 10, false, 0),
    ] {
        println!("{title}: {:?}", purchase(title, a, b, ask, c));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn b_buys_when_it_can_pay_the_rest() {
        let (price, b, c, shipped) = purchase("TAPL", 10, 30, false, 0);
        assert_eq!(price, 40);
        assert_eq!(b, Outcome::BoughtByB("Monday".into()));
        assert_eq!(c, Outcome::BoughtByB(String::new()));
        assert_eq!(shipped.as_deref(), Some("B's address"));
    }

    #[test]
    fn c_buys_when_b_delegates_and_c_can_pay() {
        let (price, b, c, shipped) = purchase("Session Types", 50, 10, true, 100);
        assert_eq!(price, 130);
        assert_eq!(b, Outcome::BoughtByC(String::new()));
        assert_eq!(c, Outcome::BoughtByC("Tuesday".into()));
        assert_eq!(shipped.as_deref(), Some("C's address"));
    }

    #[test]
    fn c_declines_what_it_cannot_pay() {
        let (_, b, c, shipped) = purchase("Session Types", 50, 10, true, 79);
        assert_eq!(
            (b, c, shipped),
            (Outcome::Declined, Outcome::Declined, None)
        );
    }

    #[test]
    fn b_quits_when_nobody_can_pay() {
        let (_, b, c, shipped) = purchase("Session Types", 50, 10, false, 1000);
        assert_eq!((b, c, shipped), (Outcome::Quit, Outcome::Quit, None));
    }
}

/// The workflows of PPoPP 2022 §2 on this example: the generated API is the projection of
/// `three_buyers.scr` onto each role (checked through serialisation, names normalised, payloads
/// compared), and the system of serialised roles is 1-MC (bottom-up).
#[cfg(test)]
mod workflows {
    use super::*;

    mpst_examples::projection_workflows! {
        include_str!("three_buyers.scr");
        ASession<'static, A>, BSession<'static, B>, CSession<'static, C>, SSession<'static, S>
    }
}
