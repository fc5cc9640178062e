//! The prose of the impaired-links section of `EVALUATION.md`: the design of the runs
//! and how to read their numbers.

/// How the runs are made.
pub const DESIGN: &str = "\
`sudo cargo run --release -p mpst-choreo-eval -- --impaired` (root: it makes network \
namespaces; without root it says so and exits with status 1) runs two benchmarks with \
**every role on its own host**: an `mpst-testbed` bed per benchmark, one network \
namespace per role, every pair of hosts linked through the bed's userspace relay, which \
delays each TCP chunk by the link's one-way delay ± 10 % (uniform, seeded; within a \
connection the relay keeps the order, across connections chunks overtake each other). \
For concurrent send the jitter is drawn per 2 ms slot of each link's direction, counted \
from the run's first request, rather than per chunk: a link whose delay changes every \
2 ms and is shared by every connection crossing it then, as the queue ahead of a packet \
is. The three implementations run the same sessions on the same schedule with the same \
seeded service costs, so a session's messages meet the same delays whichever \
implementation runs (common random numbers; a message sent a little later than its twin \
may fall into the next slot), and the comparison of two implementations is theirs, not \
the dice's. \
It merges `impaired_links` into `results.json` (the other results untouched; the full \
run and `--render` keep it) and writes every run to `impaired_links.json`.

- **Choreographies** (in order and out of order): each role's `Endpoint` on a tokio \
  runtime whose threads live in its host, over `mpst_choreo::net::tcp` to the other \
  hosts by the addresses their host names resolve to there (one lane per pair: one \
  connection each way, as the actors' links; plaintext by the explicit opt-in, as the \
  loopback runs: this measures choreographies, not TLS). Sessions start on schedule: \
  in concurrent send at the services only (`s` and `c` take messages as they come), in \
  model serving at every role; a role that waits for due times registers the next one \
  before it runs the session just due, as the actors' schedule does.
- **Actors**: the same hand-written `ractor` actors as in memory, one per role on its \
  host's runtime; where the in-memory actor holds a peer's `ActorRef`, this one holds a \
  link: a TCP connection to the peer's host, written by one bridging task per link \
  (length-prefixed postcard frames, `mpst-wire`'s codec, as many queued messages per \
  write as are waiting, `TCP_NODELAY`), read at the peer by a task per connection that \
  puts each message into its actor's mailbox. Requests become due on the hosts that start \
  them (the services, the gateway).
- **What is measured**: concurrent send at 50 requests/s, the median of `key` at the \
  client from the request's intended time, over three rounds per delay in which the \
  implementations take turns (each round starting with another, with its own seeded \
  costs), so drift over the run hits all alike; each comparison of two medians comes \
  with a seeded bootstrap 95 % interval, resampling sessions (a session of every \
  implementation together), and a goal whose interval holds its bound is reported as \
  level within the run's resolution, neither met nor missed. At the smallest delay \
  concurrent send also runs with no service costs, which leaves each implementation's \
  own cost per hop. Model serving (batch 10, the paper's costs) \
  at 150 and 300 images/s offered, the highest throughput measured (the models' limit \
  is 308 images/s). The traffic crosses the relay; the stopwatch does not: all hosts' \
  runtimes are threads of one process, so answers are recorded on one clock.
";

/// How to read the numbers (why each goal holds or not).
pub const READING: &str = "
How to read them:

- **Model serving, in order**, is bound by its round trips: every role runs its
  sessions one after the other, so the gateway sends batch *k + 1*'s images only once
  batch *k*'s predictions are back. One batch's cycle crosses five links (gateway →
  worker → batcher → model → batcher → gateway) plus about 71 ms of work (the model's
  65 ms, the workers' preprocessing, the hops), so in order serves at most
  10 / (71 ms + 5 × delay): about 141, 104 and 58 images/s at 0, 5 and 20 ms, close to
  what it measures (table above). Out of order and the actors pipeline the batches and stay at the
  models' limit whatever the delay, so the ratio grows with the delay. In order, at
  loads above that bound, the run ends at its time bound with images unanswered (the
  *answered* column); the sessions cut off then report their peers lost on standard
  error, after the numbers were taken.
- **Concurrent send, key**: out of order, the server forwards the key as it arrives, as
  the actors do, so both pay the key service's cost and two link delays. In order, the
  server takes the text first: the key waits for the slower of two paths of one link
  each, so the delay is paid once either way and in order's loss does not grow with it
  (in numbers below); a late session also delays the next one at the server and the
  client (its p99 in the table of every run).
";
