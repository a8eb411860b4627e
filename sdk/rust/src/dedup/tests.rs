//! The dedup set on the fake host: its layout, its declaration, its TTL and
//! its rollback with a failed record.

use std::time::Duration;

use crate::testing::{Declaration, Failure, Harness, Options, TestRecord};
use crate::{emit, Dedup, ErrorKind, Operator, Record, Result};

/// Forwards the first delivery of each value per key within a second;
/// a value starting with "fail" is remembered and then fails its record.
struct Once {
    seen: Dedup,
}

impl Operator for Once {
    fn init(_config: &[u8]) -> Result<Self> {
        Ok(Once {
            seen: Dedup::new("seen", Duration::from_secs(1)),
        })
    }

    fn process(&mut self, r: &Record<'_>) -> Result<()> {
        if self.seen.is_duplicate(r.value())? {
            return Ok(());
        }
        if r.value().starts_with(b"fail") {
            return Err("failing on purpose".into());
        }
        emit("out", r.key(), r.value())
    }
}

fn once() -> Harness<Once> {
    Harness::new(Options::default()).expect("init")
}

fn passed(h: &mut Harness<Once>, records: &[TestRecord]) -> Vec<(String, String)> {
    let res = h.process(records);
    let text = |b: &[u8]| String::from_utf8(b.to_vec()).unwrap();
    res.outputs
        .iter()
        .map(|o| (text(&o.key), text(&o.value)))
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn the_first_delivery_of_an_id_per_key_passes() {
    let mut h = once();
    let got = passed(
        &mut h,
        &[
            TestRecord::new("a", "e1"),
            TestRecord::new("a", "e1"),
            TestRecord::new("b", "e1"),
            TestRecord::new("a", "e2"),
            TestRecord::new("a", ""),
            TestRecord::new("a", ""),
        ],
    );
    assert_eq!(
        got,
        pairs(&[("a", "e1"), ("b", "e1"), ("a", "e2"), ("a", "")])
    );
    assert!(passed(&mut h, &[TestRecord::new("b", "e1")]).is_empty());
    assert_eq!(
        h.state("a", "seen\0e1"),
        Some(vec![1]),
        "map entry name \\0 id = 0x01"
    );
    assert_eq!(
        h.state("a", "seen\0"),
        Some(vec![1]),
        "an empty id is an id"
    );
}

#[test]
fn the_set_is_declared_with_its_ttl() {
    assert_eq!(
        once().declarations(),
        vec![Declaration {
            name: "seen".into(),
            version: 1,
            ttl_ms: 1000,
            flags: 0,
        }]
    );
    assert_eq!(
        Harness::<Once>::new(Options::default())
            .unwrap()
            .operator()
            .seen
            .name(),
        "seen"
    );
}

#[test]
fn an_id_passes_again_once_its_ttl_is_over() {
    let mut h = once();
    h.set_processing_time(0);
    assert_eq!(passed(&mut h, &[TestRecord::new("a", "e1")]).len(), 1);
    h.set_processing_time(999_000_000);
    assert!(passed(&mut h, &[TestRecord::new("a", "e1")]).is_empty());
    h.set_processing_time(1_000_000_000);
    assert_eq!(passed(&mut h, &[TestRecord::new("a", "e1")]).len(), 1);
}

#[test]
fn a_failed_record_does_not_remember_its_id() {
    let mut h = once();
    let res = h.process(&[TestRecord::new("a", "fail-1"), TestRecord::new("a", "e1")]);
    assert_eq!(res.dead_letters.len(), 1);
    assert_eq!(res.dead_letters[0].failure, Failure::Record);
    assert_eq!(h.state("a", "seen\0fail-1"), None);
    assert_eq!(h.state("a", "seen\0e1"), Some(vec![1]));
}

#[test]
fn ids_over_the_entry_name_limit_are_bad_arguments() {
    struct Long(Dedup);
    impl Operator for Long {
        fn init(_config: &[u8]) -> Result<Self> {
            Ok(Long(Dedup::new("seen", Duration::from_secs(1))))
        }
        fn process(&mut self, r: &Record<'_>) -> Result<()> {
            let id = vec![b'x'; r.value().len()];
            match self.0.is_duplicate(&id) {
                Err(e) if e.kind() == ErrorKind::BadArgument => emit("out", "", e.to_string()),
                Err(e) => Err(e),
                Ok(dup) => emit("out", "", dup.to_string()),
            }
        }
    }
    let mut h = Harness::<Long>::new(Options::default()).unwrap();
    let res = h.process(&[
        TestRecord::new("a", vec![0u8; 1019]),
        TestRecord::new("a", vec![0u8; 1020]),
    ]);
    let text: Vec<String> = res
        .outputs
        .iter()
        .map(|o| String::from_utf8(o.value.clone()).unwrap())
        .collect();
    assert_eq!(text[0], "false", "1019 bytes fit: 4 + 1 + 1019 = 1024");
    assert!(text[1].starts_with("map get \"seen[x"), "{}", text[1]);
}
