//! One way to take a lock. A thread that panicked while holding a lock
//! leaves it poisoned; every lock in gleaner guards plain bookkeeping
//! (counters, caches, clocks) that stays usable, so the stream goes on with
//! the data as the panicking thread left it rather than panicking too.

use std::sync::{Mutex, MutexGuard};

pub trait Locked<T> {
    /// Locks, recovering the guard of a poisoned lock.
    fn locked(&self) -> MutexGuard<'_, T>;
}

impl<T> Locked<T> for Mutex<T> {
    fn locked(&self) -> MutexGuard<'_, T> {
        self.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn a_poisoned_lock_is_still_usable() {
        let m = Arc::new(Mutex::new(1));
        let m2 = m.clone();
        let _ = std::thread::spawn(move || {
            let _g = m2.lock().unwrap();
            panic!("poison it");
        })
        .join();
        assert!(m.is_poisoned());
        *m.locked() += 1;
        assert_eq!(*m.locked(), 2);
    }
}
