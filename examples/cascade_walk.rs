//! The plain cascade user of `benches/simulate.rs` (`cascade_10_results`), as a plain program
//! for instruction counts, which a shared machine does not disturb:
//!
//! `cargo build --release --example cascade_walk &&
//!  valgrind --tool=callgrind --callgrind-out-file=/dev/null target/release/examples/cascade_walk 100000`
//!
//! (instructions per session = total / sessions, less the start-up of a run with 0 sessions).
//! Prints the summed gain so the walk cannot be optimised away.

use serpsim::simulate::engine::{topic_key, user_key};
use serpsim::simulate::one_list_world;
use serpsim::simulate::walk::{walk, FixedChoice, Scratch, SystemOnTopic};
use serpsim::user::{Basis, Cascade, ContinuationModel, Param, StoppingRuleKind, UserProfile};

fn main() {
    let n: u64 = match std::env::args().nth(1).map(|s| s.parse::<u64>().map_err(|_| s)) {
        None => 100_000,
        Some(Ok(n)) => n,
        Some(Err(s)) => {
            eprintln!("cascade_walk: `{s}` is not a number of sessions");
            std::process::exit(2);
        }
    };
    let world = one_list_world(vec![1, 0, 0, 1, 0, 1, 0, 0, 0, 1], 10);
    let mut u = UserProfile::named("cascade");
    u.continuation = Some(ContinuationModel::Rbp { p: Param::Fixed(0.8) });
    u.clicks = Cascade::fixed(&[0.2, 0.8], &[0.0, 0.3], &[0.0, 1.0]);
    u.stopping = vec![StoppingRuleKind::ContiguousNonrelevant { n: Param::Fixed(5.0), basis: Basis::Grade }];
    let user = u.resolve(1, 0);
    let sys = &world.systems[0];
    let stage = SystemOnTopic {
        topic: &world.topics[0],
        queries: sys.serps[0].as_deref().expect("one list"),
        delays: &sys.delays,
        page_size: 10,
        fold: usize::MAX,
        below_fold: 0.0,
        sublists_from: serpsim::simulate::walk::first_sublist(sys.serps[0].as_deref().expect("one list")),
    };
    let mut scratch = Scratch::default();
    let mut chooser = FixedChoice(Vec::new());
    let tk = topic_key(1, 7);
    let mut gain = 0.0;
    let mut depth = 0u64;
    for i in 0..n {
        let o = walk(&stage, &user, &user.grades, &mut chooser, user_key(tk, i), &mut scratch, &mut ());
        gain += o.gain;
        depth += u64::from(o.depth);
    }
    println!("{n} sessions, gain {gain}, depth {depth}");
}
