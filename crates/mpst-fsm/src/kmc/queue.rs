//! The words of a configuration, with every queue run-length encoded.
//!
//! A configuration of `n` machines and `m` queues is laid out as
//! `[state_0 .. state_{n-1}, queue_0, .., queue_{m-1}]`, and a queue as
//! `[len, runs, msg_1, count_1, .., msg_runs, count_runs]`: its length, then its
//! maximal runs of one message, head first. Runs are kept maximal (two neighbouring
//! runs hold different messages, every count is positive), so each queue content has
//! exactly one encoding and equal configurations have equal words, which hash-consing
//! in [`super::store`] relies on.
//!
//! Why runs: the unrolled senders of the benchmark families queue up to `k` copies of
//! one message (stream and k-buffering need `k = n / 2`), so a queue of 50,000
//! `value`s is four words instead of 50,001, a send or receive changes one count in
//! place, and a configuration's size no longer grows with `k`. A queue whose
//! neighbouring messages all differ takes twice the words of a plain list, bounded
//! by the memory budget like any other.

/// Words of an empty queue.
pub(crate) const EMPTY: [u32; 2] = [0, 0];

/// The offset of every queue in `config`, after the `machines` local states.
pub(crate) fn offsets(machines: usize, queues: usize, config: &[u32], offs: &mut Vec<usize>) {
    offs.clear();
    let mut pos = machines;
    for _ in 0..queues {
        offs.push(pos);
        pos += 2 + 2 * config[pos + 1] as usize;
    }
}

/// How many messages the queue at offset `o` holds.
pub(crate) fn len(config: &[u32], o: usize) -> u32 {
    config[o]
}

/// The message at the head of the queue at offset `o`, if any.
pub(crate) fn head(config: &[u32], o: usize) -> Option<u32> {
    (config[o] > 0).then(|| config[o + 2])
}

/// The messages of the queue at offset `o`, head first.
pub(crate) fn messages(config: &[u32], o: usize) -> impl Iterator<Item = u32> + '_ {
    let runs = config[o + 1] as usize;
    config[o + 2..o + 2 + 2 * runs]
        .chunks_exact(2)
        .flat_map(|run| std::iter::repeat_n(run[0], run[1] as usize))
}

/// Writes into `next` the configuration `cur` with `msg` appended to the queue at
/// offset `o`.
pub(crate) fn push(cur: &[u32], o: usize, msg: u32, next: &mut Vec<u32>) {
    let runs = cur[o + 1] as usize;
    let end = o + 2 + 2 * runs;
    next.clear();
    if runs > 0 && cur[end - 2] == msg {
        next.extend_from_slice(cur);
        next[end - 1] += 1;
    } else {
        next.extend_from_slice(&cur[..end]);
        next.extend_from_slice(&[msg, 1]);
        next.extend_from_slice(&cur[end..]);
        next[o + 1] += 1;
    }
    next[o] += 1;
}

/// Writes into `next` the configuration `cur` with the head of the (non-empty) queue
/// at offset `o` removed.
pub(crate) fn pop(cur: &[u32], o: usize, next: &mut Vec<u32>) {
    next.clear();
    if cur[o + 3] > 1 {
        next.extend_from_slice(cur);
        next[o + 3] -= 1;
    } else {
        next.extend_from_slice(&cur[..o + 2]);
        next.extend_from_slice(&cur[o + 4..]);
        next[o + 1] -= 1;
    }
    next[o] -= 1;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One machine in state 7, then two queues.
    fn config(q0: &[u32], q1: &[u32]) -> Vec<u32> {
        let mut c = vec![7];
        let mut next = Vec::new();
        for q in [q0, q1] {
            let o = c.len();
            c.extend_from_slice(&EMPTY);
            for &m in q {
                push(&c, o, m, &mut next);
                std::mem::swap(&mut c, &mut next);
            }
        }
        c
    }

    #[test]
    fn runs_are_maximal_and_decode_to_the_messages() {
        let c = config(&[3, 3, 3, 4, 3], &[5]);
        assert_eq!(c, [7, 5, 3, 3, 3, 4, 1, 3, 1, 1, 1, 5, 1]);
        let mut offs = Vec::new();
        offsets(1, 2, &c, &mut offs);
        assert_eq!(offs, [1, 9]);
        assert_eq!(messages(&c, 1).collect::<Vec<_>>(), [3, 3, 3, 4, 3]);
        assert_eq!(messages(&c, 9).collect::<Vec<_>>(), [5]);
        assert_eq!((len(&c, 1), head(&c, 1)), (5, Some(3)));
    }

    #[test]
    fn pushing_and_popping_keep_one_encoding_per_content() {
        // Pop the head of [3, 3, 3, 4, 3] four times: the same words as building the
        // remaining queue directly.
        let mut c = config(&[3, 3, 3, 4, 3], &[5]);
        let mut next = Vec::new();
        let contents: [&[u32]; 5] = [&[3, 3, 4, 3], &[3, 4, 3], &[4, 3], &[3], &[]];
        for rest in contents {
            pop(&c, 1, &mut next);
            std::mem::swap(&mut c, &mut next);
            assert_eq!(c, config(rest, &[5]), "{rest:?}");
        }
        assert_eq!(head(&c, 1), None);
    }
}
