//! The probe operator. Each record value is a command `name[:arg[:arg]]`:
//!
//! | command | effect |
//! |---|---|
//! | `count` | adds 1 to value state `count`, emits the new count |
//! | `note:k:text`, `read:k`, `forget:k` | map state `notes`: put, get (emits the text or `absent`), delete |
//! | `big:n` | puts n bytes `n % 251` in `big`, reads them back, emits `<len>:<first>:<last>` |
//! | `echo` | emits the record with its headers plus `event-time`, `input`, `processing-time` |
//! | `emit-to:name` | emits to output `name`; on error emits the error kind to `out` |
//! | `emit-big:n` | emits n bytes; on error emits the error kind |
//! | `spam:n` | emits n times; an error fails the record |
//! | `log` | logs at the five levels |
//! | `garbage:n` | allocates and drops n bytes |
//! | `fail` | writes state and emits, then fails the record |
//! | `panic` | panics |
//!
//! Config: any UTF-8 text, prefixed to `count` outputs; `bad` is rejected.

use wasmstream::{
    emit, emit_with_headers, event_time, processing_time, Error, MapState, Operator, Record,
    Result, ValueState,
};

static COUNT: ValueState<i64> = ValueState::new("count");
static NOTES: MapState<String> = MapState::new("notes");
static BIG: ValueState<Vec<u8>> = ValueState::new("big");

/// See the crate documentation.
pub struct Probe {
    prefix: String,
}

impl Operator for Probe {
    fn init(config: &[u8]) -> Result<Self> {
        if config == b"bad" {
            return Err("config \"bad\" is rejected".into());
        }
        wasmstream::info!("probe ready at {}", processing_time());
        Ok(Probe {
            prefix: String::from_utf8(config.to_vec())?,
        })
    }

    fn process(&mut self, r: &Record<'_>) -> Result<()> {
        let v = std::str::from_utf8(r.value())?;
        let mut parts = v.splitn(3, ':');
        let (cmd, a, b) = (
            parts.next().unwrap_or(""),
            parts.next().unwrap_or(""),
            parts.next().unwrap_or(""),
        );
        match cmd {
            "count" => {
                let n = COUNT.get()?.unwrap_or(0) + 1;
                COUNT.put(&n)?;
                emit("out", r.key(), format!("{}{}", self.prefix, n))
            }
            "note" => NOTES.put(a, &b.to_string()),
            "read" => emit(
                "out",
                r.key(),
                NOTES.get(a)?.unwrap_or_else(|| "absent".into()),
            ),
            "forget" => NOTES.delete(a),
            "big" => big(r, number(a)?),
            "echo" => echo(r),
            "emit-to" => report(emit(a, r.key(), "x")),
            "emit-big" => report(emit("out", "", vec![b'x'; number(a)?])),
            "spam" => (0..number(a)?).try_for_each(|_| emit("out", "", "s")),
            "log" => {
                wasmstream::trace!("t");
                wasmstream::debug!("d");
                wasmstream::info!("i");
                wasmstream::warn!("w");
                wasmstream::error!("e");
                Ok(())
            }
            "garbage" => {
                let mut g = vec![1u8; number(a)?.max(1)];
                // A volatile write keeps the optimiser from eliding the allocation.
                unsafe { std::ptr::write_volatile(g.as_mut_ptr(), 2) };
                Ok(())
            }
            "fail" => {
                COUNT.put(&-100)?;
                emit("out", "", "lost")?;
                Err(Error::new(format!(
                    "record {} fails on purpose",
                    wasmstream::quote(r.key())
                )))
            }
            "panic" => panic!("boom at {}", wasmstream::quote(r.key())),
            _ => Err(Error::new(format!(
                "unknown command {}",
                wasmstream::quote(cmd.as_bytes())
            ))),
        }
    }
}

fn number(s: &str) -> Result<usize> {
    s.parse().map_err(|_| {
        Error::new(format!(
            "{} is not a number",
            wasmstream::quote(s.as_bytes())
        ))
    })
}

/// Writes n bytes, all `n % 251`, reads them back and emits
/// `<len>:<first>:<last>`. (Filled, not computed byte by byte: every loop
/// iteration of a guest also checks the host's deadline.)
fn big(r: &Record<'_>, n: usize) -> Result<()> {
    BIG.put(&vec![(n % 251) as u8; n])?;
    let back = BIG.get()?.ok_or("big: the value just written is absent")?;
    let (first, last) = (
        back.first().copied().unwrap_or(0),
        back.last().copied().unwrap_or(0),
    );
    emit("out", r.key(), format!("{}:{}:{}", back.len(), first, last))
}

/// Emits the record with its headers and what the host says about it.
fn echo(r: &Record<'_>) -> Result<()> {
    let mut headers: Vec<(Vec<u8>, Vec<u8>)> =
        r.headers().map(|(n, v)| (n.to_vec(), v.to_vec())).collect();
    for (name, value) in [
        ("event-time", event_time().to_string()),
        ("record-event-time", r.event_time().to_string()),
        ("input", r.input().to_string()),
        ("processing-time", processing_time().to_string()),
    ] {
        headers.push((name.as_bytes().to_vec(), value.into_bytes()));
    }
    emit_with_headers("out", r.key(), r.value(), &headers)
}

/// Emits the kind of an emit error to `out`, so the test sees it.
fn report(result: Result<()>) -> Result<()> {
    match result {
        Ok(()) => Ok(()),
        Err(e) => emit("out", "", format!("{:?}", e.kind())),
    }
}

wasmstream::export_operator!(Probe);
