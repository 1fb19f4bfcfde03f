//! Input formats for modeled stream utility (documented in `docs/streams.md`). All files are
//! whitespace-separated text; blank lines and lines starting with `#` are skipped. Times are Unix
//! seconds (`1354874100`, decimals allowed) or UTC `YYYY-MM-DDTHH:MM:SS`.
//!
//! - topics: `topic start end` (the query duration);
//! - nuggets: `topic nugget time` (time of first occurrence);
//! - updates (one file per system): `topic update time confidence words`;
//! - matches: `topic update nugget` (which nuggets an update contains; shared by all systems,
//!   matches of updates a system did not emit are ignored).

use crate::error::{Error, Result};
use crate::input::{snippet, strip_bom, ECHO};
use crate::simulate::stream::{reading_order, StreamTopic, Update};
use std::collections::HashMap;
use std::path::Path;

/// Parses a time: Unix seconds or UTC `YYYY-MM-DDTHH:MM:SS` (a trailing `Z` is allowed).
pub fn parse_time(s: &str) -> Option<f64> {
    if let Ok(x) = s.parse::<f64>() {
        return x.is_finite().then_some(x);
    }
    let s = s.strip_suffix('Z').unwrap_or(s);
    let (date, time) = s.split_once('T')?;
    let d: Vec<&str> = date.split('-').collect();
    let t: Vec<&str> = time.split(':').collect();
    if d.len() != 3 || t.len() != 3 {
        return None;
    }
    let (y, m, day): (i64, i64, i64) = (d[0].parse().ok()?, d[1].parse().ok()?, d[2].parse().ok()?);
    let (hh, mm, ss): (i64, i64, f64) = (t[0].parse().ok()?, t[1].parse().ok()?, t[2].parse().ok()?);
    if !(1..=12).contains(&m) || !(1..=31).contains(&day) || !(0..24).contains(&hh) || !(0..60).contains(&mm) || !(0.0..61.0).contains(&ss) {
        return None;
    }
    // Days from civil (Howard Hinnant's algorithm).
    let y2 = if m <= 2 { y - 1 } else { y };
    let era = if y2 >= 0 { y2 } else { y2 - 399 } / 400;
    let yoe = y2 - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some((days * 86_400 + hh * 3600 + mm * 60) as f64 + ss)
}

fn lines(text: &str) -> impl Iterator<Item = (usize, Vec<&str>)> + '_ {
    strip_bom(text).lines().enumerate().filter_map(|(i, l)| {
        let t = l.trim();
        (!t.is_empty() && !t.starts_with('#')).then(|| (i + 1, t.split_whitespace().collect()))
    })
}

fn fields(f: &[&str], n: usize, what: &str, source: &str, line: usize) -> Result<()> {
    if f.len() != n {
        return Err(Error::parse(source, line, format!("expected {n} fields `{what}`, found {}", f.len())));
    }
    Ok(())
}

fn time(s: &str, source: &str, line: usize) -> Result<f64> {
    parse_time(s).ok_or_else(|| Error::parse(source, line, format!("`{}` is not a time (Unix seconds or YYYY-MM-DDTHH:MM:SS)", snippet(s, ECHO))))
}

fn read(path: &Path) -> Result<String> {
    crate::input::read_to_string(path)
}

/// Topics with their nuggets.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamData {
    /// Topics in file order.
    pub topics: Vec<StreamTopic>,
    /// Per topic: update id -> nuggets (indices), from the matches file.
    pub matches: Vec<HashMap<String, Vec<u32>>>,
}

impl StreamData {
    /// Parses topics, nuggets and matches text; `sources` name them in errors.
    pub fn parse(topics: &str, nuggets: &str, matches: &str, sources: [&str; 3]) -> Result<Self> {
        let mut out = StreamData { topics: Vec::new(), matches: Vec::new() };
        let mut pos: HashMap<String, usize> = HashMap::new();
        for (line, f) in lines(topics) {
            fields(&f, 3, "topic start end", sources[0], line)?;
            let (start, end) = (time(f[1], sources[0], line)?, time(f[2], sources[0], line)?);
            if end < start {
                return Err(Error::parse(sources[0], line, "end is before start"));
            }
            if pos.insert(f[0].to_string(), out.topics.len()).is_some() {
                return Err(Error::parse(sources[0], line, format!("topic `{}` listed twice", snippet(f[0], ECHO))));
            }
            out.topics.push(StreamTopic { id: f[0].into(), start, end, nugget_ids: Vec::new(), nugget_times: Vec::new() });
            out.matches.push(HashMap::new());
        }
        if out.topics.is_empty() {
            return Err(Error::parse(sources[0], 1, "no topics"));
        }
        let mut npos: Vec<HashMap<String, u32>> = vec![HashMap::new(); out.topics.len()];
        for (line, f) in lines(nuggets) {
            fields(&f, 3, "topic nugget time", sources[1], line)?;
            let t = *pos.get(f[0]).ok_or_else(|| Error::parse(sources[1], line, format!("unknown topic `{}`", snippet(f[0], ECHO))))?;
            let tm = time(f[2], sources[1], line)?;
            let topic = &mut out.topics[t];
            if npos[t].insert(f[1].to_string(), topic.nugget_ids.len() as u32).is_some() {
                return Err(Error::parse(sources[1], line, format!("nugget `{}` listed twice for topic `{}`", snippet(f[1], ECHO), snippet(f[0], ECHO))));
            }
            topic.nugget_ids.push(f[1].into());
            topic.nugget_times.push(tm);
        }
        for (line, f) in lines(matches) {
            fields(&f, 3, "topic update nugget", sources[2], line)?;
            let t = *pos.get(f[0]).ok_or_else(|| Error::parse(sources[2], line, format!("unknown topic `{}`", snippet(f[0], ECHO))))?;
            let n = *npos[t]
                .get(f[2])
                .ok_or_else(|| Error::parse(sources[2], line, format!("unknown nugget `{}` of topic `{}`", snippet(f[2], ECHO), snippet(f[0], ECHO))))?;
            let list = out.matches[t].entry(f[1].to_string()).or_default();
            if !list.contains(&n) {
                list.push(n);
            }
        }
        Ok(out)
    }

    /// Reads the three files.
    pub fn from_files(topics: &Path, nuggets: &Path, matches: &Path) -> Result<Self> {
        Self::parse(
            &read(topics)?,
            &read(nuggets)?,
            &read(matches)?,
            [&topics.display().to_string(), &nuggets.display().to_string(), &matches.display().to_string()],
        )
    }

    /// Parses one system's updates into per-topic lists in reading order. Updates of topics not
    /// in the topics file are an error; topics without updates get an empty list.
    pub fn parse_updates(&self, text: &str, source: &str) -> Result<Vec<Vec<Update>>> {
        let pos: HashMap<&str, usize> = self.topics.iter().enumerate().map(|(i, t)| (t.id.as_str(), i)).collect();
        let mut out: Vec<Vec<Update>> = vec![Vec::new(); self.topics.len()];
        let mut seen: HashMap<(usize, String), usize> = HashMap::new();
        for (line, f) in lines(text) {
            fields(&f, 5, "topic update time confidence words", source, line)?;
            let t = *pos.get(f[0]).ok_or_else(|| Error::parse(source, line, format!("unknown topic `{}`", snippet(f[0], ECHO))))?;
            if let Some(prev) = seen.insert((t, f[1].to_string()), line) {
                return Err(Error::parse(source, line, format!("update `{}` emitted twice (first at line {prev})", snippet(f[1], ECHO))));
            }
            let tm = time(f[2], source, line)?;
            let confidence: f64 = f[3]
                .parse()
                .ok()
                .filter(|x: &f64| x.is_finite())
                .ok_or_else(|| Error::parse(source, line, format!("confidence `{}` is not a number", snippet(f[3], ECHO))))?;
            let words: f64 = f[4]
                .parse()
                .ok()
                .filter(|x: &f64| x.is_finite() && *x >= 0.0)
                .ok_or_else(|| Error::parse(source, line, format!("words `{}` is not a non-negative number", snippet(f[4], ECHO))))?;
            let nuggets = self.matches[t].get(f[1]).cloned().unwrap_or_default();
            out[t].push(Update { id: f[1].into(), time: tm, confidence, words, nuggets });
        }
        for ups in &mut out {
            reading_order(ups);
        }
        Ok(out)
    }

    /// Reads one system's updates file.
    pub fn updates_from_file(&self, path: &Path) -> Result<Vec<Vec<Update>>> {
        self.parse_updates(&read(path)?, &path.display().to_string())
    }

    /// Reads one updates file per system; each system is named by its file's stem.
    pub fn systems_from_files<'a>(&self, paths: impl IntoIterator<Item = &'a Path>) -> Result<Vec<(String, Vec<Vec<Update>>)>> {
        paths.into_iter().map(|p| Ok((p.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default(), self.updates_from_file(p)?))).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_parse() {
        // date -u -d 2012-12-07T09:55:00 +%s = 1354874100
        assert_eq!(parse_time("2012-12-07T09:55:00"), Some(1_354_874_100.0));
        assert_eq!(parse_time("2012-12-07T09:55:00Z"), Some(1_354_874_100.0));
        assert_eq!(parse_time("1970-01-01T00:00:00"), Some(0.0));
        assert_eq!(parse_time("12.5"), Some(12.5));
        assert_eq!(parse_time("2012-13-07T09:55:00"), None);
        assert_eq!(parse_time("yesterday"), None);
    }

    #[test]
    fn files_parse_with_located_errors() {
        let d = StreamData::parse("t 0 100\n", "# c\nt n1 5\nt n2 50\n", "t u1 n1\nt u1 n2\nt zz n1\n", ["topics", "nuggets", "matches"]).unwrap();
        let ups = d.parse_updates("t u1 10 0.5 20\nt u2 10 0.9 5\n", "run").unwrap();
        assert_eq!(ups[0][0].id, "u2");
        assert_eq!(ups[0][1].nuggets, vec![0, 1]);
        let e = d.parse_updates("t u1 10 0.5\n", "run").unwrap_err().to_string();
        assert!(e.starts_with("run:1:"), "{e}");
        let e = d.parse_updates("t u1 10 0.5 3\nx u2 1 1 1\n", "run").unwrap_err().to_string();
        assert!(e.starts_with("run:2:") && e.contains("unknown topic"), "{e}");
        let e = StreamData::parse("t 0 100\n", "t n1 5\n", "t u1 n9\n", ["topics", "nuggets", "matches"]).unwrap_err().to_string();
        assert!(e.starts_with("matches:1:") && e.contains("n9"), "{e}");
        let e = StreamData::parse("t 0 100\n", "t n1 soon\n", "", ["topics", "nuggets", "matches"]).unwrap_err().to_string();
        assert!(e.starts_with("nuggets:1:"), "{e}");
    }
}
