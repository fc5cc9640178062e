//! Integrity keys: a static [`Site`] (where in the source a communication is) plus a
//! dynamic [`Token`] (which invocation it belongs to), replicated at every role.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::panic::Location;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The static half of an integrity key: one source location of a choreography.
///
/// A site is made from `#[track_caller]` call locations, so the programmer never writes
/// numbers. Its identifier is a stable 64-bit FNV-1a hash of `file:line:column`, equal in
/// every process that runs the same source. Only the identifier travels and takes part in
/// equality; the location is kept, where known, for messages.
///
/// Correctness does not rely on the hash being collision-free: an endpoint refuses to use
/// one key twice ([`crate::ChoreoError::KeyReused`]), so two sites that collide are
/// reported, never confused.
#[derive(Clone, Copy)]
pub struct Site {
    id: u64,
    location: Option<&'static Location<'static>>,
}

impl Site {
    /// The site of the caller (through any chain of `#[track_caller]` functions).
    #[track_caller]
    pub fn here() -> Self {
        Self::from_location(Location::caller())
    }

    /// The site of a given source location. Each thread remembers the identifiers of
    /// the last locations it hashed (a small table indexed by the location's address), so
    /// a site met again, as every operator's is once per session, is not hashed again.
    pub fn from_location(location: &'static Location<'static>) -> Self {
        let address = std::ptr::from_ref(location) as usize;
        let slot = (address >> 3) % SITE_CACHE;
        let cached = SITES.with(|sites| {
            let (at, id) = sites[slot].get();
            (at == address).then_some(id)
        });
        let id = cached.unwrap_or_else(|| {
            let id = Self::hash(location);
            SITES.with(|sites| sites[slot].set((address, id)));
            id
        });
        Self {
            id,
            location: Some(location),
        }
    }

    /// The FNV-1a hash of `file:line:column` (with a NUL after the file).
    fn hash(location: &Location<'_>) -> u64 {
        let mut hash = Fnv::new();
        hash.write(location.file().as_bytes());
        hash.write(&[0]);
        hash.write(&location.line().to_le_bytes());
        hash.write(&location.column().to_le_bytes());
        hash.finish()
    }

    /// A site from a bare identifier (as it arrives over a transport); it has no location.
    pub fn from_id(id: u64) -> Self {
        Self { id, location: None }
    }

    /// The stable identifier of this site.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The source location, if this site was made from one in this process.
    pub fn location(&self) -> Option<&'static Location<'static>> {
        self.location
    }
}

impl PartialEq for Site {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}

impl Eq for Site {}

impl Hash for Site {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.id.hash(state);
    }
}

impl fmt::Debug for Site {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Display for Site {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.location {
            Some(loc) => write!(f, "{}:{}:{}", loc.file(), loc.line(), loc.column()),
            None => write!(f, "site#{:016x}", self.id),
        }
    }
}

impl Serialize for Site {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.id.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Site {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        u64::deserialize(deserializer).map(Site::from_id)
    }
}

/// Entries of each thread's table of recently hashed locations.
const SITE_CACHE: usize = 64;

thread_local! {
    /// A location's address and its site identifier, at the slot of its address
    /// (address 0: empty). Locations are `'static`, so an address names one for ever.
    static SITES: [std::cell::Cell<(usize, u64)>; SITE_CACHE] =
        const { [const { std::cell::Cell::new((0, 0)) }; SITE_CACHE] };
}

/// 64-bit FNV-1a: small, stable across processes and platforms (unlike `DefaultHasher`).
struct Fnv(u64);

impl Fnv {
    fn new() -> Self {
        Self(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for byte in bytes {
            self.0 ^= u64::from(*byte);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

/// One frame of a [`Token`]: the site of a call (or loop, or session start) and an index
/// that tells apart iterations and concurrent invocations made at that site.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Frame {
    /// Identifier of the call site ([`Site::id`]).
    pub site: u64,
    /// Iteration or invocation number at that site.
    pub index: u64,
}

/// The dynamic half of an integrity key: which procedure invocation a communication
/// belongs to.
///
/// A token is the list of frames of the calls that led to it (the paper's list of line
/// numbers, §3). Every role computes [`Token::next`] locally and gets the same value, so
/// no coordinator is needed; `next` is injective because it appends a frame.
///
/// The frames are shared (`Arc<[Frame]>`): every key of an invocation clones its token,
/// often several times per message (the mailbox, the envelope, the observer), and a
/// shared slice makes that a reference count instead of an allocation. A token of at
/// most two frames (the root, every top-level session's, and every call's or branch's
/// directly inside one: the tokens of most keys) is held inline instead, so making and
/// cloning it allocates and counts nothing. Equality
/// and hashing are the frames', whichever way they are held. On the wire it is the same
/// sequence of frames as a `Vec` would be.
#[derive(Clone)]
pub struct Token(Frames);

/// How a [`Token`] holds its frames: inline while there are at most two (always, so each
/// token has one form), shared beyond.
#[derive(Clone)]
enum Frames {
    Root,
    One(Frame),
    /// A call's or branch's token inside a top-level session (`cond`, `call`).
    Two([Frame; 2]),
    Shared(Arc<[Frame]>),
}

impl Default for Token {
    fn default() -> Self {
        Self::root()
    }
}

impl PartialEq for Token {
    fn eq(&self, other: &Self) -> bool {
        // Each token has one form, so tokens of different forms differ. Inline frames are
        // compared field by field: a slice comparison calls `memcmp`, and the mailbox
        // compares a key at every look-up of its slot.
        match (&self.0, &other.0) {
            (Frames::Root, Frames::Root) => true,
            (Frames::One(a), Frames::One(b)) => a == b,
            (Frames::Two([a, b]), Frames::Two([c, d])) => a == c && b == d,
            (Frames::Shared(a), Frames::Shared(b)) => Arc::ptr_eq(a, b) || a[..] == b[..],
            _ => false,
        }
    }
}

impl Eq for Token {}

impl Hash for Token {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.frames().hash(state);
    }
}

impl Serialize for Token {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.frames().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Token {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Vec::<Frame>::deserialize(deserializer).map(Self::from_frames)
    }
}

impl Token {
    /// The initial token τ₀ (no frames).
    pub fn root() -> Self {
        Self(Frames::Root)
    }

    /// The token of top-level session number `n` on an endpoint (concurrent invocations
    /// of a choreography get distinct sessions).
    pub fn session(n: u64) -> Self {
        Self(Frames::One(Frame { site: 0, index: n }))
    }

    /// A token of these frames, in its one form.
    fn from_frames(frames: Vec<Frame>) -> Self {
        match frames.as_slice() {
            [] => Self::root(),
            [one] => Self(Frames::One(*one)),
            [first, second] => Self(Frames::Two([*first, *second])),
            _ => Self(Frames::Shared(frames.into())),
        }
    }

    /// `nextToken(site, self)`: the token of a call made at `site`.
    pub fn next(&self, site: Site) -> Self {
        self.next_indexed(site, 0)
    }

    /// The token of iteration (or invocation) `index` of a call made at `site`.
    pub fn next_indexed(&self, site: Site, index: u64) -> Self {
        let frame = Frame {
            site: site.id(),
            index,
        };
        match &self.0 {
            Frames::Root => Self(Frames::One(frame)),
            Frames::One(first) => Self(Frames::Two([*first, frame])),
            Frames::Two([first, second]) => {
                Self(Frames::Shared(Arc::new([*first, *second, frame])))
            }
            Frames::Shared(frames) => Self(Frames::Shared(
                frames.iter().copied().chain([frame]).collect(),
            )),
        }
    }

    /// The frames, outermost first.
    pub fn frames(&self) -> &[Frame] {
        match &self.0 {
            Frames::Root => &[],
            Frames::One(frame) => std::slice::from_ref(frame),
            Frames::Two(frames) => frames,
            Frames::Shared(frames) => frames,
        }
    }
}

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("τ[")?;
        for (i, frame) in self.frames().iter().enumerate() {
            if i > 0 {
                f.write_str("/")?;
            }
            // The low 32 bits are enough for a reader to tell frames apart.
            write!(f, "{:08x}.{}", frame.site as u32, frame.index)?;
        }
        f.write_str("]")
    }
}

/// An integrity key: the site of a communication and the token of its invocation.
///
/// Sender and receiver compute the same key independently; a receiver binds a message to
/// the communication with the same key, whatever order messages arrive in.
#[derive(Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Key {
    /// Where the communication is in the source.
    pub site: Site,
    /// Which invocation it belongs to.
    pub token: Token,
}

impl Key {
    /// The key of the communication at `site` in the invocation `token`.
    pub fn new(site: Site, token: Token) -> Self {
        Self { site, token }
    }
}

impl fmt::Debug for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.site, self.token)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sites_differ_by_location_and_agree_with_their_id() {
        let (a, b) = (Site::here(), Site::here());
        assert_ne!(a, b);
        assert_eq!(a, Site::from_id(a.id()));
        assert!(a.to_string().contains("key.rs:"), "{a}");
        assert!(Site::from_id(7).to_string().starts_with("site#"));
    }

    #[test]
    fn a_remembered_site_has_the_same_identifier_as_a_fresh_hash() {
        let here = || Site::here();
        let (first, again) = (here(), here());
        assert_eq!(first.id(), again.id());
        let location = first.location().unwrap();
        assert_eq!(first.id(), Site::hash(location));
        // A slot shared with another location is overwritten, never confused.
        let other = Site::here();
        assert_ne!(other.id(), first.id());
        assert_eq!(here().id(), Site::hash(location));
    }

    #[test]
    fn site_ids_are_stable_across_processes() {
        // FNV-1a of a fixed location must never change: other processes rely on it.
        let mut h = Fnv::new();
        h.write(b"a");
        assert_eq!(h.finish(), 0xaf63_dc4c_8601_ec8c);
    }

    #[test]
    fn next_is_deterministic_and_injective() {
        let (s1, s2) = (Site::from_id(1), Site::from_id(2));
        let t = Token::root();
        assert_eq!(t.next(s1), t.next(s1));
        assert_ne!(t.next(s1), t.next(s2));
        assert_ne!(t.next(s1), t.next_indexed(s1, 1));
        // Same site under different parents stays distinct.
        assert_ne!(t.next(s1).next(s2), t.next(s2).next(s2));
        assert_ne!(Token::session(0), Token::session(1));
        // Two frames inline: either frame tells them apart.
        let (a, b) = (Token::session(1).next(s1), Token::session(1).next(s2));
        assert_ne!(a, b);
        assert_ne!(a, Token::session(2).next(s1));
        assert_eq!(a, a.clone());
    }

    #[test]
    fn tokens_are_equal_and_hash_alike_however_their_frames_are_held() {
        let hash = |t: &Token| ahash::RandomState::with_seeds(1, 2, 3, 4).hash_one(t);
        let one = Token::root().next_indexed(Site::from_id(0), 7);
        assert_eq!(one, Token::session(7), "root.next is a session's token");
        assert_eq!(hash(&one), hash(&Token::session(7)));
        let two = Token::session(7).next(Site::from_id(5));
        let decoded: Token = postcard::from_bytes(&postcard::to_stdvec(&two).unwrap()).unwrap();
        assert_eq!(decoded, two);
        assert_eq!(hash(&decoded), hash(&two));
        assert_eq!(decoded.frames().len(), 2);
        // Three frames are shared, and equal to the same three decoded.
        let three = two.next_indexed(Site::from_id(6), 2);
        assert_eq!(three.frames().len(), 3);
        assert!(three.frames()[..2] == *two.frames());
        assert_ne!(three, two);
        for token in [Token::root(), Token::session(3), three] {
            let back: Token = postcard::from_bytes(&postcard::to_stdvec(&token).unwrap()).unwrap();
            assert_eq!(back, token);
            assert_eq!(hash(&back), hash(&token));
        }
        assert_ne!(Token::root(), Token::session(0));
    }

    #[test]
    fn keys_round_trip_through_postcard() {
        let key = Key::new(
            Site::here(),
            Token::session(3).next_indexed(Site::from_id(9), 4),
        );
        let bytes = postcard::to_stdvec(&key).unwrap();
        let back: Key = postcard::from_bytes(&bytes).unwrap();
        assert_eq!(back, key);
        assert!(back.site.location().is_none());
        assert!(key.to_string().contains("τ["), "{key}");
    }
}
