#!/bin/sh
# CPU time (user + sys) and wall time of each tool on the benchmark files, one process per run,
# 3 runs each. The machine is shared, so CPU time is the steadier figure.
# Usage (repository root, after `cargo bench --bench metrics` and `cargo build --release`):
#   sh analysis/metrics/bench_cpu.sh
Q=target/metrics-bench/qrels.txt
R=target/metrics-bench/run.txt
M="map P_5 P_10 recip_rank Rprec ndcg ndcg_cut_10 recall_100 map_cut_10 ndcg_cut_20"
for i in 1 2 3; do
  /usr/bin/time -f "serpsim eval (2 threads)  wall %e s  user %U s  sys %S s" target/release/serpsim eval $Q $R -m $M --skip-missing > /dev/null
  /usr/bin/time -f "serpsim eval (1 thread)   wall %e s  user %U s  sys %S s" target/release/serpsim eval $Q $R -m $M --skip-missing --threads 1 > /dev/null
  /usr/bin/time -f "pytrec_eval (trec_eval C) wall %e s  user %U s  sys %S s" python3 -c "
import pytrec_eval
qrels = pytrec_eval.parse_qrel(open('$Q'))
run = pytrec_eval.parse_run(open('$R'))
ev = pytrec_eval.RelevanceEvaluator(qrels, {'map', 'P', 'recip_rank', 'Rprec', 'ndcg', 'ndcg_cut', 'recall', 'map_cut'})
ev.evaluate(run)"
  /usr/bin/time -f "python3 startup + import  wall %e s  user %U s  sys %S s" python3 -c "import pytrec_eval"
  /usr/bin/time -f "ir_measures               wall %e s  user %U s  sys %S s" python3 -c "
import ir_measures
ms = [ir_measures.parse_measure(m) for m in ['AP', 'P@5', 'P@10', 'RR', 'Rprec', 'nDCG', 'nDCG@10', 'R@100', 'AP@10', 'nDCG@20']]
ir_measures.calc_aggregate(ms, list(ir_measures.read_trec_qrels('$Q')), list(ir_measures.read_trec_run('$R')))"
done
