//! What a label type carries: [`Payload`] names the field types of a label, so a
//! serialised session type ([`serialize`](crate::serialize), feature `serialize`) records
//! `value(i32)`, not only `value`, and the checks of `verify` compare payloads with the
//! protocol's sorts.

/// A label type that declares the types of its fields, in order: derive it with
/// `#[derive(Payload)]` on every label struct of a role whose session types are serialised.
///
/// ```
/// use mpst::Payload;
///
/// #[derive(Payload)]
/// struct Ready;
/// #[derive(Payload)]
/// struct Value(i32, std::string::String);
/// #[derive(Payload)]
/// struct Point {
///     x: f64,
///     y: f64,
/// }
///
/// assert!(Ready::SORTS.is_empty());
/// assert_eq!(Value::SORTS, ["i32", "std::string::String"]);
/// assert_eq!(Point::SORTS, ["f64", "f64"]);
/// ```
///
/// The sorts are the field types as written in the struct (whitespace normalised);
/// serialisation keeps the last segment of every path (`String`), as
/// `mpst::fsm::ident::short_type` does. Running a session never needs this trait; a
/// label without it fails serialisation with an error that names it.
pub trait Payload {
    /// The type of each field, in declaration order; empty for a unit struct.
    const SORTS: &'static [&'static str];
}

/// Support for `#[derive(Message)]`: asking whether a label type implements [`Payload`]
/// without requiring it (autoref specialisation on a concrete type).
#[doc(hidden)]
pub mod probe {
    use core::marker::PhantomData;

    use super::Payload;

    /// Stands for the label type `L` in a method call.
    pub struct Probe<L: ?Sized>(PhantomData<fn() -> *const L>);

    impl<L: ?Sized> Probe<L> {
        /// The probe of `L`.
        pub const fn new() -> Self {
            Probe(PhantomData)
        }
    }

    impl<L: ?Sized> Default for Probe<L> {
        fn default() -> Self {
            Self::new()
        }
    }

    /// Chosen by `(&&Probe::<L>::new()).sorts()` when `L: Payload`.
    pub trait Declared {
        /// `Some(L::SORTS)`.
        fn sorts(&self) -> Option<&'static [&'static str]>;
    }

    impl<L: Payload + ?Sized> Declared for &Probe<L> {
        fn sorts(&self) -> Option<&'static [&'static str]> {
            Some(L::SORTS)
        }
    }

    /// Chosen by `(&&Probe::<L>::new()).sorts()` when `L` does not implement `Payload`.
    pub trait Undeclared {
        /// `None`.
        fn sorts(&self) -> Option<&'static [&'static str]>;
    }

    impl<L: ?Sized> Undeclared for Probe<L> {
        fn sorts(&self) -> Option<&'static [&'static str]> {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Payload;
    use super::probe::{Declared as _, Probe, Undeclared as _};

    struct Declared;
    impl Payload for Declared {
        const SORTS: &'static [&'static str] = &["u8"];
    }
    struct Plain;

    #[test]
    // The double reference is the point: it selects `Declared` when it applies.
    #[allow(clippy::needless_borrow)]
    fn the_probe_finds_the_payload_only_where_it_is_declared() {
        assert_eq!((&&Probe::<Declared>::new()).sorts(), Some(&["u8"][..]));
        assert_eq!((&&Probe::<Plain>::new()).sorts(), None);
    }
}
