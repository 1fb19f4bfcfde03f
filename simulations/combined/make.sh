#!/bin/sh
# Rebuilds the click log and the fitted DBN of simulations/combined.toml, from the repository
# root, after `cargo build --release`:
#   1. the logged SERPs and the generating model (make_clicks.py, standard-library Python);
#   2. one simulated session per SERP: study_logs/clicks/letor_dbn_clicks.tsv;
#   3. the DBN fitted on that log by EM (50 iterations, gamma fitted): simulations/combined/dbn.json.
set -e
bin=${SERPSIM:-./target/release/serpsim}
python3 simulations/combined/make_clicks.py
$bin clicks simulate --model-file simulations/combined/true_dbn.json --serps target/combined/letor_serps.tsv \
  --format tsv --replicates 1 --seed 2015 --out study_logs/clicks/letor_dbn_clicks.tsv
$bin clicks fit --model dbn --format tsv --train study_logs/clicks/letor_dbn_clicks.tsv --out simulations/combined/dbn.json
