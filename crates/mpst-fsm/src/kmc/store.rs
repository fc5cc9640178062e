//! Hash-consed storage of configurations: every configuration is a slice of `u32`
//! words kept once in one arena and numbered in order of discovery.
//!
//! The words of a configuration are laid out as [`super::queue`] says: each
//! machine's local state, then each queue run-length encoded.

use std::hash::BuildHasher;

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

/// An interning arena of configurations.
#[derive(Debug, Default)]
pub(crate) struct Store {
    words: Vec<u32>,
    /// `offsets[i]..offsets[i + 1]` are the words of configuration `i`.
    offsets: Vec<usize>,
    table: HashTable<u32>,
}

fn hash(config: &[u32]) -> u64 {
    FxBuildHasher.hash_one(config)
}

impl Store {
    /// An empty store.
    pub fn new() -> Self {
        Store {
            words: Vec::new(),
            offsets: vec![0],
            table: HashTable::new(),
        }
    }

    /// How many configurations are stored.
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// How many words all configurations take.
    pub fn words(&self) -> usize {
        self.words.len()
    }

    /// The words of configuration `i`.
    pub fn get(&self, i: u32) -> &[u32] {
        let i = i as usize;
        &self.words[self.offsets[i]..self.offsets[i + 1]]
    }

    /// The number of `config`, adding it if it is new; `true` when it was added.
    pub fn intern(&mut self, config: &[u32]) -> (u32, bool) {
        let h = hash(config);
        let words = &self.words;
        let offsets = &self.offsets;
        let slice = |i: u32| &words[offsets[i as usize]..offsets[i as usize + 1]];
        if let Some(&i) = self.table.find(h, |&i| slice(i) == config) {
            return (i, false);
        }
        let i = self.len() as u32;
        self.words.extend_from_slice(config);
        self.offsets.push(self.words.len());
        let words = &self.words;
        let offsets = &self.offsets;
        self.table.insert_unique(h, i, |&j| {
            hash(&words[offsets[j as usize]..offsets[j as usize + 1]])
        });
        (i, true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interning_is_idempotent_and_keeps_contents() {
        let mut store = Store::new();
        assert_eq!(store.intern(&[1, 2, 3]), (0, true));
        assert_eq!(store.intern(&[1, 2]), (1, true));
        assert_eq!(store.intern(&[1, 2, 3]), (0, false));
        assert_eq!(store.intern(&[]), (2, true));
        assert_eq!(store.get(1), &[1, 2]);
        assert_eq!(store.get(2), &[] as &[u32]);
        assert_eq!(store.len(), 3);
    }
}
