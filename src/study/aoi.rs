//! Areas of interest (AOIs): token boxes and result (snippet) boxes per screen, and the
//! mapping of fixations or cursor positions onto them.
//!
//! Two file formats:
//! - the simple CSV `page,token,x,y,w,h` with optional columns `rank` (the result rank a box
//!   belongs to) and `kind` (`token`, the default, or `result` for a whole snippet box);
//! - the character format of pymovements' character AOI files (a project-made example is
//!   `study_logs/gaze/char_aoi_page.csv`)
//!   (`char,top_left_x,top_left_y,width,height,char_idx_in_line,line_idx,page,word,...`):
//!   consecutive characters of one word on one line are merged into one word box; blanks
//!   (empty `word`) are skipped.
//!
//! Mapping rule (Eickhoff et al. 2015 §4.1): a point goes to the box that contains it; if
//! none does, to the nearest box within 5 px (Euclidean distance to the box edge); a point
//! more than 5 px outside every box is dropped. Ties go to the box listed first.

use crate::error::{Error, Result};
use std::collections::HashMap;
use std::path::Path;

/// The tolerance of the mapping rule, in pixels.
pub const TOLERANCE_PX: f64 = 5.0;

/// One box.
#[derive(Debug, Clone, PartialEq)]
pub struct Aoi {
    /// The token text (or a label for a result box).
    pub text: String,
    /// Left edge (px).
    pub x: f64,
    /// Top edge (px).
    pub y: f64,
    /// Width (px).
    pub w: f64,
    /// Height (px).
    pub h: f64,
    /// Result rank (1-based) the box belongs to, if any.
    pub rank: Option<u32>,
}

impl Aoi {
    /// Distance from `(px, py)` to the box (0 inside).
    #[inline]
    pub fn distance(&self, px: f64, py: f64) -> f64 {
        let dx = (self.x - px).max(px - (self.x + self.w)).max(0.0);
        let dy = (self.y - py).max(py - (self.y + self.h)).max(0.0);
        (dx * dx + dy * dy).sqrt()
    }
}

const CELL: f64 = 64.0;

/// Boxes of one kind on one page with a uniform-grid index for lookups.
#[derive(Debug, Clone, Default)]
pub struct BoxSet {
    /// The boxes in file order.
    pub boxes: Vec<Aoi>,
    grid: HashMap<(i32, i32), Vec<u32>>,
    /// Boxes too large for the grid (more than [`MAX_CELLS`] cells), checked for every point.
    large: Vec<u32>,
}

/// Grid cells one box may occupy; a larger box (a whole page, or a 2^31 px typo) is kept in
/// a short list checked for every lookup instead, so building the index stays linear.
const MAX_CELLS: i64 = 4096;

impl BoxSet {
    fn build(boxes: Vec<Aoi>) -> Self {
        let mut grid: HashMap<(i32, i32), Vec<u32>> = HashMap::new();
        let mut large = Vec::new();
        for (i, b) in boxes.iter().enumerate() {
            let (x0, y0) = (((b.x - TOLERANCE_PX) / CELL).floor() as i32, ((b.y - TOLERANCE_PX) / CELL).floor() as i32);
            let (x1, y1) = (((b.x + b.w + TOLERANCE_PX) / CELL).floor() as i32, ((b.y + b.h + TOLERANCE_PX) / CELL).floor() as i32);
            if (i64::from(x1) - i64::from(x0) + 1) * (i64::from(y1) - i64::from(y0) + 1) > MAX_CELLS {
                large.push(i as u32);
                continue;
            }
            for gx in x0..=x1 {
                for gy in y0..=y1 {
                    grid.entry((gx, gy)).or_default().push(i as u32);
                }
            }
        }
        BoxSet { boxes, grid, large }
    }

    /// Index of the box a point maps to under the 5 px rule, or `None` (dropped).
    pub fn locate(&self, px: f64, py: f64) -> Option<usize> {
        if !(px.is_finite() && py.is_finite()) {
            return None;
        }
        let cell = ((px / CELL).floor() as i32, (py / CELL).floor() as i32);
        let mut best: Option<(f64, u32)> = None;
        let near = self.grid.get(&cell).map_or(&[][..], |v| &v[..]);
        for &i in near.iter().chain(&self.large) {
            let d = self.boxes[i as usize].distance(px, py);
            if d <= TOLERANCE_PX && best.is_none_or(|(bd, bi)| d < bd || (d == bd && i < bi)) {
                best = Some((d, i));
            }
        }
        best.map(|(_, i)| i as usize)
    }
}

/// The AOIs of one screen (a SERP page or a visited page).
#[derive(Debug, Clone, Default)]
pub struct Page {
    /// Page id as referenced by the study log.
    pub id: String,
    /// Token (word) boxes.
    pub tokens: BoxSet,
    /// Result (snippet) boxes with their rank.
    pub results: BoxSet,
}

/// All pages of an AOI file.
#[derive(Debug, Clone, Default)]
pub struct AoiSet {
    /// Pages in order of first appearance.
    pub pages: Vec<Page>,
}

impl AoiSet {
    /// The page with id `id`.
    pub fn page(&self, id: &str) -> Option<&Page> {
        self.pages.iter().find(|p| p.id == id)
    }

    /// Builds pages from `(page, aoi, is_result)` rows.
    pub fn from_rows(rows: Vec<(String, Aoi, bool)>) -> Self {
        let mut order: Vec<String> = Vec::new();
        let mut per: HashMap<String, (Vec<Aoi>, Vec<Aoi>)> = HashMap::new();
        for (page, aoi, is_result) in rows {
            let e = per.entry(page.clone()).or_insert_with(|| {
                order.push(page.clone());
                (Vec::new(), Vec::new())
            });
            if is_result {
                e.1.push(aoi);
            } else {
                e.0.push(aoi);
            }
        }
        let pages = order
            .into_iter()
            .map(|id| {
                let (t, r) = per.remove(&id).unwrap_or_default();
                Page { id, tokens: BoxSet::build(t), results: BoxSet::build(r) }
            })
            .collect();
        AoiSet { pages }
    }

    /// Reads either format, told apart by the header (through the input layer).
    pub fn from_file(path: &Path) -> Result<Self> {
        let text = crate::input::read_to_string(path)?;
        Self::parse(&text, &path.display().to_string())
    }

    /// Parses either format from text; `file` names it in errors.
    pub fn parse(text: &str, file: &str) -> Result<Self> {
        let mut rdr = csv::ReaderBuilder::new().trim(csv::Trim::Headers).from_reader(text.as_bytes());
        let headers = rdr.headers().map_err(|e| Error::parse(file, 1, e.to_string()))?.clone();
        let col = |name: &str| headers.iter().position(|h| h == name);
        let need = |name: &str| {
            col(name).ok_or_else(|| Error::parse(file, 1, format!("missing column `{name}` (have: {})", headers.iter().collect::<Vec<_>>().join(","))))
        };
        let num = |rec: &csv::StringRecord, i: usize, name: &str, line: usize| -> Result<f64> {
            let s = rec.get(i).unwrap_or("").trim();
            let v: f64 = s.parse().map_err(|_| Error::parse(file, line, format!("`{name}` = `{s}` is not a number")))?;
            if !v.is_finite() {
                return Err(Error::parse(file, line, format!("`{name}` must be finite")));
            }
            Ok(v)
        };
        let mut rows = Vec::new();
        if col("char").is_some() {
            let (ci, xi, yi, wi, hi, li, pi, wo) =
                (need("char")?, need("top_left_x")?, need("top_left_y")?, need("width")?, need("height")?, need("line_idx")?, need("page")?, need("word")?);
            let _ = ci;
            // Current word being merged: (page, line, word, x0, y0, x1, y1).
            let mut cur: Option<(String, String, String, f64, f64, f64, f64)> = None;
            for (k, rec) in rdr.records().enumerate() {
                let line = k + 2;
                let rec = rec.map_err(|e| Error::parse(file, line, e.to_string()))?;
                let (x, y, w, h) =
                    (num(&rec, xi, "top_left_x", line)?, num(&rec, yi, "top_left_y", line)?, num(&rec, wi, "width", line)?, num(&rec, hi, "height", line)?);
                let page = rec.get(pi).unwrap_or("").to_string();
                let lidx = rec.get(li).unwrap_or("").to_string();
                let word = rec.get(wo).unwrap_or("").trim().to_string();
                let same = matches!(&cur, Some((p, l, wd, ..)) if *p == page && *l == lidx && *wd == word);
                if same {
                    if let Some(c) = cur.as_mut() {
                        c.3 = c.3.min(x);
                        c.4 = c.4.min(y);
                        c.5 = c.5.max(x + w);
                        c.6 = c.6.max(y + h);
                    }
                } else {
                    if let Some((p, _, wd, x0, y0, x1, y1)) = cur.take() {
                        rows.push((p, Aoi { text: wd, x: x0, y: y0, w: x1 - x0, h: y1 - y0, rank: None }, false));
                    }
                    if !word.is_empty() {
                        cur = Some((page, lidx, word, x, y, x + w, y + h));
                    }
                }
            }
            if let Some((p, _, wd, x0, y0, x1, y1)) = cur.take() {
                rows.push((p, Aoi { text: wd, x: x0, y: y0, w: x1 - x0, h: y1 - y0, rank: None }, false));
            }
        } else {
            let (pi, ti, xi, yi, wi, hi) = (need("page")?, need("token")?, need("x")?, need("y")?, need("w")?, need("h")?);
            let (ri, ki) = (col("rank"), col("kind"));
            for (k, rec) in rdr.records().enumerate() {
                let line = k + 2;
                let rec = rec.map_err(|e| Error::parse(file, line, e.to_string()))?;
                if rec.len() < headers.len() {
                    return Err(Error::parse(file, line, format!("{} columns, expected {} (missing columns)", rec.len(), headers.len())));
                }
                let (x, y, w, h) = (num(&rec, xi, "x", line)?, num(&rec, yi, "y", line)?, num(&rec, wi, "w", line)?, num(&rec, hi, "h", line)?);
                if w < 0.0 || h < 0.0 {
                    return Err(Error::parse(file, line, "box width and height must be >= 0"));
                }
                let rank = match ri.and_then(|i| rec.get(i)).map(str::trim).filter(|s| !s.is_empty()) {
                    Some(s) => Some(
                        s.parse::<u32>().ok().filter(|r| *r >= 1).ok_or_else(|| Error::parse(file, line, format!("rank `{s}` is not a whole number >= 1")))?,
                    ),
                    None => None,
                };
                let is_result = match ki.and_then(|i| rec.get(i)).map(str::trim).unwrap_or("") {
                    "" | "token" => false,
                    "result" => true,
                    other => return Err(Error::parse(file, line, format!("kind `{other}` is neither token nor result"))),
                };
                if is_result && rank.is_none() {
                    return Err(Error::parse(file, line, "a result box needs a rank"));
                }
                rows.push((rec[pi].trim().to_string(), Aoi { text: rec[ti].trim().to_string(), x, y, w, h, rank }, is_result));
            }
        }
        Ok(AoiSet::from_rows(rows))
    }

    /// Writes the simple CSV format.
    pub fn to_csv(&self) -> String {
        let mut s = String::from("page,token,x,y,w,h,rank,kind\n");
        for p in &self.pages {
            for (set, kind) in [(&p.tokens, "token"), (&p.results, "result")] {
                for b in &set.boxes {
                    s.push_str(&format!(
                        "{},{},{},{},{},{},{},{}\n",
                        crate::write::csv_field(&p.id),
                        crate::write::csv_field(&b.text),
                        b.x,
                        b.y,
                        b.w,
                        b.h,
                        b.rank.map(|r| r.to_string()).unwrap_or_default(),
                        kind
                    ));
                }
            }
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn five_pixel_rule() {
        let set = AoiSet::parse("page,token,x,y,w,h\np,alpha,100,100,50,20\np,beta,160,100,40,20\n", "a.csv").unwrap();
        let p = set.page("p").unwrap();
        assert_eq!(p.tokens.locate(120.0, 110.0), Some(0));
        assert_eq!(p.tokens.locate(155.0, 110.0), Some(0)); // 5 px right of alpha, 5 px left of beta: first listed
        assert_eq!(p.tokens.locate(157.0, 110.0), Some(1));
        assert_eq!(p.tokens.locate(100.0, 95.0), Some(0)); // exactly 5 px above
        assert_eq!(p.tokens.locate(100.0, 94.9), None);
        assert_eq!(p.tokens.locate(96.0, 96.0), None); // corner: sqrt(32) = 5.66 px
        assert_eq!(p.tokens.locate(97.0, 97.0), Some(0)); // sqrt(18) = 4.24
        assert_eq!(p.tokens.locate(f64::NAN, 1.0), None);
    }

    /// A box 2^31 px wide (issue 17: `study attention` spun building the grid) is indexed
    /// at once and still found; the order rule (first listed wins ties) holds across lists.
    #[test]
    fn huge_boxes_do_not_spin() {
        let t = std::time::Instant::now();
        let set = AoiSet::parse("page,token,x,y,w,h\np,small,100,100,50,20\np,huge,0,0,2147483648,2147483648\n", "a.csv").unwrap();
        assert!(t.elapsed().as_secs() < 5);
        let p = set.page("p").unwrap();
        assert_eq!(p.tokens.locate(120.0, 110.0), Some(0));
        assert_eq!(p.tokens.locate(1e9, 1e9), Some(1));
        assert_eq!(p.tokens.locate(-6.0, 0.0), None);
    }

    #[test]
    fn errors_name_line_and_column() {
        let err = AoiSet::parse("page,token,x,y,w\np,a,1,2,3\n", "a.csv").unwrap_err().to_string();
        assert!(err.contains("a.csv:1") && err.contains("`h`"), "{err}");
        let err = AoiSet::parse("page,token,x,y,w,h\np,a,1,2,3,zz\n", "a.csv").unwrap_err().to_string();
        assert!(err.contains("a.csv:2") && err.contains("zz"), "{err}");
        let err = AoiSet::parse("page,token,x,y,w,h,rank,kind\np,a,1,2,3,4,,result\n", "a.csv").unwrap_err().to_string();
        assert!(err.contains("needs a rank"), "{err}");
    }

    #[test]
    fn character_file_merges_words() {
        // Project-made (study_logs/tools/make_gaze.py), in the layout of pymovements'
        // character AOI files. Line 0 is `SUMMARY`, line 1 starts `serpsim: simulated searchers`.
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("study_logs/gaze/char_aoi_page.csv");
        let set = AoiSet::from_file(&path).unwrap();
        let p = set.page("page_1").unwrap();
        let words: Vec<&str> = p.tokens.boxes.iter().map(|b| b.text.as_str()).collect();
        assert_eq!(&words[..4], &["SUMMARY", "serpsim:", "simulated", "searchers"]);
        // 1 + 12 + 12 words in the three lines, blanks skipped.
        assert_eq!(words.len(), 25);
        // SUMMARY: 7 characters of width 15 from x = 400, y 122..140 (height 18).
        let a = &p.tokens.boxes[0];
        assert_eq!((a.x, a.y, a.w, a.h), (400.0, 122.0, 105.0, 18.0));
        assert_eq!(p.tokens.locate(410.0, 130.0), Some(0));
        // Round trip through the simple format.
        let again = AoiSet::parse(&set.to_csv(), "x").unwrap();
        assert_eq!(again.page("page_1").unwrap().tokens.boxes, p.tokens.boxes);
    }

    /// The real character AOI file (pymovements' `toy_text_1_1_aoi.csv`), read in place from
    /// `$SERPSIM_DATA/gaze/`: run by `scripts/conformance.d/72-gaze-report-aoi-real.sh`
    /// (ignored in `cargo test`, which has no real data; a missing file fails it). Expected
    /// values by hand from the file: `ABSTRACT` is 8 characters of width 15 from x = 400,
    /// y 122..140; the next words are `pymovements:`, `A`, `Python`.
    #[test]
    #[ignore = "real data: scripts/conformance.d/72-gaze-report-aoi-real.sh"]
    fn real_character_aoi_file() {
        let data = std::env::var("SERPSIM_DATA").expect("SERPSIM_DATA must name the real data folder");
        let set = AoiSet::from_file(&Path::new(&data).join("gaze/toy_text_1_1_aoi.csv")).unwrap();
        let p = set.page("page_2").unwrap();
        let words: Vec<&str> = p.tokens.boxes.iter().map(|b| b.text.as_str()).collect();
        assert_eq!(&words[..4], &["ABSTRACT", "pymovements:", "A", "Python"]);
        let a = &p.tokens.boxes[0];
        assert_eq!((a.x, a.y, a.w, a.h), (400.0, 122.0, 120.0, 18.0));
        assert_eq!(p.tokens.locate(410.0, 130.0), Some(0));
    }
}
