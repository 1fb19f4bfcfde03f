//! Collections with sublists: from any [`Collection`] with category labels, from the synthetic
//! generator with knobs for sublist relevance (Rq) and entropy (Hq), and from LETOR features.

use super::model::TopicSublists;
use crate::collection::Collection;
use crate::error::{Error, Result};

pub use crate::collection::categories::{letor_with_categories, SublistSyntheticConfig};

/// Per topic of `system`'s SERPs: "All" is the SERP, and each category gives the sublist of
/// the SERP's documents carrying that label, in the SERP's order. Topics without a SERP are
/// skipped. Category names come from [`Collection::categories`].
pub fn topics_from_collection(c: &Collection, system: usize) -> Result<Vec<TopicSublists>> {
    let sys = c.systems.get(system).ok_or_else(|| Error::Invalid(format!("no system number {system}")))?;
    let mut out = Vec::new();
    for (t, topic) in c.topics.iter().enumerate() {
        let Some(serp) = sys.serps.get(t).and_then(|s| s.as_ref()) else { continue };
        if serp.docs.is_empty() {
            continue;
        }
        let mut lists: Vec<Vec<u32>> = vec![Vec::new(); c.categories.len()];
        let mut grades = Vec::with_capacity(serp.docs.len());
        for (rank, &d) in serp.docs.iter().enumerate() {
            let doc = &topic.documents[d as usize];
            grades.push(doc.grade);
            for &cat in &doc.categories {
                let list = lists.get_mut(cat as usize).ok_or_else(|| {
                    Error::Invalid(format!("topic `{}`: document `{}` has category {cat} but only {} are named", topic.id, doc.id, c.categories.len()))
                })?;
                list.push(rank as u32);
            }
        }
        let named = c.categories.iter().cloned().zip(lists).collect();
        out.push(TopicSublists::new(topic.id.clone(), grades, named)?);
    }
    if out.is_empty() {
        return Err(Error::Invalid(format!("system `{}` ranks no topic", sys.name)));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collection::letor::LetorData;
    use crate::presets::sublists::measures::{sublist_entropy, sublist_relevance};

    #[test]
    fn sublists_keep_the_original_order_and_all_is_first() {
        let mut cfg = SublistSyntheticConfig::default();
        cfg.collection.topics = 3;
        let c = cfg.generate().unwrap();
        let topics = topics_from_collection(&c, 0).unwrap();
        assert_eq!(topics.len(), 3);
        for (t, ts) in topics.iter().enumerate() {
            assert_eq!(ts.names[0], "All");
            let serp = &c.systems[0].serps[t].as_ref().unwrap().docs;
            for (k, list) in ts.lists.iter().enumerate().skip(1) {
                assert!(list.windows(2).all(|w| w[0] < w[1]));
                let cat = c.categories.iter().position(|n| *n == ts.names[k]).unwrap() as u32;
                for &r in list {
                    assert!(c.topics[t].documents[serp[r as usize] as usize].categories.contains(&cat));
                }
            }
        }
    }

    #[test]
    fn knobs_move_rq_and_hq_in_the_intended_direction() {
        let mean = |skew: f64, purity: f64| {
            let mut cfg = SublistSyntheticConfig { relevant_skew: [skew, skew], sublist_purity: [purity, purity], ..Default::default() };
            cfg.collection.topics = 40;
            cfg.collection.categories = 6;
            let topics = topics_from_collection(&cfg.generate().unwrap(), 0).unwrap();
            let n = topics.len() as f64;
            (topics.iter().map(sublist_relevance).sum::<f64>() / n, topics.iter().map(sublist_entropy).sum::<f64>() / n)
        };
        let (_, h_flat) = mean(0.0, 0.0);
        let (r_lo, _) = mean(1.5, 0.0);
        let (r_hi, _) = mean(1.5, 0.95);
        let (_, h_peaked) = mean(3.0, 0.0);
        assert!(h_peaked < h_flat - 0.5, "Hq {h_peaked} vs {h_flat}");
        assert!(r_hi > r_lo + 0.01, "Rq {r_hi} vs {r_lo}");
        eprintln!("Rq {r_lo} -> {r_hi}, Hq {h_flat} -> {h_peaked}");
    }

    #[test]
    fn letor_bins_split_values_by_quantile() {
        let text = "1 qid:1 1:0.1 2:5 # docid = a\n0 qid:1 1:0.2 2:4 # docid = b\n0 qid:1 1:0.3 2:3 # docid = c\n2 qid:1 1:0.4 2:2 # docid = d\n";
        let data = LetorData::parse(text, "inline").unwrap();
        let c = letor_with_categories(&data, &[1.0], &[1, 2], 2).unwrap();
        assert_eq!(c.categories, vec!["f1:b1", "f1:b2", "f2:b1", "f2:b2"]);
        let cats: Vec<Vec<u32>> = c.topics[0].documents.iter().map(|d| d.categories.clone()).collect();
        assert_eq!(cats, vec![vec![0, 3], vec![0, 3], vec![1, 2], vec![1, 2]]);
        let topics = topics_from_collection(&c, 0).unwrap();
        // Ranked by feature 1 descending: d, c, b, a.
        assert_eq!(topics[0].grades, vec![2, 0, 0, 1]);
        assert_eq!(topics[0].lists[1], vec![2, 3]); // f1:b1 = {b, a}
        assert!(letor_with_categories(&data, &[1.0], &[3], 2).is_err());
    }
}
