//! A map kept as a vector sorted by key: what the filter's few small maps (waiting streams,
//! token buckets, the analysis cache's fingerprints) need of `BTreeMap` (binary search by key,
//! ordered iteration) for a fraction of its code in the module (issue 10: `BTreeMap`'s node
//! handling took about 13 KB of the filter, once per key and value type). Inserting and
//! removing move the later elements: the maps hold at most a few hundred small elements
//! (large values are boxed).

/// A map from `K` to `V`, sorted by key.
#[derive(Debug, Clone)]
pub struct VecMap<K, V> {
    items: Vec<(K, V)>,
}

impl<K, V> Default for VecMap<K, V> {
    fn default() -> Self {
        VecMap { items: Vec::new() }
    }
}

impl<K: Ord, V> VecMap<K, V> {
    /// An empty map.
    pub fn new() -> Self {
        Self::default()
    }

    fn find(&self, key: &K) -> Result<usize, usize> {
        self.items.binary_search_by(|(k, _)| k.cmp(key))
    }

    /// The value of `key`.
    pub fn get(&self, key: &K) -> Option<&V> {
        let i = self.find(key).ok()?;
        self.items.get(i).map(|(_, v)| v)
    }

    /// The value of `key`, mutably.
    pub fn get_mut(&mut self, key: &K) -> Option<&mut V> {
        let i = self.find(key).ok()?;
        self.items.get_mut(i).map(|(_, v)| v)
    }

    /// Sets `key` to `value`; returns the value it replaces.
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        match self.find(&key) {
            Ok(i) => self
                .items
                .get_mut(i)
                .map(|(_, v)| std::mem::replace(v, value)),
            Err(i) => {
                self.items.insert(i, (key, value));
                None
            }
        }
    }

    /// The value of `key`, made by `make` first when there is none (always `Some`).
    pub fn get_or_insert_with(&mut self, key: K, make: impl FnOnce() -> V) -> Option<&mut V> {
        let i = match self.find(&key) {
            Ok(i) => i,
            Err(i) => {
                self.items.insert(i, (key, make()));
                i
            }
        };
        self.items.get_mut(i).map(|(_, v)| v)
    }

    /// Removes `key`; returns its value.
    pub fn remove(&mut self, key: &K) -> Option<V> {
        let i = self.find(key).ok()?;
        Some(self.items.remove(i).1)
    }

    /// The entries in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.items.iter().map(|(k, v)| (k, v))
    }

    /// The values in key order.
    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.items.iter().map(|(_, v)| v)
    }

    /// How many keys.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// No key.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn behaves_as_a_btree_map() {
        let mut ours: VecMap<u32, u64> = VecMap::new();
        let mut theirs: BTreeMap<u32, u64> = BTreeMap::new();
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        for step in 0..5_000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let key = (x % 97) as u32;
            match x % 5 {
                0 | 1 => assert_eq!(ours.insert(key, step), theirs.insert(key, step)),
                2 => assert_eq!(ours.remove(&key), theirs.remove(&key)),
                3 => {
                    *ours.get_or_insert_with(key, || step).unwrap() += 1;
                    *theirs.entry(key).or_insert_with(|| step) += 1;
                }
                _ => {
                    if let Some(v) = ours.get_mut(&key) {
                        *v += 7;
                    }
                    if let Some(v) = theirs.get_mut(&key) {
                        *v += 7;
                    }
                }
            }
            assert_eq!(ours.get(&key), theirs.get(&key));
            assert_eq!(ours.len(), theirs.len());
            assert_eq!(ours.is_empty(), theirs.is_empty());
        }
        assert!(ours.iter().eq(theirs.iter()));
        assert!(ours.values().eq(theirs.values()));
    }
}
