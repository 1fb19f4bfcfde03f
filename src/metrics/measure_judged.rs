//! `Judged@k` (ir_measures): the share of the top k documents that have a line in the qrels,
//! whatever its grade. As ir_measures 0.4.3 (its `judged` provider) the count is divided by
//! min(k, n) for a ranking of n documents (an empty ranking scores 0). serpsim ranks ties by
//! docno descending (trec_eval), ir_measures by docno ascending: on tied scores straddling
//! rank k the two can differ.

use super::measure_def::{generic_build, Compute, Cutoff, MeasureDef, Registered, TopicInput};
use crate::metrics::trec_eval::NONPOOL;

pub(super) static MEASURES: &[MeasureDef] = &[MeasureDef {
    names: &["judged"],
    shown: &["Judged@k"],
    about: "share of the top k documents that are judged",
    cutoff: Cutoff::Required,
    params: &[],
    build: generic_build,
    compute: Some(Compute { value, needs_docs: false }),
}];

fn value(x: &TopicInput, m: &Registered) -> f64 {
    let k = m.k.expect("Judged declares a required cut-off");
    let top = &x.ranked.rels[..x.ranked.rels.len().min(k)];
    if top.is_empty() {
        return 0.0;
    }
    top.iter().filter(|&&r| r != NONPOOL).count() as f64 / top.len() as f64
}

#[cfg(test)]
mod tests {
    use crate::metrics::eval::{evaluate, EvalOptions, Judgements, RankedRun, RunOptions};
    use crate::metrics::MeasurePlan;

    #[test]
    fn judged_at_k_by_hand() {
        // Qrels judge a (1), b (0) and c (-1: a line in the qrels, so judged). The run ranks
        // x, a, y, c, b (x and y unjudged). Judged@2 = |{a}| / 2 = 0.5; Judged@4 = |{a, c}| / 4
        // = 0.5; Judged@10 on 5 documents = |{a, c, b}| / min(10, 5) = 0.6; Judged@1 = 0.
        let j = Judgements::parse("1 0 a 1\n1 0 b 0\n1 0 c -1\n", "q").unwrap();
        let run = RankedRun::parse(&j, "1 Q0 x 1 5 r\n1 Q0 a 2 4 r\n1 Q0 y 3 3 r\n1 Q0 c 4 2 r\n1 Q0 b 5 1 r\n", "r", &RunOptions::default()).unwrap();
        let plan = MeasurePlan::parse(&["Judged@2", "Judged@4", "judged@10", "Judged@1"]).unwrap();
        let e = evaluate(&j, &[run], &plan, &EvalOptions::default()).unwrap();
        let got: Vec<f64> = (0..4).map(|c| e.values[0][c][0].unwrap()).collect();
        assert_eq!(got, [0.5, 0.5, 0.6, 0.0]);
        let no_k = MeasurePlan::parse(&["Judged"]).unwrap_err().to_string();
        assert!(no_k.contains("judged needs a cut-off"), "{no_k}");
        assert!(MeasurePlan::parse(&["Judged(rel=2)@5"]).unwrap_err().to_string().contains("unknown parameter"));
        // Suggestions come from the registry: a typo of the new name is pointed at it.
        let typo = MeasurePlan::parse(&["Jugded@5"]).unwrap_err().to_string();
        assert!(typo.contains("did you mean `Judged@k`"), "{typo}");
    }
}
