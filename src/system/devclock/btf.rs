//! Where the fields the device clock reads lie in this kernel's structures, from the kernel's own
//! type description (`/sys/kernel/btf/vmlinux`, BTF): a struct's members by name, through the
//! anonymous unions and structs the kernel nests them in. Only what that needs is parsed.

use std::collections::HashMap;

/// BTF's magic number, little-endian as the kernel writes it on this machine.
const MAGIC: u16 = 0xeb9f;

/// Kinds whose record is followed by data (BTF_KIND_*).
const STRUCT: u32 = 4;
const UNION: u32 = 5;
const TYPEDEF: u32 = 8;
const VOLATILE: u32 = 9;
const CONST: u32 = 10;
const RESTRICT: u32 = 11;
const TYPE_TAG: u32 = 18;

/// One member of a struct or union.
#[derive(Debug, Clone, Copy)]
struct Member {
    name: u32,
    type_id: u32,
    bit_offset: u32,
}

/// One type: its kind, name and, for a struct or union, its members; for a modifier, what it
/// modifies.
#[derive(Debug, Clone)]
struct Type {
    kind: u32,
    name: u32,
    refers_to: u32,
    members: Vec<Member>,
}

/// The kernel's types, indexed by id (id 0 is `void`).
pub struct Btf {
    types: Vec<Type>,
    strings: Vec<u8>,
    by_name: HashMap<String, Vec<u32>>,
}

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?))
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

impl Btf {
    /// The running kernel's types.
    pub fn kernel() -> Result<Btf, String> {
        let bytes = std::fs::read("/sys/kernel/btf/vmlinux")
            .map_err(|e| format!("the kernel's type information is unreadable ({e})"))?;
        Btf::parse(&bytes).ok_or_else(|| "the kernel's type information is malformed".into())
    }

    /// Parses a raw BTF blob; `None` when it is not one.
    pub fn parse(b: &[u8]) -> Option<Btf> {
        if u16_at(b, 0)? != MAGIC {
            return None;
        }
        let header = u32_at(b, 4)? as usize;
        let (type_off, type_len) = (u32_at(b, 8)? as usize, u32_at(b, 12)? as usize);
        let (str_off, str_len) = (u32_at(b, 16)? as usize, u32_at(b, 20)? as usize);
        let types_bytes = b.get(header + type_off..header + type_off + type_len)?;
        let strings = b
            .get(header + str_off..header + str_off + str_len)?
            .to_vec();
        let mut types = vec![Type {
            kind: 0,
            name: 0,
            refers_to: 0,
            members: Vec::new(),
        }];
        let mut at = 0;
        while at < types_bytes.len() {
            let (name, info, size_or_type) = (
                u32_at(types_bytes, at)?,
                u32_at(types_bytes, at + 4)?,
                u32_at(types_bytes, at + 8)?,
            );
            at += 12;
            let kind = (info >> 24) & 0x1f;
            let vlen = (info & 0xffff) as usize;
            let bitfields = info >> 31 == 1;
            let mut members = Vec::new();
            let extra = match kind {
                1 | 14 | 17 => 4,              // int, var, decl tag
                3 => 12,                       // array
                STRUCT | UNION => 12 * vlen,   // members
                6 | 13 => 8 * vlen,            // enum, function prototype
                15 | 19 => 12 * vlen,          // data section, enum64
                2 | 7 | 8..=12 | 16 | 18 => 0, // ptr, fwd, modifiers, func, float, tag
                _ => return None,
            };
            if kind == STRUCT || kind == UNION {
                for m in 0..vlen {
                    let base = at + 12 * m;
                    let offset = u32_at(types_bytes, base + 8)?;
                    members.push(Member {
                        name: u32_at(types_bytes, base)?,
                        type_id: u32_at(types_bytes, base + 4)?,
                        bit_offset: if bitfields {
                            offset & 0xff_ffff
                        } else {
                            offset
                        },
                    });
                }
            }
            at += extra;
            types.push(Type {
                kind,
                name,
                refers_to: size_or_type,
                members,
            });
        }
        let mut btf = Btf {
            types,
            strings,
            by_name: HashMap::new(),
        };
        for id in 1..btf.types.len() {
            let t = &btf.types[id];
            if t.name != 0 && (t.kind == STRUCT || t.kind == UNION || t.kind == TYPEDEF) {
                let name = btf.string(t.name).to_string();
                btf.by_name.entry(name).or_default().push(id as u32);
            }
        }
        Some(btf)
    }

    fn string(&self, at: u32) -> &str {
        let tail = self.strings.get(at as usize..).unwrap_or_default();
        let end = tail.iter().position(|&c| c == 0).unwrap_or(tail.len());
        std::str::from_utf8(&tail[..end]).unwrap_or_default()
    }

    /// The id of the typedef named `name` (a tracepoint's `btf_trace_<event>`).
    pub fn typedef(&self, name: &str) -> Option<u32> {
        self.by_name
            .get(name)?
            .iter()
            .copied()
            .find(|&id| self.types[id as usize].kind == TYPEDEF)
    }

    /// The struct or union under typedefs and qualifiers.
    fn composite(&self, mut id: u32) -> Option<&Type> {
        for _ in 0..16 {
            let t = self.types.get(id as usize)?;
            match t.kind {
                STRUCT | UNION => return Some(t),
                TYPEDEF | VOLATILE | CONST | RESTRICT | TYPE_TAG => id = t.refers_to,
                _ => return None,
            }
        }
        None
    }

    /// The byte offset of `member` in the struct named `name`, looked for through anonymous
    /// members; `None` when the kernel has no such struct or member (or it is a bitfield).
    pub fn offset(&self, name: &str, member: &str) -> Option<u32> {
        self.by_name
            .get(name)?
            .iter()
            .filter_map(|&id| self.composite(id))
            .find_map(|t| self.find(t, member, 0))
            .filter(|bits| bits % 8 == 0)
            .map(|bits| bits / 8)
    }

    fn find(&self, t: &Type, member: &str, depth: u32) -> Option<u32> {
        if depth > 8 {
            return None;
        }
        t.members.iter().find_map(|m| {
            if m.name == 0 {
                let inner = self.composite(m.type_id)?;
                return self
                    .find(inner, member, depth + 1)
                    .map(|bits| m.bit_offset + bits);
            }
            (self.string(m.name) == member).then_some(m.bit_offset)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A blob of one struct `s { u32 a; union { u64 b; u32 c; }; }` as BTF lays it out.
    fn blob() -> Vec<u8> {
        let strings = b"\0s\0a\0b\0c\0int\0".to_vec();
        let mut types = Vec::new();
        let mut push = |words: &[u32]| {
            for w in words {
                types.extend_from_slice(&w.to_le_bytes());
            }
        };
        // 1: int "int", 4 bytes.
        push(&[9, 1 << 24, 4, 32]);
        // 2: struct s, 2 members: a at 0; anonymous union (type 3) at 64 bits.
        push(&[1, (STRUCT << 24) | 2, 16, 3, 1, 0, 0, 3, 64]);
        // 3: union, 2 members: b (int) at 0, c (int) at 0.
        push(&[0, (UNION << 24) | 2, 8, 5, 1, 0, 7, 1, 0]);
        let mut b = Vec::new();
        b.extend_from_slice(&MAGIC.to_le_bytes());
        b.extend_from_slice(&[1, 0]);
        for w in [
            24u32,
            0,
            types.len() as u32,
            types.len() as u32,
            strings.len() as u32,
        ] {
            b.extend_from_slice(&w.to_le_bytes());
        }
        b.extend_from_slice(&types);
        b.extend_from_slice(&strings);
        b
    }

    #[test]
    fn members_are_found_through_anonymous_unions() {
        let btf = Btf::parse(&blob()).unwrap();
        assert_eq!(btf.offset("s", "a"), Some(0));
        assert_eq!(btf.offset("s", "b"), Some(8));
        assert_eq!(btf.offset("s", "c"), Some(8));
        assert_eq!(btf.offset("s", "d"), None);
        assert_eq!(btf.offset("t", "a"), None);
    }

    #[test]
    fn a_blob_that_is_not_btf_is_refused() {
        let mut b = blob();
        b[0] = 0;
        assert!(Btf::parse(&b).is_none());
        assert!(Btf::parse(&blob()[..30]).is_none());
    }

    #[test]
    fn the_running_kernel_places_the_request_fields() {
        let Ok(btf) = Btf::kernel() else {
            eprintln!("the_running_kernel_places_the_request_fields: skipped, no readable BTF");
            return;
        };
        for field in ["part", "cmd_flags", "start_time_ns", "__sector"] {
            assert!(btf.offset("request", field).is_some(), "request.{field}");
        }
        assert!(btf.offset("block_device", "bd_dev").is_some());
        assert!(btf.typedef("btf_trace_block_rq_issue").is_some());
        assert!(btf.typedef("request").is_none());
    }
}
