//! A small table by key (a session's slots and strays, a run's sent keys): a vector
//! scanned while it holds a few entries (a session has few keys, and a scan of a few
//! compares no hash), a keyed hash map beyond (a peer chooses the keys of the envelopes
//! it sends, so a session filled with many must cost no more per look-up than a hash map
//! does: no quadratic work; a run that sends many keys, e.g. in a long `iterate`, is
//! hashed likewise).

use std::hash::Hash;

use super::mailbox::HashMap;

/// Entries a table scans before it becomes a hash map.
const FEW: usize = 8;

/// Entries by key, scanned while few, hashed once many.
pub(crate) enum Table<K, V> {
    /// At most [`FEW`] entries, in insertion order.
    Few(Vec<(K, V)>),
    /// More than [`FEW`] entries (boxed: the table of a session that never grows stays
    /// small).
    Many(Box<HashMap<K, V>>),
}

impl<K, V> Default for Table<K, V> {
    fn default() -> Self {
        Self::Few(Vec::new())
    }
}

impl<K: Eq + Hash, V> Table<K, V> {
    /// The entry of `key`.
    pub(crate) fn get(&self, key: &K) -> Option<&V> {
        match self {
            Self::Few(few) => few.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            Self::Many(many) => many.get(key),
        }
    }

    /// The entry of `key`, to change.
    pub(crate) fn get_mut(&mut self, key: &K) -> Option<&mut V> {
        match self {
            Self::Few(few) => few.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v),
            Self::Many(many) => many.get_mut(key),
        }
    }

    /// The table's copy of `key`, if it holds an entry for it (equal keys may differ in
    /// what equality ignores, such as a site's source location).
    #[inline]
    pub(crate) fn key(&self, key: &K) -> Option<&K> {
        match self {
            Self::Few(few) => few.iter().find(|(k, _)| k == key).map(|(k, _)| k),
            Self::Many(many) => many.get_key_value(key).map(|(k, _)| k),
        }
    }

    /// Adds the entry of `key`, which the table does not hold (the caller looked).
    #[inline]
    pub(crate) fn insert_new(&mut self, key: K, value: V) {
        match self {
            Self::Few(few) if few.len() < FEW => {
                // Most sessions hold two keys or fewer, and a peer's flood of sessions one
                // each: room for two at first (the allocator's default is four).
                if few.capacity() == 0 {
                    few.reserve_exact(2);
                }
                few.push((key, value));
            }
            Self::Few(few) => {
                let mut many: HashMap<K, V> = HashMap::default();
                many.reserve(2 * FEW);
                many.extend(few.drain(..));
                many.insert(key, value);
                *self = Self::Many(Box::new(many));
            }
            Self::Many(many) => {
                many.insert(key, value);
            }
        }
    }

    /// Removes the entry of `key`.
    pub(crate) fn remove(&mut self, key: &K) -> Option<V> {
        match self {
            Self::Few(few) => {
                let at = few.iter().position(|(k, _)| k == key)?;
                Some(few.swap_remove(at).1)
            }
            Self::Many(many) => many.remove(key),
        }
    }

    /// How many entries it holds.
    pub(crate) fn len(&self) -> usize {
        match self {
            Self::Few(few) => few.len(),
            Self::Many(many) => many.len(),
        }
    }

    /// Whether it holds none.
    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every entry, to change.
    pub(crate) fn for_each_mut(&mut self, mut f: impl FnMut(&K, &mut V)) {
        match self {
            Self::Few(few) => few.iter_mut().for_each(|(k, v)| f(k, v)),
            Self::Many(many) => many.iter_mut().for_each(|(k, v)| f(k, v)),
        }
    }

    /// Empties it; whether it is small enough to be kept for reuse (a scanned vector of
    /// at most [`FEW`] entries' capacity; a hash map is dropped).
    pub(crate) fn clear(&mut self) -> bool {
        match self {
            Self::Few(few) => {
                few.clear();
                few.capacity() <= FEW
            }
            Self::Many(_) => {
                *self = Self::default();
                true
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_keeps_its_entries_from_few_to_many_and_back_to_empty() {
        let mut table: Table<u64, u64> = Table::default();
        for k in 0..100 {
            assert!(table.get(&k).is_none());
            table.insert_new(k, 10 * k);
            assert_eq!(table.len(), k as usize + 1);
        }
        assert!(matches!(table, Table::Many(_)), "many entries are hashed");
        assert!((0..100).all(|k| table.get(&k) == Some(&(10 * k))));
        *table.get_mut(&7).unwrap() += 1;
        assert_eq!(table.remove(&7), Some(71));
        assert_eq!(table.remove(&7), None);
        assert_eq!(table.len(), 99);
        let mut sum = 0;
        table.for_each_mut(|_, v| sum += *v);
        assert_eq!(
            sum,
            (0..100).filter(|&k| k != 7).map(|k| 10 * k).sum::<u64>()
        );
        assert!(table.clear() && table.is_empty());
        assert!(matches!(table, Table::Few(_)), "a cleared map is dropped");
        table.insert_new(1, 1);
        table.insert_new(2, 2);
        assert_eq!(table.remove(&1), Some(1));
        assert_eq!(table.get(&2), Some(&2));
    }

    #[test]
    fn the_tables_copy_of_a_key_is_found_few_or_many() {
        let mut table: Table<u64, ()> = Table::default();
        for k in 0..20 {
            assert_eq!(table.key(&k), None, "not held yet");
            table.insert_new(k, ());
            assert_eq!(table.key(&k), Some(&k), "found, few or many");
        }
        assert!(matches!(table, Table::Many(_)));
        assert_eq!((table.len(), table.key(&20)), (20, None));
    }
}
