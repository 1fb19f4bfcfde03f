//! Quantile matching counts a document once however many systems show it (docs/scenarios.md,
//! "Click-model users", `unseen = "quantile"`: the model's per-pair values are cut at the
//! collection's grade shares "over the distinct results the systems show").

use std::path::Path;
use std::process::Command;

fn serpsim(args: &[&str], cwd: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_serpsim")).args(args).current_dir(cwd).output().expect("serpsim runs")
}

#[test]
fn quantile_matching_counts_shared_documents_once() {
    // One topic, two systems sharing document `a`: A shows a, b; B shows a, c. Grades: a 1,
    // b 0, c 0. The distinct results are a, b, c: grade shares 0 -> 2/3, 1 -> 1/3. Counted
    // once per system (a, b, a, c) they would be 1/2 and 1/2.
    //
    // The model (a hand-made CM file) knows three pairs of another query, attractiveness 0.1,
    // 0.4 and 0.7: the empirical quantile function is 0.1 on (0, 1/3], 0.4 on (1/3, 2/3], 0.7
    // on (2/3, 1]. Each grade gets the mean of its slice (src/clickmodels/portable.rs
    // `quantile_by_grade`, docs/scenarios.md), by hand:
    //   distinct results: grade 0 on (0, 2/3]: (0.1 + 0.4) / 2 = 0.25; grade 1 on (2/3, 1]: 0.7.
    //   per system (wrong): grade 0 on (0, 1/2]: (0.1 / 3 + 0.4 / 6) / (1/2) = 0.2;
    //                       grade 1 on (1/2, 1]: (0.4 / 6 + 0.7 / 3) / (1/2) = 0.6.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let files = [
        ("qrels.txt", "1 0 a 1\n1 0 b 0\n1 0 c 0\n"),
        ("run_a.txt", "1 Q0 a 1 2.0 A\n1 Q0 b 2 1.0 A\n"),
        ("run_b.txt", "1 Q0 a 1 2.0 B\n1 Q0 c 2 1.0 B\n"),
        (
            "cm.json",
            r#"{"format": "serpsim-click-model", "model": "cm", "scalars": {}, "ranks": {}, "matrices": {}, "pair_params": ["attractiveness"], "pairs": [["lq", "x1", 0.1], ["lq", "x2", 0.4], ["lq", "x3", 0.7]]}"#,
        ),
        (
            "s.toml",
            "name = \"shared\"\nseed = 3\nreplicates = 20\n[collection]\nsource = \"trec\"\nqrels = \"qrels.txt\"\nruns = [\"run_a.txt\", \"run_b.txt\"]\n[[profiles]]\nname = \"u\"\nclick_model = { file = \"cm.json\", unseen = \"quantile\" }\n",
        ),
    ];
    for (name, text) in files {
        std::fs::write(d.join(name), text).unwrap();
    }
    let r = serpsim(&["simulate", "s.toml", "--out", "o", "--threads", "1"], d);
    let stderr = String::from_utf8_lossy(&r.stderr);
    assert!(r.status.success(), "{stderr}");
    assert!(stderr.contains("grade 0: attractiveness 0.2500") && stderr.contains("grade 1: attractiveness 0.7000"), "{stderr}");
    assert!(!stderr.contains("attractiveness 0.2000") && !stderr.contains("attractiveness 0.6000"), "counted per system: {stderr}");
}
