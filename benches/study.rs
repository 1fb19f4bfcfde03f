//! Study-log benchmarks: ASC parsing throughput, I-DT / I-VT on one hour of 1000 Hz samples,
//! and the streaming `study events` path (parse + detect) on plain and gzip input.
//! `cargo bench --bench study -- --warm-up-time 1 --measurement-time 3`

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rand::Rng;
use serpsim::input::Input;
use serpsim::study::asc::{read_recording, summarize, AscReader};
use serpsim::study::detect::{idt, ivt, IdtParams, IvtParams, ScreenGeometry};
use serpsim::study::events::{detect_asc, DetectConfig, Method};
use serpsim::study::{Eye, Sample};
use std::fmt::Write;

const GEOM: ScreenGeometry = ScreenGeometry { width_px: 1280.0, height_px: 1024.0, width_cm: 38.0, height_cm: 30.2, distance_cm: 68.0 };

/// Reading-like gaze: fixations of 150-400 ms with 2 px noise, jumps between them.
fn samples(n: usize) -> Vec<Sample> {
    let mut rng = serpsim::rng::stream(5, &[0]);
    let mut v = Vec::with_capacity(n);
    let (mut x, mut y, mut left) = (640.0f32, 512.0f32, 0usize);
    for t in 0..n {
        if left == 0 {
            x = rng.random_range(100.0..1180.0);
            y = rng.random_range(100.0..900.0);
            left = rng.random_range(150..400);
        }
        left -= 1;
        v.push(Sample { time: t as f64, x: x + rng.random_range(-2.0..2.0), y: y + rng.random_range(-2.0..2.0), pupil: 800.0 });
    }
    v
}

/// A monocular ASC text of `n` samples with an event every 250 samples.
fn asc_text(n: usize) -> String {
    let mut s = String::from("** CONVERTED FROM bench\nMSG\t1 DISPLAY_COORDS 0 0 1279 1023\nSTART\t1 \tLEFT\tSAMPLES\tEVENTS\nSAMPLES\tGAZE\tLEFT\tRATE\t1000.00\tTRACKING\tCR\tFILTER\t2\n");
    for (i, p) in samples(n).iter().enumerate() {
        let t = p.time as u64 + 1;
        let _ = writeln!(s, "{t}\t{:7.1}\t{:7.1}\t{:7.1}\t...", p.x, p.y, p.pupil);
        if i % 250 == 249 {
            let _ = writeln!(s, "EFIX L   {}\t{t}\t250\t{:7.1}\t{:7.1}\t    800", t - 249, p.x, p.y);
            let _ = writeln!(s, "MSG\t{t} PAGE serp-1");
        }
    }
    let _ = writeln!(s, "END\t{n} \tSAMPLES\tEVENTS\tRES\t  37.00\t  37.00");
    s
}

/// Process CPU time (user + system) in seconds from /proc/self/stat (Linux; 0 elsewhere).
/// On a shared machine wall-clock figures include waiting for a core; CPU time does not.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit_once(')').map(|x| x.1).unwrap_or("");
    let f: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    (ticks(11) + ticks(12)) / 100.0
}

fn cpu_per_run(label: &str, runs: usize, mut f: impl FnMut()) {
    let t0 = cpu_seconds();
    for _ in 0..runs {
        f();
    }
    eprintln!("cpu-time {label}: {:.3} s per run ({runs} runs)", (cpu_seconds() - t0) / runs as f64);
}

fn bench(c: &mut Criterion) {
    let text = asc_text(600_000); // 10 minutes at 1000 Hz
    {
        let hour = samples(3_600_000);
        let mb = text.len() as f64 / 1e6;
        let t0 = cpu_seconds();
        for _ in 0..5 {
            summarize(text.as_bytes(), "bench").unwrap();
        }
        eprintln!("cpu-time summarize: {:.0} MB/s of ASC text ({mb:.1} MB x 5)", 5.0 * mb / (cpu_seconds() - t0));
        cpu_per_run("idt_1h_1000hz", 5, || drop(idt(&hour, &GEOM, &IdtParams::default(), Eye::Left, 1.0)));
        cpu_per_run("ivt_1h_1000hz", 5, || drop(ivt(&hour, &GEOM, &IvtParams::default(), Eye::Left, 1.0)));
    }
    let mut g = c.benchmark_group("asc");
    g.throughput(Throughput::Bytes(text.len() as u64));
    g.sample_size(10);
    g.bench_function("summarize_10min_1000hz", |b| b.iter(|| summarize(text.as_bytes(), "bench").unwrap()));
    g.bench_function("read_recording_10min_1000hz", |b| b.iter(|| read_recording(text.as_bytes(), "bench").unwrap()));
    g.finish();
    // The streaming events path over the same text, plain and gzip-compressed (issue 15:
    // gzip input should cost at most 2x plain).
    let plain: &'static [u8] = Box::leak(text.clone().into_bytes().into_boxed_slice());
    let gz: &'static [u8] = {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        std::io::Write::write_all(&mut e, plain).unwrap();
        Box::leak(e.finish().unwrap().into_boxed_slice())
    };
    let cfg = DetectConfig { method: Method::Idt(IdtParams::default()), screen_cm: (38.0, 30.2), distance_cm: 68.0, screen_px: None, rate_hz: None };
    let events = |bytes: &'static [u8]| {
        let input = Input::from_reader("bench", None, std::io::Cursor::new(bytes)).unwrap();
        detect_asc(AscReader::from_input(input), &cfg, None).unwrap()
    };
    {
        let t0 = cpu_seconds();
        for _ in 0..5 {
            drop(events(plain));
        }
        let p = (cpu_seconds() - t0) / 5.0;
        let t0 = cpu_seconds();
        for _ in 0..5 {
            drop(events(gz));
        }
        let z = (cpu_seconds() - t0) / 5.0;
        eprintln!("cpu-time events idt 10 min: plain {p:.3} s, gzip {z:.3} s ({:.2}x; {:.1} MB compressed)", z / p, gz.len() as f64 / 1e6);
    }
    let mut g = c.benchmark_group("events");
    g.throughput(Throughput::Bytes(text.len() as u64));
    g.sample_size(10);
    g.bench_function("idt_10min_1000hz_plain", |b| b.iter(|| events(plain)));
    g.bench_function("idt_10min_1000hz_gzip", |b| b.iter(|| events(gz)));
    g.finish();
    let hour = samples(3_600_000);
    let mut g = c.benchmark_group("detect");
    g.sample_size(10);
    g.bench_function("idt_1h_1000hz", |b| b.iter(|| idt(&hour, &GEOM, &IdtParams::default(), Eye::Left, 1.0)));
    g.bench_function("ivt_1h_1000hz", |b| b.iter(|| ivt(&hour, &GEOM, &IvtParams::default(), Eye::Left, 1.0)));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
