//! `[[sweep]]`: the profiles of every combination of swept values, and their names (labels
//! such as `SS1 n=5`).

use super::{Scenario, SweepSpec};
use crate::error::{Error, Result};
use crate::user::UserProfile;

/// The values a swept profile was given: each `[[sweep]]` key with its value, in sweep order.
pub type SweepAssignment = Vec<(String, toml::Value)>;

impl Scenario {
    /// The profiles after applying `[[sweep]]`: every combination of sweep values applied to
    /// every profile, named by [`sweep_labels`] (`SS1 n=5`, with the profile's name in front
    /// when the scenario has several profiles). Returns each profile with its assignment.
    pub fn expanded_profiles(&self, context: &str) -> Result<Vec<(UserProfile, SweepAssignment)>> {
        if self.sweep.is_empty() {
            return Ok(self.profiles.iter().map(|p| (p.clone(), Vec::new())).collect());
        }
        let parts = sweep_labels(&self.sweep, context)?;
        let mut combos: Vec<Vec<(usize, usize)>> = vec![Vec::new()];
        for (i, s) in self.sweep.iter().enumerate() {
            combos = combos.into_iter().flat_map(|c| (0..s.values.len()).map(move |j| [c.clone(), vec![(i, j)]].concat())).collect();
        }
        let mut out = Vec::new();
        for (pi, p) in self.profiles.iter().enumerate() {
            let base = toml::Value::try_from(p).map_err(|e| Error::Invalid(format!("{context}: profiles[{pi}]: {e}")))?;
            for combo in &combos {
                let mut v = base.clone();
                let mut name: Vec<&str> = if self.profiles.len() > 1 { vec![p.name.as_str()] } else { Vec::new() };
                let mut assignment = Vec::new();
                for &(i, j) in combo {
                    let s = &self.sweep[i];
                    set_path(&mut v, &s.key, s.values[j].clone())
                        .map_err(|why| Error::config(context, format!("sweep[{i}].key"), format!("`{}`: {why}", s.key)))?;
                    name.push(&parts[i][j]);
                    assignment.push((s.key.clone(), s.values[j].clone()));
                }
                let name = name.join(" ");
                if let toml::Value::Table(t) = &mut v {
                    t.insert("name".into(), toml::Value::String(name));
                }
                let prof: UserProfile = v
                    .try_into()
                    .map_err(|e: toml::de::Error| Error::config(context, "sweep", format!("profile `{}` with {:?}: {}", p.name, assignment, e.message())))?;
                prof.validate(context, &format!("profiles[{pi}] (sweep {:?})", assignment.iter().map(|a| a.0.as_str()).collect::<Vec<_>>()))?;
                if out.iter().any(|(q, _): &(UserProfile, _)| q.name == prof.name) {
                    return Err(Error::config(
                        context,
                        "sweep",
                        format!("two swept profiles are both named `{}`: make the sweep values tell them apart", prof.name),
                    ));
                }
                out.push((prof, assignment));
            }
        }
        Ok(out)
    }
}

/// Paper names of the stopping rules (as `StoppingRuleKind::short_name`): SS1, SS2, SS3.
fn rule_label(rule: &str) -> &str {
    match rule {
        "fixed_depth" => "SS1",
        "total_nonrelevant" => "SS2",
        "contiguous_nonrelevant" => "SS3",
        other => other,
    }
}

/// A scalar or array TOML value as a label: strings without quotes, others as TOML writes them.
fn value_label(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The last name of a dotted key path without its index: `stopping[0].n` gives `n`.
fn key_leaf(key: &str) -> &str {
    let last = key.rsplit('.').next().unwrap_or(key);
    last.split('[').next().unwrap_or(last)
}

/// The label of each value of each `[[sweep]]` entry: `labels[i][j]` names `sweep[i].values[j]`.
///
/// - A scalar or array value reads `leaf=value`, the leaf being the key's last name
///   (`stopping[0].n = 5` gives `n=5`, `continuation.lambda = 0.01` gives `lambda=0.01`,
///   strings unquoted); where two entries share a leaf, the whole key (`stopping[1].n=5`).
/// - A table with a `rule` (a stopping rule) or `model` reads as that name, stopping rules by
///   their paper names (`fixed_depth` SS1, `total_nonrelevant` SS2, `contiguous_nonrelevant`
///   SS3); a value of `stopping[i].rule` too. The table's other fields are added
///   (`satisfaction k=10`) only where the name alone would not tell the entry's values apart.
///   Another table reads as its fields, `k=v` in key order.
///
/// Profile names join the labels of their combination with spaces (`SS1 n=5`), after the
/// profile's own name when the scenario has several profiles. Values listed twice in one
/// entry are an error (they would make two profiles of the same name).
pub fn sweep_labels(sweep: &[SweepSpec], context: &str) -> Result<Vec<Vec<String>>> {
    let mut out = Vec::with_capacity(sweep.len());
    for (i, s) in sweep.iter().enumerate() {
        let leaf = key_leaf(&s.key);
        let shared_leaf = sweep.iter().enumerate().any(|(k, o)| k != i && key_leaf(&o.key) == leaf);
        let name_of = |v: &toml::Value, full: bool| -> String {
            match v {
                toml::Value::Table(t) => {
                    let head = match (t.get("rule"), t.get("model")) {
                        (Some(toml::Value::String(r)), _) => Some(("rule", rule_label(r).to_string())),
                        (None, Some(toml::Value::String(m))) => Some(("model", m.clone())),
                        _ => None,
                    };
                    let fields = |skip: &str| t.iter().filter(|(k, _)| k.as_str() != skip).map(|(k, v)| format!("{k}={}", value_label(v))).collect::<Vec<_>>();
                    match head {
                        Some((_, h)) if !full => h,
                        Some((skip, h)) => std::iter::once(h).chain(fields(skip)).collect::<Vec<_>>().join(" "),
                        None => fields("").join(" "),
                    }
                }
                toml::Value::String(r) if leaf == "rule" => rule_label(r).to_string(),
                other => format!("{}={}", if shared_leaf { s.key.as_str() } else { leaf }, value_label(other)),
            }
        };
        let short: Vec<String> = s.values.iter().map(|v| name_of(v, false)).collect();
        let labels: Vec<String> =
            s.values.iter().zip(&short).map(|(v, l)| if short.iter().filter(|x| *x == l).count() > 1 { name_of(v, true) } else { l.clone() }).collect();
        for (j, l) in labels.iter().enumerate() {
            if let Some(k) = labels[..j].iter().position(|x| x == l) {
                return Err(Error::config(
                    context,
                    format!("sweep[{i}].values"),
                    format!("values {} and {} both read `{l}` (is a value listed twice?): each swept profile needs its own name", k + 1, j + 1),
                ));
            }
        }
        out.push(labels);
    }
    Ok(out)
}

/// Sets the dotted `path` (`a.b[2].c`) inside a TOML value, creating tables on the way.
fn set_path(root: &mut toml::Value, path: &str, value: toml::Value) -> std::result::Result<(), String> {
    let mut cur = root;
    let parts: Vec<&str> = path.split('.').collect();
    for (i, part) in parts.iter().enumerate() {
        let last = i + 1 == parts.len();
        let (name, index) = match part.find('[') {
            Some(b) => {
                let idx: usize = part[b + 1..].trim_end_matches(']').parse().map_err(|_| format!("`{part}` is not `name[index]`"))?;
                (&part[..b], Some(idx))
            }
            None => (*part, None),
        };
        let table = cur.as_table_mut().ok_or_else(|| format!("`{name}` is not inside a table"))?;
        match index {
            None if last => {
                table.insert(name.to_string(), value);
                return Ok(());
            }
            None => {
                cur = table.entry(name.to_string()).or_insert_with(|| toml::Value::Table(Default::default()));
            }
            Some(idx) => {
                let arr = table.get_mut(name).and_then(|v| v.as_array_mut()).ok_or_else(|| format!("the profile has no list `{name}` to index"))?;
                let len = arr.len();
                let slot = arr.get_mut(idx).ok_or_else(|| format!("`{name}` has {len} entries, no [{idx}]"))?;
                if last {
                    *slot = value;
                    return Ok(());
                }
                cur = slot;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sweeps_expand_profiles() {
        let text = "name='a'\n[collection]\nsource='synthetic'\n[[profiles]]\nname='u'\nstopping=[{rule='fixed_depth', n=1}]\n\
                    [[sweep]]\nkey='stopping[0].rule'\nvalues=['fixed_depth','total_nonrelevant']\n[[sweep]]\nkey='stopping[0].n'\nvalues=[2,3,5]\n";
        let s = Scenario::parse(text, "x.toml").unwrap();
        let p = s.expanded_profiles("x.toml").unwrap();
        assert_eq!(p.len(), 6);
        assert_eq!(p[4].0.name, "SS2 n=3");
        assert_eq!(p[4].0.stopping[0].short_name(), "SS2");
        let bad = text.replace("stopping[0].n'", "stopping[3].n'");
        let e = Scenario::parse(&bad, "x.toml").unwrap().expanded_profiles("x.toml").unwrap_err().to_string();
        assert!(e.contains("sweep[1].key") && e.contains("no [3]"), "{e}");
    }

    fn labels_of(sweep: &str) -> Result<Vec<String>> {
        let text = format!("name='a'\n[collection]\nsource='synthetic'\n[[profiles]]\nname='u'\ncontinuation={{model='exponential', lambda=0.1}}\nstopping=[{{rule='fixed_depth', n=1}}]\n{sweep}");
        let s = Scenario::parse(&text, "x.toml")?;
        Ok(s.expanded_profiles("x.toml")?.into_iter().map(|p| p.0.name).collect())
    }

    /// Expected names written by hand from the rules in `sweep_labels`'s docs.
    #[test]
    fn swept_profiles_have_short_readable_unique_names() {
        // Maxwell's sweep: rule tables by paper name, thresholds by leaf.
        let maxwell = "[[sweep]]\nkey='stopping[0]'\nvalues=[{rule='fixed_depth'}, {rule='total_nonrelevant', basis='snippet'}, {rule='contiguous_nonrelevant', basis='snippet'}]\n\
                       [[sweep]]\nkey='stopping[0].n'\nvalues=[1, 5, 50]\n";
        assert_eq!(labels_of(maxwell).unwrap(), ["SS1 n=1", "SS1 n=5", "SS1 n=50", "SS2 n=1", "SS2 n=5", "SS2 n=50", "SS3 n=1", "SS3 n=5", "SS3 n=50"]);
        // The sublists sweep: two satisfaction rules need their k; strings unquoted; floats as TOML.
        let sublists = "[[sweep]]\nkey='stopping[0]'\nvalues=[{rule='satisfaction', k=1}, {rule='satisfaction', k=10}, {rule='find_all'}]\n\
                        [[sweep]]\nkey='sublists.prior'\nvalues=['ndcg']\n[[sweep]]\nkey='continuation.lambda'\nvalues=[0.5, 0.001]\n";
        assert_eq!(
            labels_of(sublists).unwrap(),
            [
                "satisfaction k=1 prior=ndcg lambda=0.5",
                "satisfaction k=1 prior=ndcg lambda=0.001",
                "satisfaction k=10 prior=ndcg lambda=0.5",
                "satisfaction k=10 prior=ndcg lambda=0.001",
                "find_all prior=ndcg lambda=0.5",
                "find_all prior=ndcg lambda=0.001"
            ]
        );
        // Two keys with the same leaf keep their whole keys; a model table reads as its model.
        let shared = "[[sweep]]\nkey='stopping[0].n'\nvalues=[2]\n[[sweep]]\nkey='stopping[1].n'\nvalues=[3, 4]\n\
                      [[sweep]]\nkey='continuation'\nvalues=[{model='rbp', p=0.8}, {model='rbp', p=0.5}, {model='fixed', depth=2.0}]\n";
        let text = format!(
            "name='a'\n[collection]\nsource='synthetic'\n[[profiles]]\nname='u'\nstopping=[{{rule='fixed_depth', n=1}}, {{rule='total_nonrelevant', n=1}}]\n{shared}"
        );
        let names: Vec<String> = Scenario::parse(&text, "x.toml").unwrap().expanded_profiles("x.toml").unwrap().into_iter().map(|p| p.0.name).collect();
        assert_eq!(names[0], "stopping[0].n=2 stopping[1].n=3 rbp p=0.8");
        assert_eq!(names[1], "stopping[0].n=2 stopping[1].n=3 rbp p=0.5");
        assert_eq!(names[2], "stopping[0].n=2 stopping[1].n=3 fixed");
        // Several profiles: the profile's name comes first.
        let text = "name='a'\n[collection]\nsource='synthetic'\n[[profiles]]\nname='u'\ncontinuation={model='rbp', p=0.9}\n[[profiles]]\nname='v'\ncontinuation={model='rbp', p=0.9}\n[[sweep]]\nkey='continuation.p'\nvalues=[0.5, 0.8]\n";
        let names: Vec<String> = Scenario::parse(text, "x.toml").unwrap().expanded_profiles("x.toml").unwrap().into_iter().map(|p| p.0.name).collect();
        assert_eq!(names, ["u p=0.5", "u p=0.8", "v p=0.5", "v p=0.8"]);
        // A value listed twice: a clear error, not two profiles of one name.
        let e = labels_of("[[sweep]]\nkey='stopping[0].n'\nvalues=[1, 2, 1]\n").unwrap_err().to_string();
        assert!(e.contains("sweep[0].values") && e.contains("values 1 and 3 both read `n=1`"), "{e}");
        // Deterministic: the same scenario gives the same names.
        assert_eq!(labels_of(maxwell).unwrap(), labels_of(maxwell).unwrap());
    }

    /// The label's paper names are the rules' own short names (`StoppingRuleKind::short_name`).
    #[test]
    fn rule_labels_match_short_names() {
        for rule in ["fixed_depth", "total_nonrelevant", "contiguous_nonrelevant", "satisfaction", "find_all"] {
            let v: crate::user::StoppingRuleKind = toml::from_str::<toml::Table>(&format!("rule = '{rule}'\nn = 1\nk = 1"))
                .ok()
                .and_then(|mut t| {
                    if rule == "find_all" {
                        t.remove("n");
                        t.remove("k");
                    } else if rule == "satisfaction" {
                        t.remove("n");
                    } else {
                        t.remove("k");
                    }
                    toml::Value::Table(t).try_into().ok()
                })
                .unwrap_or_else(|| panic!("{rule}"));
            assert_eq!(rule_label(rule), v.short_name(), "{rule}");
        }
    }
}
