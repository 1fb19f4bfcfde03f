//! Flat records from serialisable structs: every table serpsim writes (CSV or JSON records)
//! takes its columns from the struct that holds the row, in field order, so a field added to
//! the struct becomes a column of every file without touching the writers.
//!
//! Flattening rules (a row is a struct, possibly with `#[serde(flatten)]` parts):
//! - a nested struct or map `x` gives columns `x_<field>`;
//! - `None` and NaN or infinite floats are undefined (an empty CSV cell, JSON `null`);
//! - a list of strings is one cell, the strings joined by spaces (an empty list: an empty cell);
//! - a list of two numbers `x` gives `x_low`, `x_high` (an interval);
//! - a list of five numbers `<stem>quantiles` gives `<stem>q05`, `q25`, `q50`, `q75`, `q95`;
//! - any other list of numbers `x` gives `x_0`, `x_1`, ...;
//! - a list of structs whose first field is a string (e.g. one entry per measure) gives
//!   `<first field's value>_<field>` for the other fields, the list's own name left out (so
//!   `measures: [{ measure: "gain", diff, ci }]` gives `gain_diff`, `gain_ci_low`,
//!   `gain_ci_high`).

use serde::ser::{self, Serialize};
use std::fmt;

/// One cell of a flat record.
#[derive(Debug, Clone, PartialEq)]
pub enum Scalar {
    /// Undefined (empty CSV cell, JSON `null`).
    Null,
    /// A truth value.
    Bool(bool),
    /// A signed integer.
    Int(i64),
    /// An unsigned integer.
    UInt(u64),
    /// A float (NaN and infinities are written as undefined).
    Float(f64),
    /// Text.
    Str(String),
}

/// A serialised value with its field order kept.
#[derive(Debug, Clone, PartialEq)]
enum Node {
    Scalar(Scalar),
    Seq(Vec<Node>),
    Map(Vec<(String, Node)>),
}

/// Why a value cannot be flattened.
#[derive(Debug)]
pub struct FlatError(String);

impl fmt::Display for FlatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for FlatError {}
impl ser::Error for FlatError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        FlatError(msg.to_string())
    }
}

/// The columns and cells of `value` (a struct) flattened by the rules of this module.
pub fn flatten<T: Serialize + ?Sized>(value: &T) -> Result<Vec<(String, Scalar)>, FlatError> {
    let node = value.serialize(NodeSer)?;
    let mut out = Vec::new();
    match node {
        Node::Map(_) => flatten_into(String::new(), node, &mut out),
        _ => return Err(FlatError("a record must be a struct or map".into())),
    }
    Ok(out)
}

fn join(prefix: &str, key: &str) -> String {
    if prefix.is_empty() {
        key.to_string()
    } else {
        format!("{prefix}_{key}")
    }
}

const QUANTILES: [&str; 5] = ["q05", "q25", "q50", "q75", "q95"];

fn flatten_into(name: String, node: Node, out: &mut Vec<(String, Scalar)>) {
    match node {
        Node::Scalar(s) => out.push((name, s)),
        Node::Map(fields) => {
            for (k, v) in fields {
                match v {
                    // One entry per measure: columns `<measure>_<field>`, the list's own name
                    // left out.
                    Node::Seq(items) if !items.is_empty() && items.iter().all(is_keyed) => {
                        for item in items {
                            let Node::Map(mut f) = item else { unreachable!() };
                            let (_, key) = f.remove(0);
                            let Node::Scalar(Scalar::Str(label)) = key else { unreachable!() };
                            flatten_into(join(&name, &label), Node::Map(f), out);
                        }
                    }
                    v => flatten_into(join(&name, &k), v, out),
                }
            }
        }
        Node::Seq(items) => {
            let scalars: Option<Vec<&Scalar>> = items.iter().map(|n| if let Node::Scalar(s) = n { Some(s) } else { None }).collect();
            if let Some(sc) = scalars {
                if sc.iter().all(|s| matches!(s, Scalar::Str(_))) {
                    let words: Vec<&str> = sc.iter().map(|s| if let Scalar::Str(t) = s { t.as_str() } else { "" }).collect();
                    out.push((name, Scalar::Str(words.join(" "))));
                    return;
                }
                let labels: Vec<String> = if sc.len() == 2 {
                    vec![join(&name, "low"), join(&name, "high")]
                } else if sc.len() == 5 && name.ends_with("quantiles") {
                    let stem = &name[..name.len() - "quantiles".len()];
                    QUANTILES.iter().map(|q| format!("{stem}{q}")).collect()
                } else {
                    (0..sc.len()).map(|i| join(&name, &i.to_string())).collect()
                };
                for (l, s) in labels.into_iter().zip(items) {
                    flatten_into(l, s, out);
                }
                return;
            }
            for (i, item) in items.into_iter().enumerate() {
                match item {
                    Node::Map(mut fields) if matches!(fields.first(), Some((_, Node::Scalar(Scalar::Str(_))))) => {
                        let (_, key) = fields.remove(0);
                        let Node::Scalar(Scalar::Str(label)) = key else { unreachable!() };
                        flatten_into(join(&name, &label), Node::Map(fields), out);
                    }
                    other => flatten_into(join(&name, &i.to_string()), other, out),
                }
            }
        }
    }
}

/// A struct whose first field is text (the label of a keyed list entry).
fn is_keyed(n: &Node) -> bool {
    matches!(n, Node::Map(f) if matches!(f.first(), Some((_, Node::Scalar(Scalar::Str(_))))))
}

struct NodeSer;

struct SeqBuilder(Vec<Node>);
struct MapBuilder {
    fields: Vec<(String, Node)>,
    key: Option<String>,
}

fn key_text(n: Node) -> Result<String, FlatError> {
    match n {
        Node::Scalar(Scalar::Str(s)) => Ok(s),
        Node::Scalar(Scalar::Int(i)) => Ok(i.to_string()),
        Node::Scalar(Scalar::UInt(i)) => Ok(i.to_string()),
        Node::Scalar(Scalar::Bool(b)) => Ok(b.to_string()),
        _ => Err(FlatError("map keys must be strings or integers".into())),
    }
}

impl ser::Serializer for NodeSer {
    type Ok = Node;
    type Error = FlatError;
    type SerializeSeq = SeqBuilder;
    type SerializeTuple = SeqBuilder;
    type SerializeTupleStruct = SeqBuilder;
    type SerializeTupleVariant = SeqBuilder;
    type SerializeMap = MapBuilder;
    type SerializeStruct = MapBuilder;
    type SerializeStructVariant = MapBuilder;

    fn serialize_bool(self, v: bool) -> Result<Node, FlatError> {
        Ok(Node::Scalar(Scalar::Bool(v)))
    }
    fn serialize_i8(self, v: i8) -> Result<Node, FlatError> {
        self.serialize_i64(v.into())
    }
    fn serialize_i16(self, v: i16) -> Result<Node, FlatError> {
        self.serialize_i64(v.into())
    }
    fn serialize_i32(self, v: i32) -> Result<Node, FlatError> {
        self.serialize_i64(v.into())
    }
    fn serialize_i64(self, v: i64) -> Result<Node, FlatError> {
        Ok(Node::Scalar(Scalar::Int(v)))
    }
    fn serialize_u8(self, v: u8) -> Result<Node, FlatError> {
        self.serialize_u64(v.into())
    }
    fn serialize_u16(self, v: u16) -> Result<Node, FlatError> {
        self.serialize_u64(v.into())
    }
    fn serialize_u32(self, v: u32) -> Result<Node, FlatError> {
        self.serialize_u64(v.into())
    }
    fn serialize_u64(self, v: u64) -> Result<Node, FlatError> {
        Ok(Node::Scalar(Scalar::UInt(v)))
    }
    fn serialize_f32(self, v: f32) -> Result<Node, FlatError> {
        self.serialize_f64(v.into())
    }
    fn serialize_f64(self, v: f64) -> Result<Node, FlatError> {
        Ok(Node::Scalar(Scalar::Float(v)))
    }
    fn serialize_char(self, v: char) -> Result<Node, FlatError> {
        Ok(Node::Scalar(Scalar::Str(v.to_string())))
    }
    fn serialize_str(self, v: &str) -> Result<Node, FlatError> {
        Ok(Node::Scalar(Scalar::Str(v.to_string())))
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<Node, FlatError> {
        Err(FlatError("bytes cannot be a table cell".into()))
    }
    fn serialize_none(self) -> Result<Node, FlatError> {
        Ok(Node::Scalar(Scalar::Null))
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<Node, FlatError> {
        v.serialize(self)
    }
    fn serialize_unit(self) -> Result<Node, FlatError> {
        Ok(Node::Scalar(Scalar::Null))
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<Node, FlatError> {
        Ok(Node::Scalar(Scalar::Null))
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result<Node, FlatError> {
        Ok(Node::Scalar(Scalar::Str(variant.to_string())))
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, v: &T) -> Result<Node, FlatError> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(self, _: &'static str, _: u32, variant: &'static str, v: &T) -> Result<Node, FlatError> {
        Ok(Node::Map(vec![(variant.to_string(), v.serialize(NodeSer)?)]))
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<SeqBuilder, FlatError> {
        Ok(SeqBuilder(Vec::with_capacity(len.unwrap_or(0))))
    }
    fn serialize_tuple(self, len: usize) -> Result<SeqBuilder, FlatError> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<SeqBuilder, FlatError> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(self, _: &'static str, _: u32, _: &'static str, len: usize) -> Result<SeqBuilder, FlatError> {
        self.serialize_seq(Some(len))
    }
    fn serialize_map(self, len: Option<usize>) -> Result<MapBuilder, FlatError> {
        Ok(MapBuilder { fields: Vec::with_capacity(len.unwrap_or(0)), key: None })
    }
    fn serialize_struct(self, _: &'static str, len: usize) -> Result<MapBuilder, FlatError> {
        self.serialize_map(Some(len))
    }
    fn serialize_struct_variant(self, _: &'static str, _: u32, _: &'static str, len: usize) -> Result<MapBuilder, FlatError> {
        self.serialize_map(Some(len))
    }
}

impl ser::SerializeSeq for SeqBuilder {
    type Ok = Node;
    type Error = FlatError;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), FlatError> {
        self.0.push(v.serialize(NodeSer)?);
        Ok(())
    }
    fn end(self) -> Result<Node, FlatError> {
        Ok(Node::Seq(self.0))
    }
}

/// Tuples, tuple structs and tuple variants build a sequence, as a `Vec` does.
macro_rules! seq_like {
    ($($tr:ident::$m:ident),*) => {$(
        impl ser::$tr for SeqBuilder {
            type Ok = Node;
            type Error = FlatError;
            fn $m<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), FlatError> {
                ser::SerializeSeq::serialize_element(self, v)
            }
            fn end(self) -> Result<Node, FlatError> {
                ser::SerializeSeq::end(self)
            }
        }
    )*};
}
seq_like!(SerializeTuple::serialize_element, SerializeTupleStruct::serialize_field, SerializeTupleVariant::serialize_field);

impl ser::SerializeMap for MapBuilder {
    type Ok = Node;
    type Error = FlatError;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, k: &T) -> Result<(), FlatError> {
        self.key = Some(key_text(k.serialize(NodeSer)?)?);
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), FlatError> {
        let k = self.key.take().ok_or_else(|| FlatError("map value without a key".into()))?;
        self.fields.push((k, v.serialize(NodeSer)?));
        Ok(())
    }
    fn end(self) -> Result<Node, FlatError> {
        Ok(Node::Map(self.fields))
    }
}

impl ser::SerializeStruct for MapBuilder {
    type Ok = Node;
    type Error = FlatError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, k: &'static str, v: &T) -> Result<(), FlatError> {
        self.fields.push((k.to_string(), v.serialize(NodeSer)?));
        Ok(())
    }
    fn end(self) -> Result<Node, FlatError> {
        Ok(Node::Map(self.fields))
    }
}

impl ser::SerializeStructVariant for MapBuilder {
    type Ok = Node;
    type Error = FlatError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, k: &'static str, v: &T) -> Result<(), FlatError> {
        ser::SerializeStruct::serialize_field(self, k, v)
    }
    fn end(self) -> Result<Node, FlatError> {
        Ok(Node::Map(self.fields))
    }
}
