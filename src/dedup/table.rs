//! [`HashTable`]: the exact form of Onion's seen set — an open-addressing set of 64-bit hash
//! values (linear probing, power-of-two capacity, at most 3/4 full), 8 bytes per slot, so
//! 10.7 to 21.3 bytes per distinct n-gram between two growths.
//!
//! The values are xxh3 hashes already, so a value's low bits are its slot. Slot value 0 means
//! empty; the value 0 itself is held in a flag. At web scale the table is far larger than the
//! CPU caches and each look-up is one cache miss: [`HashTable::prefetch`] asks for a value's
//! slot ahead of its look-up, so that Onion ([`super::Onion::filter_with`]) overlaps the misses
//! of a paragraph's n-grams instead of waiting for each in turn.

/// Slots of a new table.
const INITIAL_SLOTS: usize = 1 << 10;

/// An open-addressing set of `u64` hash values (see the module doc).
#[derive(Debug, Clone)]
pub struct HashTable {
    /// Power-of-two number of slots; 0 marks an empty slot.
    slots: Vec<u64>,
    /// Values held in `slots` (0 not counted).
    len: usize,
    /// Whether the value 0 is in the set.
    has_zero: bool,
}

impl Default for HashTable {
    fn default() -> Self {
        HashTable { slots: vec![0; INITIAL_SLOTS], len: 0, has_zero: false }
    }
}

impl HashTable {
    fn mask(&self) -> usize {
        self.slots.len() - 1
    }

    /// Index of the slot holding `h`, or of the empty slot where it would go.
    fn find(&self, h: u64) -> usize {
        let mask = self.mask();
        let mut i = h as usize & mask;
        loop {
            let v = self.slots[i];
            if v == h || v == 0 {
                return i;
            }
            i = (i + 1) & mask;
        }
    }

    /// True when `h` was inserted.
    pub fn contains(&self, h: u64) -> bool {
        if h == 0 {
            return self.has_zero;
        }
        self.slots[self.find(h)] == h
    }

    /// Add `h`; true when it was absent.
    pub fn insert(&mut self, h: u64) -> bool {
        if h == 0 {
            return !std::mem::replace(&mut self.has_zero, true);
        }
        let i = self.find(h);
        if self.slots[i] == h {
            return false;
        }
        self.slots[i] = h;
        self.len += 1;
        if self.len * 4 > self.slots.len() * 3 {
            self.grow();
        }
        true
    }

    fn grow(&mut self) {
        // Written zeros, not `calloc`'s untouched pages: each page then faults once, on this
        // write, instead of once on the probe's read and again on the insert's write.
        #[allow(clippy::slow_vector_initialization)]
        let mut doubled = Vec::with_capacity(self.slots.len() * 2);
        doubled.resize(self.slots.len() * 2, 0u64);
        let old = std::mem::replace(&mut self.slots, doubled);
        let mask = self.mask();
        for h in old.into_iter().filter(|&h| h != 0) {
            let mut i = h as usize & mask;
            while self.slots[i] != 0 {
                i = (i + 1) & mask;
            }
            self.slots[i] = h;
        }
    }

    /// Hint the CPU to load the slot where `h` is looked up; no effect on the set.
    #[inline]
    pub fn prefetch(&self, h: u64) {
        prefetch(&self.slots[h as usize & self.mask()]);
    }

    /// Distinct values held.
    pub fn len(&self) -> usize {
        self.len + usize::from(self.has_zero)
    }

    /// True when nothing was inserted.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every value, in slot order.
    pub fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        self.has_zero.then_some(0).into_iter().chain(self.slots.iter().copied().filter(|&h| h != 0))
    }

    /// Bytes of the slot array.
    pub fn bytes(&self) -> usize {
        self.slots.len() * 8
    }
}

/// Ask for the cache line holding `value` (a hint: no effect where the CPU has no prefetch
/// instruction exposed here).
#[inline]
pub fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `_mm_prefetch` only hints the cache; the pointer comes from a live reference,
    // and a prefetch never faults nor reads into the program's state.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>((value as *const T).cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    /// Against std's set over a million mixed values, zero and colliding low bits included,
    /// through several growths.
    #[test]
    fn agrees_with_a_std_set() {
        let mut t = HashTable::default();
        let mut s = HashSet::new();
        for i in 0..1_000_000u64 {
            // Every 7th value shares its low 20 bits with others (long probe runs).
            let v = if i % 7 == 0 { (i << 20) | 0x5 } else { xxhash_rust::xxh3::xxh3_64(&(i % 600_000).to_le_bytes()) };
            let v = if i % 100_003 == 0 { 0 } else { v };
            assert_eq!(t.insert(v), s.insert(v), "insert {v}");
        }
        assert_eq!(t.len(), s.len());
        for i in 0..200_000u64 {
            let v = xxhash_rust::xxh3::xxh3_64(&(i * 13).to_le_bytes());
            assert_eq!(t.contains(v), s.contains(&v));
        }
        let mut all: Vec<u64> = t.iter().collect();
        all.sort_unstable();
        let mut expected: Vec<u64> = s.into_iter().collect();
        expected.sort_unstable();
        assert_eq!(all, expected);
        assert!(t.bytes() <= t.len() * 22, "{} bytes for {} values", t.bytes(), t.len());
    }
}
