//! The layer order of `src/lib.rs` holds in the code (issue 30, acceptance): no `use crate::`
//! (or `crate::`/`super::` path anywhere in code) points up the layer table written in
//! `src/lib.rs`, there is no import circle between top-level modules (modules of one layer may
//! use each other, but not both ways round, directly or through others), and none between the
//! folders inside one module.
//!
//! What is read: every `src/**/*.rs` file of the library (the shell, `src/main.rs` and
//! `src/cli/`, is the bin crate: it imports the library by name and may use every layer), with
//! comments, strings and char literals blanked out, so a path in a doc comment or a message
//! does not count. A path counts where it starts with `crate::` or `$crate::` (groups such as
//! `use crate::{a, b::{c, d}}` give one path each) or with `super::` (resolved against the file's
//! module and the inline `mod NAME { ... }` it is in). `self::` paths and bare paths to a
//! module's own children stay inside a folder and are not read. A path to a name the crate root
//! re-exports (`crate::Error`) counts as a use of the module it is re-exported from.
//!
//! Folders: a module with children (`x.rs` beside `x/`, or `x/mod.rs`) is one folder together
//! with its children that have none; the folder graph inside a top-level module is built from
//! the same paths, and a circle in it is reported. A parent folder declaring its children
//! (`mod child;`, `pub use child::X`) is not an edge.
//!
//! The unit tests at the bottom run the checker on small hand-written crates whose violations
//! are derived by hand, so the checker itself can be seen to fail.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Blanks comments, string literals and char literals (each character but a newline becomes a
/// space), so line numbers stay and only code remains.
fn code_only(src: &str) -> String {
    let c: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    let blank = |out: &mut String, ch: char| out.push(if ch == '\n' { '\n' } else { ' ' });
    let ident = |ch: char| ch.is_alphanumeric() || ch == '_';
    let mut i = 0;
    while i < c.len() {
        let prev_ident = i > 0 && ident(c[i - 1]);
        if c[i] == '/' && c.get(i + 1) == Some(&'/') {
            while i < c.len() && c[i] != '\n' {
                blank(&mut out, c[i]);
                i += 1;
            }
        } else if c[i] == '/' && c.get(i + 1) == Some(&'*') {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, c[i]);
                    i += 1;
                }
            }
        } else if !prev_ident && (c[i] == 'r' || (c[i] == 'b' && c.get(i + 1) == Some(&'r'))) && {
            let mut j = i + if c[i] == 'b' { 2 } else { 1 };
            while c.get(j) == Some(&'#') {
                j += 1;
            }
            c.get(j) == Some(&'"')
        } {
            // Raw string: r"..", r#".."#, br"..".
            let mut j = i + if c[i] == 'b' { 2 } else { 1 };
            let mut hashes = 0;
            while c[j] == '#' {
                hashes += 1;
                j += 1;
            }
            j += 1;
            while j < c.len() {
                if c[j] == '"' && (0..hashes).all(|h| c.get(j + 1 + h) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            for &ch in &c[i..j.min(c.len())] {
                blank(&mut out, ch);
            }
            i = j;
        } else if c[i] == '"' {
            blank(&mut out, c[i]);
            i += 1;
            while i < c.len() && c[i] != '"' {
                if c[i] == '\\' {
                    blank(&mut out, c[i]);
                    i += 1;
                }
                if i < c.len() {
                    blank(&mut out, c[i]);
                    i += 1;
                }
            }
            if i < c.len() {
                blank(&mut out, c[i]);
                i += 1;
            }
        } else if c[i] == '\'' && (c.get(i + 1) == Some(&'\\') || c.get(i + 2) == Some(&'\'')) {
            // A char literal ('x', '\n', '\'', '\u{1F600}'); a lifetime ('a) has no closing quote.
            blank(&mut out, c[i]);
            i += 1;
            if c.get(i) == Some(&'\\') {
                blank(&mut out, c[i]);
                i += 1;
            }
            while i < c.len() && c[i] != '\'' {
                blank(&mut out, c[i]);
                i += 1;
            }
            if i < c.len() {
                blank(&mut out, c[i]);
                i += 1;
            }
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out
}

/// Tokens of blanked code: identifiers (with `$crate` as `crate`), `::`, and single
/// punctuation characters, each with its 1-based line.
fn tokens(code: &str) -> Vec<(String, usize)> {
    let c: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    while i < c.len() {
        let ch = c[i];
        if ch == '\n' {
            line += 1;
            i += 1;
        } else if ch.is_whitespace() {
            i += 1;
        } else if ch.is_alphanumeric() || ch == '_' || (ch == '$' && c.get(i + 1).is_some_and(|n| n.is_alphabetic())) {
            let start = if ch == '$' { i + 1 } else { i };
            i += 1;
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            out.push((c[start..i].iter().collect(), line));
        } else if ch == ':' && c.get(i + 1) == Some(&':') {
            out.push(("::".into(), line));
            i += 2;
        } else {
            out.push((ch.to_string(), line));
            i += 1;
        }
    }
    out
}

/// Reads one path tree starting at `toks[i]` (just after a `::`), appending every full path
/// (`prefix` plus its segments) to `paths`; returns the index after the tree.
fn path_tree(toks: &[(String, usize)], mut i: usize, prefix: Vec<String>, paths: &mut Vec<Vec<String>>) -> usize {
    let mut path = prefix;
    loop {
        let Some((t, _)) = toks.get(i) else {
            paths.push(path);
            return i;
        };
        if t == "{" {
            i += 1;
            loop {
                match toks.get(i).map(|t| t.0.as_str()) {
                    Some("}") => return i + 1,
                    Some(",") => i += 1,
                    Some("self") => {
                        paths.push(path.clone());
                        i += 1;
                    }
                    Some(_) => i = path_tree(toks, i, path.clone(), paths),
                    None => return i,
                }
            }
        } else if t == "*" {
            paths.push(path);
            return i + 1;
        } else if t.chars().next().is_some_and(|ch| ch.is_alphanumeric() || ch == '_') {
            path.push(t.clone());
            i += 1;
            if toks.get(i).map(|t| t.0.as_str()) == Some("::") && toks.get(i + 1).is_some_and(|t| t.0 != "<") {
                i += 1;
            } else {
                // `as NAME` and anything after the path end here.
                paths.push(path);
                return i;
            }
        } else {
            paths.push(path);
            return i;
        }
    }
}

/// One import: the file's module path, the absolute path it names, and its line.
struct Use {
    from: Vec<String>,
    to: Vec<String>,
    line: usize,
}

/// If `toks[i..]` starts with `#[cfg(test)]`, the index after the item it gates (further
/// attributes, then up to a `;` or the closing brace of its block at depth 0), and the name of
/// the module when the item is `mod NAME;` (a test-only file).
fn cfg_test_item(toks: &[(String, usize)], i: usize) -> Option<(usize, Option<String>)> {
    let attr = ["#", "[", "cfg", "(", "test", ")", "]"];
    if toks.len() < i + attr.len() || !attr.iter().zip(&toks[i..]).all(|(a, t)| *a == t.0) {
        return None;
    }
    let mut j = i + attr.len();
    let mut depth = 0usize;
    let mut child = None;
    while j < toks.len() {
        let t = toks[j].0.as_str();
        if depth == 0 && t == "mod" && toks.get(j + 2).is_some_and(|t| t.0 == ";") {
            child = Some(toks[j + 1].0.clone());
        }
        match t {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" => depth = depth.saturating_sub(1),
            "}" => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some((j + 1, None));
                }
            }
            ";" if depth == 0 => return Some((j + 1, child)),
            _ => {}
        }
        j += 1;
    }
    Some((j, child))
}

/// The `crate::` and `super::` paths of one file whose module path is `module`, outside
/// `#[cfg(test)]` items, and the names of its child modules declared `#[cfg(test)] mod NAME;`.
fn uses_of(text: &str, module: &[String]) -> (Vec<Use>, Vec<String>) {
    let toks = tokens(&code_only(text));
    let mut out = Vec::new();
    let mut test_children = Vec::new();
    // Inline modules: (name, brace depth inside it).
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < toks.len() {
        let t = toks[i].0.as_str();
        let after_colons = i > 0 && toks[i - 1].0 == "::";
        let next_colons = toks.get(i + 1).is_some_and(|t| t.0 == "::");
        if let Some((end, child)) = cfg_test_item(&toks, i) {
            test_children.extend(child);
            i = end;
            continue;
        }
        if t == "{" {
            depth += 1;
        } else if t == "}" {
            if inline.last().is_some_and(|(_, d)| *d == depth) {
                inline.pop();
            }
            depth = depth.saturating_sub(1);
        } else if t == "mod" && toks.get(i + 2).is_some_and(|t| t.0 == "{") {
            inline.push((toks[i + 1].0.clone(), depth + 1));
        } else if (t == "crate" || t == "super") && next_colons && !after_colons {
            let mut here: Vec<String> = module.to_vec();
            here.extend(inline.iter().map(|(n, _)| n.clone()));
            let line = toks[i].1;
            let mut j = i;
            let prefix = if t == "crate" {
                j += 2;
                Vec::new()
            } else {
                while toks.get(j).is_some_and(|t| t.0 == "super") && toks.get(j + 1).is_some_and(|t| t.0 == "::") {
                    here.pop();
                    j += 2;
                }
                here.clone()
            };
            let mut paths = Vec::new();
            let end = path_tree(&toks, j, prefix, &mut paths);
            let from: Vec<String> = module.to_vec();
            out.extend(paths.into_iter().map(|to| Use { from: from.clone(), to, line }));
            i = end;
            continue;
        }
        i += 1;
    }
    (out, test_children)
}

/// The layer table of `src/lib.rs`: the rows of the markdown table under the `# Layers`
/// heading of its doc comment, lowest layer first; each module with its row index and the row's name.
fn layer_table(lib: &str) -> Result<BTreeMap<String, (usize, String)>, String> {
    let mut table = BTreeMap::new();
    let mut in_section = false;
    let mut row = 0;
    for line in lib.lines() {
        let Some(doc) = line.strip_prefix("//!") else { continue };
        let doc = doc.trim();
        if doc.starts_with('#') {
            in_section = doc.trim_start_matches('#').trim().eq_ignore_ascii_case("layers");
            continue;
        }
        if !in_section || !doc.starts_with('|') {
            continue;
        }
        let cells: Vec<&str> = doc.trim_matches('|').split('|').map(str::trim).collect();
        if cells.len() < 2 || cells[0].eq_ignore_ascii_case("layer") || cells[0].starts_with('-') {
            continue;
        }
        for name in cells[1].split(',') {
            let name = name.trim().trim_matches('`').trim();
            if name.is_empty() {
                continue;
            }
            if table.insert(name.to_string(), (row, cells[0].to_string())).is_some() {
                return Err(format!("src/lib.rs: module `{name}` is in two rows of the layer table"));
            }
        }
        row += 1;
    }
    if table.is_empty() {
        return Err("src/lib.rs: no layer table (a `| layer | modules |` table under a `# Layers` heading)".into());
    }
    Ok(table)
}

/// Strongly connected components with more than one member (Tarjan), each sorted.
fn circles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct State<'a> {
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on: BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a str) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on.insert(v);
        if let Some(next) = s.edges.get(v) {
            for w in next {
                let w = w.as_str();
                if !s.index.contains_key(w) {
                    visit(s, w);
                    let lw = s.low[w];
                    let lv = s.low.get_mut(v).unwrap();
                    *lv = (*lv).min(lw);
                } else if s.on.contains(w) {
                    let iw = s.index[w];
                    let lv = s.low.get_mut(v).unwrap();
                    *lv = (*lv).min(iw);
                }
            }
        }
        if s.low[v] == s.index[v] {
            let mut comp = Vec::new();
            loop {
                let w = s.stack.pop().unwrap();
                s.on.remove(w);
                comp.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                s.out.push(comp);
            }
        }
    }
    let mut s = State { edges, index: BTreeMap::new(), low: BTreeMap::new(), stack: Vec::new(), on: BTreeSet::new(), out: Vec::new() };
    let nodes: BTreeSet<&str> = edges.iter().flat_map(|(a, bs)| std::iter::once(a.as_str()).chain(bs.iter().map(String::as_str))).collect();
    for v in nodes {
        if !s.index.contains_key(v) {
            visit(&mut s, v);
        }
    }
    s.out.sort();
    s.out
}

/// The module path of a library file (`lib.rs` -> [], `a/mod.rs` and `a.rs` -> [a], `a/b.rs` -> [a, b]).
fn module_of(rel: &str) -> Vec<String> {
    let rel = rel.strip_suffix(".rs").unwrap_or(rel);
    let mut parts: Vec<String> = rel.split('/').map(String::from).collect();
    if parts.last().is_some_and(|p| p == "mod" || p == "lib") {
        parts.pop();
    }
    parts
}

/// Top-level modules whose files, not only folders, must not import each other in a circle
/// (issue 43: a click model is one file; the folder's files stand on `table.rs` and
/// `estep.rs`, the registry, the driver; an evaluation measure is one file
/// `metrics/measure_<name>.rs` standing on `measure_def.rs`, read by `measures.rs`).
const FILE_LEVEL: &[&str] = &["clickmodels", "metrics"];

/// Checks a library given as (path relative to `src/`, text) pairs, `lib.rs` among them.
/// Returns one message per violation, each starting with `src/FILE:LINE:` where it has a line.
fn check(files: &[(String, String)]) -> Vec<String> {
    let Some((_, lib)) = files.iter().find(|(p, _)| p == "lib.rs") else {
        return vec!["src/lib.rs: missing".into()];
    };
    let table = match layer_table(lib) {
        Ok(t) => t,
        Err(e) => return vec![e],
    };
    let mut problems = Vec::new();
    // Declared top-level modules, and the root's re-exports (name -> module).
    let lib_toks = tokens(&code_only(lib));
    let mut top: BTreeSet<String> = BTreeSet::new();
    for (k, w) in lib_toks.windows(3).enumerate() {
        if w[0].0 == "mod" && w[2].0 == ";" {
            top.insert(w[1].0.clone());
            if !table.contains_key(&w[1].0) {
                problems.push(format!("src/lib.rs:{}: module `{}` is in no row of the layer table", lib_toks[k].1, w[1].0));
            }
        }
    }
    // The table names only modules that exist (a renamed or removed module leaves a stale row).
    for (name, (_, row)) in &table {
        if !top.contains(name) {
            problems.push(format!("src/lib.rs: the layer table's row `{row}` names `{name}`, which src/lib.rs does not declare"));
        }
    }
    let mut reexport: BTreeMap<String, String> = BTreeMap::new();
    for (k, w) in lib_toks.windows(2).enumerate() {
        if w[0].0 == "use" && top.contains(&w[1].0) {
            let mut paths = Vec::new();
            path_tree(&lib_toks, k + 1, Vec::new(), &mut paths);
            for p in paths {
                if let (Some(first), Some(last)) = (p.first(), p.last()) {
                    reexport.insert(last.clone(), first.clone());
                }
            }
        }
    }
    // Test-only modules (`#[cfg(test)] mod NAME;`) are test harnesses like `tests/*.rs`: they may
    // use any layer, and their files are left out, as are `#[cfg(test)]` items inside files.
    let mut read = Vec::new();
    let mut test_only: BTreeSet<Vec<String>> = BTreeSet::new();
    for (rel, text) in files {
        let module = module_of(rel);
        let (uses, tests) = uses_of(text, &module);
        test_only.extend(tests.into_iter().map(|t| [module.clone(), vec![t]].concat()));
        read.push((rel, module, uses));
    }
    read.retain(|(_, m, _)| !test_only.iter().any(|t| m.starts_with(t)));
    // Known modules (from files) and the folder each file belongs to.
    let modules: BTreeSet<Vec<String>> = read.iter().map(|(_, m, _)| m.clone()).collect();
    let has_children = |m: &[String]| modules.iter().any(|o| o.len() == m.len() + 1 && o.starts_with(m));
    let folder_of = |m: &[String]| -> Vec<String> {
        if has_children(m) {
            m.to_vec()
        } else {
            m[..m.len().saturating_sub(1)].to_vec()
        }
    };
    // Edges with their first witness (file:line) and count.
    let mut top_edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut folder_edges: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    let mut file_edges: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    // The names a file-level module's root re-exports from its children (`pub use x::{A, B}`
    // in `clickmodels/mod.rs`): a use of `crate::clickmodels::A` is a use of `x`.
    let mut child_reexport: BTreeMap<(String, String), String> = BTreeMap::new();
    for (rel, text) in files {
        let module = module_of(rel);
        if module.len() != 1 || !FILE_LEVEL.contains(&module[0].as_str()) {
            continue;
        }
        let toks = tokens(&code_only(text));
        for (k, w) in toks.windows(2).enumerate() {
            if w[0].0 == "use" && modules.contains(&vec![module[0].clone(), w[1].0.clone()]) {
                let mut paths = Vec::new();
                path_tree(&toks, k + 1, Vec::new(), &mut paths);
                for p in paths {
                    if let (Some(first), Some(last)) = (p.first(), p.last()) {
                        child_reexport.insert((module[0].clone(), last.clone()), first.clone());
                    }
                }
            }
        }
    }
    let mut witness: BTreeMap<(String, String), (String, usize)> = BTreeMap::new();
    let mut reported_up: BTreeSet<(String, usize)> = BTreeSet::new();
    for (rel, module, uses) in read {
        let Some(from_top) = module.first().cloned() else { continue };
        for u in uses {
            let Some(first) = u.to.first() else { continue };
            let to_top = if top.contains(first) {
                first.clone()
            } else if let Some(m) = reexport.get(first) {
                m.clone()
            } else {
                continue; // the crate root itself, or a name it defines
            };
            let at = format!("src/{rel}:{}", u.line);
            if to_top != from_top {
                let (Some(&(lf, ref nf)), Some(&(lt, ref nt))) = (table.get(&from_top), table.get(&to_top)) else { continue };
                if lt > lf && reported_up.insert((rel.clone(), u.line)) {
                    problems.push(format!("{at}: `{from_top}` (layer {nf}) uses `crate::{}` in `{to_top}` (layer {nt}), a layer above it", u.to.join("::")));
                }
                top_edges.entry(from_top.clone()).or_default().insert(to_top.clone());
                let w = witness.entry((from_top.clone(), to_top.clone())).or_insert((at.clone(), 0));
                w.1 += 1;
            } else {
                // Inside one top-level module: folder to folder.
                let target_len = (1..=u.to.len()).rev().find(|&n| modules.contains(&u.to[..n])).unwrap_or(1);
                if FILE_LEVEL.contains(&from_top.as_str()) {
                    let mut to = u.to[..target_len].to_vec();
                    if to.len() == 1 {
                        if let Some(child) = u.to.get(1).and_then(|n| child_reexport.get(&(from_top.clone(), n.clone()))) {
                            to.push(child.clone());
                        }
                    }
                    let (a, b) = (u.from.join("/"), to.join("/"));
                    // A file's own inline modules and its parent's items are not other files.
                    if a != b && !u.from.starts_with(&to) {
                        file_edges.entry(from_top.clone()).or_default().entry(a.clone()).or_default().insert(b.clone());
                        let w = witness.entry((a, b)).or_insert((at.clone(), 0));
                        w.1 += 1;
                    }
                }
                let a = folder_of(&u.from).join("/");
                let b = folder_of(&u.to[..target_len]).join("/");
                if a != b {
                    folder_edges.entry(from_top.clone()).or_default().entry(a.clone()).or_default().insert(b.clone());
                    let w = witness.entry((a, b)).or_insert((at.clone(), 0));
                    w.1 += 1;
                }
            }
        }
    }
    let describe = |comp: &[String], edges: &BTreeMap<String, BTreeSet<String>>, what: &str| {
        let mut s = format!("import circle between {what} {}:", comp.join(", "));
        for a in comp {
            for b in edges.get(a).into_iter().flatten().filter(|b| comp.contains(b)) {
                let (at, n) = &witness[&(a.clone(), b.clone())];
                s.push_str(&format!("\n    {a} -> {b} ({n} paths, first at {at})"));
            }
        }
        s
    };
    for comp in circles(&top_edges) {
        problems.push(describe(&comp, &top_edges, "top-level modules"));
    }
    for edges in folder_edges.values() {
        for comp in circles(edges) {
            problems.push(describe(&comp, edges, "folders"));
        }
    }
    for edges in file_edges.values() {
        for comp in circles(edges) {
            problems.push(describe(&comp, edges, "files"));
        }
    }
    // A measure file stands on `measure_def.rs` (and the ground below it): it must not use the
    // files that read the registry (the name parser, the evaluation), which the registry macro
    // hides from the circle check.
    for (a, bs) in file_edges.get("metrics").into_iter().flatten() {
        if !a.starts_with("metrics/measure_") || a == "metrics/measure_def" {
            continue;
        }
        for b in bs.iter().filter(|b| MEASURE_FILES_MUST_NOT_USE.contains(&b.as_str())) {
            let (at, _) = &witness[&(a.clone(), b.clone())];
            problems.push(format!("{at}: measure file `{a}` uses `{b}`, which reads the measure registry (a measure file stands on measure_def.rs)"));
        }
    }
    problems
}

/// The files above the measure registry (ARCHITECTURE.md, "An evaluation measure").
const MEASURE_FILES_MUST_NOT_USE: &[&str] = &["metrics/names", "metrics/eval", "metrics/measures"];

/// Every `.rs` file under `dir`, relative to `root`, in sorted order.
fn rust_files(root: &Path, dir: &Path, out: &mut Vec<(String, String)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())).map(|e| e.unwrap().path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(root, &p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            let rel = p.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
            let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            out.push((rel, text));
        }
    }
}

#[test]
fn src_follows_the_layer_table_of_lib_rs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&root, &root, &mut files);
    // The shell is the bin crate (`main.rs` and `cli/`): it reaches the library by name.
    files.retain(|(p, _)| p != "main.rs" && !p.starts_with("cli/"));
    assert!(files.len() > 100, "src/ holds only {} library files", files.len());
    let problems = check(&files);
    assert!(problems.is_empty(), "{} layer violations:\n{}", problems.len(), problems.join("\n"));
}

// --- The checker on hand-written crates (expected messages derived by hand). ---

/// The crate of `files`, with an empty file for each module of [`LIB`] they leave out.
fn crate_of(files: &[(&str, &str)]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = files.iter().map(|(p, t)| (p.to_string(), t.to_string())).collect();
    for m in ["error", "a", "b", "c"] {
        if !out.iter().any(|(p, _)| module_of(p) == [m]) {
            out.push((format!("{m}.rs"), String::new()));
        }
    }
    out
}

const LIB: &str = "//! # Layers\n//!\n//! | layer | modules |\n//! |---|---|\n//! | floor | `error` |\n//! | mid | `a`, `b` |\n//! | top | `c` |\npub mod error;\npub mod a;\npub mod b;\npub mod c;\npub use error::{Error, Result};\n";

#[test]
fn an_upward_use_is_named_with_file_and_line() {
    let files = crate_of(&[
        ("lib.rs", LIB),
        ("error.rs", "pub struct Error;\n\nuse crate::{a::X, c};\n"),
        ("a.rs", "use crate::Error;\n"),
        ("c.rs", "use crate::a::X;\n"),
    ]);
    // error (floor) -> a (mid) and error -> c (top) are upward, on one line: one message, naming
    // the first. error -> c -> a -> error is a circle.
    let p = check(&files);
    assert_eq!(p.len(), 2, "{p:#?}");
    assert!(p[0].starts_with("src/error.rs:3: `error` (layer floor) uses `crate::a::X` in `a` (layer mid)"), "{p:#?}");
    assert!(p[1].starts_with("import circle between top-level modules a, c, error:"), "{p:#?}");
}

#[test]
fn comments_strings_and_downward_paths_are_fine() {
    let files = crate_of(&[
        ("lib.rs", LIB),
        ("error.rs", "// use crate::c;\n/* crate::c::X */ const S: &str = \"crate::c\"; const R: &str = r#\"crate::c\"#;\nconst Q: char = '\"'; fn f<'a>(x: &'a str) -> &'a str { x }\n"),
        ("a.rs", "/// [`crate::c`]\nuse crate::error::Error;\n"),
        ("b.rs", "use crate::a;\n"),
        ("c.rs", "use crate::{a, b::{self}, error::*};\n"),
    ]);
    assert_eq!(check(&files), Vec::<String>::new());
}

#[test]
fn a_circle_in_one_layer_and_super_paths_are_found() {
    let files = crate_of(&[
        ("lib.rs", LIB),
        ("a/mod.rs", "mod inner;\n#[cfg(test)]\nmod tests {\n    use super::inner;\n}\n"),
        ("a/inner.rs", "fn f() { super::super::b::g() }\n"),
        ("b.rs", "pub fn g() {}\nuse crate::a;\n"),
    ]);
    // a/inner.rs: super::super::b is `b` (a -> b); b.rs: crate::a (b -> a). The `super::inner`
    // inside the inline `mod tests` stays in `a`.
    let p = check(&files);
    assert_eq!(p.len(), 1, "{p:#?}");
    assert!(
        p[0].starts_with(
            "import circle between top-level modules a, b:\n    a -> b (1 paths, first at src/a/inner.rs:1)\n    b -> a (1 paths, first at src/b.rs:2)"
        ),
        "{p:#?}"
    );
}

#[test]
fn a_circle_between_folders_of_one_module_is_found() {
    let files = crate_of(&[
        ("lib.rs", LIB),
        ("a/mod.rs", "mod x;\nmod y;\n"),
        ("a/x/mod.rs", "mod p;\n"),
        ("a/x/p.rs", "use crate::a::y::Q;\n"),
        ("a/y/mod.rs", "mod q;\npub struct Q;\n"),
        ("a/y/q.rs", "use super::super::x::p;\n"),
    ]);
    let p = check(&files);
    assert_eq!(p.len(), 1, "{p:#?}");
    assert!(p[0].starts_with("import circle between folders a/x, a/y:"), "{p:#?}");
}

#[test]
fn a_module_missing_from_the_table_is_named() {
    let lib = format!("{LIB}pub mod d;\n");
    let files = crate_of(&[("lib.rs", &lib), ("d.rs", "")]);
    assert_eq!(check(&files), vec!["src/lib.rs:13: module `d` is in no row of the layer table".to_string()]);
}

#[test]
fn a_table_row_naming_a_missing_module_is_named() {
    // The hand-written crate's table has `a`, `b`, `c`; `b` is not declared here.
    let lib = LIB.replace("pub mod b;\n", "");
    let files = crate_of(&[("lib.rs", &lib), ("a.rs", ""), ("c.rs", "")]);
    assert_eq!(check(&files), vec!["src/lib.rs: the layer table's row `mid` names `b`, which src/lib.rs does not declare".to_string()]);
}

#[test]
fn test_code_may_use_any_layer() {
    // `#[cfg(test)]` items and files are harnesses, like tests/*.rs: no message. The same use
    // outside them (`a.rs`) is named.
    let files = crate_of(&[
        ("lib.rs", LIB),
        ("error/mod.rs", "#[cfg(test)]\nmod t;\n#[cfg(test)]\nmod tests {\n    use crate::c;\n}\n#[cfg(test)]\nuse crate::c::Y;\n"),
        ("error/t.rs", "use crate::c::X;\n"),
        ("a.rs", "#[cfg(test)]\nfn f() { crate::c::g() }\nfn h() { crate::c::g() }\n"),
    ]);
    let p = check(&files);
    assert_eq!(p.len(), 1, "{p:#?}");
    assert!(p[0].starts_with("src/a.rs:3: `a` (layer mid) uses `crate::c::g` in `c` (layer top)"), "{p:#?}");
}

#[test]
fn a_circle_between_files_of_a_file_level_module_is_found() {
    // clickmodels is checked file by file: x -> y directly, y -> x through the root's
    // re-export `pub use x::X` (a use of `super::X` is a use of x). The uses of the root's own
    // items (`super::Base`) are not edges to another file.
    let lib = format!("{LIB}pub mod clickmodels;\n").replace("| top | `c` |", "| top | `c`, `clickmodels` |");
    let files = crate_of(&[
        ("lib.rs", &lib),
        ("clickmodels/mod.rs", "mod x;\nmod y;\nmod z;\npub use x::X;\npub struct Base;\n"),
        ("clickmodels/x.rs", "use super::y::Y;\nuse super::Base;\npub struct X;\n"),
        ("clickmodels/y.rs", "use super::X;\npub struct Y;\n"),
        ("clickmodels/z.rs", "use crate::clickmodels::{x, Base};\n"),
    ]);
    let p = check(&files);
    assert_eq!(p.len(), 1, "{p:#?}");
    assert!(
        p[0].starts_with(
            "import circle between files clickmodels/x, clickmodels/y:\n    clickmodels/x -> clickmodels/y (1 paths, first at src/clickmodels/x.rs:1)\n    clickmodels/y -> clickmodels/x (1 paths, first at src/clickmodels/y.rs:1)"
        ),
        "{p:#?}"
    );
}

#[test]
fn a_measure_file_using_the_name_parser_is_named() {
    // A measure file may use measure_def (and the ground); using names (which reads the
    // registry) is refused with file and line, even without a circle.
    let lib = format!("{LIB}pub mod metrics;\n").replace("| top | `c` |", "| top | `c`, `metrics` |");
    let files = crate_of(&[
        ("lib.rs", &lib),
        ("metrics/mod.rs", "mod measure_def;\nmod measure_foo;\nmod names;\n"),
        ("metrics/measure_def.rs", "pub trait Measure {}\n"),
        ("metrics/measure_foo.rs", "use super::measure_def::Measure;\n\nuse super::names::parse;\n"),
        ("metrics/names.rs", "pub fn parse() {}\n"),
    ]);
    let p = check(&files);
    assert_eq!(p.len(), 1, "{p:#?}");
    assert!(p[0].starts_with("src/metrics/measure_foo.rs:3: measure file `metrics/measure_foo` uses `metrics/names`"), "{p:#?}");
}
