//! The candidate index: for each key (a small shingle hash), the window
//! slots of articles that have it, at most [`CAP`] of them, so a lookup
//! costs the same whatever the window holds: the earliest posted (where an
//! original is) and the latest. A key shared by more articles than that
//! is mostly stock text; the postings between the earliest and the latest
//! are dropped. Dropping the earliest too let text that recurs in dozens
//! of later articles push an original out of every one of its keys, so
//! that its verbatim copy found no candidate; and since an original made
//! of text seen before is not the earliest under those keys either, an
//! article is posted under its rarest keys as well as its smallest
//! ([`crate::keys`]).
//!
//! Lists are linked through one arena of nodes (8 bytes a posting), since
//! most keys have one posting and a `Vec` per key would cost 24 bytes
//! before its first element.

use rustc_hash::FxHashMap;

/// Most postings kept per key.
pub const CAP: usize = 16;

const NIL: u32 = u32::MAX;

#[derive(Clone, Copy)]
struct Node {
    slot: u32,
    next: u32,
}

#[derive(Default)]
pub struct Postings {
    heads: FxHashMap<u32, u32>,
    nodes: Vec<Node>,
    /// First free node; free nodes are linked through `next`.
    free: u32,
    len: usize,
}

impl Postings {
    pub fn new() -> Self {
        Postings {
            free: NIL,
            ..Default::default()
        }
    }

    /// Postings held.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes held (the map's table and the arena).
    pub fn bytes(&self) -> usize {
        self.heads.capacity() * (std::mem::size_of::<(u32, u32)>() + 1)
            + self.nodes.capacity() * std::mem::size_of::<Node>()
    }

    fn alloc(&mut self, node: Node) -> u32 {
        self.len += 1;
        if self.free != NIL {
            let n = self.free;
            self.free = self.nodes[n as usize].next;
            self.nodes[n as usize] = node;
            n
        } else {
            self.nodes.push(node);
            (self.nodes.len() - 1) as u32
        }
    }

    fn release(&mut self, n: u32) {
        self.len -= 1;
        self.nodes[n as usize] = Node {
            slot: NIL,
            next: self.free,
        };
        self.free = n;
    }

    /// Adds `slot` at the head of `key`'s list; past [`CAP`], drops the
    /// posting before the earliest.
    pub fn insert(&mut self, key: u32, slot: u32) {
        let head = self.heads.get(&key).copied().unwrap_or(NIL);
        let n = self.alloc(Node { slot, next: head });
        self.heads.insert(key, n);
        // Walk to the node CAP - 2 places after the head; if the list goes
        // on past CAP nodes, the one after it (the second earliest) goes.
        let mut cur = n;
        for _ in 0..CAP - 2 {
            cur = self.nodes[cur as usize].next;
            if cur == NIL {
                return;
            }
        }
        let second = self.nodes[cur as usize].next;
        if second == NIL {
            return;
        }
        let earliest = self.nodes[second as usize].next;
        if earliest == NIL {
            return;
        }
        // At most CAP + 1 nodes: the earliest is the last.
        self.nodes[cur as usize].next = earliest;
        self.release(second);
    }

    /// Removes `slot` from `key`'s list (nothing if it was dropped already).
    pub fn remove(&mut self, key: u32, slot: u32) {
        let Some(&head) = self.heads.get(&key) else {
            return;
        };
        let (mut prev, mut cur) = (NIL, head);
        while cur != NIL {
            let node = self.nodes[cur as usize];
            if node.slot == slot {
                if prev == NIL {
                    if node.next == NIL {
                        self.heads.remove(&key);
                    } else {
                        self.heads.insert(key, node.next);
                    }
                } else {
                    self.nodes[prev as usize].next = node.next;
                }
                self.release(cur);
                return;
            }
            prev = cur;
            cur = node.next;
        }
    }

    /// Calls `f` with each slot posted under `key`, latest first.
    pub fn for_each(&self, key: u32, mut f: impl FnMut(u32)) {
        let mut cur = self.heads.get(&key).copied().unwrap_or(NIL);
        while cur != NIL {
            let node = self.nodes[cur as usize];
            f(node.slot);
            cur = node.next;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slots(p: &Postings, key: u32) -> Vec<u32> {
        let mut v = Vec::new();
        p.for_each(key, |s| v.push(s));
        v
    }

    #[test]
    fn insert_remove_and_reuse_nodes() {
        let mut p = Postings::new();
        p.insert(7, 1);
        p.insert(7, 2);
        p.insert(9, 1);
        assert_eq!(slots(&p, 7), vec![2, 1]);
        assert_eq!(slots(&p, 9), vec![1]);
        p.remove(7, 1);
        p.remove(9, 1);
        p.remove(9, 1);
        p.remove(8, 1);
        assert_eq!(slots(&p, 7), vec![2]);
        assert!(slots(&p, 9).is_empty());
        assert_eq!(p.len(), 1);
        let arena = p.nodes.len();
        p.insert(10, 3);
        p.insert(10, 4);
        assert_eq!(p.nodes.len(), arena, "freed nodes are reused");
        p.remove(7, 2);
        p.remove(10, 3);
        p.remove(10, 4);
        assert!(p.is_empty() && p.heads.is_empty());
    }

    #[test]
    fn a_key_keeps_its_earliest_and_latest_postings() {
        let mut p = Postings::new();
        for s in 0..(CAP as u32 + 5) {
            p.insert(1, s);
        }
        let got = slots(&p, 1);
        assert_eq!(got.len(), CAP);
        assert_eq!(got[0], CAP as u32 + 4);
        assert_eq!(got[CAP - 2], 6, "the latest CAP - 1");
        assert_eq!(*got.last().unwrap(), 0, "and the earliest");
        assert_eq!(p.len(), CAP);
        // Removing a dropped posting is harmless.
        p.remove(1, 3);
        assert_eq!(p.len(), CAP);
    }
}
