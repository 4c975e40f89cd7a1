//! Runs the per-kernel computation of a module pass on the context's threads.
//!
//! Passes that treat every kernel on its own (`--schedule`, `--auto-tiling`) read the IR
//! on the pass's thread, compute on all threads the context allows, then write the IR
//! and emit diagnostics back on the pass's thread in module order. The IR is never
//! touched concurrently and the output does not depend on the thread count.

/// `f` applied to every item, in item order, on up to `threads` threads (contiguous
/// chunks, one per thread; the calling thread takes the first).
pub fn map<T: Sync, R: Send>(threads: usize, items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = threads.clamp(1, items.len().max(1));
    if threads == 1 {
        return items.iter().map(&f).collect();
    }
    let chunk = items.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let f = &f;
        let mut chunks = items.chunks(chunk);
        let first = chunks.next().unwrap_or(&[]);
        let workers: Vec<_> = chunks
            .map(|part| scope.spawn(move || part.iter().map(f).collect::<Vec<R>>()))
            .collect();
        let mut out: Vec<R> = first.iter().map(f).collect();
        for worker in workers {
            match worker.join() {
                Ok(part) => out.extend(part),
                // A panic in a worker is a bug in the computation: pass it on unchanged.
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        out
    })
}

#[cfg(test)]
mod tests {
    use super::map;

    #[test]
    fn keeps_item_order_for_every_thread_count() {
        let items: Vec<u64> = (0..103).collect();
        let want: Vec<u64> = items.iter().map(|x| x * x + 1).collect();
        for threads in [0, 1, 2, 3, 8, 200] {
            assert_eq!(
                map(threads, &items, |x| x * x + 1),
                want,
                "{threads} threads"
            );
        }
        assert!(map(4, &[] as &[u64], |x| *x).is_empty());
    }
}
