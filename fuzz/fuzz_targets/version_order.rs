//! Version ordering is a total preorder on comparable versions: for random triples it is
//! antisymmetric (a <= b and b <= a means equal, and equality is symmetric), transitive, and
//! `cmp` agrees with its reverse. Parsing never panics and keeps the text.
#![no_main]

use cardgate::version::Version;
use libfuzzer_sys::{arbitrary, fuzz_target};
use std::cmp::Ordering;

#[derive(arbitrary::Arbitrary, Debug)]
struct Triple<'a> {
    a: Spelled<'a>,
    b: Spelled<'a>,
    c: Spelled<'a>,
}

/// Free text, or a version assembled from parts so comparable versions are common.
#[derive(arbitrary::Arbitrary, Debug)]
enum Spelled<'a> {
    Text(&'a str),
    Parts {
        numbers: Vec<u16>,
        pre: Vec<Ident<'a>>,
        build: Option<&'a str>,
        zero_pad: u8,
    },
}

#[derive(arbitrary::Arbitrary, Debug)]
enum Ident<'a> {
    Num(u32),
    Word(&'a str),
}

impl Spelled<'_> {
    fn text(&self) -> String {
        match self {
            Spelled::Text(t) => (*t).to_string(),
            Spelled::Parts {
                numbers,
                pre,
                build,
                zero_pad,
            } => {
                let pad = "0".repeat(usize::from(zero_pad % 3));
                let mut s: Vec<String> = numbers
                    .iter()
                    .take(5)
                    .map(|n| format!("{pad}{n}"))
                    .collect();
                if s.is_empty() {
                    s.push("0".into());
                }
                let mut out = s.join(".");
                if !pre.is_empty() {
                    let ids: Vec<String> = pre
                        .iter()
                        .take(4)
                        .map(|i| match i {
                            Ident::Num(n) => n.to_string(),
                            Ident::Word(w) => (*w).to_string(),
                        })
                        .collect();
                    out.push('-');
                    out.push_str(&ids.join("."));
                }
                if let Some(b) = build {
                    out.push('+');
                    out.push_str(b);
                }
                out
            }
        }
    }
}

fuzz_target!(|t: Triple| {
    let texts = [t.a.text(), t.b.text(), t.c.text()];
    let parsed: Vec<Option<Version>> = texts.iter().map(|s| Version::parse(s).ok()).collect();
    for (text, v) in texts.iter().zip(&parsed) {
        if let Some(v) = v {
            assert_eq!(v.as_str(), text.as_str());
            assert_eq!(v.cmp(v), Ordering::Equal, "reflexive: {text}");
            // The text of a comparable version reads back as an equal version.
            let again = Version::parse(v.as_str()).expect("reparses");
            assert_eq!(again.cmp(v), Ordering::Equal);
        }
    }
    let [Some(a), Some(b), Some(c)] = [&parsed[0], &parsed[1], &parsed[2]] else {
        // Pairs still have to be consistent.
        for (x, y) in [(0, 1), (1, 2), (0, 2)] {
            if let (Some(p), Some(q)) = (&parsed[x], &parsed[y]) {
                assert_eq!(p.cmp(q), q.cmp(p).reverse(), "{} vs {}", texts[x], texts[y]);
            }
        }
        return;
    };
    for (x, y) in [(a, b), (b, c), (a, c)] {
        assert_eq!(x.cmp(y), y.cmp(x).reverse(), "{x} vs {y}");
        assert_eq!(x == y, x.cmp(y) == Ordering::Equal);
        if x <= y && y <= x {
            assert!(x == y && y == x, "antisymmetric: {x} {y}");
        }
    }
    // Transitivity over every ordering of the triple.
    let all = [a, b, c];
    for i in 0..3 {
        for j in 0..3 {
            for k in 0..3 {
                let (x, y, z) = (all[i], all[j], all[k]);
                if x <= y && y <= z {
                    assert!(x <= z, "transitive: {x} <= {y} <= {z} but not {x} <= {z}");
                }
                if x == y && y == z {
                    assert!(x == z);
                }
            }
        }
    }
});
