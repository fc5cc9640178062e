//! [`AnyRoute`]: a route that is either an in-memory channel or a TCP connection, so one
//! role struct (and one generated API) runs in one process (`Roles::default()`) or as
//! separate processes ([`Connections::into_role`](super::Connections::into_role)).

use std::fmt;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures::{Sink, Stream};
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::channel::{unbounded, Abort, ChannelError, Pair, Unbounded};

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
#[derive(Debug)]
#[non_exhaustive]
pub enum AnyRouteError {
    /// The in-memory channel failed.
    Memory(ChannelError),
    /// The TCP connection failed.
    Net(NetError),
}

impl fmt::Display for AnyRouteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AnyRouteError::Memory(e) => e.fmt(f),
            AnyRouteError::Net(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for AnyRouteError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            AnyRouteError::Memory(e) => Some(e),
            AnyRouteError::Net(e) => Some(e),
        }
    }
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
