//! A parsed JSON document as one flat list of slots: how the gate holds a card.
//!
//! A card is read once, hashed once and looked at in a few places, so it is not worth a tree of
//! separately allocated strings, vectors and members (that tree took about half of the gate's
//! time, most of it in the allocator). A [`Document`] is three buffers: the slots in document
//! order (a container's slot is followed by its members, each a key slot then the value's
//! slots), a copy of the JSON text (a string without escapes is a range of it), and the
//! decoded text of the strings that had escapes. A [`Node`] is a copyable handle
//! on one slot with the reading methods of [`Value`]; [`Node::to_value`] builds the tree for the
//! rare caller that needs one (a rejected decision carries its card).
//!
//! Strings whose JSON text has no escape are marked `plain`: their text is already their
//! RFC 8785 form between quotes (JSON forbids raw `"`, `\` and control characters in a
//! string), so the canonical writer copies them whole.
//!
//! Documents come from [`crate::json::parse_document`] (strict I-JSON) or from a [`Value`]
//! ([`Document::from_value`]); both give unique member names, so a [`Node::get`] finds the one
//! member of that name.

use crate::json::Value;

/// One slot: a scalar, a string, or the head of a container.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Slot {
    Null,
    Bool(bool),
    Number(f64),
    /// `text[at..at + len]` when `plain` (its JSON text had no escape), else
    /// `decoded[at..at + len]`.
    Str {
        at: usize,
        len: usize,
        plain: bool,
    },
    /// `len` elements follow; the slot after the last one's is `end`.
    Array {
        len: usize,
        end: usize,
    },
    /// `len` members (key slot, value slots) follow; the slot after the last one's is `end`.
    /// `names` has the [`name_filter_bit`] of each member name set, so a lookup of a name no
    /// member has is mostly answered without reading the members (a card view looks up many
    /// optional members a card lacks).
    Object {
        len: usize,
        end: usize,
        names: u32,
    },
}

/// A parsed JSON document (see the module documentation).
#[derive(Debug, Clone, Default)]
pub struct Document {
    slots: Vec<Slot>,
    text: String,
    decoded: String,
    /// Some member name holds U+0000 or starts with `[` (names an A2A SDK reads apart: see
    /// [`Node::has_unusual_names`]).
    unusual_names: bool,
    /// The top-level object's members by their names' [`name_filter_bit`]: at the bit's
    /// position, the name slot's index + 1 of the one member that has it (0: not indexed), so a
    /// card view's many lookups of top-level members read one name each.
    root_members: [u16; 32],
    /// The bits more than one top-level member name has (their lookups read the members).
    root_shared: u32,
}

impl Document {
    /// An empty document to be filled by the reader from `text` (kept, for the plain strings).
    pub(crate) fn for_text(text: &str) -> Document {
        Document {
            // About one slot per 16 bytes of card text.
            slots: Vec::with_capacity(text.len() / 16 + 4),
            text: text.to_owned(),
            decoded: String::new(),
            unusual_names: false,
            root_members: [0; 32],
            root_shared: 0,
        }
    }

    /// The document holding the same JSON as `value`.
    pub fn from_value(value: &Value) -> Document {
        let mut doc = Document::default();
        doc.push_value(value);
        doc.index_root();
        doc
    }

    /// Fills the index of the top-level object's members (`root_members`) of a document built
    /// without [`Document::note_root_member`].
    fn index_root(&mut self) {
        let Some(&Slot::Object { len, .. }) = self.slots.first() else {
            return;
        };
        let mut key = 1;
        for _ in 0..len {
            self.note_root_member(key, name_bit(self.str_bytes_at(key)));
            key = self.end_of(key + 1);
        }
    }

    /// Notes that the top-level object has a member whose name is the string slot `key`, of
    /// [`name_bit`] `bit`.
    #[inline]
    pub(crate) fn note_root_member(&mut self, key: usize, bit: u64) {
        let bit = fold_name_bits(bit);
        if let Some(entry) = self.root_members.get_mut(bit.trailing_zeros() as usize) {
            match u16::try_from(key + 1) {
                Ok(index) if *entry == 0 => *entry = index,
                _ => self.root_shared |= bit,
            }
        }
    }

    fn push_value(&mut self, value: &Value) {
        match value {
            Value::Null => self.push(Slot::Null),
            Value::Bool(b) => self.push(Slot::Bool(*b)),
            Value::Number(n) => self.push(Slot::Number(*n)),
            Value::String(s) => {
                self.push_str(s);
            }
            Value::Array(items) => {
                let head = self.open_array();
                items.iter().for_each(|item| self.push_value(item));
                self.close(head, items.len());
            }
            Value::Object(members) => {
                let head = self.open_object();
                let mut names = 0;
                for (k, v) in members {
                    self.note_name(k);
                    self.push_str(k);
                    names |= name_bit(k.as_bytes());
                    self.push_value(v);
                }
                self.close_object(head, members.len(), names);
            }
        }
    }

    /// About how long the canonical form is: every string, plus a few bytes per slot.
    pub(crate) fn canonical_len_hint(&self) -> usize {
        self.text.len() + self.decoded.len() + 4 * self.slots.len()
    }

    /// The heap bytes this document holds (capacities), for hosts that bound memory.
    pub fn heap_bytes(&self) -> usize {
        self.slots.capacity() * std::mem::size_of::<Slot>()
            + self.text.capacity()
            + self.decoded.capacity()
    }

    /// The top-level value.
    pub fn root(&self) -> Node<'_> {
        Node { doc: self, at: 0 }
    }

    #[inline]
    pub(crate) fn push(&mut self, slot: Slot) {
        self.slots.push(slot);
    }

    /// Appends a string slot for a decoded string; returns its index.
    #[inline]
    pub(crate) fn push_str(&mut self, s: &str) -> usize {
        let at = self.decoded.len();
        self.decoded.push_str(s);
        self.slots.push(Slot::Str {
            at,
            len: s.len(),
            plain: false,
        });
        self.slots.len() - 1
    }

    /// Appends a string slot for `text[at..at + len]`, a string without escapes; returns its
    /// index.
    #[inline]
    pub(crate) fn push_plain_str(&mut self, at: usize, len: usize) -> usize {
        self.slots.push(Slot::Str {
            at,
            len,
            plain: true,
        });
        self.slots.len() - 1
    }

    /// Notes a member name before its slot is pushed (see [`Node::has_unusual_names`]).
    #[inline]
    pub(crate) fn note_name(&mut self, name: &str) {
        if name.starts_with('[') || name.as_bytes().contains(&0) {
            self.unusual_names = true;
        }
    }

    /// Opens an array; `close` it with its length after its elements.
    #[inline]
    pub(crate) fn open_array(&mut self) -> usize {
        self.slots.push(Slot::Array { len: 0, end: 0 });
        self.slots.len() - 1
    }

    /// Opens an object; `close_object` it after its members.
    #[inline]
    pub(crate) fn open_object(&mut self) -> usize {
        self.slots.push(Slot::Object {
            len: 0,
            end: 0,
            names: 0,
        });
        self.slots.len() - 1
    }

    /// Closes the array opened at `head` with its element count.
    #[inline]
    pub(crate) fn close(&mut self, head: usize, count: usize) {
        let end = self.slots.len();
        if let Some(Slot::Array { len, end: e }) = self.slots.get_mut(head) {
            *len = count;
            *e = end;
        }
    }

    /// Closes the object opened at `head` with its member count and the [`name_bit`]s of its
    /// member names, or-ed.
    #[inline]
    pub(crate) fn close_object(&mut self, head: usize, count: usize, name_bits: u64) {
        let end = self.slots.len();
        if let Some(Slot::Object { len, end: e, names }) = self.slots.get_mut(head) {
            *len = count;
            *e = end;
            *names = fold_name_bits(name_bits);
        }
    }

    /// The text of a string slot's `at`, `len` and `plain`.
    #[inline]
    pub(crate) fn str_text(&self, at: usize, len: usize, plain: bool) -> &str {
        let buffer = if plain { &self.text } else { &self.decoded };
        buffer.get(at..at + len).unwrap_or_default()
    }

    /// The bytes of a string slot's `at`, `len` and `plain` (no character-boundary checks).
    #[inline]
    pub(crate) fn str_bytes(&self, at: usize, len: usize, plain: bool) -> Option<&[u8]> {
        let buffer = if plain { &self.text } else { &self.decoded };
        buffer.as_bytes().get(at..at + len)
    }

    /// A plain string's JSON text with its quotes, as bytes (`text[at - 1..at + len + 1]`), which is
    /// also its RFC 8785 form.
    #[inline]
    pub(crate) fn quoted_plain_bytes(&self, at: usize, len: usize) -> Option<&[u8]> {
        // A start past the end (`at` 0, which a plain string never has) gives `None`.
        self.text
            .as_bytes()
            .get(at.wrapping_sub(1)..at.wrapping_add(len).wrapping_add(1))
    }

    /// The 32 bytes of the JSON text from `from` on, when it has that many: the canonical
    /// writer copies a short plain string with its quotes as one fixed-size block (two vector
    /// moves instead of a `memcpy` call) and then cuts the output back to the string's end.
    #[inline(always)]
    pub(crate) fn text_block(&self, from: usize) -> Option<&[u8; TEXT_BLOCK]> {
        self.text
            .as_bytes()
            .get(from..)
            .and_then(|s| s.first_chunk::<TEXT_BLOCK>())
    }

    /// The bytes of the string slot at `index` (none for any other slot).
    #[inline]
    pub(crate) fn str_bytes_at(&self, index: usize) -> &[u8] {
        match self.slots.get(index) {
            Some(&Slot::Str { at, len, plain }) => {
                self.str_bytes(at, len, plain).unwrap_or_default()
            }
            _ => &[],
        }
    }

    /// The text of the string slot at `index` (`""` for any other slot).
    #[inline]
    pub(crate) fn str_at(&self, index: usize) -> &str {
        match self.slots.get(index) {
            Some(&Slot::Str { at, len, plain }) => self.str_text(at, len, plain),
            _ => "",
        }
    }

    #[inline]
    pub(crate) fn slot(&self, index: usize) -> Slot {
        self.slots.get(index).copied().unwrap_or(Slot::Null)
    }

    /// Whether one of the first `count` members of the object opened at `head` (still being
    /// read) has the name of the string slot `key`: the reader's duplicate check.
    pub(crate) fn has_earlier_member(&self, head: usize, count: usize, key: usize) -> bool {
        let name = self.str_bytes_at(key);
        let mut at = head + 1;
        for _ in 0..count {
            if same_bytes(self.str_bytes_at(at), name) {
                return true;
            }
            at = self.end_of(at + 1);
        }
        false
    }

    /// The names of the first `count` members of the object opened at `head`.
    pub(crate) fn member_names(&self, head: usize, count: usize) -> impl Iterator<Item = &str> {
        let mut at = head + 1;
        (0..count).map(move |_| {
            let name = self.str_at(at);
            at = self.end_of(at + 1);
            name
        })
    }

    /// The index just past the value at `index` and everything in it.
    #[inline]
    pub(crate) fn end_of(&self, index: usize) -> usize {
        match self.slot(index) {
            Slot::Array { end, .. } | Slot::Object { end, .. } => end,
            _ => index + 1,
        }
    }
}

/// Whether two names of the same length are the same: the first bytes, which tell most names
/// of a length apart, before the rest; names of up to 16 bytes (most member names) by two
/// overlapping word loads each instead of a `memcmp` call.
#[inline(always)]
pub(crate) fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() || a.first() != b.first() {
        return false;
    }
    let n = a.len();
    let word8 = |s: &[u8], at: usize| s.get(at..).and_then(|s| s.first_chunk::<8>()).copied();
    let word4 = |s: &[u8], at: usize| s.get(at..).and_then(|s| s.first_chunk::<4>()).copied();
    match n {
        0..=3 => a.iter().zip(b).all(|(x, y)| x == y),
        4..=8 => word4(a, 0) == word4(b, 0) && word4(a, n - 4) == word4(b, n - 4),
        9..=16 => word8(a, 0) == word8(b, 0) && word8(a, n - 8) == word8(b, n - 8),
        _ => a == b,
    }
}

/// The first eight bytes of `name` as a little-endian word, zeros past its end: most member
/// names are shorter, and a byte loop for them compiles to a `memcpy` call, so a short name is
/// read as two overlapping four-byte words (or byte by byte below four bytes).
#[inline(always)]
pub(crate) fn head_le(name: &[u8]) -> u64 {
    if let Some(head) = name.first_chunk::<8>() {
        return u64::from_le_bytes(*head);
    }
    let n = name.len();
    if n >= 4 {
        let word4 = |at: usize| {
            name.get(at..)
                .and_then(|s| s.first_chunk::<4>())
                .map_or(0, |w| u64::from(u32::from_le_bytes(*w)))
        };
        // The two words overlap on bytes that are the same in both.
        word4(0) | (word4(n - 4) << (8 * (n - 4)))
    } else {
        let byte = |i: usize| name.get(i).map_or(0, |&b| u64::from(b));
        byte(0) | (byte(1) << 8) | (byte(2) << 16)
    }
}

/// How many bytes [`Document::text_block`] lends.
pub(crate) const TEXT_BLOCK: usize = 32;

/// One of 64 bits picked by a name's length and first and last bytes: two names with different
/// bits differ. The reader finds duplicate names by them, and an object's slot keeps them
/// folded to 32 bits ([`name_filter_bit`]) for lookups.
#[inline(always)]
pub(crate) fn name_bit(bytes: &[u8]) -> u64 {
    let first = u64::from(bytes.first().copied().unwrap_or(0));
    let last = u64::from(bytes.last().copied().unwrap_or(0));
    let mix = (bytes.len() as u64).wrapping_mul(7) ^ first.wrapping_mul(13) ^ last.wrapping_mul(5);
    1 << (mix & 63)
}

/// [`name_bit`]s or-ed, folded to the 32 bits an object's slot keeps: bit `k` and bit `k + 32`
/// become bit `k`.
#[inline(always)]
fn fold_name_bits(bits: u64) -> u32 {
    (bits as u32) | ((bits >> 32) as u32)
}

/// The bit an object's `names` has set when one of its members is named `name`.
#[inline(always)]
pub(crate) fn name_filter_bit(name: &[u8]) -> u32 {
    fold_name_bits(name_bit(name))
}

/// A value in a [`Document`].
#[derive(Debug, Clone, Copy)]
pub struct Node<'d> {
    doc: &'d Document,
    at: usize,
}

/// A [`Node`]'s JSON type alone (see [`Node::json_type`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum JsonType {
    Null,
    Bool,
    Number,
    String,
    Array,
    Object,
}

/// What a [`Node`] is, for `match`.
#[derive(Debug, Clone)]
pub enum Kind<'d> {
    /// `null`
    Null,
    /// `true` or `false`
    Bool(bool),
    /// A number.
    Number(f64),
    /// A string.
    String(&'d str),
    /// An array's elements.
    Array(Items<'d>),
    /// An object's members, in document order.
    Object(Members<'d>),
}

impl<'d> Node<'d> {
    /// What this value is.
    pub fn kind(self) -> Kind<'d> {
        match self.doc.slot(self.at) {
            Slot::Null => Kind::Null,
            Slot::Bool(b) => Kind::Bool(b),
            Slot::Number(n) => Kind::Number(n),
            Slot::Str { .. } => Kind::String(self.doc.str_at(self.at)),
            Slot::Array { len, .. } => Kind::Array(Items {
                doc: self.doc,
                next: self.at + 1,
                left: len,
            }),
            Slot::Object { len, .. } => Kind::Object(Members {
                doc: self.doc,
                next: self.at + 1,
                left: len,
            }),
        }
    }

    /// The member `key`, if this is an object that has it.
    ///
    /// Inlined so that the bit of a literal `key` is worked out at compile time.
    #[inline(always)]
    pub fn get(self, key: &str) -> Option<Node<'d>> {
        self.get_by_bit(key, name_filter_bit(key.as_bytes()))
    }

    /// [`Node::get`] with `key`'s [`name_filter_bit`].
    #[inline]
    fn get_by_bit(self, key: &str, bit: u32) -> Option<Node<'d>> {
        let slots = &self.doc.slots;
        let Some(&Slot::Object { len, names, .. }) = slots.get(self.at) else {
            return None;
        };
        if names & bit == 0 {
            return None;
        }
        // A top-level name whose bit no other top-level name has: the index says which member
        // it can be.
        if self.at == 0 && self.doc.root_shared & bit == 0 {
            let index = self.doc.root_members.get(bit.trailing_zeros() as usize);
            if let Some(&index @ 1..) = index {
                let key_at = usize::from(index) - 1;
                return same_bytes(self.doc.str_bytes_at(key_at), key.as_bytes()).then_some(Node {
                    doc: self.doc,
                    at: key_at + 1,
                });
            }
        }
        // One pass over the member slots: names compared by length first, then as bytes;
        // a value is skipped in one step (a container's slot knows where it ends).
        let mut key_at = self.at + 1;
        for _ in 0..len {
            let Some(&Slot::Str { at, len, plain }) = slots.get(key_at) else {
                return None;
            };
            let value = key_at + 1;
            if len == key.len()
                && self
                    .doc
                    .str_bytes(at, len, plain)
                    .is_some_and(|name| same_bytes(name, key.as_bytes()))
            {
                return Some(Node {
                    doc: self.doc,
                    at: value,
                });
            }
            key_at = match slots.get(value) {
                Some(&Slot::Array { end, .. } | &Slot::Object { end, .. }) => end,
                _ => value + 1,
            };
        }
        None
    }

    /// The elements of the array member `key` (none when it is absent or not an array).
    pub fn elements(self, key: &str) -> impl Iterator<Item = Node<'d>> {
        self.get(key).and_then(Node::items).into_iter().flatten()
    }

    /// Whether some member name anywhere in this node's document holds U+0000 or starts with
    /// `[` (a2a-sdk's protobuf reader reads such names apart); when not, the checks for them
    /// can skip looking.
    pub fn has_unusual_names(self) -> bool {
        self.doc.unusual_names
    }

    /// This node's document and slot index.
    pub(crate) fn position(self) -> (&'d Document, usize) {
        (self.doc, self.at)
    }

    /// The string, if this is a string.
    pub fn as_str(self) -> Option<&'d str> {
        match self.doc.slot(self.at) {
            Slot::Str { .. } => Some(self.doc.str_at(self.at)),
            _ => None,
        }
    }

    /// The JSON type, without reading a string or a container's contents.
    #[inline]
    pub(crate) fn json_type(self) -> JsonType {
        match self.doc.slot(self.at) {
            Slot::Null => JsonType::Null,
            Slot::Bool(_) => JsonType::Bool,
            Slot::Number(_) => JsonType::Number,
            Slot::Str { .. } => JsonType::String,
            Slot::Array { .. } => JsonType::Array,
            Slot::Object { .. } => JsonType::Object,
        }
    }

    /// Whether this is a string (without reading it).
    #[inline]
    pub fn is_string(self) -> bool {
        matches!(self.doc.slot(self.at), Slot::Str { .. })
    }

    /// Whether this string's JSON text had no escape (so it is its own canonical form).
    #[cfg(test)]
    fn is_plain_str(self) -> bool {
        matches!(self.doc.slot(self.at), Slot::Str { plain: true, .. })
    }

    /// The boolean, if this is one.
    pub fn as_bool(self) -> Option<bool> {
        match self.doc.slot(self.at) {
            Slot::Bool(b) => Some(b),
            _ => None,
        }
    }

    /// The number, if this is one.
    pub fn as_f64(self) -> Option<f64> {
        match self.doc.slot(self.at) {
            Slot::Number(n) => Some(n),
            _ => None,
        }
    }

    /// Whether this is `null`.
    pub fn is_null(self) -> bool {
        self.doc.slot(self.at) == Slot::Null
    }

    /// The elements, if this is an array.
    pub fn items(self) -> Option<Items<'d>> {
        match self.kind() {
            Kind::Array(items) => Some(items),
            _ => None,
        }
    }

    /// The members, if this is an object.
    pub fn members(self) -> Option<Members<'d>> {
        match self.doc.slot(self.at) {
            Slot::Object { len, .. } => Some(Members {
                doc: self.doc,
                next: self.at + 1,
                left: len,
            }),
            _ => None,
        }
    }

    /// The members with their names as bytes (read without character-boundary checks), if this
    /// is an object: for walks that compare names with ASCII field names.
    #[inline]
    pub(crate) fn members_by_bytes(self) -> Option<impl Iterator<Item = (&'d [u8], Node<'d>)>> {
        let Slot::Object { len, .. } = self.doc.slot(self.at) else {
            return None;
        };
        let doc = self.doc;
        let mut next = self.at + 1;
        Some((0..len).map(move |_| {
            let key = doc.str_bytes_at(next);
            let value = Node { doc, at: next + 1 };
            next = doc.end_of(next + 1);
            (key, value)
        }))
    }

    /// The JSON type name, as in error messages (`"string"`, `"object"`, ...).
    pub fn type_name(self) -> &'static str {
        match self.doc.slot(self.at) {
            Slot::Null => "null",
            Slot::Bool(_) => "boolean",
            Slot::Number(_) => "number",
            Slot::Str { .. } => "string",
            Slot::Array { .. } => "array",
            Slot::Object { .. } => "object",
        }
    }

    /// This value as a [`Value`] tree.
    pub fn to_value(self) -> Value {
        match self.kind() {
            Kind::Null => Value::Null,
            Kind::Bool(b) => Value::Bool(b),
            Kind::Number(n) => Value::Number(n),
            Kind::String(s) => Value::String(s.to_owned()),
            Kind::Array(items) => Value::Array(items.map(Node::to_value).collect()),
            Kind::Object(members) => {
                Value::Object(members.map(|(k, v)| (k.to_owned(), v.to_value())).collect())
            }
        }
    }
}

/// The elements of an array [`Node`].
#[derive(Debug, Clone)]
pub struct Items<'d> {
    doc: &'d Document,
    next: usize,
    left: usize,
}

impl<'d> Iterator for Items<'d> {
    type Item = Node<'d>;

    #[inline]
    fn next(&mut self) -> Option<Node<'d>> {
        if self.left == 0 {
            return None;
        }
        let node = Node {
            doc: self.doc,
            at: self.next,
        };
        self.left -= 1;
        self.next = self.doc.end_of(self.next);
        Some(node)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl ExactSizeIterator for Items<'_> {}

/// The members of an object [`Node`], in document order.
#[derive(Debug, Clone)]
pub struct Members<'d> {
    doc: &'d Document,
    next: usize,
    left: usize,
}

impl<'d> Iterator for Members<'d> {
    type Item = (&'d str, Node<'d>);

    #[inline]
    fn next(&mut self) -> Option<(&'d str, Node<'d>)> {
        if self.left == 0 {
            return None;
        }
        let key = self.doc.str_at(self.next);
        let value = Node {
            doc: self.doc,
            at: self.next + 1,
        };
        self.left -= 1;
        self.next = self.doc.end_of(self.next + 1);
        Some((key, value))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl ExactSizeIterator for Members<'_> {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;

    const TEXT: &str = r#"{"a":[1,{"b":null,"c":"x\u00e9"},[]],"d":true,"e":{},"f":"plain"}"#;

    /// Member names holding U+0000 or starting with `[`, at any depth, are noted whether the
    /// document was read from text or built from a tree (an envelope's card); strings that are
    /// values are not names.
    #[test]
    fn unusual_member_names_are_noted() {
        for (text, unusual) in [
            (r#"{"a":{"b":[{"c":1}]}}"#, false),
            (r#"{"a":"[x]","b":["\u0000"]}"#, false),
            (r#"{"a":{"b":[{"[x]":1}]}}"#, true),
            (r#"{"a":{"skills\u0000":1}}"#, true),
            (r#"{"[":1}"#, true),
        ] {
            let doc = json::parse_document(text.as_bytes(), 64).unwrap();
            assert_eq!(doc.root().has_unusual_names(), unusual, "{text}");
            let tree = Document::from_value(&json::parse(text.as_bytes(), 64).unwrap());
            assert_eq!(tree.root().has_unusual_names(), unusual, "{text} as a tree");
        }
    }

    #[test]
    fn nodes_read_what_the_tree_reads() {
        let doc = json::parse_document(TEXT.as_bytes(), 64).unwrap();
        let value = json::parse(TEXT.as_bytes(), 64).unwrap();
        assert_eq!(doc.root().to_value(), value);
        let root = doc.root();
        let a: Vec<_> = root.get("a").unwrap().items().unwrap().collect();
        assert_eq!(a.len(), 3);
        assert_eq!(a[0].as_f64(), Some(1.0));
        assert_eq!(a[1].get("c").unwrap().as_str(), Some("xé"));
        assert!(!a[1].get("c").unwrap().is_plain_str());
        assert!(root.get("f").unwrap().is_plain_str());
        assert!(a[1].get("b").unwrap().is_null());
        assert_eq!(a[2].items().unwrap().len(), 0);
        assert_eq!(root.get("d").unwrap().as_bool(), Some(true));
        let keys: Vec<_> = root.members().unwrap().map(|(k, _)| k).collect();
        assert_eq!(keys, ["a", "d", "e", "f"]);
        assert_eq!(root.get("e").unwrap().type_name(), "object");
        assert!(root.get("zz").is_none());
        assert!(a[0].get("a").is_none() && a[0].items().is_none());
    }

    /// `get` skips objects by the bits of their member names (length, first and last bytes):
    /// every member is still found (also long names, escaped names, the empty name), and a
    /// name no member has is not, whether or not its bit is shared.
    #[test]
    fn lookups_by_name_bits_find_every_member() {
        let long = |n: usize| "x".repeat(n);
        let names = [
            "",
            "a",
            "é",
            "bc",
            &long(30),
            &long(31),
            &long(32),
            &long(100),
        ];
        let mut text = String::from("{");
        for (i, name) in names.iter().enumerate() {
            // The second name is written with an escape: its slot is decoded, not plain.
            let written = if i == 1 {
                "\\u0061".to_owned()
            } else {
                name.to_string()
            };
            text += &format!("{}\"{written}\":{i}", if i > 0 { "," } else { "" });
        }
        text += "}";
        let parsed = json::parse_document(text.as_bytes(), 64).unwrap();
        let built = Document::from_value(&parsed.root().to_value());
        for doc in [&parsed, &built] {
            for (i, name) in names.iter().enumerate() {
                assert_eq!(
                    doc.root().get(name).and_then(Node::as_f64),
                    Some(i as f64),
                    "{name:?}"
                );
            }
            for absent in [
                "b",
                "abc",
                "ée",
                &long(29),
                &long(33),
                &long(64),
                "y".repeat(31).as_str(),
                // The bit of `long(30)`: same length, first and last bytes.
                &format!("x{}x", "y".repeat(28)),
            ] {
                assert!(doc.root().get(absent).is_none(), "{absent:?}");
            }
        }
    }

    /// The top-level object's index finds every member, whether its name's bit is its own or
    /// shared with another member's, in a parsed document and in one built from a tree; a name
    /// that shares a member's bit but not its bytes is not found; nested objects are read as
    /// before.
    #[test]
    fn top_level_lookups_by_the_index() {
        let text = r#"{"axb":1,"ayb":2,"solo":3,"n":{"solo":4,"axb":5},"long_name_here":6}"#;
        let parsed = json::parse_document(text.as_bytes(), 64).unwrap();
        let built = Document::from_value(&parsed.root().to_value());
        for doc in [&parsed, &built] {
            let root = doc.root();
            let num = |n: Option<Node<'_>>| n.and_then(Node::as_f64);
            assert_eq!(num(root.get("axb")), Some(1.0));
            assert_eq!(num(root.get("ayb")), Some(2.0));
            assert_eq!(num(root.get("solo")), Some(3.0));
            assert_eq!(num(root.get("long_name_here")), Some(6.0));
            assert!(root.get("azb").is_none() && root.get("sxlo").is_none());
            let n = root.get("n").unwrap();
            assert_eq!(num(n.get("solo")), Some(4.0));
            assert_eq!(num(n.get("axb")), Some(5.0));
            assert!(n.get("ayb").is_none());
        }
        assert_eq!(name_bit(b"solo"), name_bit(b"sxlo"));
        assert_eq!(name_bit(b"axb"), name_bit(b"azb"));
    }

    /// Names are the same exactly when their bytes are, at every length the word compares
    /// handle apart (first, middle and last bytes differing).
    #[test]
    fn names_compare_as_bytes() {
        for n in 0..40 {
            let a: Vec<u8> = (0..n).map(|i| b'a' + (i % 26) as u8).collect();
            assert!(same_bytes(&a, &a.clone()), "{n}");
            for i in 0..n {
                let mut b = a.clone();
                b[i] ^= 0x20;
                assert!(!same_bytes(&a, &b), "{n} {i}");
            }
            assert!(!same_bytes(&a, &[a.as_slice(), b"x"].concat()));
        }
    }

    /// The head word is the name's first eight bytes, zeros past its end, at every length.
    #[test]
    fn head_words_are_the_first_eight_bytes() {
        for n in 0..12 {
            let name: Vec<u8> = (0..n).map(|i| 0x41 + i as u8).collect();
            let mut padded = [0u8; 8];
            for (to, from) in padded.iter_mut().zip(&name) {
                *to = *from;
            }
            assert_eq!(head_le(&name), u64::from_le_bytes(padded), "{n}");
        }
    }

    /// The heap figure counts the slots, the JSON text and the decoded strings, and not much
    /// more (hosts bound the memory of what they keep by it).
    #[test]
    fn heap_bytes_cover_slots_text_and_decoded_strings() {
        let text = r#"{"a":"\u00e9\u00e9\u00e9\u00e9","b":[1,2,3,4,5,6,7,8],"c":"plain text"}"#;
        let doc = json::parse_document(text.as_bytes(), 64).unwrap();
        let floor = doc.slots.len() * std::mem::size_of::<Slot>() + text.len() + "éééé".len();
        assert!(doc.heap_bytes() >= floor, "{} < {floor}", doc.heap_bytes());
        assert!(
            doc.heap_bytes() <= 3 * floor,
            "{} > 3 * {floor}",
            doc.heap_bytes()
        );
        // Built from a tree, every string is decoded: "a", "b", "c", "éééé", "plain text".
        let tree = Document::from_value(&doc.root().to_value());
        let decoded = 3 + "éééé".len() + "plain text".len();
        assert!(tree.heap_bytes() >= tree.slots.len() * std::mem::size_of::<Slot>() + decoded);
    }

    #[test]
    fn a_tree_converts_both_ways() {
        let value = json::parse(TEXT.as_bytes(), 64).unwrap();
        let doc = Document::from_value(&value);
        assert_eq!(doc.root().to_value(), value);
        // Strings from a tree are never taken as their own canonical form.
        assert!(!doc.root().get("f").unwrap().is_plain_str());
        for scalar in [Value::Null, Value::Bool(false), Value::Number(-2.5)] {
            assert_eq!(Document::from_value(&scalar).root().to_value(), scalar);
        }
    }
}
