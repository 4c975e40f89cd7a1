//! A bounded memo of values parsed from text, for the per-thread caches of parsers whose
//! inputs repeat (expression and tensor-type texts in every kernel of a module).
//!
//! Preconditions: the parse it remembers is deterministic. Postconditions: at most
//! `limit` texts are kept; past that the memo starts over (no eviction bookkeeping).

use std::collections::HashMap;

/// Text -> parsed value, forgotten all at once when `limit` texts are held.
pub struct TextMemo<T> {
    values: HashMap<Box<str>, T>,
    limit: usize,
}

impl<T: Clone> TextMemo<T> {
    pub fn new(limit: usize) -> TextMemo<T> {
        TextMemo {
            values: HashMap::new(),
            limit,
        }
    }

    pub fn get(&self, text: &str) -> Option<T> {
        self.values.get(text).cloned()
    }

    pub fn insert(&mut self, text: &str, value: T) {
        if self.values.len() >= self.limit {
            self.values.clear();
        }
        self.values.insert(text.into(), value);
    }
}
