//! Helpers shared by the transport tests.
#![allow(dead_code)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use mpst_choreo::net::Hold;
use mpst_choreo::transport::{Envelope, Incoming};
use mpst_choreo::{Key, RoleName, Site, Token};
use serde::Serialize;
use tokio::sync::oneshot;

pub fn role(name: &'static str) -> RoleName {
    RoleName::from_static(name)
}

/// An envelope whose key's site is `site`, with `len` bytes of payload.
pub fn envelope(from: &'static str, to: &'static str, site: u64, len: usize) -> Envelope {
    Envelope {
        from: role(from),
        to: role(to),
        key: Key::new(Site::from_id(site), Token::root()),
        payload: vec![7; len],
    }
}

/// The site of the next envelope, within ten seconds.
pub async fn next(incoming: &mut Incoming) -> u64 {
    match tokio::time::timeout(Duration::from_secs(10), incoming.next()).await {
        Ok(Some(Ok(envelope))) => envelope.key.site.id(),
        other => panic!("no envelope: {other:?}"),
    }
}

/// Holds back the envelopes of `sites` until the returned sender fires.
pub fn hold_sites(sites: &[u64]) -> (Hold, oneshot::Sender<()>) {
    let (release, held) = oneshot::channel::<()>();
    let held = futures::FutureExt::shared(async move {
        let _ = held.await;
    });
    let sites = sites.to_vec();
    let hold: Hold = Arc::new(move |e: &Envelope| {
        sites
            .contains(&e.key.site.id())
            .then(|| Box::pin(held.clone()) as _)
    });
    let _ = Mutex::new(());
    (hold, release)
}

/// The wire's greeting, as a stranger would write it.
#[derive(Serialize)]
pub enum Hello {
    Hello {
        from: RoleName,
        to: RoleName,
        lanes: u32,
    },
}
