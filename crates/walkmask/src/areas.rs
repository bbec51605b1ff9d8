//! Sets of enabled walkable areas.

/// A set of enabled area ids (1..=255). Area 0 means "blocked" and is never enabled.
///
/// Copying a set is cheap (32 bytes) and changing it never touches the mask.
///
/// ```
/// use walkmask::AreaSet;
/// let mut areas = AreaSet::only(&[1]);
/// assert!(areas.contains(1) && !areas.contains(2));
/// areas.insert(2); // the gate opens
/// assert!(areas.contains(2));
/// assert!(!AreaSet::all().contains(0));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct AreaSet {
    bits: [u64; 4],
}

impl AreaSet {
    /// No area enabled: nothing is walkable.
    pub const fn none() -> Self {
        Self { bits: [0; 4] }
    }

    /// Every area 1..=255 enabled.
    pub const fn all() -> Self {
        Self {
            bits: [!1u64, !0, !0, !0],
        }
    }

    /// The set with these 256 bits (bit `id` of word `id / 64` for area `id`; bit 0
    /// is ignored, area 0 is never enabled).
    pub const fn from_bits(mut bits: [u64; 4]) -> Self {
        bits[0] &= !1;
        Self { bits }
    }

    /// The set's 256 bits, as [`AreaSet::from_bits`] takes them.
    pub const fn bits(&self) -> [u64; 4] {
        self.bits
    }

    /// Exactly the listed areas (0 is ignored).
    pub fn only(ids: &[u8]) -> Self {
        let mut set = Self::none();
        for &id in ids {
            set.insert(id);
        }
        set
    }

    /// Whether `id` is enabled. Always false for 0.
    #[inline]
    pub const fn contains(&self, id: u8) -> bool {
        (self.bits[(id >> 6) as usize] >> (id & 63)) & 1 == 1
    }

    /// Enables `id` (0 is ignored).
    pub fn insert(&mut self, id: u8) {
        if id != 0 {
            self.bits[(id >> 6) as usize] |= 1 << (id & 63);
        }
    }

    /// Disables `id`.
    pub fn remove(&mut self, id: u8) {
        self.bits[(id >> 6) as usize] &= !(1 << (id & 63));
    }

    /// Enables or disables `id`.
    pub fn set(&mut self, id: u8, enabled: bool) {
        if enabled {
            self.insert(id)
        } else {
            self.remove(id)
        }
    }

    /// The areas enabled in both sets (a walker limited to some areas in a room
    /// with some areas enabled).
    pub fn intersection(&self, other: &AreaSet) -> AreaSet {
        let mut bits = [0; 4];
        for (i, b) in bits.iter_mut().enumerate() {
            *b = self.bits[i] & other.bits[i];
        }
        AreaSet { bits }
    }

    /// Whether no area is enabled.
    pub fn is_empty(&self) -> bool {
        self.bits == [0; 4]
    }

    /// The enabled ids in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = u8> + '_ {
        (1..=255u8).filter(|&id| self.contains(id))
    }

    /// A lookup table: `table[id]` is whether `id` is enabled.
    pub fn lookup_table(&self) -> [bool; 256] {
        let mut table = [false; 256];
        for (id, slot) in table.iter_mut().enumerate() {
            *slot = self.contains(id as u8);
        }
        table
    }
}

impl FromIterator<u8> for AreaSet {
    fn from_iter<I: IntoIterator<Item = u8>>(iter: I) -> Self {
        let mut set = Self::none();
        for id in iter {
            set.insert(id);
        }
        set
    }
}

impl std::fmt::Debug for AreaSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_255_ids_are_representable() {
        let all = AreaSet::all();
        assert_eq!(all.iter().count(), 255);
        assert!(!all.contains(0));
        let mut set = AreaSet::none();
        for id in 1..=255u8 {
            assert!(!set.contains(id));
            set.insert(id);
            assert!(set.contains(id));
        }
        assert_eq!(set, all);
        set.insert(0);
        assert_eq!(set, all);
        set.remove(200);
        assert!(!set.contains(200) && set.contains(199) && set.contains(201));
    }

    #[test]
    fn intersection_and_table() {
        let a = AreaSet::only(&[1, 2, 3, 200]);
        let b = AreaSet::only(&[2, 200, 255]);
        assert_eq!(a.intersection(&b), AreaSet::only(&[2, 200]));
        let t = a.lookup_table();
        assert!(t[1] && t[200] && !t[0] && !t[4]);
    }
}
