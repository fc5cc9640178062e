//! The proxy end to end on loopback (`harness.rs`): cache misses and hits checked in Redis
//! itself, failing and slow origins, a Redis server killed mid-test, no Redis at all; and
//! the typed errors, status mapping and command line underneath.

use std::time::Duration;

use futures::future::join_all;
use hyper::StatusCode;

use crate::harness::*;
use crate::{Args, OriginClient, RedisCache, origin, protocol, server, store};
use clap::Parser;

#[test]
fn a_miss_fetches_and_stores_and_a_hit_does_not_contact_the_origin() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    run(async {
        let origin = OriginServer::start().await;
        let proxy = TestProxy::start(&origin.url, &redis.url).await;
        let body = "origin body of /page";

        assert_eq!(redis.cached("/page?x=1"), None);
        assert_eq!(proxy.get("/page?x=1").await, miss(body));
        assert_eq!(origin.requests(), 1);
        assert_eq!(redis.cached("/page?x=1").as_deref(), Some(body.as_bytes()));
        let ttl = redis.ttl("/page?x=1");
        assert!(0 < ttl && ttl <= TTL as i64, "TTL {ttl}");

        for _ in 0..3 {
            assert_eq!(proxy.get("/page?x=1").await, hit(body));
        }
        assert_eq!(origin.requests(), 1, "a hit must not contact the origin");

        // Another query is another key.
        assert_eq!(proxy.get("/page?x=2").await, miss(body));
        assert_eq!(origin.requests(), 2);
    });
}

#[test]
fn a_failing_origin_gives_an_error_status_and_nothing_is_cached() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    run(async {
        let origin = OriginServer::start().await;
        let proxy = TestProxy::start(&origin.url, &redis.url).await;

        let (status, cache, body) = proxy.get("/fail").await;
        assert_eq!((status, cache), (StatusCode::BAD_GATEWAY, None));
        assert!(body.contains("500 Internal Server Error"), "{body}");
        let (status, _, body) = proxy.get("/missing").await;
        assert_eq!(status, StatusCode::NOT_FOUND);
        assert!(body.contains("404"), "{body}");
        let (status, _, body) = proxy.get("/slow").await;
        assert_eq!(status, StatusCode::GATEWAY_TIMEOUT);
        assert!(body.contains("did not answer"), "{body}");
        let (status, _, body) = proxy.get("/big").await;
        assert_eq!(status, StatusCode::BAD_GATEWAY);
        assert!(body.contains("larger than 1048576 bytes"), "{body}");
        assert_eq!(origin.requests(), 4);
        for path in ["/fail", "/missing", "/slow", "/big"] {
            assert_eq!(redis.cached(path), None, "{path} must not be cached");
        }

        // Failures are not cached: the origin is asked again.
        assert_eq!(proxy.get("/fail").await.0, StatusCode::BAD_GATEWAY);
        assert_eq!(origin.requests(), 5);
    });
}

#[test]
fn a_cache_that_goes_away_is_bypassed() {
    let Some(mut redis) = RedisServer::start() else {
        return;
    };
    run(async {
        let origin = OriginServer::start().await;
        let proxy = TestProxy::start(&origin.url, &redis.url).await;
        let body = "origin body of /page";
        assert_eq!(proxy.get("/page").await, miss(body));
        assert_eq!(proxy.get("/page").await, hit(body));
        assert_eq!(origin.requests(), 1);

        redis.kill();
        assert_eq!(proxy.get("/page").await, bypass(body));
        assert_eq!(origin.requests(), 2, "a bypass fetches from the origin");
        assert_eq!(proxy.get("/page").await, bypass(body));
        assert_eq!(proxy.get("/fail").await.0, StatusCode::BAD_GATEWAY);
        assert_eq!(origin.requests(), 4);

        // What the cache role saw, as a typed error, in one session run directly.
        let timeout = Duration::from_secs(2);
        let cache = RedisCache::new(&redis.url, timeout, timeout).expect("redis url");
        let upstream = OriginClient::new(&origin.url, timeout, 1 << 20).expect("origin url");
        let outcome = protocol::run_session("/page".into(), &cache, &upstream)
            .await
            .expect("the session ends");
        match (&outcome.answer, &outcome.cache, &outcome.origin) {
            (
                protocol::Answer::Bypassed(body, why),
                protocol::CacheReport::Unavailable(store::CacheError::Connect { .. }),
                protocol::OriginReport::Fetched,
            ) => {
                assert_eq!(body.as_ref(), "origin body of /page".as_bytes());
                assert!(why.contains("cannot connect to Redis"), "{why}");
            }
            _ => panic!("expected a bypass for a connection error: {outcome:?}"),
        }
    });
}

#[test]
fn a_cache_that_comes_back_is_used_again() {
    let Some(mut redis) = RedisServer::start() else {
        return;
    };
    run(async {
        let origin = OriginServer::start().await;
        let proxy = TestProxy::start(&origin.url, &redis.url).await;
        let body = "origin body of /back";
        assert_eq!(proxy.get("/back").await, miss(body));
        redis.kill();
        assert_eq!(proxy.get("/back").await, bypass(body));
        redis.restart();
        // The new server is empty: a miss that stores again, then hits.
        assert_eq!(proxy.get("/back").await, miss(body));
        assert_eq!(redis.cached("/back").as_deref(), Some(body.as_bytes()));
        assert_eq!(proxy.get("/back").await, hit(body));
        assert_eq!(origin.requests(), 3);
    });
}

#[test]
fn concurrent_requests_run_one_session_each() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    run(async {
        let origin = OriginServer::start().await;
        let proxy = TestProxy::start(&origin.url, &redis.url).await;
        let paths: Vec<String> = (0..16).map(|i| format!("/many/{i}")).collect();
        let answers = join_all(paths.iter().map(|path| proxy.get(path))).await;
        for (path, answer) in paths.iter().zip(answers) {
            assert_eq!(answer, miss(&format!("origin body of {path}")));
        }
        let answers = join_all(paths.iter().map(|path| proxy.get(path))).await;
        for (path, answer) in paths.iter().zip(answers) {
            assert_eq!(answer, hit(&format!("origin body of {path}")));
        }
        assert_eq!(origin.requests(), paths.len());
    });
}

#[test]
fn without_redis_every_answer_comes_from_the_origin() {
    let closed = format!("redis://127.0.0.1:{}", free_port());
    run(async {
        let origin = OriginServer::start().await;
        let proxy = TestProxy::start(&origin.url, &closed).await;
        assert_eq!(proxy.get("/a").await, bypass("origin body of /a"));
        assert_eq!(proxy.get("/a").await, bypass("origin body of /a"));
        assert_eq!(proxy.get("/missing").await.0, StatusCode::NOT_FOUND);
        assert_eq!(origin.requests(), 3);
    });
}

#[test]
fn an_unreachable_origin_gives_502() {
    let closed_origin = format!("http://127.0.0.1:{}", free_port());
    let closed_redis = format!("redis://127.0.0.1:{}", free_port());
    run(async {
        let proxy = TestProxy::start(&closed_origin, &closed_redis).await;
        let (status, cache, body) = proxy.get("/anything").await;
        assert_eq!((status, cache), (StatusCode::BAD_GATEWAY, None));
        assert!(body.contains("origin unreachable"), "{body}");
    });
}

#[test]
fn only_get_is_proxied() {
    let closed_redis = format!("redis://127.0.0.1:{}", free_port());
    run(async {
        let origin = OriginServer::start().await;
        let proxy = TestProxy::start(&origin.url, &closed_redis).await;
        let (status, cache, _) = proxy.request("POST", "/a").await;
        assert_eq!((status, cache), (StatusCode::METHOD_NOT_ALLOWED, None));
        assert_eq!(origin.requests(), 0);
    });
}

#[test]
fn bad_urls_are_typed_errors() {
    let timeout = Duration::from_secs(1);
    for url in [
        "ftp://127.0.0.1:9000",
        "127.0.0.1:9000",
        "http://127.0.0.1:9000/x",
        "http://",
    ] {
        let error = OriginClient::new(url, timeout, 10).err().expect(url);
        assert!(
            matches!(error, origin::OriginError::BadUrl { .. }),
            "{url}: {error}"
        );
    }
    let error = RedisCache::new("http://127.0.0.1:6379", timeout, timeout).err();
    assert!(matches!(error, Some(store::CacheError::BadUrl { .. })));
}

#[test]
fn origin_failures_map_to_gateway_statuses() {
    let url = "http://o/x".to_owned();
    let status = |status| origin::OriginError::Status {
        url: url.clone(),
        status,
    };
    assert_eq!(status(StatusCode::NOT_FOUND).client_status(), 404);
    assert_eq!(
        status(StatusCode::INTERNAL_SERVER_ERROR).client_status(),
        502
    );
    assert_eq!(status(StatusCode::MOVED_PERMANENTLY).client_status(), 502);
    let timeout = origin::OriginError::Timeout {
        url: url.clone(),
        after: Duration::from_secs(1),
    };
    assert_eq!(timeout.client_status(), 504);
    let failure = server::response(protocol::Answer::Failure(999, "odd".into()));
    assert_eq!(failure.status(), StatusCode::from_u16(999).expect("999"));
    let failure = server::response(protocol::Answer::Failure(42, "odd".into()));
    assert_eq!(failure.status(), StatusCode::BAD_GATEWAY);
}

#[test]
fn the_command_line_of_the_module_doc_parses() {
    let args = Args::try_parse_from([
        "http_cache",
        "--listen",
        "127.0.0.1:8080",
        "--origin",
        "http://127.0.0.1:9000",
        "--redis",
        "redis://127.0.0.1:6379",
    ])
    .expect("the documented command line");
    assert_eq!(args.listen, "127.0.0.1:8080".parse().expect("address"));
    assert_eq!(args.ttl, 60);
    assert!(args.services().is_ok());
    assert!(Args::try_parse_from(["http_cache", "--listen", "nowhere"]).is_err());
    let bad_origin = Args::try_parse_from(["http_cache", "--origin", "ftp://x"]).expect("parses");
    assert!(bad_origin.services().is_err());
}
