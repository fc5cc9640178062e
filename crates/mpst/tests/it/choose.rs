//! `Choose`: an internal choice whose branches go to different peers, run to completion
//! and serialised to the FSM of its projection.

use mpst::{Branch, Choose, End, Message, Payload, Send, session, try_session};

use crate::support::declare_roles;

declare_roles!(Label over mpst::channel::Unbounded<Label>: A(B, C), B(A, C), C(A, B));

#[derive(Message)]
enum Label {
    L(L),
    L2(L2),
    R(R),
    R2(R2),
    Stop(Stop),
}

#[derive(Payload)]
struct L(i32);
#[derive(Payload)]
struct L2;
#[derive(Payload)]
struct R;
#[derive(Payload)]
struct R2(i32);
#[derive(Payload)]
struct Stop;

/// `rec t. +{B!L(i32). C!L2(). t, C!R(). B!R2(i32). t, B!Stop(). C!Stop(). end}`.
#[session]
struct ALoop(Choose<APick>);

#[session]
enum APick {
    #[to(B)]
    L(L, Send<C, L2, ALoop>),
    #[to(C)]
    R(R, Send<B, R2, ALoop>),
    #[to(B)]
    Stop(Stop, Send<C, Stop, End>),
}

#[session]
struct BLoop(Branch<A, BChoice>);

#[session]
enum BChoice {
    L(L, BLoop),
    R2(R2, BLoop),
    Stop(Stop, End),
}

#[session]
struct CLoop(Branch<A, CChoice>);

#[session]
enum CChoice {
    L2(L2, CLoop),
    R(R, CLoop),
    Stop(Stop, End),
}

async fn chooser(role: &mut A, picks: &[bool]) -> Result<(), mpst::Error> {
    try_session(role, |mut s: ALoop<'_, A>| async move {
        for (i, &left) in picks.iter().enumerate() {
            let i = i as i32;
            s = if left {
                let s = s.into_session().choose(L(i)).await?;
                s.send(L2).await?
            } else {
                let s = s.into_session().choose(R).await?;
                s.send(R2(i)).await?
            };
        }
        let s = s.into_session().choose(Stop).await?;
        let end = s.send(Stop).await?;
        Ok(((), end))
    })
    .await
}

/// What B receives: the payloads of `L` and `R2`, in order.
async fn b(role: &mut B) -> Result<Vec<i32>, mpst::Error> {
    try_session(role, |mut s: BLoop<'_, B>| async move {
        let mut seen = Vec::new();
        loop {
            s = match s.into_session().branch().await? {
                BChoice::L(L(x), s) | BChoice::R2(R2(x), s) => {
                    seen.push(x);
                    s
                }
                BChoice::Stop(Stop, end) => return Ok((seen, end)),
            };
        }
    })
    .await
}

/// What C receives: `true` for `L2`, `false` for `R`.
async fn c(role: &mut C) -> Result<Vec<bool>, mpst::Error> {
    try_session(role, |mut s: CLoop<'_, C>| async move {
        let mut seen = Vec::new();
        loop {
            s = match s.into_session().branch().await? {
                CChoice::L2(L2, s) => {
                    seen.push(true);
                    s
                }
                CChoice::R(R, s) => {
                    seen.push(false);
                    s
                }
                CChoice::Stop(Stop, end) => return Ok((seen, end)),
            };
        }
    })
    .await
}

#[test]
fn each_choice_reaches_its_own_peer_first() {
    let picks = [true, false, false, true, true];
    let Roles(mut a, mut roles_b, mut roles_c) = Roles::default();
    let (done, at_b, at_c) = futures::executor::block_on(async {
        futures::join!(chooser(&mut a, &picks), b(&mut roles_b), c(&mut roles_c))
    });
    done.unwrap();
    assert_eq!(at_b.unwrap(), [0, 1, 2, 3, 4]);
    assert_eq!(at_c.unwrap(), picks);
}

#[cfg(feature = "serialize")]
#[test]
fn serialises_to_the_projection() {
    use mpst::fsm::LocalType;
    use mpst::serialize::serialize;
    use mpst::verify::compare;

    let projected = "rec t. +{B!L(i32). C!L2(). t, C!R(). B!R2(i32). t, B!Stop(). C!Stop(). end}";
    let projected = LocalType::parse(projected).unwrap().to_fsm("A").unwrap();
    let serialised = serialize::<ALoop<'static, A>>().unwrap();
    compare(&projected, &serialised).unwrap();
    assert_eq!(serialised, projected);
    let b = serialize::<BLoop<'static, B>>().unwrap();
    let c = serialize::<CLoop<'static, C>>().unwrap();
    let report = mpst::fsm::kmc::check_kmc(&[serialised, b, c], 1).unwrap();
    assert!(report.is_kmc(), "{report}");
}
