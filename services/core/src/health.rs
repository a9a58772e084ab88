//! What `/health` answers: each part of the process that can be unwell
//! (a stage's Kafka group, an embedded run) registers a check; the process
//! is healthy when every check passes.

use crate::sync::Locked;
use std::sync::{Mutex, OnceLock};

type Check = Box<dyn Fn() -> Result<(), String> + Send + Sync>;

fn checks() -> &'static Mutex<Vec<(String, Check)>> {
    static CHECKS: OnceLock<Mutex<Vec<(String, Check)>>> = OnceLock::new();
    CHECKS.get_or_init(Default::default)
}

/// Registers `check` under `name`, replacing an earlier one of that name.
pub fn register(name: &str, check: impl Fn() -> Result<(), String> + Send + Sync + 'static) {
    let mut all = checks().locked();
    all.retain(|(n, _)| n != name);
    all.push((name.to_string(), Box::new(check)));
}

/// Drops the check registered under `name`.
pub fn unregister(name: &str) {
    checks().locked().retain(|(n, _)| n != name);
}

/// `Ok` when every check passes, or each failing one's reason as
/// `name: reason`. No check at all is unhealthy: nothing is running.
pub fn check() -> Result<(), Vec<String>> {
    let all = checks().locked();
    if all.is_empty() {
        return Err(vec!["nothing running yet".into()]);
    }
    let failing: Vec<String> = all
        .iter()
        .filter_map(|(name, check)| check().err().map(|why| format!("{name}: {why}")))
        .collect();
    if failing.is_empty() {
        Ok(())
    } else {
        Err(failing)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;

    #[test]
    fn healthy_only_when_every_check_passes() {
        let up = Arc::new(AtomicBool::new(false));
        let seen = up.clone();
        register("t-stage", move || {
            if seen.load(Ordering::Relaxed) {
                Ok(())
            } else {
                Err("no partitions assigned".into())
            }
        });
        let reasons = check().unwrap_err();
        assert!(reasons.contains(&"t-stage: no partitions assigned".to_string()));
        up.store(true, Ordering::Relaxed);
        assert!(check().is_ok());
        unregister("t-stage");
        assert!(check().is_err(), "nothing registered is not healthy");
    }
}
