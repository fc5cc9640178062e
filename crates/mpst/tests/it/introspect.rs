//! Session types can be walked without running them: the visitor sees every step, label
//! and peer name, and recursion is closed by named types.

use std::any::TypeId;

use mpst::introspect::{SessionType, Visitor};
use mpst::{Branch, End, FromState, Labelled, Message, Receive, Role, Select, Send, session};

use crate::support::declare_roles;

declare_roles!(Label over mpst::channel::Unbounded<Label>: S(T), T(S));

#[derive(Message)]
enum Label {
    Ready(Ready),
    Value(Value),
    Stop(Stop),
}

struct Ready;
struct Value(#[allow(dead_code)] i32);
struct Stop;

#[session]
struct Source(Receive<T, Ready, Select<T, SourceChoice>>);

#[session]
enum SourceChoice {
    Value(Value, Source),
    Stop(Stop, End),
}

#[session]
type Sink = Send<S, Ready, Branch<S, SinkChoice>>;

#[session]
enum SinkChoice {
    Value(Value, Sink),
    Stop(Stop, End),
}

/// Prints a session type in a compact notation, naming labels through the role's enum.
struct Printer<M> {
    out: Vec<String>,
    seen: Vec<&'static str>,
    _message: std::marker::PhantomData<M>,
}

impl<M: Labelled> Printer<M> {
    fn label<L: 'static>() -> String {
        let name = M::name_of(TypeId::of::<L>()).unwrap_or("?");
        format!(
            "{name}({})",
            std::any::type_name::<L>().rsplit("::").next().unwrap_or("")
        )
    }
}

impl<M: Labelled> Visitor for Printer<M> {
    fn send<P: Role, L: 'static>(&mut self) {
        self.out.push(format!("{}!{}", P::NAME, Self::label::<L>()));
    }
    fn receive<P: Role, L: 'static>(&mut self) {
        self.out.push(format!("{}?{}", P::NAME, Self::label::<L>()));
    }
    fn select<P: Role>(&mut self) {
        self.out.push(format!("{}!{{", P::NAME));
    }
    fn branch<P: Role>(&mut self) {
        self.out.push(format!("{}?{{", P::NAME));
    }
    fn choose(&mut self) {
        self.out.push("+{".into());
    }
    fn variant<L: 'static>(&mut self) {
        self.out.push(format!("{}:", Self::label::<L>()));
    }
    fn variant_to<P: Role, L: 'static>(&mut self) {
        self.out
            .push(format!("{}!{}:", P::NAME, Self::label::<L>()));
    }
    fn offer(&mut self) {
        self.out.push("&{".into());
    }
    fn variant_from<P: Role, L: 'static>(&mut self) {
        self.out
            .push(format!("{}?{}:", P::NAME, Self::label::<L>()));
    }
    fn choice_end(&mut self) {
        self.out.push("}".into());
    }
    fn end(&mut self) {
        self.out.push("end".into());
    }
    fn named(&mut self, name: &'static str) -> bool {
        match self.seen.iter().position(|seen| *seen == name) {
            Some(index) => {
                self.out.push(format!("loop{index}"));
                false
            }
            None => {
                self.out.push(format!("rec{}", self.seen.len()));
                self.seen.push(name);
                true
            }
        }
    }
}

fn print<'r, X: SessionType + FromState<'r>>() -> String
where
    <X::Role as Role>::Message: Labelled,
{
    let mut printer = Printer::<<X::Role as Role>::Message> {
        out: vec![format!("{}:", <X::Role as Role>::NAME)],
        seen: Vec::new(),
        _message: std::marker::PhantomData,
    };
    X::visit(&mut printer);
    printer.out.join(" ")
}

#[test]
fn recursive_struct_with_select_is_walked_and_closed() {
    assert_eq!(
        print::<Source<'static, S>>(),
        "S: rec0 T?Ready(Ready) rec1 T!{ Value(Value): loop0 Stop(Stop): end }"
    );
}

#[test]
fn recursion_through_an_alias_closes_at_the_choice() {
    // `Sink` is an alias: the loop is closed by the `Branch` type, at the branching state.
    assert_eq!(
        print::<Sink<'static, T>>(),
        "T: S!Ready(Ready) rec0 S?{ Value(Value): S!Ready(Ready) loop0 Stop(Stop): end }"
    );
}

#[test]
fn names_distinguish_roles() {
    let mut names = Vec::new();
    struct Names<'a>(&'a mut Vec<&'static str>);
    impl Visitor for Names<'_> {
        fn send<P: Role, L: 'static>(&mut self) {}
        fn receive<P: Role, L: 'static>(&mut self) {}
        fn select<P: Role>(&mut self) {}
        fn branch<P: Role>(&mut self) {}
        fn choose(&mut self) {}
        fn variant<L: 'static>(&mut self) {}
        fn variant_to<P: Role, L: 'static>(&mut self) {}
        fn offer(&mut self) {}
        fn variant_from<P: Role, L: 'static>(&mut self) {}
        fn choice_end(&mut self) {}
        fn end(&mut self) {}
        fn named(&mut self, name: &'static str) -> bool {
            let fresh = !self.0.contains(&name);
            self.0.push(name);
            fresh
        }
    }
    Source::<'static, S>::visit(&mut Names(&mut names));
    Source::<'static, T>::visit(&mut Names(&mut names));
    assert_eq!(names.len(), 6);
    assert_ne!(names[0], names[3]);
    assert_eq!(names[0], "it::introspect::Source<'_, it::introspect::S>");
}

#[test]
fn label_names_come_from_the_message_enum() {
    assert_eq!(Label::name_of(TypeId::of::<Value>()), Some("Value"));
    assert_eq!(Label::name_of(TypeId::of::<u8>()), None);
    assert_eq!(<Label as Message<Stop>>::NAME, "Stop");
}

#[test]
fn choice_variants_are_listed_at_type_level() {
    fn same<A: 'static, B: 'static>() -> bool {
        TypeId::of::<A>() == TypeId::of::<B>()
    }
    type Variants = <SourceChoice<'static, S> as mpst::Choices<'static>>::Variants;
    assert!(same::<
        Variants,
        ((Value, Source<'static, S>), ((Stop, End<'static, S>), ()),),
    >());
    type Unfolded = <Source<'static, S> as mpst::IntoSession<'static>>::Session;
    assert!(same::<
        Unfolded,
        Receive<'static, S, T, Ready, Select<'static, S, T, SourceChoice<'static, S>>>,
    >());
}

#[test]
fn session_values_are_one_pointer_the_role_borrow() {
    use std::mem::size_of;
    let pointer = size_of::<&mut S>();
    assert_eq!(pointer, size_of::<usize>());
    assert_eq!(size_of::<End<'static, S>>(), pointer);
    assert_eq!(size_of::<Sink<'static, T>>(), pointer);
    assert_eq!(size_of::<Source<'static, S>>(), pointer);
    assert_eq!(
        size_of::<Receive<'static, S, T, Ready, Select<'static, S, T, SourceChoice<'static, S>>>>(),
        pointer
    );
    // A choice enum holds the label beside the continuation: here a label of no size.
    assert_eq!(size_of::<SinkChoice<'static, T>>(), 2 * pointer);
}
