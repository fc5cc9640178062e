//! A seeded chaos transport wrapping any transport: it reorders (by random delays),
//! delays, duplicates and drops envelopes, deterministically for a seed under a
//! current-thread runtime. With tokio's paused clock its delays cost no real time.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::BoxFuture;
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

use super::{Envelope, Inbox, Transport, TransportError};
use crate::role::RoleName;

/// What a [`Chaos`] transport does to envelopes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChaosConfig {
    /// The seed of the random decisions.
    pub seed: u64,
    /// Each envelope is delayed by a random duration up to this (0 keeps order).
    pub max_delay: Duration,
    /// Probability that an envelope is delivered twice.
    pub duplicate: f64,
    /// Probability that an envelope is never delivered.
    pub drop: f64,
}

impl ChaosConfig {
    /// Reorders and delays (up to 50 ms) and duplicates 20% of envelopes; drops none.
    pub fn reorder(seed: u64) -> Self {
        Self {
            seed,
            max_delay: Duration::from_millis(50),
            duplicate: 0.2,
            drop: 0.0,
        }
    }

    /// The same configuration with a drop probability.
    pub fn with_drop(self, drop: f64) -> Self {
        Self { drop, ..self }
    }
}

/// Counts of what a [`Chaos`] transport did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ChaosStats {
    /// Envelopes given to `send`.
    pub sent: u64,
    /// Extra copies delivered.
    pub duplicated: u64,
    /// Envelopes never delivered.
    pub dropped: u64,
    /// Delayed deliveries that the inner transport refused.
    pub failed: u64,
}

#[derive(Default)]
struct Counters {
    sent: AtomicU64,
    duplicated: AtomicU64,
    dropped: AtomicU64,
    failed: AtomicU64,
}

/// A transport that misbehaves on purpose, deterministically for a seed.
pub struct Chaos<T> {
    inner: Arc<T>,
    config: ChaosConfig,
    rng: Mutex<Xoshiro256PlusPlus>,
    counters: Arc<Counters>,
}

impl<T: Transport> Chaos<T> {
    /// Wraps `inner`.
    pub fn new(inner: T, config: ChaosConfig) -> Self {
        Self {
            inner: Arc::new(inner),
            rng: Mutex::new(Xoshiro256PlusPlus::seed_from_u64(config.seed)),
            config,
            counters: Arc::default(),
        }
    }

    /// What the transport has done so far.
    pub fn stats(&self) -> ChaosStats {
        let c = &self.counters;
        ChaosStats {
            sent: c.sent.load(Ordering::Relaxed),
            duplicated: c.duplicated.load(Ordering::Relaxed),
            dropped: c.dropped.load(Ordering::Relaxed),
            failed: c.failed.load(Ordering::Relaxed),
        }
    }

    /// Draws the fate of one envelope: the delays of its copies (none if dropped).
    fn fate(&self) -> Vec<Duration> {
        let mut rng = match self.rng.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        let cfg = &self.config;
        let delay = |rng: &mut Xoshiro256PlusPlus| {
            let max = cfg.max_delay.as_micros() as u64;
            Duration::from_micros(if max == 0 {
                0
            } else {
                rng.random_range(0..=max)
            })
        };
        if cfg.drop > 0.0 && rng.random_bool(cfg.drop.min(1.0)) {
            return Vec::new();
        }
        let mut copies = vec![delay(&mut rng)];
        if cfg.duplicate > 0.0 && rng.random_bool(cfg.duplicate.min(1.0)) {
            copies.push(delay(&mut rng));
        }
        copies
    }
}

impl<T: Transport> Transport for Chaos<T> {
    fn send(&self, envelope: Envelope) -> BoxFuture<'static, Result<(), TransportError>> {
        let copies = self.fate();
        let counters = &self.counters;
        counters.sent.fetch_add(1, Ordering::Relaxed);
        match copies.len() {
            0 => {
                counters.dropped.fetch_add(1, Ordering::Relaxed);
            }
            n => {
                counters
                    .duplicated
                    .fetch_add(n as u64 - 1, Ordering::Relaxed);
            }
        }
        let inner = Arc::clone(&self.inner);
        let counters = Arc::clone(&self.counters);
        // Run when polled (so a send outside a runtime cannot panic here): a copy with no
        // delay goes to the inner transport inline, in the sender's task; only a delayed
        // copy waits in a task of its own (its delay is the simulated network's).
        Box::pin(async move {
            for delay in copies {
                if delay.is_zero() {
                    if inner.send(envelope.clone()).await.is_err() {
                        counters.failed.fetch_add(1, Ordering::Relaxed);
                    }
                    continue;
                }
                let inner = Arc::clone(&inner);
                let counters = Arc::clone(&counters);
                let envelope = envelope.clone();
                tokio::spawn(async move {
                    tokio::time::sleep(delay).await;
                    if inner.send(envelope).await.is_err() {
                        counters.failed.fetch_add(1, Ordering::Relaxed);
                    }
                });
            }
            Ok(())
        })
    }

    fn attach(&self, role: &RoleName, inbox: Inbox) -> Result<(), TransportError> {
        self.inner.attach(role, inbox)
    }
}

#[cfg(test)]
mod tests {
    use futures::StreamExt;

    use super::*;
    use crate::key::{Key, Site, Token};
    use crate::transport::InMemory;

    async fn arrival_order(config: ChaosConfig, n: u64) -> (Vec<u64>, ChaosStats) {
        let net = Chaos::new(InMemory::new([RoleName::from("B")]), config);
        let mut rx = net.incoming(&"B".into()).unwrap();
        for i in 0..n {
            let env = Envelope {
                from: "A".into(),
                to: "B".into(),
                key: Key::new(Site::from_id(i), Token::root()),
                payload: vec![],
            };
            net.send(env).await.unwrap();
        }
        let stats = net.stats();
        let expected = n - stats.dropped + stats.duplicated;
        let mut order = Vec::new();
        for _ in 0..expected {
            order.push(rx.next().await.unwrap().unwrap().key.site.id());
        }
        (order, stats)
    }

    #[tokio::test(start_paused = true)]
    async fn same_seed_same_chaos_and_it_does_reorder_duplicate_and_drop() {
        let cfg = ChaosConfig::reorder(7).with_drop(0.1);
        let (a, stats) = arrival_order(cfg, 200).await;
        let (b, _) = arrival_order(cfg, 200).await;
        assert_eq!(a, b, "deterministic for a seed");
        assert!(a.windows(2).any(|w| w[0] > w[1]), "reordered");
        assert!(stats.duplicated > 0 && stats.dropped > 0, "{stats:?}");
        let (c, _) = arrival_order(ChaosConfig::reorder(8).with_drop(0.1), 200).await;
        assert_ne!(a, c, "another seed, another schedule");
    }
}
