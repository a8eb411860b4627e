//! Finding the bytes a JSON string holds as they are, eight at a time.
//!
//! Every loop iteration of a guest also checks the host's deadline (tens
//! of nanoseconds under wazero), so a byte-at-a-time scan would dominate
//! the cost of a record; these test a word per iteration.

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// High bit set in each byte of `w` that equals `c`; exact when used as a
/// yes/no answer (the classic "has zero byte" test has no false negatives,
/// and its false positives only follow a true one).
fn has_byte(w: u64, c: u8) -> u64 {
    let x = w ^ (ONES * c as u64);
    x.wrapping_sub(ONES) & !x & HIGHS
}

/// High bit set in each byte of `w` below 0x20 (same caveat).
fn has_control(w: u64) -> u64 {
    w.wrapping_sub(ONES * 0x20) & !w & HIGHS
}

/// The length of the longest prefix of `b` where `special(word)` finds
/// nothing, eight bytes at a time, then finishing byte by byte with `is`.
fn prefix(b: &[u8], special: impl Fn(u64) -> u64, is: impl Fn(u8) -> bool) -> usize {
    let mut i = 0;
    while let Some(chunk) = b.get(i..i + 8) {
        let w = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
        if special(w) != 0 {
            break;
        }
        i += 8;
    }
    i + b[i..].iter().position(|&c| is(c)).unwrap_or(b.len() - i)
}

/// The length of the longest prefix of `b` without `"`, `\` or a control
/// character: the bytes the parser accepts in a string.
pub(super) fn plain_prefix(b: &[u8]) -> usize {
    prefix(
        b,
        |w| has_byte(w, b'"') | has_byte(w, b'\\') | has_control(w),
        |c| c == b'"' || c == b'\\' || c < 0x20,
    )
}

/// The length of the longest prefix of `b` that Go's `encoding/json` writes
/// unchanged and that is ASCII: no `"`, `\`, control character, `<`, `>`,
/// `&` or byte of 0x80 and above (which the writer looks at per character).
pub(super) fn safe_ascii_prefix(b: &[u8]) -> usize {
    prefix(
        b,
        |w| {
            has_byte(w, b'"')
                | has_byte(w, b'\\')
                | has_control(w)
                | has_byte(w, b'<')
                | has_byte(w, b'>')
                | has_byte(w, b'&')
                | (w & HIGHS)
        },
        |c| matches!(c, b'"' | b'\\' | b'<' | b'>' | b'&') || !(0x20..0x80).contains(&c),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Puts each special byte at each position of clean strings of many
    /// lengths: the scan must stop exactly there, in the word loop or after.
    fn check(scan: fn(&[u8]) -> usize, specials: &[u8], plain: &[u8]) {
        for len in 0..20 {
            let clean = vec![b'a'; len];
            assert_eq!(scan(&clean), len);
            for pos in 0..len {
                for &special in specials {
                    let mut b = clean.clone();
                    b[pos] = special;
                    assert_eq!(scan(&b), pos, "len {} pos {} byte {:#x}", len, pos, special);
                }
            }
        }
        assert_eq!(scan(plain), plain.len());
    }

    #[test]
    fn plain_prefix_stops_at_quotes_backslashes_and_controls() {
        let specials: Vec<u8> = [b'"', b'\\'].iter().copied().chain(0..0x20).collect();
        let plain: Vec<u8> = (0x20u8..=0xff).filter(|c| !specials.contains(c)).collect();
        check(plain_prefix, &specials, &plain);
    }

    #[test]
    fn safe_ascii_prefix_also_stops_at_html_characters_and_non_ascii() {
        let specials: Vec<u8> = [b'"', b'\\', b'<', b'>', b'&']
            .iter()
            .copied()
            .chain(0..0x20)
            .chain(0x80..=0xff)
            .collect();
        let plain: Vec<u8> = (0x20u8..0x80).filter(|c| !specials.contains(c)).collect();
        check(safe_ascii_prefix, &specials, &plain);
    }
}
