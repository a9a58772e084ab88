//! The invariants ARCHITECTURE.md states, checked on the sources: the
//! layers (nothing imports upward), the bus a boundary (no stage crate
//! imports the Kafka crate or rdkafka), core knowing no stage by name, and
//! no source file past about 600 lines.

use std::path::{Path, PathBuf};

/// The stage crates (and text, which they share): they run on either bus.
const STAGE_CRATES: [&str; 8] = [
    "text",
    "fetch",
    "clean",
    "extract",
    "dedup",
    "stories",
    "summarize",
    "index",
];

fn services() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every `.rs` file under `dir`.
fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "rs") {
                out.push(p);
            }
        }
    }
    out
}

/// The `gleaner-*` crates a manifest depends on, dev-dependencies included.
fn gleaner_deps(manifest: &str) -> Vec<String> {
    manifest
        .lines()
        .filter_map(|l| l.trim().strip_prefix("gleaner-"))
        .filter_map(|l| l.split(['.', ' ', '=']).next())
        .map(str::to_string)
        .collect()
}

/// The lines of a file that are code: not comments, not its tests.
fn code_lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines()
        .take_while(|l| !l.trim_start().starts_with("#[cfg(test)]"))
        .filter(|l| !l.trim_start().starts_with("//"))
}

#[test]
fn stage_crates_never_import_the_kafka_crate() {
    for c in STAGE_CRATES {
        let dir = services().join(c);
        let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
        assert!(
            !manifest.contains("rdkafka") && !manifest.contains("gleaner-kafka"),
            "{c}'s Cargo.toml names the Kafka crate or rdkafka"
        );
        for f in sources(&dir) {
            let text = std::fs::read_to_string(&f).unwrap();
            assert!(
                !text.contains("rdkafka") && !text.contains("gleaner_kafka"),
                "{} uses Kafka: a stage reads the bus through BusState",
                f.display()
            );
        }
    }
}

#[test]
fn nothing_imports_upward() {
    let deps = |c: &str| {
        gleaner_deps(&std::fs::read_to_string(services().join(c).join("Cargo.toml")).unwrap())
    };
    assert_eq!(
        deps("core"),
        Vec::<String>::new(),
        "core imports no gleaner crate"
    );
    assert_eq!(
        deps("text"),
        Vec::<String>::new(),
        "text imports no gleaner crate"
    );
    assert_eq!(
        deps("kafka"),
        vec!["core".to_string()],
        "the Kafka crate sits on core"
    );
    for c in STAGE_CRATES.iter().filter(|c| **c != "text") {
        for d in deps(c) {
            // Clean is the one stage another imports (fetch decodes links'
            // entities with it; extract's tests clean their pages).
            assert!(
                ["core", "text", "clean"].contains(&d.as_str()) && d != *c,
                "{c} imports gleaner-{d}"
            );
        }
    }
}

#[test]
fn core_knows_no_stage_by_name() {
    // The stage crates' names (text is shared code, not a stage).
    let names = STAGE_CRATES.iter().filter(|c| **c != "text");
    for f in sources(&services().join("core/src")) {
        if f.to_string_lossy().ends_with("_tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&f).unwrap();
        for line in code_lines(&text) {
            for n in names.clone() {
                assert!(
                    !line.contains(&format!("\"{n}\"")) && !line.contains(&format!("gleaner_{n}")),
                    "{} names the stage {n}: {line}",
                    f.display()
                );
            }
        }
    }
}

#[test]
fn no_source_file_is_over_600_lines() {
    let mut files = sources(&services());
    files.extend(sources(&services().join("../tests")));
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let n = text.lines().count();
        assert!(
            n <= 600,
            "{} has {n} lines: split it by concern",
            f.display()
        );
    }
}
