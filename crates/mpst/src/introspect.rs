//! Walking a session type without running it: the hook the `serialize` work (session type
//! to FSM) is built on.
//!
//! Every session type implements [`SessionType`]: the primitives here, named types and choice
//! enums through `#[session]`. [`SessionType::visit`] calls a [`Visitor`] once per step, in
//! order, depth first:
//!
//! * `Send<Peer, Label, Next>` calls [`Visitor::send::<Peer, Label>`](Visitor::send), then
//!   visits `Next`; `Receive` likewise with [`Visitor::receive`];
//! * `Select<Peer, Cases>` / `Branch<Peer, Cases>` first call [`Visitor::named`] with their
//!   own type name; when it returns `true` they call [`Visitor::select`] /
//!   [`Visitor::branch`], then for each variant of `Cases` in declaration order
//!   [`Visitor::variant::<Label>`](Visitor::variant) followed by the visit of its
//!   continuation, then [`Visitor::choice_end`];
//! * `Choose<Cases>` likewise calls [`Visitor::named`], then [`Visitor::choose`], then for each
//!   variant [`Visitor::variant_to::<Peer, Label>`](Visitor::variant_to) (with the variant's own
//!   peer `Peer`) and its continuation, then [`Visitor::choice_end`];
//! * `Offer<Cases>` likewise calls [`Visitor::named`], then [`Visitor::offer`], then for each
//!   variant [`Visitor::variant_from::<Peer, Label>`](Visitor::variant_from) (with the
//!   variant's own sender `Peer`) and its continuation, then [`Visitor::choice_end`];
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
//! returned `false`. The label name of `Label` is
//! [`Labelled::name_of`](crate::Labelled::name_of)`(TypeId::of::<Label>())` on the role's
//! message enum (the variant name, or its `#[message(label = ..)]`), its payload sorts are
//! [`Labelled::sorts_of`](crate::Labelled::sorts_of)`(TypeId::of::<Label>())`, i.e. the field
//! types `#[derive(Payload)]` recorded as written ([`Payload::SORTS`](crate::Payload::SORTS);
//! `None` when `Label` does not derive it — the label type's own name is never taken as its
//! payload), the peer's name `Peer::NAME` and the running role's name
//! `<Session as FromState>::Role::NAME`.
//!
//! A `serialize::<Session>()` is then a `Visitor` that keeps a current FSM state, adds one
//! transition per `send`/`receive`/`variant`, keeps a stack of branching states for
//! choices, and maps each named type to the state where it was first entered.

use crate::Role;
use crate::offer::Offer;
use crate::primitives::{Branch, Choose, Receive, Select, Send};
use crate::session::End;

/// Receives the steps of a session type, see the [module documentation](self).
pub trait Visitor {
    /// `Send<Peer, Label, _>`: send label `Label` to `Peer`; the continuation is visited next.
    fn send<Peer: Role, Label: 'static>(&mut self);

    /// `Receive<Peer, Label, _>`: receive label `Label` from `Peer`; the continuation is
    /// visited next.
    fn receive<Peer: Role, Label: 'static>(&mut self);

    /// `Select<Peer, _>`: an internal choice towards `Peer` begins.
    fn select<Peer: Role>(&mut self);

    /// `Branch<Peer, _>`: an external choice from `Peer` begins.
    fn branch<Peer: Role>(&mut self);

    /// `Choose<_>`: an internal choice whose variants each name their peer begins.
    fn choose(&mut self);

    /// The next variant of the current choice, with label `Label`; its continuation follows.
    fn variant<Label: 'static>(&mut self);

    /// The next variant of the current `Choose`, with label `Label` sent to `Peer`; its
    /// continuation follows.
    fn variant_to<Peer: Role, Label: 'static>(&mut self);

    /// `Offer<_>`: an external choice whose variants each name their sender begins.
    fn offer(&mut self);

    /// The next variant of the current `Offer`, with label `Label` received from `Peer`;
    /// its continuation follows.
    fn variant_from<Peer: Role, Label: 'static>(&mut self);

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

impl<Me: Role, Peer: Role, Label: 'static, Next: SessionType> SessionType
    for Send<'_, Me, Peer, Label, Next>
{
    fn visit<V: Visitor>(visitor: &mut V) {
        visitor.send::<Peer, Label>();
        Next::visit(visitor);
    }
}

impl<Me: Role, Peer: Role, Label: 'static, Next: SessionType> SessionType
    for Receive<'_, Me, Peer, Label, Next>
{
    fn visit<V: Visitor>(visitor: &mut V) {
        visitor.receive::<Peer, Label>();
        Next::visit(visitor);
    }
}

impl<Me: Role, Peer: Role, Cases: ChoiceType> SessionType for Select<'_, Me, Peer, Cases> {
    fn visit<V: Visitor>(visitor: &mut V) {
        if visitor.named(std::any::type_name::<Self>()) {
            visitor.select::<Peer>();
            Cases::visit_variants(visitor);
            visitor.choice_end();
        }
    }
}

impl<Me: Role, Cases: ChoiceType> SessionType for Choose<'_, Me, Cases> {
    fn visit<V: Visitor>(visitor: &mut V) {
        if visitor.named(std::any::type_name::<Self>()) {
            visitor.choose();
            Cases::visit_variants(visitor);
            visitor.choice_end();
        }
    }
}

impl<Me: Role, Cases: ChoiceType> SessionType for Offer<'_, Me, Cases> {
    fn visit<V: Visitor>(visitor: &mut V) {
        if visitor.named(std::any::type_name::<Self>()) {
            visitor.offer();
            Cases::visit_variants(visitor);
            visitor.choice_end();
        }
    }
}

impl<Me: Role, Peer: Role, Cases: ChoiceType> SessionType for Branch<'_, Me, Peer, Cases> {
    fn visit<V: Visitor>(visitor: &mut V) {
        if visitor.named(std::any::type_name::<Self>()) {
            visitor.branch::<Peer>();
            Cases::visit_variants(visitor);
            visitor.choice_end();
        }
    }
}

impl<Me: Role> SessionType for End<'_, Me> {
    fn visit<V: Visitor>(visitor: &mut V) {
        visitor.end();
    }
}
