//! Walking a session type without running it: the hook the `serialize` work (session type
//! to FSM) is built on.
//!
//! Every session type implements [`SessionType`]: the primitives here, named types and choice
//! enums through `#[session]`. [`SessionType::visit`] calls a [`Visitor`] once per step, in
//! order, depth first:
//!
//! * `Send<P, L, S>` calls [`Visitor::send::<P, L>`](Visitor::send), then visits `S`;
//!   `Receive` likewise with [`Visitor::receive`];
//! * `Select<P, C>` / `Branch<P, C>` first call [`Visitor::named`] with their own type
//!   name; when it returns `true` they call [`Visitor::select`] / [`Visitor::branch`], then
//!   for each variant of `C` in declaration order [`Visitor::variant::<L>`](Visitor::variant)
//!   followed by the visit of its continuation, then [`Visitor::choice_end`];
//! * `Choose<C>` likewise calls [`Visitor::named`], then [`Visitor::choose`], then for each
//!   variant [`Visitor::variant_to::<P, L>`](Visitor::variant_to) (with the variant's own
//!   peer `P`) and its continuation, then [`Visitor::choice_end`];
//! * `End` calls [`Visitor::end`];
//! * a named `#[session] struct` calls [`Visitor::named`] with its type name and visits the
//!   wrapped type only when that returns `true`.
//!
//! Return `false` from `named` for a name seen before: the current state is then the state
//! where that name was first entered, which closes the recursion. Recursion always goes
//! through a named struct or a choice (aliases cannot refer to themselves), so every walk
//! terminates.
//!
//! Every path through a choice therefore finishes with `end` or with a `named` that
//! returned `false`. The label name of `L` is
//! [`Labelled::name_of`](crate::Labelled::name_of)`(TypeId::of::<L>())` on the role's
//! message enum (the variant name, or its `#[message(label = ..)]`), its payload sorts are
//! [`Labelled::sorts_of`](crate::Labelled::sorts_of)`(TypeId::of::<L>())`, i.e. the field
//! types `#[derive(Payload)]` recorded as written ([`Payload::SORTS`](crate::Payload::SORTS);
//! `None` when `L` does not derive it — the label type's own name is never taken as its
//! payload), the peer's name `P::NAME` and the running role's name
//! `<S as FromState>::Role::NAME`.
//!
//! A `serialize::<S>()` is then a `Visitor` that keeps a current FSM state, adds one
//! transition per `send`/`receive`/`variant`, keeps a stack of branching states for
//! choices, and maps each named type to the state where it was first entered.

use crate::primitives::{Branch, Choose, Receive, Select, Send};
use crate::session::End;
use crate::Role;

/// Receives the steps of a session type, see the [module documentation](self).
pub trait Visitor {
    /// `Send<P, L, _>`: send label `L` to `P`; the continuation is visited next.
    fn send<P: Role, L: 'static>(&mut self);

    /// `Receive<P, L, _>`: receive label `L` from `P`; the continuation is visited next.
    fn receive<P: Role, L: 'static>(&mut self);

    /// `Select<P, _>`: an internal choice towards `P` begins.
    fn select<P: Role>(&mut self);

    /// `Branch<P, _>`: an external choice from `P` begins.
    fn branch<P: Role>(&mut self);

    /// `Choose<_>`: an internal choice whose variants each name their peer begins.
    fn choose(&mut self);

    /// The next variant of the current choice, with label `L`; its continuation follows.
    fn variant<L: 'static>(&mut self);

    /// The next variant of the current `Choose`, with label `L` sent to `P`; its
    /// continuation follows.
    fn variant_to<P: Role, L: 'static>(&mut self);

    /// The current choice has no more variants.
    fn choice_end(&mut self);

    /// `End`.
    fn end(&mut self);

    /// Entering the named session type `name`: `std::any::type_name` of a `#[session]`
    /// struct or of a `Select`/`Branch` type (both include the role). Return `true` to visit
    /// its body, `false` if it was seen before (the current state is the one where it was
    /// first entered).
    fn named(&mut self, name: &'static str) -> bool;
}

/// A session type whose structure can be walked by a [`Visitor`].
pub trait SessionType {
    /// Walks the type, see the [module documentation](self).
    fn visit<V: Visitor>(visitor: &mut V);
}

/// A `#[session]` choice enum whose variants can be walked by a [`Visitor`].
pub trait ChoiceType {
    /// Calls [`Visitor::variant`] and visits the continuation, for each variant in order.
    fn visit_variants<V: Visitor>(visitor: &mut V);
}

impl<R: Role, P: Role, L: 'static, S: SessionType> SessionType for Send<'_, R, P, L, S> {
    fn visit<V: Visitor>(visitor: &mut V) {
        visitor.send::<P, L>();
        S::visit(visitor);
    }
}

impl<R: Role, P: Role, L: 'static, S: SessionType> SessionType for Receive<'_, R, P, L, S> {
    fn visit<V: Visitor>(visitor: &mut V) {
        visitor.receive::<P, L>();
        S::visit(visitor);
    }
}

impl<R: Role, P: Role, C: ChoiceType> SessionType for Select<'_, R, P, C> {
    fn visit<V: Visitor>(visitor: &mut V) {
        if visitor.named(std::any::type_name::<Self>()) {
            visitor.select::<P>();
            C::visit_variants(visitor);
            visitor.choice_end();
        }
    }
}

impl<R: Role, C: ChoiceType> SessionType for Choose<'_, R, C> {
    fn visit<V: Visitor>(visitor: &mut V) {
        if visitor.named(std::any::type_name::<Self>()) {
            visitor.choose();
            C::visit_variants(visitor);
            visitor.choice_end();
        }
    }
}

impl<R: Role, P: Role, C: ChoiceType> SessionType for Branch<'_, R, P, C> {
    fn visit<V: Visitor>(visitor: &mut V) {
        if visitor.named(std::any::type_name::<Self>()) {
            visitor.branch::<P>();
            C::visit_variants(visitor);
            visitor.choice_end();
        }
    }
}

impl<R: Role> SessionType for End<'_, R> {
    fn visit<V: Visitor>(visitor: &mut V) {
        visitor.end();
    }
}
