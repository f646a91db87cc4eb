//! Throwaway differential: the serde_json reader against the hand-written one it replaces.
use cardgate::json::{self, legacy, JsonError, Value};

fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.to_bits() == y.to_bits(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|((k, a), (l, b))| k == l && same(a, b))
        }
        _ => a == b,
    }
}

#[derive(Default, Debug)]
struct Tally {
    inputs: u64,
    accepted: u64,
    refused: u64,
    accept_mismatch: u64,
    value_mismatch: u64,
    kind_mismatch: u64,
    path_mismatch: u64,
    offset_mismatch: u64,
    kinds: std::collections::BTreeMap<String, u64>,
    diffs: std::collections::BTreeMap<String, (u64, String)>,
}

fn compare(t: &mut Tally, bytes: &[u8], depth: usize) {
    t.inputs += 1;
    let new = json::parse(bytes, depth);
    let old = legacy::parse_legacy(bytes, depth);
    let show = || String::from_utf8_lossy(&bytes[..bytes.len().min(160)]).into_owned();
    let note = |t: &mut Tally, what: String| {
        let e = t.diffs.entry(what).or_insert((0, show()));
        e.0 += 1;
    };
    match (&new, &old) {
        (Ok(a), Ok(b)) => {
            t.accepted += 1;
            if !same(a, b) {
                t.value_mismatch += 1;
                note(t, "value".into());
            }
        }
        (Err(a), Err(b)) => {
            t.refused += 1;
            *t.kinds.entry(format!("{:?}", b.kind())).or_default() += 1;
            let (a, b): (&JsonError, &JsonError) = (a, b);
            if a.kind() != b.kind() {
                t.kind_mismatch += 1;
                note(t, format!("kind new {:?} old {:?}", a.kind(), b.kind()));
            } else {
                if a.path() != b.path() {
                    t.path_mismatch += 1;
                    note(t, format!("path {:?}: {}", a.kind(), a.message()));
                }
                if a.offset() != b.offset() {
                    t.offset_mismatch += 1;
                    note(
                        t,
                        format!(
                            "offset {:?} ({}): new-old={}",
                            a.kind(),
                            a.message().split(", found").next().unwrap_or(""),
                            a.offset() as i64 - b.offset() as i64
                        ),
                    );
                }
            }
        }
        _ => {
            t.accept_mismatch += 1;
            note(
                t,
                format!(
                    "accept new {:?} old {:?}",
                    new.as_ref().err().map(|e| e.kind()),
                    old.as_ref().err().map(|e| e.kind())
                ),
            );
        }
    }
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

const TOKENS: &[&[u8]] = &[
    b"{",
    b"}",
    b"[",
    b"]",
    b",",
    b":",
    b"\"",
    b"\\",
    b"\\u",
    b"\\ud800",
    b"\\udc00",
    b"\\uD83D\\uDE00",
    b"\\u0061",
    b"\\n",
    b"\\x",
    b"0",
    b"-0",
    b"1e400",
    b"1e-400",
    b"18446744073709551616",
    b"9007199254740993",
    b"-9223372036854775809",
    b"0.1",
    b"1.",
    b".5",
    b"01",
    b"true",
    b"nul",
    b"null",
    b"fals",
    b" ",
    b"\n",
    b"\t",
    b"\xef\xbb\xbf",
    b"\x00",
    b"\x1f",
    b"\xff",
    b"\xc3\xa9",
    b"\xf0\x9f\x98\x80",
    b"\"a\":1",
    b"\"a\"",
    b"e",
    b"E+",
    b"-",
    b"[[[[[[[[",
    b"]]]]",
    b"{\"x\":{\"x\":",
    b"1e99999999999999999999",
    b"\xe2\x80\xa8",
    b"/",
    b"NaN",
    b"123456789012345678901234567890",
];

fn mutate(r: &mut Rng, seed: &[u8]) -> Vec<u8> {
    let mut b = seed.to_vec();
    for _ in 0..1 + r.below(4) {
        match r.below(7) {
            0 if !b.is_empty() => {
                let i = r.below(b.len());
                b[i] = r.next() as u8;
            }
            1 if !b.is_empty() => {
                let i = r.below(b.len());
                let n = 1 + r.below(8.min(b.len() - i));
                b.drain(i..i + n);
            }
            2 | 3 => {
                let i = r.below(b.len() + 1);
                let tok = TOKENS[r.below(TOKENS.len())];
                b.splice(i..i, tok.iter().copied());
            }
            4 if !b.is_empty() => {
                let i = r.below(b.len());
                let j = i + r.below((b.len() - i).min(64));
                let chunk = b[i..j].to_vec();
                let k = r.below(b.len() + 1);
                b.splice(k..k, chunk);
            }
            5 => {
                let i = r.below(b.len() + 1);
                b.truncate(i);
            }
            _ if !b.is_empty() => {
                // swap a structural byte for another
                let i = r.below(b.len());
                b[i] = b"{}[],:\" 0\\"[r.below(10)];
            }
            _ => {}
        }
    }
    b
}

#[test]
#[ignore]
fn differential() {
    let dir = std::env::var("JDIFF_DIR").unwrap_or("/tmp/jdiff/all".into());
    let mut seeds: Vec<Vec<u8>> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| std::fs::read(e.unwrap().path()).unwrap())
        .collect();
    seeds.sort();
    let mut t = Tally::default();
    for s in &seeds {
        for depth in [64, 8, 127] {
            compare(&mut t, s, depth);
        }
    }
    println!("seeds ({} files, depths 64/8/127): {t:#?}", seeds.len());
    let n: u64 = std::env::var("JDIFF_N")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300_000);
    let mut m = Tally::default();
    let mut r = Rng(0x9e3779b97f4a7c15);
    // small seeds mutate faster; weight towards the shorter ones
    let small: Vec<&Vec<u8>> = seeds.iter().filter(|s| s.len() <= 4096).collect();
    for _ in 0..n {
        let seed = small[r.below(small.len())];
        let input = mutate(&mut r, seed);
        compare(&mut m, &input, 64);
    }
    println!("mutated: {m:#?}");
}
