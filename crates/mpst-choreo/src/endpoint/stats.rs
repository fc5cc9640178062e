//! The counts an endpoint keeps of what it refused, dropped and holds ([`EndpointStats`]).

/// Counts an endpoint keeps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EndpointStats {
    /// Deliveries refused because their key was already delivered or consumed.
    pub duplicates_refused: u64,
    /// Errors reported by the incoming stream (decoding, I/O, refused connections); the
    /// last one's text is [`Endpoint::last_transport_error`](crate::Endpoint::last_transport_error).
    pub transport_errors: u64,
    /// Deliveries refused because their session had already finished at this endpoint
    /// (late duplicates, or messages that a finished session never claimed).
    pub late_refused: u64,
    /// Deliveries refused because a receive had claimed their key from another sender:
    /// never bound, and the receive goes on waiting for the right one.
    pub wrong_sender_refused: u64,
    /// Envelopes dropped because no receive claimed them within
    /// [`EndpointConfig::unclaimed_age`](crate::EndpointConfig::unclaimed_age), or to stay within [`EndpointConfig::unclaimed_limit`](crate::EndpointConfig::unclaimed_limit) and
    /// [`EndpointConfig::unclaimed_bytes`](crate::EndpointConfig::unclaimed_bytes).
    pub unclaimed_dropped: u64,
    /// Keys the endpoint's mailbox currently remembers: delivered, claimed by a receive,
    /// or held unclaimed (each unclaimed envelope counts). Keys of a session are forgotten
    /// when it finishes; unclaimed ones expire. The keys a run has sent are not counted:
    /// they are that run's own record (for [`ChoreoError::KeyReused`](crate::ChoreoError::KeyReused)),
    /// forgotten when the run ends.
    pub keys_held: usize,
}
