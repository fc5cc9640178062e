//! `mpst::verify::check_kmc`: giving up on the budget is an unknown answer, distinct
//! from a system that cannot be checked and from a violation.
#![cfg(feature = "serialize")]

use mpst::fsm::LocalType;
use mpst::fsm::kmc::KmcOptions;
use mpst::verify::{self, KmcFailure};

/// Two roles that ping-pong forever: 1-MC, with a handful of configurations.
fn ping_pong() -> Vec<mpst::fsm::Fsm> {
    let a = LocalType::parse("rec x. b!ping(). b?pong(). x").unwrap();
    let b = LocalType::parse("rec x. a?ping(). a!pong(). x").unwrap();
    vec![a.to_fsm("a").unwrap(), b.to_fsm("b").unwrap()]
}

#[test]
fn a_budget_reached_is_unknown_not_invalid() {
    let options = KmcOptions {
        max_configurations: 1,
        ..KmcOptions::new(1)
    };
    let err = verify::check_kmc_with(&ping_pong(), &options).unwrap_err();
    let KmcFailure::Unknown(reason) = &err else {
        panic!("expected an unknown answer, got {err}");
    };
    assert!(reason.to_string().contains("gave up after 1"), "{reason}");
    assert!(err.to_string().starts_with("unknown: "), "{err}");
}

#[test]
fn the_same_system_within_the_budget_is_k_mc() {
    let report = verify::check_kmc_with(&ping_pong(), &KmcOptions::new(1)).unwrap();
    assert!(report.is_kmc());
    assert!(verify::check_kmc(&ping_pong(), 1).is_ok());
}

#[test]
fn a_system_without_roles_is_invalid_not_unknown() {
    let err = verify::check_kmc(&[], 1).unwrap_err();
    assert!(matches!(err, KmcFailure::Invalid(_)), "{err}");
}
