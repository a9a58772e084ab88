//! A map that keeps only its most recently inserted keys: what a stage
//! remembers of recent records to recognise a replay, in bounded memory.
//! Small and gleaner's own, so written here: a hash map plus a FIFO of keys.

use std::collections::{HashMap, VecDeque};

pub struct Recent<V> {
    map: HashMap<u64, V>,
    order: VecDeque<u64>,
    capacity: usize,
}

impl<V> Recent<V> {
    pub fn new(capacity: usize) -> Self {
        Recent {
            map: HashMap::new(),
            order: VecDeque::new(),
            capacity: capacity.max(1),
        }
    }

    pub fn get(&self, key: u64) -> Option<&V> {
        self.map.get(&key)
    }

    pub fn contains(&self, key: u64) -> bool {
        self.map.contains_key(&key)
    }

    /// Inserts or replaces; the oldest key goes when full. Returns whether
    /// the key was new.
    pub fn insert(&mut self, key: u64, value: V) -> bool {
        if self.map.insert(key, value).is_some() {
            return false;
        }
        if self.order.len() == self.capacity {
            if let Some(old) = self.order.pop_front() {
                self.map.remove(&old);
            }
        }
        self.order.push_back(key);
        true
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_most_recent_keys() {
        let mut r = Recent::new(2);
        assert!(r.insert(1, "a"));
        assert!(!r.insert(1, "b"), "a key already there is not new");
        assert_eq!(r.get(1), Some(&"b"));
        r.insert(2, "c");
        r.insert(3, "d");
        assert!(!r.contains(1), "the oldest went");
        assert!(r.contains(2) && r.contains(3));
        assert_eq!(r.len(), 2);
    }
}
