//! Times the Markdown renderer on cmark's pathological shapes for scripts/bench.sh: each at
//! 1×, 10× and 100× a base size, whole and in 16-byte pieces (as a model streams it); the
//! best of three runs. Near-linear time: each column about ten times the one before (the 1×
//! runs in memory already mapped, the larger ones fault in fresh pages, so a little more).
//!
//! markdown_bench [BASE]   (repeats of each shape's unit at 1×; 2,000 by default)

use std::time::Instant;

use marvin::test_support::{markdown_shapes, render_markdown};

/// The sizes, as multiples of the base.
const SCALES: [usize; 3] = [1, 10, 100];

fn main() {
    let base = std::env::args()
        .nth(1)
        .and_then(|arg| arg.parse().ok())
        .unwrap_or(2_000);
    println!("Markdown renderer: cmark's pathological shapes, {base} repeats at 1× (best of 3)");
    println!(
        "{:<49} {:>9}   {:>26}   {:>26}",
        "shape", "100× size", "whole: 1×, 10×, 100× (ms)", "16-byte pieces (ms)"
    );
    let inputs: Vec<Vec<(&str, String)>> =
        SCALES.iter().map(|s| markdown_shapes(base * s)).collect();
    for (i, (name, _)) in inputs[0].iter().enumerate() {
        let doc = |scale: usize| inputs[scale][i].1.as_str();
        let times = |piece: usize| -> String {
            let ms: Vec<String> = (0..SCALES.len())
                .map(|s| format!("{:.1}", best_ms(doc(s), piece)))
                .collect();
            ms.join(" ")
        };
        let (whole, pieces) = (times(0), times(16));
        let size = doc(SCALES.len() - 1).len() / 1000;
        println!("{name:<49} {size:>6} KB   {whole:>26}   {pieces:>26}");
    }
}

/// The fastest of three renderings of `doc` in pieces of `piece` bytes, in milliseconds.
fn best_ms(doc: &str, piece: usize) -> f64 {
    (0..3)
        .map(|_| {
            let started = Instant::now();
            let shown = render_markdown(doc, piece);
            std::hint::black_box(shown);
            started.elapsed().as_secs_f64() * 1000.0
        })
        .fold(f64::INFINITY, f64::min)
}
