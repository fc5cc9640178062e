//! [`AnyRoute`]: a route that is either an in-memory channel or a TCP connection, so one
//! role struct (and one generated API) runs in one process (`Roles::default()`) or as
//! separate processes ([`Connections::into_role`](super::Connections::into_role)).

use std::pin::Pin;
use std::task::{Context, Poll};

use futures::{Sink, Stream};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::channel::{Abort, ChannelError, Pair, Unbounded, unbounded};

use super::error::NetError;
use super::route::TcpRoute;

/// A route to one peer, in memory or over TCP.
#[derive(Debug)]
pub enum AnyRoute<M> {
    /// An in-memory unbounded channel (what `Roles::default()` creates).
    Memory(Unbounded<M>),
    /// A TCP connection.
    Tcp(TcpRoute<M>),
}

/// The failure of an [`AnyRoute`]: its channel's or its connection's.
/// It displays as the error it holds, which is also its source.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AnyRouteError {
    /// The in-memory channel failed.
    #[error("{0}")]
    Memory(#[source] ChannelError),
    /// The TCP connection failed.
    #[error("{0}")]
    Net(#[source] NetError),
}

impl<M> From<TcpRoute<M>> for AnyRoute<M> {
    fn from(route: TcpRoute<M>) -> Self {
        AnyRoute::Tcp(route)
    }
}

impl<M> Pair<Self> for AnyRoute<M> {
    fn pair() -> (Self, Self) {
        let (left, right) = unbounded();
        (AnyRoute::Memory(left), AnyRoute::Memory(right))
    }
}

impl<M> Abort for AnyRoute<M> {
    fn abort(&mut self) {
        match self {
            AnyRoute::Memory(route) => route.abort(),
            AnyRoute::Tcp(route) => route.abort(),
        }
    }
}

impl<M: Serialize> Sink<M> for AnyRoute<M> {
    type Error = AnyRouteError;

    fn poll_ready(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        match self.get_mut() {
            AnyRoute::Memory(r) => Pin::new(r).poll_ready(cx).map_err(AnyRouteError::Memory),
            AnyRoute::Tcp(r) => Pin::new(r).poll_ready(cx).map_err(AnyRouteError::Net),
        }
    }

    fn start_send(self: Pin<&mut Self>, item: M) -> Result<(), Self::Error> {
        match self.get_mut() {
            AnyRoute::Memory(r) => Pin::new(r).start_send(item).map_err(AnyRouteError::Memory),
            AnyRoute::Tcp(r) => Pin::new(r).start_send(item).map_err(AnyRouteError::Net),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        match self.get_mut() {
            AnyRoute::Memory(r) => <Unbounded<M> as Sink<M>>::poll_flush(Pin::new(r), cx)
                .map_err(AnyRouteError::Memory),
            AnyRoute::Tcp(r) => {
                <TcpRoute<M> as Sink<M>>::poll_flush(Pin::new(r), cx).map_err(AnyRouteError::Net)
            }
        }
    }

    fn poll_close(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        match self.get_mut() {
            AnyRoute::Memory(r) => <Unbounded<M> as Sink<M>>::poll_close(Pin::new(r), cx)
                .map_err(AnyRouteError::Memory),
            AnyRoute::Tcp(r) => {
                <TcpRoute<M> as Sink<M>>::poll_close(Pin::new(r), cx).map_err(AnyRouteError::Net)
            }
        }
    }
}

impl<M: Serialize + DeserializeOwned> Stream for AnyRoute<M> {
    type Item = Result<M, AnyRouteError>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        match self.get_mut() {
            AnyRoute::Memory(r) => Pin::new(r)
                .poll_next(cx)
                .map(|item| item.map(|r| r.map_err(AnyRouteError::Memory))),
            AnyRoute::Tcp(r) => Pin::new(r)
                .poll_next(cx)
                .map(|item| item.map(|r| r.map_err(AnyRouteError::Net))),
        }
    }
}
