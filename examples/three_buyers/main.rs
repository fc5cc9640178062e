//! Three buyers (Honda, Yoshida and Carbone), top-down without a CLI step: the session API
//! is generated at build time from `three_buyers.scr` (`examples/build.rs` calls
//! `mpst_codegen::build::scribble`) and each role below is a hand-written process against
//! it.
//!
//! Buyer `A` asks the seller `S` for a book's price; `S` quotes it to `A` and `B`; `A` tells
//! `B` how much it contributes. `B` buys if it can pay the rest, else asks `C` to take over
//! (`C` buys if it can pay the rest, else declines), or quits when nobody can.
//!
//! `cargo run -p mpst-examples --example three_buyers` runs the four outcomes.

use futures::executor::block_on;
use futures::future::try_join4;
use mpst::{try_session, Error};

/// The generated API of `three_buyers.scr`.
mod api {
    include!(concat!(env!("OUT_DIR"), "/three_buyers.rs"));
}

use api::*;

/// The price the seller asks for any title.
fn price(title: &str) -> i32 {
    10 * i32::try_from(title.len()).unwrap_or(i32::MAX / 10)
}

/// What happened to the book, as each buyer saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Outcome {
    /// `B` bought it, delivery on that date.
    BoughtByB(String),
    /// `C` bought it for `B`, delivery on that date.
    BoughtByC(String),
    /// `C` was asked and declined.
    Declined,
    /// `B` quit.
    Quit,
}

/// Buyer `A`: asks for `title`, contributes `share` of the price. Returns the price.
async fn buyer_a(role: &mut A, title: &str, share: i32) -> Result<i32, Error> {
    try_session(role, |s: ASession<'_, A>| async move {
        let (Quote(price), s) = s.send(Title(title.to_owned())).await?.receive().await?;
        let end = s.send(Share(share.min(price))).await?;
        Ok((price, end))
    })
    .await
}

/// Buyer `B`: pays the rest if it is within `budget`, else delegates to `C` if `C` may
/// help, else quits.
async fn buyer_b(role: &mut B, budget: i32, ask_c: bool) -> Result<Outcome, Error> {
    try_session(role, |s: BSession<'_, B>| async move {
        let (Quote(price), s) = s.receive().await?;
        let (Share(share), s) = s.receive().await?;
        let rest = price - share;
        if rest <= budget {
            let (Date(date), s) = s
                .select(Accept("B's address".into()))
                .await?
                .receive()
                .await?;
            let end = s.send(Buying).await?;
            Ok((Outcome::BoughtByB(date), end))
        } else if ask_c {
            let s = s.select(Delegating).await?.send(Delegate(rest)).await?;
            match s.branch().await? {
                BState7Choice::Bought(Bought, end) => Ok((Outcome::BoughtByC(String::new()), end)),
                BState7Choice::Declined(Declined, end) => Ok((Outcome::Declined, end)),
            }
        } else {
            let end = s.select(Quit).await?.send(Quit).await?;
            Ok((Outcome::Quit, end))
        }
    })
    .await
}

/// Buyer `C`: when `B` delegates, buys if the rest is within `budget`.
async fn buyer_c(role: &mut C, budget: i32) -> Result<Outcome, Error> {
    try_session(role, |s: CSession<'_, C>| async move {
        match s.branch().await? {
            CSessionChoice::Buying(Buying, end) => Ok((Outcome::BoughtByB(String::new()), end)),
            CSessionChoice::Quit(Quit, end) => Ok((Outcome::Quit, end)),
            CSessionChoice::Delegate(Delegate(rest), s) => {
                if rest <= budget {
                    let s = s.select(Accept("C's address".into())).await?;
                    let (Date(date), s) = s.receive().await?;
                    Ok((Outcome::BoughtByC(date), s.send(Bought).await?))
                } else {
                    let end = s.select(Reject).await?.send(Declined).await?;
                    Ok((Outcome::Declined, end))
                }
            }
        }
    })
    .await
}

/// The seller: quotes [`price`], and gives a delivery date to whoever accepts. Returns the
/// address it ships to, if any.
async fn seller(role: &mut S) -> Result<Option<String>, Error> {
    try_session(role, |s: SSession<'_, S>| async move {
        let (Title(title), s) = s.receive().await?;
        let quote = price(&title);
        let s = s.send(Quote(quote)).await?.send(Quote(quote)).await?;
        match s.branch().await? {
            SState3Choice::Accept(Accept(address), s) => {
                Ok((Some(address), s.send(Date("Monday".into())).await?))
            }
            SState3Choice::Quit(Quit, end) => Ok((None, end)),
            SState3Choice::Delegating(Delegating, s) => match s.branch().await? {
                SState5Choice::Accept(Accept(address), s) => {
                    Ok((Some(address), s.send(Date("Tuesday".into())).await?))
                }
                SState5Choice::Reject(Reject, end) => Ok((None, end)),
            },
        }
    })
    .await
}

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

    #[test]
    fn the_generated_api_is_the_projection_and_its_system_is_1_mc() {
        let scr = include_str!("three_buyers.scr");
        mpst::verify::assert_equals_projection::<ASession<'static, A>>(scr, "A");
        mpst::verify::assert_equals_projection::<BSession<'static, B>>(scr, "B");
        mpst::verify::assert_equals_projection::<CSession<'static, C>>(scr, "C");
        mpst::verify::assert_equals_projection::<SSession<'static, S>>(scr, "S");
        let system = [
            mpst::serialize::serialize::<ASession<'static, A>>().unwrap(),
            mpst::serialize::serialize::<BSession<'static, B>>().unwrap(),
            mpst::serialize::serialize::<CSession<'static, C>>().unwrap(),
            mpst::serialize::serialize::<SSession<'static, S>>().unwrap(),
        ];
        mpst::verify::assert_kmc(&system, 1);
    }
}
