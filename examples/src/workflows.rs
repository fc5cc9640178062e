//! The workflows of PPoPP 2022 §2 as the examples' tests run them on a system of session
//! types, one per role: each role against its projection from the Scribble protocol
//! (top-down: the same machine; hybrid: an optimised role is an asynchronous subtype of its
//! projection, and really reordered), the system of serialised roles k-MC (bottom-up), and
//! the DOT files that record the optimised roles for the command line.
//!
//! Build a [`System`] with [`system!`](crate::system). The tests that every example whose
//! session types are its projections runs are written by
//! [`projection_workflows!`](crate::projection_workflows), those that every optimised
//! example runs by [`optimised_workflows!`](crate::optimised_workflows); other tests call
//! the checks of [`System`] themselves.

use mpst::introspect::SessionType;
use mpst::serialize::serialize;
use mpst::verify::{self, HybridError};
use mpst::{FromState, Labelled, Role};
use mpst_fsm::Fsm;
use mpst_fsm::subtype::Stats;

use crate::records_role;

/// A hybrid check of a session type against the projection of a role (named by the second
/// argument) from a Scribble source (the first).
type Check<T> = fn(&str, &str) -> Result<T, HybridError>;

/// One role of a [`System`].
struct Part {
    /// The role's name, as its Rust type spells it.
    role: &'static str,
    /// Its session type, serialised.
    machine: Fsm,
    /// Checks that the session type is the projection.
    equals: Check<()>,
    /// Checks that the session type is an asynchronous subtype of the projection.
    subtype: Check<Stats>,
    /// The text of the DOT file that records the role, if it is optimised.
    dot: Option<&'static str>,
}

/// A protocol's Scribble source with the session types its roles run, one per role: what
/// the workflows check. Build it with [`system!`](crate::system).
pub struct System {
    /// The Scribble source of the protocol.
    scr: &'static str,
    /// The protocol to pick in the source, when it defines several.
    protocol: Option<&'static str>,
    /// The roles, in the order they were given.
    parts: Vec<Part>,
}

impl System {
    /// A system of no role yet, for the protocol of the Scribble source `scr`.
    pub fn new(scr: &'static str) -> Self {
        System {
            scr,
            protocol: None,
            parts: Vec::new(),
        }
    }

    /// Picks the protocol `name` of a source that defines several.
    pub fn in_protocol(mut self, name: &'static str) -> Self {
        self.protocol = Some(name);
        self
    }

    /// Adds the role that runs the session type `S` (write it with any lifetime, e.g.
    /// `Kernel<'static, K>`); the role is the one its Rust type names.
    ///
    /// # Panics
    /// If `S` cannot be serialised.
    pub fn role<S>(mut self) -> Self
    where
        S: SessionType + FromState<'static>,
        <S::Role as Role>::Message: Labelled,
    {
        let machine = serialize::<S>().unwrap_or_else(|error| panic!("{error}"));
        self.parts.push(Part {
            role: <S::Role as Role>::NAME,
            machine,
            equals: verify::check_equals_projection::<S>,
            subtype: verify::check_subtype_of_projection::<S>,
            dot: None,
        });
        self
    }

    /// Adds the optimised role that runs the session type `S` (a reordering of its
    /// projection), recorded in the DOT file whose text is `dot`.
    ///
    /// # Panics
    /// If `S` cannot be serialised.
    pub fn optimised<S>(mut self, dot: &'static str) -> Self
    where
        S: SessionType + FromState<'static>,
        <S::Role as Role>::Message: Labelled,
    {
        self = self.role::<S>();
        if let Some(part) = self.parts.last_mut() {
            part.dot = Some(dot);
        }
        self
    }

    /// The serialised session types, one per role, in the order they were given.
    pub fn machines(&self) -> Vec<Fsm> {
        self.parts.iter().map(|part| part.machine.clone()).collect()
    }

    /// The name the checks give `role` (qualified by the protocol, if one was picked).
    fn name(&self, role: &str) -> String {
        match self.protocol {
            Some(protocol) => format!("{protocol}.{role}"),
            None => role.to_owned(),
        }
    }

    /// Asserts that `part`'s session type is its projection (the top-down workflow).
    #[track_caller]
    fn assert_projection(&self, part: &Part) {
        if let Err(error) = (part.equals)(self.scr, &self.name(part.role)) {
            panic!("role {}: {error}", part.role);
        }
    }

    /// Asserts that every role's session type is its projection (top-down workflow: checked
    /// through serialisation, names normalised, payloads compared).
    ///
    /// # Panics
    /// On the first role that is not, saying how it differs.
    #[track_caller]
    pub fn assert_every_role_is_its_projection(&self) {
        self.parts
            .iter()
            .for_each(|part| self.assert_projection(part));
    }

    /// Asserts that every role not marked [`optimised`](Self::optimised) is its
    /// projection.
    ///
    /// # Panics
    /// On the first role that is not, saying how it differs.
    #[track_caller]
    pub fn assert_other_roles_are_their_projections(&self) {
        let others = self.parts.iter().filter(|part| part.dot.is_none());
        others.for_each(|part| self.assert_projection(part));
    }

    /// Asserts that every optimised role (there is at least one) is an asynchronous subtype
    /// of its projection (hybrid workflow), and not its projection: it is really
    /// reordered.
    ///
    /// # Panics
    /// On the first role that is not a subtype (with the refutation), or not reordered.
    #[track_caller]
    pub fn assert_optimised_roles_are_subtypes_of_their_projections(&self) {
        let optimised: Vec<&Part> = self.parts.iter().filter(|p| p.dot.is_some()).collect();
        assert!(!optimised.is_empty(), "no role is marked optimised");
        for part in optimised {
            let role = self.name(part.role);
            if let Err(error) = (part.subtype)(self.scr, &role) {
                panic!("role {role}: {error}");
            }
            let equal = (part.equals)(self.scr, &role);
            assert!(equal.is_err(), "role {role} is not reordered");
        }
    }

    /// Asserts that `k` is the least bound for which the serialised system is k-MC
    /// (bottom-up workflow, an `Offer` checked as the runtime runs it): it is k-MC and, for
    /// a `k` above 1, not (k-1)-MC.
    ///
    /// # Panics
    /// With the counterexample, or the least bound found.
    #[track_caller]
    pub fn assert_least_k(&self, k: usize) {
        match verify::least_k(&self.machines(), k) {
            Ok(report) => assert_eq!(report.k, k, "the system is already {}-MC", report.k),
            Err(failure) => panic!("{failure}"),
        }
    }

    /// Asserts that the serialised system is k-MC for the bound `k` (bottom-up workflow).
    ///
    /// # Panics
    /// With the counterexample.
    #[track_caller]
    pub fn assert_kmc(&self, k: usize) {
        verify::assert_kmc(&self.machines(), k);
    }

    /// Asserts that the DOT file of every optimised role (there is at least one) records
    /// it: parsed back, it is the role's serialised session type with the protocol's names
    /// (see [`records_role`]).
    ///
    /// # Panics
    /// On the first DOT file that does not.
    #[track_caller]
    pub fn assert_dot_files_record_the_optimised_roles(&self) {
        let mut recorded = 0;
        for part in &self.parts {
            let Some(dot) = part.dot else { continue };
            let role = self.name(part.role);
            let projection = verify::projection(self.scr, &role)
                .unwrap_or_else(|error| panic!("role {role}: {error}"));
            let records = records_role(dot, &part.machine, &projection)
                .unwrap_or_else(|error| panic!("role {role}: {error}"));
            assert!(records, "the DOT file of role {role} does not record it");
            recorded += 1;
        }
        assert!(recorded > 0, "no role is marked optimised");
    }
}

/// A [`System`] of the Scribble source before the `;` and the session types after it, one
/// per role: `system![include_str!("ring.scr"); RingA<'static, A>, RingB<'static, B>]`.
/// `system![source, protocol = "SimpleAuth"; ...]` picks a protocol of a source that defines
/// several.
#[macro_export]
macro_rules! system {
    ($scr:expr, protocol = $protocol:literal; $($session:ty),+ $(,)?) => {
        $crate::workflows::System::new($scr)
            .in_protocol($protocol)
            $(.role::<$session>())+
    };
    ($scr:expr; $($session:ty),+ $(,)?) => {
        $crate::workflows::System::new($scr)$(.role::<$session>())+
    };
}

/// The workflow tests of an example whose session types are written by hand as the
/// projections of its protocol: `every_role_is_its_projection` and
/// `the_serialised_system_is_1_mc`. Takes what [`system!`](crate::system) takes.
#[macro_export]
macro_rules! projection_workflows {
    ($($system:tt)+) => {
        #[test]
        fn every_role_is_its_projection() {
            $crate::system![$($system)+].assert_every_role_is_its_projection();
        }

        #[test]
        fn the_serialised_system_is_1_mc() {
            $crate::system![$($system)+].assert_least_k(1);
        }
    };
}

/// The workflow tests of an example with optimised roles:
/// `optimised_roles_are_subtypes_of_their_projections`, `other_roles_are_their_projections`,
/// `the_optimised_system_is_k_mc` (with the least bound `k` given) and
/// `the_dot_files_record_the_optimised_roles`.
///
/// Takes the Scribble source and `k`, then each optimised session type with the text of the
/// DOT file that records it, then the session types of the other roles:
/// `optimised_workflows!(include_str!("ring.scr"), k = 1; OptimisedB<'static, B> =>
/// include_str!("b_optimised.dot"); RingA<'static, A>, RingC<'static, C>)`.
#[macro_export]
macro_rules! optimised_workflows {
    (@system $scr:expr; $($optimised:ty => $dot:expr),+; $($other:ty),*) => {
        $crate::workflows::System::new($scr)
            $(.optimised::<$optimised>($dot))+
            $(.role::<$other>())*
    };
    (
        $scr:expr, k = $k:literal;
        $($optimised:ty => $dot:expr),+;
        $($other:ty),* $(,)?
    ) => {
        #[test]
        fn optimised_roles_are_subtypes_of_their_projections() {
            $crate::optimised_workflows!(@system $scr; $($optimised => $dot),+; $($other),*)
                .assert_optimised_roles_are_subtypes_of_their_projections();
        }

        #[test]
        fn other_roles_are_their_projections() {
            $crate::optimised_workflows!(@system $scr; $($optimised => $dot),+; $($other),*)
                .assert_other_roles_are_their_projections();
        }

        #[test]
        fn the_optimised_system_is_k_mc() {
            $crate::optimised_workflows!(@system $scr; $($optimised => $dot),+; $($other),*)
                .assert_least_k($k);
        }

        #[test]
        fn the_dot_files_record_the_optimised_roles() {
            $crate::optimised_workflows!(@system $scr; $($optimised => $dot),+; $($other),*)
                .assert_dot_files_record_the_optimised_roles();
        }
    };
}
