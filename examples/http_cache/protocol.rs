//! The roles of `http_cache.scr` as session-typed processes: the labels, the hand-written
//! session type of each role (checked against its projection in `workflows` below), the
//! four processes, and [`run_session`], which runs one session among them for one request.

use bytes::Bytes;
use futures::future::try_join4;
use mpst::{
    Branch, End, Message, Payload, Receive, Role, Roles, Select, Send, session, try_session,
};

use crate::origin::{OriginClient, OriginError};
use crate::store::{CacheError, RedisCache};

type Channel = mpst::channel::Unbounded<Label>;

/// The four roles of one session, wired to each other (every message goes through the
/// proxy, so the client, the cache and the origin only have a route to it).
#[derive(Roles)]
pub struct Roles {
    /// Answers the HTTP request.
    pub client: Client,
    /// Relays the cache's and the origin's choices.
    pub proxy: Proxy,
    /// Talks to Redis.
    pub cache: Cache,
    /// Talks to the origin server.
    pub origin: Origin,
}

/// The role that stands for the HTTP client: asks for a path, gets the answer.
#[derive(Role)]
#[message(Label)]
pub struct Client(#[route(Proxy)] Channel);

/// The proxy: looks the path up in the cache, fetches from the origin when it must.
#[derive(Role)]
#[message(Label)]
pub struct Proxy(
    #[route(Client)] Channel,
    #[route(Cache)] Channel,
    #[route(Origin)] Channel,
);

/// The cache: one Redis lookup per session, and a store after a miss.
#[derive(Role)]
#[message(Label)]
pub struct Cache(#[route(Proxy)] Channel);

/// The origin: one HTTP GET to the origin server, when the proxy asks for it.
#[derive(Role)]
#[message(Label)]
pub struct Origin(#[route(Proxy)] Channel);

/// The labels of `http_cache.scr`.
#[derive(Message)]
pub enum Label {
    /// `request(String)`
    Request(Request),
    /// `lookup(String)`
    Lookup(Lookup),
    /// `hit(Bytes)`
    Hit(Hit),
    /// `miss()`
    Miss(Miss),
    /// `unavailable(String)`
    Unavailable(Unavailable),
    /// `unneeded()`
    Unneeded(Unneeded),
    /// `fetch(String)`
    Fetch(Fetch),
    /// `fetched(Bytes)`
    Fetched(Fetched),
    /// `failed(u16, String)`
    Failed(Failed),
    /// `store(Bytes)`
    Store(Store),
    /// `discard()`
    Discard(Discard),
    /// `cached(Bytes)`
    Cached(Cached),
    /// `fresh(Bytes)`
    Fresh(Fresh),
    /// `bypassed(Bytes, String)`
    Bypassed(Bypassed),
    /// `failure(u16, String)`
    Failure(Failure),
}

/// `request(String)`: the path (and query) the HTTP client asked for.
#[derive(Payload)]
pub struct Request(pub String);
/// `lookup(String)`: the path to look up in the cache.
#[derive(Payload)]
pub struct Lookup(pub String);
/// `hit(Bytes)`: the cached body.
#[derive(Payload)]
pub struct Hit(pub Bytes);
/// `miss()`: nothing cached for the path.
#[derive(Payload)]
pub struct Miss;
/// `unavailable(String)`: the cache could not be asked; why.
#[derive(Payload)]
pub struct Unavailable(pub String);
/// `unneeded()`: the origin is not contacted in this session.
#[derive(Payload)]
pub struct Unneeded;
/// `fetch(String)`: the path to fetch from the origin server.
#[derive(Payload)]
pub struct Fetch(pub String);
/// `fetched(Bytes)`: the origin server's body (it answered 200 OK).
#[derive(Payload)]
pub struct Fetched(pub Bytes);
/// `failed(u16, String)`: the origin failed; the HTTP status for the client and why.
#[derive(Payload)]
pub struct Failed(pub u16, pub String);
/// `store(Bytes)`: store this body for the looked-up path.
#[derive(Payload)]
pub struct Store(pub Bytes);
/// `discard()`: nothing to store.
#[derive(Payload)]
pub struct Discard;
/// `cached(Bytes)`: the answer, from the cache.
#[derive(Payload)]
pub struct Cached(pub Bytes);
/// `fresh(Bytes)`: the answer, fresh from the origin (and now cached).
#[derive(Payload)]
pub struct Fresh(pub Bytes);
/// `bypassed(Bytes, String)`: the answer, from the origin, with the cache unavailable
/// (why).
#[derive(Payload)]
pub struct Bypassed(pub Bytes, pub String);
/// `failure(u16, String)`: no answer; the HTTP status to give and why.
#[derive(Payload)]
pub struct Failure(pub u16, pub String);

/// The client's projection:
/// `Proxy!request. Proxy?{cached. end, fresh. end, bypassed. end, failure. end}`.
#[session]
pub type ClientSession = Send<Proxy, Request, Branch<Proxy, ClientAnswer>>;

/// What the client receives from the proxy.
#[session]
pub enum ClientAnswer {
    /// From the cache.
    Cached(Cached, End),
    /// Fresh from the origin.
    Fresh(Fresh, End),
    /// From the origin, the cache bypassed.
    Bypassed(Bypassed, End),
    /// No answer.
    Failure(Failure, End),
}

/// The proxy's projection: `Client?request. Cache!lookup. Cache?{hit. Origin!unneeded.
/// Client!cached. end, miss. Origin!fetch. Origin?{...}, unavailable. Origin!fetch.
/// Origin?{...}}`.
#[session]
pub type ProxySession = Receive<Client, Request, Send<Cache, Lookup, Branch<Cache, ProxyLookup>>>;

/// The cache's answer to the proxy's lookup.
#[session]
pub enum ProxyLookup {
    /// Answer from the cache; the origin is not needed.
    Hit(Hit, Send<Origin, Unneeded, Send<Client, Cached, End>>),
    /// Fetch from the origin, then tell the cache what to store.
    Miss(Miss, Send<Origin, Fetch, Branch<Origin, ProxyMiss>>),
    /// Fetch from the origin, leave the cache alone.
    Unavailable(
        Unavailable,
        Send<Origin, Fetch, Branch<Origin, ProxyBypass>>,
    ),
}

/// The origin's answer after a cache miss.
#[session]
pub enum ProxyMiss {
    /// Store the body, answer with it.
    Fetched(Fetched, Send<Cache, Store, Send<Client, Fresh, End>>),
    /// Store nothing, answer with the failure.
    Failed(Failed, Send<Cache, Discard, Send<Client, Failure, End>>),
}

/// The origin's answer when the cache is unavailable.
#[session]
pub enum ProxyBypass {
    /// Answer with the body.
    Fetched(Fetched, Send<Client, Bypassed, End>),
    /// Answer with the failure.
    Failed(Failed, Send<Client, Failure, End>),
}

/// The cache's projection:
/// `Proxy?lookup. Proxy!{hit. end, miss. Proxy?{store. end, discard. end}, unavailable. end}`.
#[session]
pub type CacheSession = Receive<Proxy, Lookup, Select<Proxy, CacheAnswer>>;

/// What the cache tells the proxy.
#[session]
pub enum CacheAnswer {
    /// The body is cached.
    Hit(Hit, End),
    /// Nothing cached; the proxy says what to store.
    Miss(Miss, Branch<Proxy, CacheStore>),
    /// Redis could not be asked.
    Unavailable(Unavailable, End),
}

/// What the proxy tells the cache after a miss.
#[session]
pub enum CacheStore {
    /// Store this body.
    Store(Store, End),
    /// Store nothing.
    Discard(Discard, End),
}

/// The origin's projection: `Proxy?{unneeded. end, fetch. Proxy!{fetched. end, failed. end}}`.
#[session]
pub type OriginSession = Branch<Proxy, OriginRequest>;

/// What the proxy asks of the origin.
#[session]
pub enum OriginRequest {
    /// Nothing.
    Unneeded(Unneeded, End),
    /// Fetch a path.
    Fetch(Fetch, Select<Proxy, OriginAnswer>),
}

/// What the origin tells the proxy.
#[session]
pub enum OriginAnswer {
    /// The origin server answered 200 OK with this body.
    Fetched(Fetched, End),
    /// It did not.
    Failed(Failed, End),
}

/// The answer the client role got, which the HTTP server turns into a response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// 200, from the cache.
    Cached(Bytes),
    /// 200, fresh from the origin (and stored in the cache).
    Fresh(Bytes),
    /// 200, from the origin; the cache was unavailable for the given reason.
    Bypassed(Bytes, String),
    /// No body: the status to answer with and why.
    Failure(u16, String),
}

/// What the cache role did, with the error it hit if any (for the log).
#[derive(Debug)]
pub enum CacheReport {
    /// The body was in Redis.
    Hit,
    /// Not in Redis; the fresh body was stored.
    Stored,
    /// Not in Redis; nothing to store (the origin failed).
    Discarded,
    /// Not in Redis; storing the fresh body failed.
    StoreFailed(CacheError),
    /// Redis could not be asked.
    Unavailable(CacheError),
}

/// What the origin role did, with the error it hit if any (for the log).
#[derive(Debug)]
pub enum OriginReport {
    /// Not contacted.
    Unneeded,
    /// Fetched a body.
    Fetched,
    /// The fetch failed.
    Failed(OriginError),
}

/// The client: sends the request's `path` to the proxy and returns its answer.
pub async fn client(role: &mut Client, path: String) -> Result<Answer, mpst::Error> {
    try_session(role, |s: ClientSession<'_, Client>| async move {
        Ok(match s.send(Request(path)).await?.branch().await? {
            ClientAnswer::Cached(Cached(body), end) => (Answer::Cached(body), end),
            ClientAnswer::Fresh(Fresh(body), end) => (Answer::Fresh(body), end),
            ClientAnswer::Bypassed(Bypassed(body, why), end) => (Answer::Bypassed(body, why), end),
            ClientAnswer::Failure(Failure(status, why), end) => (Answer::Failure(status, why), end),
        })
    })
    .await
}

/// The proxy: looks the path up, answers from the cache on a hit, else fetches from the
/// origin (and tells the cache to store the body after a miss).
pub async fn proxy(role: &mut Proxy) -> Result<(), mpst::Error> {
    try_session(role, |s: ProxySession<'_, Proxy>| async move {
        let (Request(path), s) = s.receive().await?;
        let end = match s.send(Lookup(path.clone())).await?.branch().await? {
            ProxyLookup::Hit(Hit(body), s) => s.send(Unneeded).await?.send(Cached(body)).await?,
            ProxyLookup::Miss(Miss, s) => match s.send(Fetch(path)).await?.branch().await? {
                ProxyMiss::Fetched(Fetched(body), s) => {
                    let s = s.send(Store(body.clone())).await?;
                    s.send(Fresh(body)).await?
                }
                ProxyMiss::Failed(Failed(status, why), s) => {
                    s.send(Discard).await?.send(Failure(status, why)).await?
                }
            },
            ProxyLookup::Unavailable(Unavailable(cache), s) => {
                match s.send(Fetch(path)).await?.branch().await? {
                    ProxyBypass::Fetched(Fetched(body), s) => s.send(Bypassed(body, cache)).await?,
                    ProxyBypass::Failed(Failed(status, why), s) => {
                        s.send(Failure(status, why)).await?
                    }
                }
            }
        };
        Ok(((), end))
    })
    .await
}

/// The cache: answers the lookup from Redis (`unavailable` when Redis fails) and stores
/// the fresh body the proxy sends after a miss.
pub async fn cache(role: &mut Cache, store: &RedisCache) -> Result<CacheReport, mpst::Error> {
    try_session(role, |s: CacheSession<'_, Cache>| async move {
        let (Lookup(path), s) = s.receive().await?;
        match store.get(&path).await {
            Ok(Some(body)) => Ok((CacheReport::Hit, s.select(Hit(body)).await?)),
            Ok(None) => match s.select(Miss).await?.branch().await? {
                CacheStore::Store(Store(body), end) => match store.set(&path, &body).await {
                    Ok(()) => Ok((CacheReport::Stored, end)),
                    Err(error) => Ok((CacheReport::StoreFailed(error), end)),
                },
                CacheStore::Discard(Discard, end) => Ok((CacheReport::Discarded, end)),
            },
            Err(error) => {
                let end = s.select(Unavailable(error.to_string())).await?;
                Ok((CacheReport::Unavailable(error), end))
            }
        }
    })
    .await
}

/// The origin: when asked, fetches the path from the origin server.
pub async fn origin(
    role: &mut Origin,
    upstream: &OriginClient,
) -> Result<OriginReport, mpst::Error> {
    try_session(role, |s: OriginSession<'_, Origin>| async move {
        match s.branch().await? {
            OriginRequest::Unneeded(Unneeded, end) => Ok((OriginReport::Unneeded, end)),
            OriginRequest::Fetch(Fetch(path), s) => match upstream.fetch(&path).await {
                Ok(body) => Ok((OriginReport::Fetched, s.select(Fetched(body)).await?)),
                Err(error) => {
                    let failed = Failed(error.client_status(), error.to_string());
                    Ok((OriginReport::Failed(error), s.select(failed).await?))
                }
            },
        }
    })
    .await
}

/// Everything one session produced: the client's answer and what the cache and the origin
/// did.
#[derive(Debug)]
pub struct Outcome {
    /// The client's answer.
    pub answer: Answer,
    /// What the cache did.
    pub cache: CacheReport,
    /// What the origin did.
    pub origin: OriginReport,
}

/// Runs one session among fresh roles for a GET of `path` and returns once every role has
/// ended (so after a miss, the body is in Redis, or storing it failed, before the answer).
pub async fn run_session(
    path: String,
    store: &RedisCache,
    upstream: &OriginClient,
) -> Result<Outcome, mpst::Error> {
    let Roles {
        client: mut client_role,
        proxy: mut proxy_role,
        cache: mut cache_role,
        origin: mut origin_role,
    } = Roles::default();
    let (answer, (), cache, origin) = try_join4(
        client(&mut client_role, path),
        proxy(&mut proxy_role),
        cache(&mut cache_role, store),
        origin(&mut origin_role, upstream),
    )
    .await?;
    Ok(Outcome {
        answer,
        cache,
        origin,
    })
}

/// The workflows of PPoPP 2022 §2 on this example: each hand-written session type is the
/// projection of its role from `http_cache.scr` (hybrid: serialised, names normalised,
/// payloads compared), and the system of serialised roles is k-MC (bottom-up).
#[cfg(test)]
mod workflows {
    use super::*;

    mpst_examples::projection_workflows! {
        include_str!("http_cache.scr");
        ClientSession<'static, Client>, ProxySession<'static, Proxy>, CacheSession<'static, Cache>,
        OriginSession<'static, Origin>
    }
}
