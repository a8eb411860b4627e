//! `ttldedup` (conformance/OPERATORS.md): the first delivery of each id per
//! key within a TTL wins, through the SDK's dedup helper.
//!
//! Config: empty (TTL 60000 ms) or `{"ttl_ms":N}` with N >= 1; anything
//! else is rejected. The id is the record's value.

use std::time::Duration;

use wasmstream::json::{parse_object, Value};
use wasmstream::{emit, Dedup, Error, Operator, Record, Result};

/// The TTL without a config, in milliseconds.
const DEFAULT_TTL_MS: i64 = 60_000;

/// Forwards a record unless its value was seen for its key within the TTL.
pub struct TtlDedup {
    seen: Dedup,
}

impl Operator for TtlDedup {
    fn init(config: &[u8]) -> Result<Self> {
        let ms = parse_config(config)?;
        // ms >= 1, so the conversion cannot fail.
        let ttl = Duration::from_millis(u64::try_from(ms).unwrap_or(1));
        Ok(TtlDedup {
            seen: Dedup::new("seen", ttl),
        })
    }

    fn process(&mut self, record: &Record<'_>) -> Result<()> {
        if self.seen.is_duplicate(record.value())? {
            return Ok(());
        }
        emit("out", record.key(), record.value())
    }
}

/// Reads the TTL in milliseconds from the config.
fn parse_config(config: &[u8]) -> Result<i64> {
    if config.is_empty() {
        return Ok(DEFAULT_TTL_MS);
    }
    let bad = |why: String| {
        Error::new(format!(
            "ttldedup config: want no config or {{\"ttl_ms\": N}} with N >= 1: {}",
            why
        ))
    };
    let obj = parse_object(config).map_err(|e| bad(e.to_string()))?;
    let mut ttl = None;
    for (name, value) in obj.fields() {
        match (name, value) {
            (b"ttl_ms", Value::Int(n)) if n >= 1 => ttl = Some(n),
            (b"ttl_ms", Value::Int(n)) => return Err(bad(format!("ttl_ms is {}", n))),
            (b"ttl_ms", Value::String(_)) => return Err(bad("ttl_ms is a string".into())),
            (other, _) => return Err(bad(format!("unknown field {}", wasmstream::quote(other)))),
        }
    }
    ttl.ok_or_else(|| bad("ttl_ms is missing".into()))
}

wasmstream::export_operator!(TtlDedup);

#[cfg(test)]
mod tests {
    use wasmstream::code;
    use wasmstream::testing::{Declaration, Harness, Options, TestRecord};

    use super::TtlDedup;

    fn harness(config: &str) -> Harness<TtlDedup> {
        Harness::new(Options {
            config: config.as_bytes().to_vec(),
            ..Options::default()
        })
        .unwrap_or_else(|e| panic!("config {:?}: {}", config, e))
    }

    fn ttl_of(config: &str) -> i64 {
        harness(config).declarations()[0].ttl_ms
    }

    #[test]
    fn the_config_sets_the_ttl_of_seen() {
        assert_eq!(
            harness("").declarations(),
            vec![Declaration {
                name: "seen".into(),
                version: 1,
                ttl_ms: 60_000,
                flags: 0,
            }]
        );
        assert_eq!(ttl_of(r#"{"ttl_ms":1}"#), 1);
        assert_eq!(ttl_of(r#" { "ttl_ms" : 250 } "#), 250);
        assert_eq!(
            ttl_of(r#"{"ttl_ms":999999999999999999}"#),
            999_999_999_999_999_999
        );
    }

    #[test]
    fn other_configs_are_rejected() {
        for cfg in [
            " ",
            "{}",
            r#"{"ttl_ms":0}"#,
            r#"{"ttl_ms":-5}"#,
            r#"{"ttl_ms":"60"}"#,
            r#"{"ttl_ms":1.5}"#,
            r#"{"ttl_ms":1,"x":1}"#,
            r#"{"ttl":60}"#,
            "[60]",
            "60",
        ] {
            let opts = Options {
                config: cfg.as_bytes().to_vec(),
                ..Options::default()
            };
            let err = Harness::<TtlDedup>::new(opts)
                .err()
                .unwrap_or_else(|| panic!("config {:?} was accepted", cfg));
            assert_eq!(err.code, code::GUEST_CONFIG, "{:?}", cfg);
        }
    }

    #[test]
    fn each_value_passes_once_per_key_until_its_ttl_is_over() {
        let mut h = harness(r#"{"ttl_ms":1000}"#);
        h.set_processing_time(0);
        let res = h.process(&[
            TestRecord::new("a", "e1").header("h", "v"),
            TestRecord::new("a", "e1"),
            TestRecord::new("b", "e1"),
            TestRecord::new("a", "e2"),
        ]);
        let got: Vec<(&[u8], &[u8])> = res
            .outputs
            .iter()
            .map(|o| (&o.key[..], &o.value[..]))
            .collect();
        assert_eq!(
            got,
            [
                (&b"a"[..], &b"e1"[..]),
                (&b"b"[..], &b"e1"[..]),
                (&b"a"[..], &b"e2"[..])
            ]
        );
        assert!(res.outputs.iter().all(|o| o.headers.is_empty()));
        assert_eq!(h.state("a", "seen\0e1"), Some(vec![1]));
        h.set_processing_time(999_000_000);
        assert!(h.process(&[TestRecord::new("a", "e1")]).outputs.is_empty());
        h.set_processing_time(1_000_000_000);
        assert_eq!(h.process(&[TestRecord::new("a", "e1")]).outputs.len(), 1);
    }
}
