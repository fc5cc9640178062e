//! Roles as zero-sized types, role names, and role sets at the type level (heterogeneous
//! lists with inferred membership indices) so that using a role outside a choreography's
//! set fails to compile.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::{Deserialize, Serialize};

/// A role of a choreography: a zero-sized type with a name. Declare roles with
/// [`roles!`](crate::roles).
pub trait Role: Copy + Default + Send + Sync + 'static {
    /// The role's name, as it appears in envelopes and errors.
    const NAME: &'static str;

    /// The role's name as a [`RoleName`].
    fn name() -> RoleName {
        RoleName::from_static(Self::NAME)
    }
}

/// Declares zero-sized role types.
///
/// ```
/// mpst_choreo::roles! {
///     /// The client.
///     pub struct Client;
///     /// The server.
///     pub struct Server;
/// }
/// use mpst_choreo::Role;
/// assert_eq!(Client::NAME, "Client");
/// ```
#[macro_export]
macro_rules! roles {
    ($($(#[$meta:meta])* $vis:vis struct $name:ident;)+) => {
        $(
            $(#[$meta])*
            #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
            $vis struct $name;

            impl $crate::Role for $name {
                const NAME: &'static str = stringify!($name);
            }
        )+
    };
}

/// The name of a role at run time.
#[derive(Clone, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct RoleName(Cow<'static, str>);

impl PartialEq for RoleName {
    /// Equal names: the same text. Two names that point at the same text (the same
    /// `&'static str`, as every [`Role::name`] of one role) are equal without comparing
    /// bytes; the mailbox compares senders on every delivery and claim.
    fn eq(&self, other: &Self) -> bool {
        let (a, b) = (self.as_str(), other.as_str());
        (a.len() == b.len() && std::ptr::eq(a.as_ptr(), b.as_ptr())) || a == b
    }
}

impl std::hash::Hash for RoleName {
    /// The text's hash, as `str` hashes it (equal names hash alike).
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl RoleName {
    /// A role name from a static string.
    pub const fn from_static(name: &'static str) -> Self {
        Self(Cow::Borrowed(name))
    }

    /// A role name from any string.
    pub fn new(name: impl Into<String>) -> Self {
        Self(Cow::Owned(name.into()))
    }

    /// The name as a string.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for RoleName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Display for RoleName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<&'static str> for RoleName {
    fn from(name: &'static str) -> Self {
        Self::from_static(name)
    }
}

/// The empty role set.
#[derive(Clone, Copy, Debug, Default)]
pub struct HNil;

/// The role set with head `H` and tail `T`. Write sets with [`RoleSet!`](crate::RoleSet!).
#[derive(Clone, Copy, Debug, Default)]
pub struct HCons<H, T>(PhantomData<(H, T)>);

/// A set of roles known at the type level.
pub trait RoleSet: Send + Sync + 'static {
    /// The names of the roles, in order.
    fn names() -> Vec<RoleName>;

    /// How many roles the set has ([`RoleSet::names`] allocates its vector once).
    #[doc(hidden)]
    const LEN: usize = 0;

    /// Appends the names of the roles, in order, to `names`.
    #[doc(hidden)]
    fn push_names(names: &mut Vec<RoleName>) {
        names.extend(Self::names());
    }

    /// Whether `role` is one of the roles (without building [`RoleSet::names`]: checked
    /// once per session and per conditional).
    fn contains(role: &RoleName) -> bool {
        Self::names().contains(role)
    }

    /// Calls `f` with each role's name, in order, without building the vector of
    /// [`RoleSet::names`] (a broadcast or a selection visits its recipients per call).
    #[doc(hidden)]
    fn each_name(f: &mut dyn FnMut(RoleName)) {
        Self::names().into_iter().for_each(f);
    }
}

impl RoleSet for HNil {
    fn names() -> Vec<RoleName> {
        Vec::new()
    }

    fn push_names(_: &mut Vec<RoleName>) {}

    fn each_name(_: &mut dyn FnMut(RoleName)) {}

    fn contains(_: &RoleName) -> bool {
        false
    }
}

impl<H: Role, T: RoleSet> RoleSet for HCons<H, T> {
    fn names() -> Vec<RoleName> {
        let mut names = Vec::with_capacity(Self::LEN);
        Self::push_names(&mut names);
        names
    }

    const LEN: usize = 1 + T::LEN;

    fn push_names(names: &mut Vec<RoleName>) {
        names.push(H::name());
        T::push_names(names);
    }

    fn each_name(f: &mut dyn FnMut(RoleName)) {
        f(H::name());
        T::each_name(f);
    }

    fn contains(role: &RoleName) -> bool {
        role.as_str() == H::NAME || T::contains(role)
    }
}

/// The type of a role set: `RoleSet![A, B, C]` is the set of roles `A`, `B` and `C`, a
/// type implementing the trait [`RoleSet`](trait@crate::RoleSet) (one import,
/// `use mpst_choreo::RoleSet`, brings both). Roles themselves are declared with
/// [`roles!`](crate::roles).
///
/// ```
/// use mpst_choreo::{roles, RoleSet};
/// roles! {
///     struct Client;
///     struct Server;
/// }
/// type Both = RoleSet![Client, Server];
/// assert_eq!(
///     Both::names().iter().map(|n| n.as_str()).collect::<Vec<_>>(),
///     ["Client", "Server"]
/// );
/// ```
#[macro_export]
macro_rules! RoleSet {
    () => { $crate::HNil };
    ($head:ty $(, $tail:ty)* $(,)?) => { $crate::HCons<$head, $crate::RoleSet![$($tail),*]> };
}

/// The former name of [`RoleSet!`](crate::RoleSet!), kept for one release (it differed
/// from [`roles!`](crate::roles) only in case).
#[doc(hidden)]
#[deprecated(note = "renamed to `RoleSet!`")] // rename-27: keep
#[macro_export]
macro_rules! Roles { // rename-27: keep
    ($($roles:tt)*) => { $crate::RoleSet![$($roles)*] };
}

/// Index proof: the member is the head of the list.
pub struct Here;

/// Index proof: the member is in the tail of the list, at index `I`.
pub struct There<I>(PhantomData<I>);

/// `Self` is a role of set `L`; `Index` is inferred by the compiler.
#[diagnostic::on_unimplemented(
    message = "role `{Self}` is not a role of this choreography, branch or procedure",
    label = "this role is not a participant here",
    note = "a choreography (or the branch of a conditional) may only use the roles of its `Roles` set"
)]
pub trait Member<L, Index> {}

impl<H, T> Member<HCons<H, T>, Here> for H {}

impl<X, H, T, I> Member<HCons<H, T>, There<I>> for X where X: Member<T, I> {}

/// Every role of `Self` is in set `L`; `Index` is inferred by the compiler.
#[diagnostic::on_unimplemented(
    message = "role set `{Self}` is not a subset of `{L}`",
    note = "a sub-choreography may only use roles of the calling choreography"
)]
pub trait Subset<L, Index> {}

impl<L> Subset<L, HNil> for HNil {}

impl<L, H, T, IH, IT> Subset<L, HCons<IH, IT>> for HCons<H, T>
where
    H: Member<L, IH>,
    T: Subset<L, IT>,
{
}

#[cfg(test)]
mod tests {
    use super::*;

    crate::roles! {
        struct A;
        struct B;
        struct C;
    }

    #[test]
    fn names_are_equal_and_hash_alike_by_their_text_wherever_it_is_held() {
        use std::hash::BuildHasher;
        let hasher = std::collections::hash_map::RandomState::new();
        let (fixed, owned) = (A::name(), RoleName::new(String::from("A")));
        assert_eq!(fixed, A::name());
        assert_eq!(fixed, owned);
        assert_eq!(owned, fixed);
        assert_eq!(hasher.hash_one(&fixed), hasher.hash_one(&owned));
        assert_eq!(hasher.hash_one(&fixed), hasher.hash_one("A"));
        assert!(fixed != B::name() && owned != RoleName::new("AB"));
        // The same text's start with another length is another name.
        assert!(RoleName::from_static(&A::NAME[..0]) != fixed);
    }

    #[test]
    fn each_name_visits_the_names_in_order_without_a_vector() {
        type Set = crate::RoleSet![A, B, C];
        let mut seen = Vec::new();
        Set::each_name(&mut |name| seen.push(name));
        assert_eq!(seen, Set::names());
        assert_eq!(seen, [A::name(), B::name(), C::name()]);
        let mut none = 0;
        HNil::each_name(&mut |_| none += 1);
        assert_eq!(none, 0);
    }

    fn member<R, L, I>()
    where
        R: Member<L, I>,
    {
    }

    fn subset<S, L, I>()
    where
        S: Subset<L, I>,
    {
    }

    #[test]
    fn membership_and_subsets_are_inferred() {
        member::<B, crate::RoleSet![A, B, C], _>();
        subset::<crate::RoleSet![C, A], crate::RoleSet![A, B, C], _>();
        assert_eq!(
            <crate::RoleSet![A, B, C]>::names(),
            vec![A::name(), B::name(), C::name()]
        );
        let names = <crate::RoleSet![A, B, C]>::names();
        assert_eq!(
            (names.len(), names.capacity()),
            (3, 3),
            "one allocation, exact"
        );
        assert!(<crate::RoleSet![A, C]>::contains(&C::name()));
        assert!(!<crate::RoleSet![A, C]>::contains(&B::name()));
        assert_eq!(RoleName::new("A"), A::name());
        assert_eq!(A::name().to_string(), "A");
    }

    /// The names issue 27 replaced still work for one release.
    #[test]
    #[allow(deprecated)]
    fn the_former_names_are_the_new_ones() {
        fn same<T: 'static, U: 'static>() -> bool {
            std::any::TypeId::of::<T>() == std::any::TypeId::of::<U>()
        }
        assert!(same::<crate::Roles![A, B], crate::RoleSet![A, B]>()); // rename-27: keep
        assert!(!same::<crate::Roles![A, B], crate::RoleSet![B, A]>()); // rename-27: keep
        assert!(same::<crate::Config, crate::EndpointConfig>()); // rename-27: keep
    }
}
