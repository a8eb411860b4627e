//! The buffer `ws_alloc` hands to the host for configs and batches.

use std::cell::RefCell;

/// The smallest buffer handed out, so that a stream of small batches does
/// not reallocate for every few extra bytes.
const MIN_ALLOC: usize = 64 << 10;

thread_local! {
    /// The host's buffer: it belongs to the host until the next ws_alloc.
    static BUFFER: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Returns the address of a buffer of at least `size` bytes, reusing the current one when it is big
/// enough, or 0 when memory cannot grow that far, which the host reports as
/// a misuse of `ws_alloc`. The contents are not kept: the ABI says the old
/// buffer is dead once ws_alloc is called again.
pub(crate) fn alloc(size: usize) -> usize {
    BUFFER.with(|b| {
        let mut buf = b.borrow_mut();
        if size > buf.len() {
            // Free first, so that the allocator can reuse the old space.
            *buf = Vec::new();
            let want = size.max(MIN_ALLOC);
            if buf.try_reserve_exact(want).is_err() {
                return 0;
            }
            buf.resize(want, 0);
        }
        buf.as_ptr() as usize
    })
}

/// Calls `f` with the `len` bytes at address `ptr`, which must lie inside
/// the buffer from `alloc` (an empty range may have any address), or with
/// `None` when they do not.
pub(crate) fn with_host_bytes<R>(ptr: usize, len: usize, f: impl FnOnce(Option<&[u8]>) -> R) -> R {
    if len == 0 {
        return f(Some(&[]));
    }
    // Taken out of the cell for the call: the host cannot call ws_alloc
    // while the guest runs, and the operator must not reach the cell.
    let buf = BUFFER.with(|b| std::mem::take(&mut *b.borrow_mut()));
    let base = buf.as_ptr() as usize;
    let start = ptr.wrapping_sub(base);
    let bytes = if ptr >= base && start <= buf.len() && len <= buf.len() - start {
        Some(&buf[start..start + len])
    } else {
        None
    };
    let r = f(bytes);
    BUFFER.with(|b| *b.borrow_mut() = buf);
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reuses_the_buffer_until_a_bigger_one_is_needed() {
        let p1 = alloc(10);
        assert_ne!(p1, 0);
        assert_eq!(alloc(MIN_ALLOC), p1, "fits: same buffer");
        let p2 = alloc(MIN_ALLOC + 1);
        assert_ne!(p2, 0);
        assert_eq!(alloc(0), p2);
    }

    #[test]
    fn hands_out_only_ranges_inside_the_buffer() {
        let p = alloc(100);
        let len = BUFFER.with(|b| b.borrow().len());
        assert_eq!(with_host_bytes(p, 4, |b| b.map(|b| b.len())), Some(4));
        assert!(with_host_bytes(p + len - 1, 1, |b| b.is_some()));
        assert!(
            !with_host_bytes(p + len - 1, 2, |b| b.is_some()),
            "past the end"
        );
        assert!(
            !with_host_bytes(p.wrapping_sub(1), 2, |b| b.is_some()),
            "before the start"
        );
        assert_eq!(
            with_host_bytes(0, 0, |b| b.map(|b| b.len())),
            Some(0),
            "empty is always fine"
        );
        assert!(!with_host_bytes(p, usize::MAX, |b| b.is_some()));
    }
}
