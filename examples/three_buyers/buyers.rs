//! The four processes of three buyers, written against the generated API; shared by the
//! in-memory run (`main.rs`) and the multi-process run (`net.rs`).

use mpst::{Error, try_session};

use crate::api::*;

/// The price the seller asks for any title.
pub fn price(title: &str) -> i32 {
    10 * i32::try_from(title.len()).unwrap_or(i32::MAX / 10)
}

/// What happened to the book, as each buyer saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
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
pub async fn buyer_a(role: &mut A, title: &str, share: i32) -> Result<i32, Error> {
    try_session(role, |s: ASession<'_, A>| async move {
        let (Quote(price), s) = s.send(Title(title.to_owned())).await?.receive().await?;
        let end = s.send(Share(share.min(price))).await?;
        Ok((price, end))
    })
    .await
}

/// Buyer `B`: pays the rest if it is within `budget`, else delegates to `C` if `C` may
/// help, else quits.
pub async fn buyer_b(role: &mut B, budget: i32, ask_c: bool) -> Result<Outcome, Error> {
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
                BDelegatingAfterDelegateChoice::Bought(Bought, end) => {
                    Ok((Outcome::BoughtByC(String::new()), end))
                }
                BDelegatingAfterDelegateChoice::Declined(Declined, end) => {
                    Ok((Outcome::Declined, end))
                }
            }
        } else {
            let end = s.select(Quit).await?.send(Quit).await?;
            Ok((Outcome::Quit, end))
        }
    })
    .await
}

/// Buyer `C`: when `B` delegates, buys if the rest is within `budget`.
pub async fn buyer_c(role: &mut C, budget: i32) -> Result<Outcome, Error> {
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
pub async fn seller(role: &mut S) -> Result<Option<String>, Error> {
    try_session(role, |s: SSession<'_, S>| async move {
        let (Title(title), s) = s.receive().await?;
        let quote = price(&title);
        let s = s.send(Quote(quote)).await?.send(Quote(quote)).await?;
        match s.branch().await? {
            SAfterQuote2Choice::Accept(Accept(address), s) => {
                Ok((Some(address), s.send(Date("Monday".into())).await?))
            }
            SAfterQuote2Choice::Quit(Quit, end) => Ok((None, end)),
            SAfterQuote2Choice::Delegating(Delegating, s) => match s.branch().await? {
                SDelegatingChoice::Accept(Accept(address), s) => {
                    Ok((Some(address), s.send(Date("Tuesday".into())).await?))
                }
                SDelegatingChoice::Reject(Reject, end) => Ok((None, end)),
            },
        }
    })
    .await
}
