// spin: a CPU-bound Rust program for symbolization tests: a generic method
// and a closure, so names need Rust demangling.
use std::hint::black_box;

struct Acc<T> {
    h: T,
}

impl Acc<u64> {
    #[inline(never)]
    fn fold<I: Iterator<Item = u64>>(&mut self, it: I) -> u64 {
        for x in it {
            self.h = (self.h ^ x).wrapping_mul(1099511628211);
        }
        self.h
    }
}

#[inline(never)]
fn twist(n: u64) -> u64 {
    let step = |h: u64, i: u64| (h ^ i).wrapping_mul(31);
    (0..n).fold(7, |h, i| step(black_box(h), i))
}

fn main() {
    let mut acc = Acc { h: 1469598103934665603u64 };
    let mut out = 0u64;
    for _ in 0..3 {
        out = out.wrapping_add(acc.fold(black_box(0..20_000_000u64)));
        out = out.wrapping_add(twist(black_box(20_000_000)));
    }
    println!("{}", out);
}
