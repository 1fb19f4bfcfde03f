//! SimEval-IR `InteractionSession` JSONL (schema `v1` of SimEval-IR, Zerhoudi, SIGIR 2026):
//! one session per line, `{"schema_version", "session_id", "dataset_id", "session_type",
//! "events": [...], "meta"}`, each event `{"event_id", "type", "timestamp", "role", "query",
//! "ranked_items": [{"doc_id", "rank"}], "clicked_items": [{"doc_id", "rank", "dwell_time"}]}`
//! (ranks 1-based, timestamps in seconds from the session start).
//!
//! **Reading** (`--format simeval`): every `query_issued` event opens one SERP impression
//! (a serpsim session): its query is the event's `query` (or the session's `topic_id`), its
//! result list the `ranked_items` of the event or of a `serp_view` event after it, and the
//! `click` events up to the next `query_issued` mark its clicks (by `rank`, checked against
//! `doc_id`; by `doc_id` when the rank is missing). The session id is `session_id` (one id for
//! all SERPs of a multi-query session). Times: when the `query_issued` event has a timestamp,
//! the SERP has click times (each clicked rank's first click timestamp minus the query's; NaN
//! for clicks without one); its start time is `meta.start_time + ` the query's timestamp when
//! the session's `meta` has a `start_time` (seconds), else none. Dwell: a clicked item's
//! `dwell_time`; the SERP has dwell when at least one click carries one. Other event types
//! (`dwell`, `bookmark`, `navigation`, utterances, ...) carry nothing a click log holds and are
//! passed over. A session without a `query_issued`, a query without a result list, a click
//! before any query or on a rank or document not on the list, a click time-stamped before its
//! query (a negative click time), or a second, different result list for one query is an
//! error (`file:line: reason`).
//!
//! **Writing** (`clicks convert --to simeval`): one line per SERP impression: a
//! `query_issued` event with the whole result list as `ranked_items`, then one `click` event
//! per clicked rank (in click-time order when the times are known, else in rank order).
//! The query's timestamp is 0 when the impression has click times (null otherwise), each
//! click's timestamp its click time; the start time goes to `meta.start_time`. A log without
//! session ids gets the impression's number (1-based) as `session_id`. Dwell that no clicked
//! item can carry (dwell on unclicked ranks, or no known dwell on any click) is counted as
//! dropped. Every other field reads back as written (tested by a round trip).

use super::formats::{Pool, SessionBuf, QUOTE};
use crate::input::snippet;
use serde_json::{json, Map, Value};

type Reason = String;

/// The schema version written.
pub const SCHEMA_VERSION: &str = "v1";

fn quoted(s: &str) -> String {
    format!("`{}`", snippet(s, QUOTE))
}

fn id_of(v: &Value) -> Option<String> {
    match v {
        Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_string()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn time_of(v: Option<&Value>, what: &str) -> Result<Option<f64>, Reason> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => match n.as_f64() {
            Some(t) if t.is_finite() => Ok(Some(t)),
            _ => Err(format!("{what} must be a finite number")),
        },
        Some(other) => Err(format!("{what} must be a number or null, not {}", quoted(&other.to_string()))),
    }
}

/// One SERP being read.
struct Serp {
    query: String,
    event: String,
    docs: Vec<String>,
    clicks: Vec<bool>,
    query_time: Option<f64>,
    click_times: Vec<f64>,
    dwell: Vec<f64>,
    any_dwell: bool,
}

fn ranked_items(v: &Value, event: &str) -> Result<Option<Vec<String>>, Reason> {
    let items = match v {
        Value::Null => return Ok(None),
        Value::Array(a) if a.is_empty() => return Ok(None),
        Value::Array(a) => a,
        _ => return Err(format!("event {event}: `ranked_items` must be a list")),
    };
    let mut by_rank: Vec<(u64, String)> = Vec::with_capacity(items.len());
    for it in items {
        let doc = it.get("doc_id").and_then(id_of).ok_or_else(|| format!("event {event}: every ranked item needs a `doc_id` (string or number)"))?;
        let rank = it
            .get("rank")
            .and_then(Value::as_u64)
            .filter(|&r| r >= 1)
            .ok_or_else(|| format!("event {event}: ranked item {} needs a `rank` >= 1", quoted(&doc)))?;
        by_rank.push((rank, doc));
    }
    by_rank.sort_by_key(|x| x.0);
    for (k, (r, _)) in by_rank.iter().enumerate() {
        if *r != k as u64 + 1 {
            return Err(format!(
                "event {event}: the ranks of `ranked_items` must be 1..{} without gaps or repeats (rank {r} found at position {})",
                by_rank.len(),
                k + 1
            ));
        }
    }
    Ok(Some(by_rank.into_iter().map(|x| x.1).collect()))
}

fn flush(serp: Option<Serp>, id: &str, start: Option<f64>, pool: &mut Pool) -> Result<(), Reason> {
    let Some(sp) = serp else { return Ok(()) };
    if sp.docs.is_empty() {
        return Err(format!(
            "query_issued event {} has no `ranked_items` (on it or on a serp_view after it): a click log needs the whole result list",
            sp.event
        ));
    }
    let s = pool.next();
    s.set_id(id);
    s.set_query(&sp.query);
    for d in &sp.docs {
        s.push_doc(d);
    }
    s.clicks.extend_from_slice(&sp.clicks);
    if sp.query_time.is_some() {
        s.click_times.extend_from_slice(&sp.click_times);
    }
    if sp.any_dwell {
        s.dwell.extend_from_slice(&sp.dwell);
    }
    s.timestamp = start.map(|t| t + sp.query_time.unwrap_or(0.0));
    Ok(())
}

/// Parses one `InteractionSession` line into one SERP impression per `query_issued` event.
pub(crate) fn parse_simeval_line(line: &str, pool: &mut Pool) -> Result<(), Reason> {
    pool.clear();
    let v: Value = crate::input::parse_json(line).map_err(|e| format!("invalid JSON session: {e}"))?;
    let o = v.as_object().ok_or("a SimEval-IR session must be a JSON object")?;
    let id = o.get("session_id").and_then(id_of).ok_or("`session_id` (a non-empty string or a number) is required")?;
    let events = match o.get("events") {
        Some(Value::Array(e)) => e,
        _ => return Err(format!("session {}: `events` (a list) is required", quoted(&id))),
    };
    let topic = o.get("topic_id").and_then(id_of);
    let start = time_of(o.get("meta").and_then(|m| m.get("start_time")), "`meta.start_time`")?;
    let mut serp: Option<Serp> = None;
    let mut queries = 0usize;
    for (k, e) in events.iter().enumerate() {
        let eid = e.get("event_id").and_then(id_of).unwrap_or_else(|| format!("#{}", k + 1));
        let ev = quoted(&eid);
        let ty = e.get("type").and_then(Value::as_str).ok_or_else(|| format!("event {ev}: `type` (a string) is required"))?;
        let ts = time_of(e.get("timestamp"), &format!("event {ev}: `timestamp`"))?;
        match ty {
            "query_issued" => {
                flush(serp.take(), &id, start, pool)?;
                queries += 1;
                let query = e
                    .get("query")
                    .and_then(id_of)
                    .or_else(|| topic.clone())
                    .ok_or_else(|| format!("query_issued event {ev} has no `query` (and the session no `topic_id`)"))?;
                let docs = ranked_items(e.get("ranked_items").unwrap_or(&Value::Null), &ev)?.unwrap_or_default();
                let n = docs.len();
                serp = Some(Serp {
                    query,
                    event: ev,
                    docs,
                    clicks: vec![false; n],
                    query_time: ts,
                    click_times: vec![f64::NAN; n],
                    dwell: vec![0.0; n],
                    any_dwell: false,
                });
            }
            "serp_view" => {
                let Some(sp) = serp.as_mut() else { continue };
                if let Some(docs) = ranked_items(e.get("ranked_items").unwrap_or(&Value::Null), &ev)? {
                    if sp.docs.is_empty() {
                        let n = docs.len();
                        sp.docs = docs;
                        sp.clicks = vec![false; n];
                        sp.click_times = vec![f64::NAN; n];
                        sp.dwell = vec![0.0; n];
                    } else if sp.docs != docs {
                        return Err(format!(
                            "serp_view event {ev} shows a result list other than the one of query_issued event {} (one list per query)",
                            sp.event
                        ));
                    }
                }
            }
            "click" => {
                let sp = serp
                    .as_mut()
                    .filter(|s| !s.docs.is_empty())
                    .ok_or_else(|| format!("click event {ev} comes before any query_issued with `ranked_items`"))?;
                let items = match e.get("clicked_items") {
                    Some(Value::Array(a)) if !a.is_empty() => a,
                    _ => return Err(format!("click event {ev} has no `clicked_items`")),
                };
                for it in items {
                    let doc = it.get("doc_id").and_then(id_of);
                    let rank = match it.get("rank") {
                        None | Some(Value::Null) => None,
                        Some(r) => {
                            Some(r.as_u64().filter(|&r| r >= 1).ok_or_else(|| format!("click event {ev}: `rank` must be a whole number >= 1"))? as usize)
                        }
                    };
                    let r = match (rank, &doc) {
                        (Some(r), _) if r > sp.docs.len() => {
                            return Err(format!("click event {ev}: rank {r} is not on the result list of {} results", sp.docs.len()));
                        }
                        (Some(r), Some(d)) if &sp.docs[r - 1] != d => {
                            return Err(format!(
                                "click event {ev}: document {} is not at rank {r} (the list has {} there)",
                                quoted(d),
                                quoted(&sp.docs[r - 1])
                            ));
                        }
                        (Some(r), _) => r - 1,
                        (None, Some(d)) => {
                            sp.docs.iter().position(|x| x == d).ok_or_else(|| format!("click event {ev}: document {} is not on the result list", quoted(d)))?
                        }
                        (None, None) => return Err(format!("click event {ev}: a clicked item needs a `rank` or a `doc_id`")),
                    };
                    sp.clicks[r] = true;
                    if let Some(t) = ts {
                        let q = sp.query_time.ok_or_else(|| format!("click event {ev} has a timestamp but its query_issued event {} has none", sp.event))?;
                        if t < q {
                            return Err(format!(
                                "click event {ev}: timestamp {t} is before the timestamp {q} of its query_issued event {}: a click cannot come before its query",
                                sp.event
                            ));
                        }
                        if !(sp.click_times[r] <= t - q) {
                            sp.click_times[r] = t - q;
                        }
                    }
                    if let Some(d) = time_of(it.get("dwell_time"), &format!("click event {ev}: `dwell_time`"))? {
                        if d < 0.0 {
                            return Err(format!("click event {ev}: `dwell_time` must be >= 0"));
                        }
                        if !sp.any_dwell {
                            // Clicked ranks without a dwell are unknown (NaN) once any is known.
                            for (x, &c) in sp.dwell.iter_mut().zip(&sp.clicks) {
                                if c {
                                    *x = f64::NAN;
                                }
                            }
                            sp.any_dwell = true;
                        }
                        sp.dwell[r] = if sp.dwell[r].is_finite() && sp.dwell[r] > 0.0 { sp.dwell[r] + d } else { d };
                    } else if sp.any_dwell && sp.dwell[r] == 0.0 {
                        sp.dwell[r] = f64::NAN;
                    }
                }
            }
            _ => {}
        }
    }
    flush(serp, &id, start, pool)?;
    if queries == 0 {
        return Err(format!("session {} has no query_issued event", quoted(&id)));
    }
    Ok(())
}

/// Writes SERP impression `n` (1-based) as one `InteractionSession` line into `line` (no
/// newline). Returns whether dwell was dropped (see the module documentation).
pub(crate) fn write_simeval_line(n: usize, s: &SessionBuf, line: &mut String) -> bool {
    let has_times = !s.click_times.is_empty();
    let has_dwell = !s.dwell.is_empty();
    let clicked: Vec<usize> = {
        let mut c: Vec<usize> = (0..s.len()).filter(|&r| s.clicks[r]).collect();
        if has_times {
            c.sort_by(|&a, &b| {
                let (x, y) = (s.click_times[a], s.click_times[b]);
                match (x.is_nan(), y.is_nan()) {
                    (false, false) => x.total_cmp(&y).then(a.cmp(&b)),
                    (true, true) => a.cmp(&b),
                    (false, true) => std::cmp::Ordering::Less,
                    (true, false) => std::cmp::Ordering::Greater,
                }
            });
        }
        c
    };
    let dropped_dwell = has_dwell && ((0..s.len()).any(|r| !s.clicks[r] && s.dwell[r] != 0.0) || !clicked.iter().any(|&r| s.dwell[r].is_finite()));
    let ranked: Vec<Value> = s.docs().enumerate().map(|(i, d)| json!({"doc_id": d, "rank": i + 1})).collect();
    let mut events = vec![json!({
        "event_id": "e1",
        "type": "query_issued",
        "timestamp": if has_times { json!(0.0) } else { Value::Null },
        "role": "user",
        "query": s.query(),
        "ranked_items": ranked,
    })];
    for (k, &r) in clicked.iter().enumerate() {
        let t = if has_times && s.click_times[r].is_finite() { json!(s.click_times[r]) } else { Value::Null };
        let dwell = if has_dwell && !dropped_dwell && s.dwell[r].is_finite() { json!(s.dwell[r]) } else { Value::Null };
        events.push(json!({
            "event_id": format!("e{}", k + 2),
            "type": "click",
            "timestamp": t,
            "role": "user",
            "clicked_items": [{"doc_id": s.doc(r), "rank": r + 1, "dwell_time": dwell}],
        }));
    }
    let mut meta = Map::new();
    if let Some(t) = s.timestamp {
        meta.insert("start_time".into(), json!(t));
    }
    let o = json!({
        "schema_version": SCHEMA_VERSION,
        "session_id": s.id().map_or_else(|| n.to_string(), str::to_string),
        "dataset_id": "serpsim",
        "session_type": "search",
        "events": events,
        "meta": meta,
    });
    line.push_str(&o.to_string());
    dropped_dwell
}

#[cfg(test)]
mod tests {
    //! Round trips (serpsim's writer, then serpsim's reader through the one input layer) and
    //! `file:line` errors. Expected values are the sessions generated or written by hand here.
    use super::*;
    use crate::input::Input;
    use crate::logs::{for_each_session, Format, RawSession, ReadOptions};
    use proptest::prelude::*;
    use std::io::Write as _;

    fn read(name: &str, bytes: Vec<u8>) -> crate::error::Result<Vec<RawSession>> {
        let mut out = Vec::new();
        let input = Input::from_bytes(name, bytes)?;
        for_each_session(input, &ReadOptions::new(Format::SimEval), &mut |s| {
            out.push(s.to_raw());
            Ok(())
        })?;
        Ok(out)
    }

    fn buf(r: &RawSession) -> SessionBuf {
        let mut s = SessionBuf::default();
        if let Some(id) = &r.id {
            s.set_id(id);
        }
        s.set_query(&r.query);
        for d in &r.docs {
            s.push_doc(d);
        }
        s.clicks = r.clicks.clone();
        s.timestamp = r.timestamp;
        s.dwell = r.dwell.clone().unwrap_or_default();
        s.click_times = r.click_times.clone().unwrap_or_default();
        s
    }

    fn same(a: &Option<Vec<f64>>, b: &Option<Vec<f64>>) -> bool {
        match (a, b) {
            (None, None) => true,
            (Some(a), Some(b)) => a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x.is_nan() && y.is_nan()) || x == y),
            _ => false,
        }
    }

    fn write_all(sessions: &[RawSession]) -> (String, usize) {
        let mut text = String::new();
        let mut dropped = 0;
        for (n, r) in sessions.iter().enumerate() {
            dropped += usize::from(write_simeval_line(n + 1, &buf(r), &mut text));
            text.push('\n');
        }
        (text, dropped)
    }

    /// What the reader must give back: the session, without dwell the format cannot hold.
    fn expected(r: &RawSession) -> RawSession {
        let mut e = r.clone();
        if let Some(d) = &r.dwell {
            let unclicked = d.iter().zip(&r.clicks).any(|(&x, &c)| !c && x != 0.0);
            let none_known = !d.iter().zip(&r.clicks).any(|(&x, &c)| c && x.is_finite());
            if unclicked || none_known {
                e.dwell = None;
            }
        }
        e
    }

    fn id_strategy() -> impl Strategy<Value = String> {
        // Non-blank ids with characters JSON must escape.
        "[a-zA-Z0-9_\"\\\\é:,;-][a-zA-Z0-9_\"\\\\é :,;-]{0,5}[a-zA-Z0-9_é]".prop_map(|s| s)
    }

    fn session_strategy() -> impl Strategy<Value = RawSession> {
        (1usize..9)
            .prop_flat_map(|n| {
                (
                    id_strategy(),
                    id_strategy(),
                    proptest::collection::vec(id_strategy(), n),
                    proptest::collection::vec(any::<bool>(), n),
                    proptest::option::of(-1e9f64..1e9),
                    proptest::option::of(proptest::collection::vec((0u8..4, 0.0f64..500.0), n)),
                    proptest::option::of(proptest::collection::vec((0u8..4, 0.0f64..500.0), n)),
                )
            })
            .prop_map(|(id, query, docs, clicks, timestamp, dwell, times)| {
                // Per rank: clicked ranks get a value or NaN (code 0); unclicked ranks 0 dwell
                // (sometimes not: code 1, a dwell the format cannot hold) and NaN click time.
                let dwell = dwell.map(|v| {
                    v.iter()
                        .zip(&clicks)
                        .map(|(&(code, x), &c)| match (c, code) {
                            (true, 0) => f64::NAN,
                            (true, _) => x,
                            (false, 1) => x + 1.0,
                            (false, _) => 0.0,
                        })
                        .collect()
                });
                let click_times = times.map(|v| v.iter().zip(&clicks).map(|(&(code, x), &c)| if c && code != 0 { x } else { f64::NAN }).collect());
                RawSession { id: Some(id), query, docs, clicks, timestamp, dwell, click_times }
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]
        #[test]
        fn written_sessions_read_back(sessions in proptest::collection::vec(session_strategy(), 1..6), crlf in any::<bool>(), gzip in any::<bool>()) {
            let (text, dropped) = write_all(&sessions);
            let mut bytes = if crlf { text.replace('\n', "\r\n").into_bytes() } else { text.into_bytes() };
            if crlf {
                bytes.splice(0..0, [0xEF, 0xBB, 0xBF]);
            }
            if gzip {
                let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
                e.write_all(&bytes).unwrap();
                bytes = e.finish().unwrap();
            }
            let back = read("sim.jsonl", bytes).unwrap();
            prop_assert_eq!(back.len(), sessions.len());
            let mut want_dropped = 0;
            for (b, s) in back.iter().zip(&sessions) {
                let e = expected(s);
                want_dropped += usize::from(e.dwell.is_none() && s.dwell.is_some());
                prop_assert_eq!(&b.id, &e.id);
                prop_assert_eq!(&b.query, &e.query);
                prop_assert_eq!(&b.docs, &e.docs);
                prop_assert_eq!(&b.clicks, &e.clicks);
                prop_assert_eq!(b.timestamp, e.timestamp);
                prop_assert!(same(&b.dwell, &e.dwell), "dwell {:?} read back as {:?}", e.dwell, b.dwell);
                prop_assert!(same(&b.click_times, &e.click_times), "click times {:?} read back as {:?}", e.click_times, b.click_times);
            }
            prop_assert_eq!(dropped, want_dropped);
        }
    }

    #[test]
    fn a_session_without_id_gets_its_number_and_clicks_follow_time() {
        let r = RawSession {
            id: None,
            query: "q".into(),
            docs: vec!["a".into(), "b".into(), "c".into()],
            clicks: vec![true, false, true],
            timestamp: None,
            dwell: None,
            click_times: Some(vec![9.0, f64::NAN, 2.5]),
        };
        let mut line = String::new();
        write_simeval_line(7, &buf(&r), &mut line);
        let v: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["session_id"], "7");
        assert_eq!(v["schema_version"], "v1");
        assert_eq!(v["session_type"], "search");
        let ev = v["events"].as_array().unwrap();
        assert_eq!(ev.len(), 3);
        assert_eq!(ev[0]["type"], "query_issued");
        assert_eq!(ev[0]["timestamp"], 0.0);
        assert_eq!(ev[0]["ranked_items"][2]["doc_id"], "c");
        assert_eq!(ev[0]["ranked_items"][2]["rank"], 3);
        // Rank 3 was clicked first (at 2.5 s), then rank 1 (at 9 s).
        assert_eq!(ev[1]["clicked_items"][0]["rank"], 3);
        assert_eq!(ev[1]["timestamp"], 2.5);
        assert_eq!(ev[2]["clicked_items"][0]["rank"], 1);
    }

    #[test]
    fn reads_a_hand_written_multi_query_session() {
        // Two queries; the second SERP's list comes from a serp_view event; a click by doc_id
        // only; a dwell event and a bookmark are passed over; absolute start time in meta.
        let line = r#"{"session_id":"u1","dataset_id":"x","session_type":"search","meta":{"start_time":100},"events":[
{"event_id":"e1","type":"query_issued","query":"cats","timestamp":0,"ranked_items":[{"doc_id":"b","rank":2},{"doc_id":"a","rank":1}]},
{"event_id":"e2","type":"click","timestamp":4,"clicked_items":[{"doc_id":"b","rank":2,"dwell_time":30}]},
{"event_id":"e3","type":"dwell","timestamp":34},
{"event_id":"e4","type":"query_issued","query":"dogs","timestamp":40},
{"event_id":"e5","type":"serp_view","timestamp":40.5,"ranked_items":[{"doc_id":"x","rank":1},{"doc_id":"y","rank":2},{"doc_id":"z","rank":3}]},
{"event_id":"e6","type":"click","timestamp":43,"clicked_items":[{"doc_id":"z"}]},
{"event_id":"e7","type":"bookmark","timestamp":44}]}"#
            .replace('\n', "");
        let s = read("h.jsonl", format!("{line}\n").into_bytes()).unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].id.as_deref(), Some("u1"));
        assert_eq!(s[0].query, "cats");
        assert_eq!(s[0].docs, ["a", "b"]);
        assert_eq!(s[0].clicks, [false, true]);
        assert_eq!(s[0].timestamp, Some(100.0));
        assert!(same(&s[0].click_times, &Some(vec![f64::NAN, 4.0])));
        assert!(same(&s[0].dwell, &Some(vec![0.0, 30.0])));
        assert_eq!(s[1].query, "dogs");
        assert_eq!(s[1].docs, ["x", "y", "z"]);
        assert_eq!(s[1].clicks, [false, false, true]);
        assert_eq!(s[1].timestamp, Some(140.0));
        assert!(same(&s[1].click_times, &Some(vec![f64::NAN, f64::NAN, 3.0])));
        assert_eq!(s[1].dwell, None);
    }

    #[test]
    fn bad_lines_fail_with_file_line_and_reason() {
        let good = r#"{"session_id":"s","events":[{"type":"query_issued","query":"q","ranked_items":[{"doc_id":"a","rank":1},{"doc_id":"b","rank":2}]}]}"#;
        let cases = [
            ("{\"session_id\": \"s\", \"events\": [", "invalid JSON session"),
            ("[1, 2]", "must be a JSON object"),
            (r#"{"events":[]}"#, "`session_id`"),
            (r#"{"session_id":"s"}"#, "`events` (a list) is required"),
            (r#"{"session_id":"s","events":[]}"#, "has no query_issued event"),
            (
                r#"{"session_id":"s","events":[{"event_id":"c1","type":"click","clicked_items":[{"doc_id":"a","rank":1}]}]}"#,
                "click event `c1` comes before any query_issued",
            ),
            (r#"{"session_id":"s","events":[{"event_id":"q1","type":"query_issued","query":"q"}]}"#, "query_issued event `q1` has no `ranked_items`"),
            (r#"{"session_id":"s","events":[{"event_id":"q1","type":"query_issued","ranked_items":[{"doc_id":"a","rank":1}]}]}"#, "has no `query`"),
            (
                r#"{"session_id":"s","events":[{"event_id":"q1","type":"query_issued","query":"q","ranked_items":[{"doc_id":"a","rank":1},{"doc_id":"b","rank":3}]}]}"#,
                "without gaps or repeats",
            ),
            (
                r#"{"session_id":"s","events":[{"event_id":"q1","type":"query_issued","query":"q","ranked_items":[{"doc_id":"a","rank":1},{"doc_id":"b","rank":2}]},{"event_id":"c1","type":"click","clicked_items":[{"doc_id":"a","rank":2}]}]}"#,
                "document `a` is not at rank 2",
            ),
            (
                r#"{"session_id":"s","events":[{"event_id":"q1","type":"query_issued","query":"q","ranked_items":[{"doc_id":"a","rank":1}]},{"event_id":"c1","type":"click","clicked_items":[{"doc_id":"a","rank":5}]}]}"#,
                "rank 5 is not on the result list",
            ),
            (
                r#"{"session_id":"s","events":[{"event_id":"q1","type":"query_issued","query":"q","ranked_items":[{"doc_id":"a","rank":1}]},{"event_id":"c1","type":"click","timestamp":3,"clicked_items":[{"rank":1}]}]}"#,
                "has a timestamp but its query_issued event `q1` has none",
            ),
            (
                r#"{"session_id":"s","events":[{"event_id":"q1","type":"query_issued","query":"q","ranked_items":[{"doc_id":"a","rank":1}]},{"event_id":"v","type":"serp_view","ranked_items":[{"doc_id":"b","rank":1}]}]}"#,
                "shows a result list other than",
            ),
            (
                r#"{"session_id":"s","events":[{"event_id":"q1","type":"query_issued","query":"q","timestamp":"soon","ranked_items":[{"doc_id":"a","rank":1}]}]}"#,
                "`timestamp` must be a number or null",
            ),
        ];
        for (bad, reason) in cases {
            let text = format!("{good}\r\n{bad}\r\n");
            let err = read("real.jsonl", text.into_bytes()).unwrap_err().to_string();
            assert!(err.contains("real.jsonl:2:") && err.contains(reason), "{bad}: {err}");
        }
        // The good line alone reads.
        assert_eq!(read("real.jsonl", format!("{good}\n").into_bytes()).unwrap().len(), 1);
    }
}
