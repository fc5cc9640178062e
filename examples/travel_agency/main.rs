//! Travel agency, top-down without a CLI step: the session API is generated at build time
//! from `travel_agency.scr` (`examples/build.rs`) and each role below is a hand-written
//! process against it.
//!
//! The customer `C` asks the agency `A` for quotes of destinations (each time `A` pings the
//! service `S` with `dummy`) until one is within budget: then it accepts, `A` confirms with
//! `S`, `C` sends `S` its address and gets a travel date. If none is, `C` rejects.
//!
//! `cargo run -p mpst-examples --example travel_agency` books one trip and fails another.

use futures::executor::block_on;
use futures::future::try_join3;
use mpst::{Error, try_session};

/// The generated API of `travel_agency.scr`.
mod api {
    include!(concat!(env!("OUT_DIR"), "/travel_agency.rs"));
}

use api::*;

/// The agency's price for a destination.
fn quote(destination: &str) -> i32 {
    destination.bytes().map(i32::from).sum::<i32>() % 1000
}

/// The customer: asks for each destination in turn and books the first one within
/// `budget`. Returns (destination, date) of the booking, or `None`.
async fn customer(
    role: &mut C,
    destinations: &[&str],
    budget: i32,
) -> Result<Option<(String, String)>, Error> {
    try_session(role, |mut s: CSession<'_, C>| async move {
        for destination in destinations {
            let (Quote(price), next) = s
                .select(Query((*destination).to_owned()))
                .await?
                .receive()
                .await?;
            if price <= budget {
                let s = next
                    .select(Accept)
                    .await?
                    .send(Address("1 Main St".into()))
                    .await?;
                let (Date(date), end) = s.receive().await?;
                return Ok((Some(((*destination).to_owned(), date)), end));
            }
            s = next;
        }
        Ok((None, s.select(Reject).await?))
    })
    .await
}

/// The agency: quotes every query (telling the service each time). Returns how many
/// quotes it gave and whether the customer accepted.
async fn agency(role: &mut A) -> Result<(usize, bool), Error> {
    try_session(role, |mut s: ASession<'_, A>| async move {
        let mut quotes = 0;
        loop {
            match s.branch().await? {
                ASessionChoice::Query(Query(destination), next) => {
                    quotes += 1;
                    s = next
                        .send(Quote(quote(&destination)))
                        .await?
                        .send(Dummy)
                        .await?;
                }
                ASessionChoice::Accept(Accept, next) => {
                    return Ok(((quotes, true), next.send(Confirm).await?));
                }
                ASessionChoice::Reject(Reject, next) => {
                    return Ok(((quotes, false), next.send(Reject).await?));
                }
            }
        }
    })
    .await
}

/// The service: counts the agency's pings; on confirmation gives the customer a date.
/// Returns (pings, the address it ships to).
async fn service(role: &mut S) -> Result<(usize, Option<String>), Error> {
    try_session(role, |mut s: SSession<'_, S>| async move {
        let mut pings = 0;
        loop {
            match s.branch().await? {
                SSessionChoice::Dummy(Dummy, next) => {
                    pings += 1;
                    s = next;
                }
                SSessionChoice::Confirm(Confirm, next) => {
                    let (Address(address), next) = next.receive().await?;
                    let end = next.send(Date(format!("day {pings}"))).await?;
                    return Ok(((pings, Some(address)), end));
                }
                SSessionChoice::Reject(Reject, end) => return Ok(((pings, None), end)),
            }
        }
    })
    .await
}

/// What each role ended with: (customer's booking, agency's (quotes, accepted), service's
/// (pings, address)).
type Trip = (
    Option<(String, String)>,
    (usize, bool),
    (usize, Option<String>),
);

/// Runs one customer with its wish list and budget.
fn plan(destinations: &[&str], budget: i32) -> Trip {
    let Roles {
        mut a,
        mut c,
        mut s,
    } = Roles::default();
    block_on(try_join3(
        customer(&mut c, destinations, budget),
        agency(&mut a),
        service(&mut s),
    ))
    .unwrap_or_else(|error| panic!("travel agency failed: {error}"))
}

fn main() {
    println!("{:?}", plan(&["Tokyo", "Rome", "Oslo"], 410));
    println!("{:?}", plan(&["Tokyo"], 1));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn books_the_first_destination_within_budget() {
        let places = ["Tokyo", "Rome", "Oslo"];
        let budget = quote("Rome");
        assert!(
            quote("Tokyo") > budget,
            "the test needs Tokyo to be too dear"
        );
        let (booking, agency, service) = plan(&places, budget);
        assert_eq!(booking, Some(("Rome".to_owned(), "day 2".to_owned())));
        assert_eq!(agency, (2, true));
        assert_eq!(service, (2, Some("1 Main St".to_owned())));
    }

    #[test]
    fn rejects_when_nothing_is_within_budget() {
        let (booking, agency, service) = plan(&["Tokyo", "Rome"], 0);
        assert_eq!(booking, None);
        assert_eq!(agency, (2, false));
        assert_eq!(service, (2, None));
    }
}

/// The workflows of PPoPP 2022 §2 on this example: the generated API is the projection of
/// `travel_agency.scr` onto each role (checked through serialisation, names normalised, payloads
/// compared), and the system of serialised roles is 1-MC (bottom-up).
#[cfg(test)]
mod workflows {
    use super::*;

    mpst_examples::projection_workflows! {
        include_str!("travel_agency.scr");
        ASession<'static, A>, CSession<'static, C>, SSession<'static, S>
    }
}
