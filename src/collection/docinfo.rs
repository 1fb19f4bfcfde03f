//! Document metadata: length in words and category labels, by document id.
//!
//! Tab-separated with a header line `docno<TAB>length<TAB>categories`; `length` may be empty
//! (unknown), `categories` is a `|`-separated list (may be empty). A document listed here
//! gets the values in every topic where it appears; ids not in the collection are ignored.
//! Files are read through [`crate::input`] (gzip or zstd, `-` for standard input, BOM, CRLF).

use super::Collection;
use crate::error::{Error, Result};
use crate::input::{self, snippet, Input};
use std::path::Path;

/// Applies the document-metadata file `path` to `collection` (see [`apply_docinfo`]).
pub fn apply_docinfo_file(collection: &mut Collection, path: &Path) -> Result<usize> {
    apply_docinfo_input(collection, input::open(path)?)
}

/// Applies a document-metadata table to `collection`; returns how many (topic, document)
/// entries were updated. New category names are appended to `collection.categories`.
pub fn apply_docinfo(collection: &mut Collection, text: &str, source: &str) -> Result<usize> {
    apply_docinfo_input(collection, Input::from_bytes(source, text.as_bytes().to_vec())?)
}

/// Applies the table read from an opened input (see [`apply_docinfo`]).
pub fn apply_docinfo_input(collection: &mut Collection, input: Input) -> Result<usize> {
    let source = input.name().to_string();
    let mut lines = input.lines();
    match lines.next_line()? {
        Some(h) if h.split('\t').map(str::trim).eq(["docno", "length", "categories"]) => {}
        _ => return Err(Error::parse(&source, 1, "expected the header `docno<TAB>length<TAB>categories`")),
    }
    let mut index = std::collections::HashMap::new();
    for (t, topic) in collection.topics.iter().enumerate() {
        for (d, doc) in topic.documents.iter().enumerate() {
            index.entry(doc.id.clone()).or_insert_with(Vec::new).push((t, d));
        }
    }
    let mut updated = 0;
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    lines.for_each(|lineno, line| {
        if line.trim().is_empty() {
            return Ok(());
        }
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() != 3 {
            return Err(Error::parse(&source, lineno, format!("expected 3 tab-separated fields, found {}", f.len())));
        }
        let docno = f[0].trim();
        if docno.is_empty() {
            return Err(Error::parse(&source, lineno, "empty docno"));
        }
        if let Some(first) = seen.insert(docno.to_string(), lineno) {
            return Err(Error::parse(&source, lineno, format!("document `{}` is listed twice (first on line {first})", snippet(docno, 40))));
        }
        let length = match f[1].trim() {
            "" => None,
            s => Some(s.parse::<u32>().map_err(|_| Error::parse(&source, lineno, format!("length `{}` is not a whole number", snippet(s, 40))))?),
        };
        let mut cats = Vec::new();
        for name in f[2].split('|').map(str::trim).filter(|s| !s.is_empty()) {
            let c = match collection.categories.iter().position(|x| x == name) {
                Some(c) => c,
                None => {
                    collection.categories.push(name.to_string());
                    collection.categories.len() - 1
                }
            } as u32;
            if !cats.contains(&c) {
                cats.push(c);
            }
        }
        cats.sort_unstable();
        for &(t, d) in index.get(docno).map(Vec::as_slice).unwrap_or(&[]) {
            let doc = &mut collection.topics[t].documents[d];
            doc.length = length;
            doc.categories = cats.clone();
            updated += 1;
        }
        Ok(())
    })?;
    Ok(updated)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collection::trec::{collection_from_trec, Qrels};

    #[test]
    fn lengths_and_categories_attach_to_every_topic() {
        let qrels = Qrels::parse("1 0 a 1\n2 0 a 0\n2 0 b 1\n", "q").unwrap();
        let (mut c, _) = collection_from_trec(&qrels, &[]).unwrap();
        let n = apply_docinfo(&mut c, "docno\tlength\tcategories\na\t120\tnews|sport\nb\t\t\nzz\t5\tx\n", "d").unwrap();
        assert_eq!(n, 3);
        assert_eq!(c.categories, ["news", "sport", "x"]);
        assert_eq!(c.topics[1].documents[0].length, Some(120));
        assert_eq!(c.topics[1].documents[0].categories, [0, 1]);
        assert_eq!(c.topics[1].documents[1].length, None);
        let err = apply_docinfo(&mut c, "docno\tlength\tcategories\na\tlong\t\n", "d.tsv").unwrap_err().to_string();
        assert!(err.starts_with("d.tsv:2:"), "{err}");
        let err = apply_docinfo(&mut c, "docno\tlength\tcategories\na\t1\t\nb\t2\t\na\t3\t\n", "d.tsv").unwrap_err().to_string();
        assert_eq!(err, "d.tsv:4: document `a` is listed twice (first on line 2)");
    }

    #[test]
    fn gzip_bom_and_crlf_read_as_plain() {
        use std::io::Write;
        let qrels = Qrels::parse("1 0 a 1\n", "q").unwrap();
        let (mut c, _) = collection_from_trec(&qrels, &[]).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("docinfo.tsv.gz");
        let mut e = flate2::write::GzEncoder::new(std::fs::File::create(&p).unwrap(), Default::default());
        e.write_all("\u{feff}docno\tlength\tcategories\r\na\t7\tx\r\n".as_bytes()).unwrap();
        e.finish().unwrap();
        assert_eq!(apply_docinfo_file(&mut c, &p).unwrap(), 1);
        assert_eq!((c.topics[0].documents[0].length, c.categories.clone()), (Some(7), vec!["x".to_string()]));
    }
}
