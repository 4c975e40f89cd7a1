//! Reading MLIR attribute and type text into Rust values.
//!
//! IRDL-defined attributes (`#ascend.dims<...>`, `#ascir.view<...>`) have no C API to
//! read their parameters, so the project reads every attribute and type it cares about
//! from its printed form. MLIR prints them canonically, so this parser only needs the
//! subset MLIR prints for builtin integers, floats, bools, strings, arrays, symbol
//! references, dense elements, unit, ranked tensor types and our dialect attributes.

use std::fmt;

#[derive(Clone, Debug, PartialEq)]
pub enum AttrValue {
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(String),
    Array(Vec<AttrValue>),
    /// `@name` (nested references keep their full text).
    Symbol(String),
    /// `#dialect.name<params>`
    Dialect {
        name: String,
        params: Vec<AttrValue>,
    },
    /// `dense<...> : type`: flattened values (splat has one value) and the type text.
    Dense {
        values: Vec<f64>,
        splat: bool,
        ty: String,
    },
    Unit,
    /// Anything else, kept as text.
    Other(String),
}

impl AttrValue {
    pub fn as_int(&self) -> Option<i64> {
        match self {
            AttrValue::Int(v) => Some(*v),
            AttrValue::Bool(b) => Some(*b as i64),
            _ => None,
        }
    }

    pub fn as_float(&self) -> Option<f64> {
        match self {
            AttrValue::Float(v) => Some(*v),
            AttrValue::Int(v) => Some(*v as f64),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            AttrValue::Bool(b) => Some(*b),
            AttrValue::Int(v) if *v == 0 || *v == 1 => Some(*v == 1),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            AttrValue::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&[AttrValue]> {
        match self {
            AttrValue::Array(items) => Some(items),
            _ => None,
        }
    }

    pub fn as_ints(&self) -> Option<Vec<i64>> {
        self.as_array()?.iter().map(AttrValue::as_int).collect()
    }

    /// An integer, or a string holding a shape expression, as an `Expr`.
    pub fn as_expr(&self) -> Option<autofuse_symbolic::Expr> {
        match self {
            AttrValue::Int(v) => Some(autofuse_symbolic::Expr::constant(*v)),
            AttrValue::Str(s) => autofuse_symbolic::Expr::parse(s).ok(),
            _ => None,
        }
    }

    /// An array of integers and shape-expression strings as `Expr`s.
    pub fn as_exprs(&self) -> Option<Vec<autofuse_symbolic::Expr>> {
        self.as_array()?.iter().map(AttrValue::as_expr).collect()
    }

    pub fn as_strs(&self) -> Option<Vec<&str>> {
        self.as_array()?.iter().map(AttrValue::as_str).collect()
    }

    pub fn as_symbol(&self) -> Option<&str> {
        match self {
            AttrValue::Symbol(s) => Some(s),
            _ => None,
        }
    }

    /// The parameters of `#dialect.name<...>` if this is that attribute.
    pub fn dialect_params(&self, full_name: &str) -> Option<&[AttrValue]> {
        match self {
            AttrValue::Dialect { name, params } if name == full_name => Some(params),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextError {
    pub offset: usize,
    pub message: String,
}

impl fmt::Display for TextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at offset {}: {}", self.offset, self.message)
    }
}

impl std::error::Error for TextError {}

/// A parsed builtin ranked tensor type (or a scalar type as rank-0 with no tensor).
#[derive(Clone, Debug, PartialEq)]
pub struct TensorTypeText {
    /// `None` for a dynamic (`?`) dim.
    pub dims: Vec<Option<i64>>,
    pub element: String,
    pub encoding: Option<AttrValue>,
}

/// Parses attribute text as MLIR prints it.
pub fn parse_attr(text: &str) -> Result<AttrValue, TextError> {
    let mut p = Parser {
        s: text.as_bytes(),
        pos: 0,
    };
    let value = p.attr()?;
    p.ws();
    if p.pos != p.s.len() {
        return Err(p.err("trailing text after attribute"));
    }
    Ok(value)
}

/// Parses `tensor<4x?xf32, #enc>` or a scalar type like `f32`.
pub fn parse_tensor_type(text: &str) -> Result<TensorTypeText, TextError> {
    let mut p = Parser {
        s: text.as_bytes(),
        pos: 0,
    };
    p.ws();
    if !p.eat("tensor<") {
        let element = text.trim().to_string();
        // A parameterized scalar type such as `complex<f32>` is kept whole (and reported
        // as an unsupported element type by the caller).
        let parameterized = element.split_once('<').is_some_and(|(head, _)| {
            !head.is_empty() && head.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_')
        }) && element.ends_with('>')
            && element.matches('<').count() == element.matches('>').count();
        if element.is_empty() || (!parameterized && element.contains(['<', '>', ' '])) {
            return Err(p.err("expected a ranked tensor or scalar type"));
        }
        return Ok(TensorTypeText {
            dims: Vec::new(),
            element,
            encoding: None,
        });
    }
    let mut dims = Vec::new();
    loop {
        p.ws();
        if p.peek() == Some(b'?') {
            p.pos += 1;
            dims.push(None);
        } else if p.peek().is_some_and(|c| c.is_ascii_digit()) {
            let start = p.pos;
            while p.peek().is_some_and(|c| c.is_ascii_digit()) {
                p.pos += 1;
            }
            let digits = &text[start..p.pos];
            dims.push(Some(
                digits
                    .parse()
                    .map_err(|_| p.err("dimension out of range"))?,
            ));
        } else {
            break;
        }
        if !p.eat("x") {
            return Err(p.err("expected 'x' after a dimension"));
        }
    }
    if p.peek() == Some(b'*') {
        return Err(p.err("unranked tensors are not supported"));
    }
    let start = p.pos;
    while p
        .peek()
        .is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_')
    {
        p.pos += 1;
    }
    // A parameterized element type (`complex<f32>`, `vector<4xf32>`) is taken whole, so
    // that it is reported as an unsupported element type rather than as malformed text.
    if p.pos > start && p.peek() == Some(b'<') {
        let mut depth = 0usize;
        while let Some(c) = p.peek() {
            p.pos += 1;
            match c {
                b'<' => depth += 1,
                b'>' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                _ => {}
            }
        }
        if depth != 0 {
            return Err(p.err("unbalanced '<' in the element type"));
        }
    }
    let element = text[start..p.pos].to_string();
    if element.is_empty() {
        return Err(p.err("expected an element type"));
    }
    p.ws();
    let encoding = if p.eat(",") {
        p.ws();
        Some(p.attr()?)
    } else {
        None
    };
    p.ws();
    if !p.eat(">") {
        return Err(p.err("expected '>' closing the tensor type"));
    }
    Ok(TensorTypeText {
        dims,
        element,
        encoding,
    })
}

struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
}

impl Parser<'_> {
    fn err(&self, message: &str) -> TextError {
        TextError {
            offset: self.pos,
            message: message.to_string(),
        }
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    fn ws(&mut self) {
        while self.peek().is_some_and(|c| c.is_ascii_whitespace()) {
            self.pos += 1;
        }
    }

    fn eat(&mut self, token: &str) -> bool {
        if self.s[self.pos..].starts_with(token.as_bytes()) {
            self.pos += token.len();
            true
        } else {
            false
        }
    }

    fn ident(&mut self) -> String {
        let start = self.pos;
        while self
            .peek()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'.' || c == b'$')
        {
            self.pos += 1;
        }
        String::from_utf8_lossy(&self.s[start..self.pos]).into_owned()
    }

    /// Skips a `: type` suffix (balanced angle brackets).
    fn skip_type_suffix(&mut self) -> Option<String> {
        let save = self.pos;
        self.ws();
        if !self.eat(":") {
            self.pos = save;
            return None;
        }
        self.ws();
        let start = self.pos;
        let mut depth = 0i32;
        while let Some(c) = self.peek() {
            match c {
                b'<' | b'(' => depth += 1,
                b'>' | b')' if depth > 0 => depth -= 1,
                b',' | b'>' | b']' | b'}' | b')' if depth == 0 => break,
                _ => {}
            }
            self.pos += 1;
        }
        Some(
            String::from_utf8_lossy(&self.s[start..self.pos])
                .trim()
                .to_string(),
        )
    }

    fn string(&mut self) -> Result<String, TextError> {
        // Caller checked the opening quote.
        self.pos += 1;
        let mut bytes = Vec::new();
        loop {
            match self.peek() {
                None => return Err(self.err("unterminated string")),
                Some(b'"') => {
                    self.pos += 1;
                    break;
                }
                Some(b'\\') => {
                    let hex = self.s.get(self.pos + 1..self.pos + 3);
                    match hex {
                        Some(h) if h[0] == b'\\' || h[0] == b'"' => {
                            bytes.push(h[0]);
                            self.pos += 2;
                        }
                        Some(h) if h[0] == b'n' => {
                            bytes.push(b'\n');
                            self.pos += 2;
                        }
                        Some(h) => {
                            let text =
                                std::str::from_utf8(h).map_err(|_| self.err("bad escape"))?;
                            let byte =
                                u8::from_str_radix(text, 16).map_err(|_| self.err("bad escape"))?;
                            bytes.push(byte);
                            self.pos += 3;
                        }
                        None => return Err(self.err("bad escape")),
                    }
                }
                Some(c) => {
                    bytes.push(c);
                    self.pos += 1;
                }
            }
        }
        String::from_utf8(bytes).map_err(|_| self.err("string is not UTF-8"))
    }

    fn number(&mut self) -> Result<AttrValue, TextError> {
        let start = self.pos;
        if self.peek() == Some(b'-') || self.peek() == Some(b'+') {
            self.pos += 1;
        }
        if self.s[self.pos..].starts_with(b"0x") {
            self.pos += 2;
            while self.peek().is_some_and(|c| c.is_ascii_hexdigit()) {
                self.pos += 1;
            }
        } else {
            while self.peek().is_some_and(|c| {
                c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'-' | b'+')
            }) {
                // A sign is part of the number only right after an exponent marker.
                if matches!(self.peek(), Some(b'-') | Some(b'+'))
                    && !matches!(self.s.get(self.pos - 1), Some(b'e') | Some(b'E'))
                {
                    break;
                }
                self.pos += 1;
            }
        }
        let text =
            std::str::from_utf8(&self.s[start..self.pos]).map_err(|_| self.err("bad number"))?;
        let ty = self.skip_type_suffix();
        let is_float_type = ty
            .as_deref()
            .is_some_and(|t| t.starts_with('f') || t.starts_with("bf"));
        if let Some(hex) = text.strip_prefix("0x") {
            let bits = u64::from_str_radix(hex, 16).map_err(|_| self.err("bad hex number"))?;
            return Ok(match ty.as_deref() {
                Some("f32") => AttrValue::Float(f32::from_bits(bits as u32) as f64),
                Some("f64") => AttrValue::Float(f64::from_bits(bits)),
                _ => AttrValue::Int(bits as i64),
            });
        }
        if text.contains(['.', 'e', 'E']) || is_float_type {
            return text
                .parse::<f64>()
                .map(AttrValue::Float)
                .map_err(|_| self.err("bad float"));
        }
        if ty.as_deref() == Some("i1") {
            return Ok(AttrValue::Bool(text != "0"));
        }
        text.parse::<i64>()
            .map(AttrValue::Int)
            .map_err(|_| self.err("integer out of range"))
    }

    fn list(&mut self, close: u8) -> Result<Vec<AttrValue>, TextError> {
        let mut items = Vec::new();
        self.ws();
        if self.peek() == Some(close) {
            self.pos += 1;
            return Ok(items);
        }
        loop {
            items.push(self.attr()?);
            self.ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(c) if c == close => {
                    self.pos += 1;
                    return Ok(items);
                }
                _ => return Err(self.err("expected ',' or closing bracket")),
            }
        }
    }

    fn dense(&mut self) -> Result<AttrValue, TextError> {
        // After `dense<`.
        self.ws();
        let mut values = Vec::new();
        let mut splat = false;
        if self.peek() == Some(b'"') {
            let hex = self.string()?;
            if !self.eat(">") {
                return Err(self.err("expected '>' after dense hex data"));
            }
            let ty = self.skip_type_suffix().unwrap_or_default();
            let bytes =
                decode_hex(hex.trim_start_matches("0x")).ok_or_else(|| self.err("bad hex data"))?;
            values = decode_dense_bytes(&bytes, &ty)
                .ok_or_else(|| self.err("unsupported dense element type"))?;
            splat = values.len() == 1;
            return Ok(AttrValue::Dense { values, splat, ty });
        }
        let mut span_text = String::new();
        if self.peek() == Some(b'>') {
            self.pos += 1;
        } else {
            let start = self.pos;
            let item = self.attr()?;
            span_text = String::from_utf8_lossy(&self.s[start..self.pos]).into_owned();
            if !matches!(item, AttrValue::Array(_)) {
                splat = true;
            }
            flatten_numbers(&item, &mut values)
                .ok_or_else(|| self.err("dense values must be numbers"))?;
            self.ws();
            if !self.eat(">") {
                return Err(self.err("expected '>' closing dense"));
            }
        }
        let ty = self.skip_type_suffix().unwrap_or_default();
        // MLIR prints non-finite floats as hex bit patterns (`dense<0x7F800000>`); they
        // were read as integers above, so reinterpret them with the element type.
        if let Some(bits_of) = hex_float_decoder(&ty) {
            let hex_tokens: Vec<Option<u64>> = span_numbers(&span_text)
                .into_iter()
                .map(|t| {
                    t.strip_prefix("0x")
                        .and_then(|h| u64::from_str_radix(h, 16).ok())
                })
                .collect();
            if hex_tokens.len() == values.len() {
                for (value, bits) in values.iter_mut().zip(hex_tokens) {
                    if let Some(bits) = bits {
                        *value = bits_of(bits);
                    }
                }
            }
        }
        Ok(AttrValue::Dense { values, splat, ty })
    }

    fn attr(&mut self) -> Result<AttrValue, TextError> {
        self.ws();
        match self.peek() {
            None => Err(self.err("expected an attribute")),
            Some(b'"') => {
                let s = self.string()?;
                self.skip_type_suffix();
                Ok(AttrValue::Str(s))
            }
            Some(b'[') => {
                self.pos += 1;
                Ok(AttrValue::Array(self.list(b']')?))
            }
            Some(b'@') => {
                self.pos += 1;
                let mut name = if self.peek() == Some(b'"') {
                    self.string()?
                } else {
                    self.ident()
                };
                while self.eat("::@") {
                    name.push_str("::@");
                    name.push_str(&self.ident());
                }
                Ok(AttrValue::Symbol(name))
            }
            Some(b'#') => {
                self.pos += 1;
                let name = self.ident();
                let params = if self.eat("<") {
                    self.list(b'>')?
                } else {
                    Vec::new()
                };
                Ok(AttrValue::Dialect { name, params })
            }
            Some(c) if c.is_ascii_digit() || c == b'-' || c == b'+' => self.number(),
            Some(_) => {
                let word = self.ident();
                match word.as_str() {
                    "true" => Ok(AttrValue::Bool(true)),
                    "false" => Ok(AttrValue::Bool(false)),
                    "unit" => Ok(AttrValue::Unit),
                    "dense" if self.eat("<") => self.dense(),
                    "inf" => Ok(AttrValue::Float(f64::INFINITY)),
                    "nan" => Ok(AttrValue::Float(f64::NAN)),
                    "" => Err(self.err("unexpected character in attribute")),
                    _ => {
                        // A type or other keyword attribute: keep its text.
                        let start = self.pos - word.len();
                        let mut depth = 0i32;
                        while let Some(c) = self.peek() {
                            match c {
                                b'<' | b'(' | b'[' => depth += 1,
                                b'>' | b')' | b']' if depth > 0 => depth -= 1,
                                b',' | b'>' | b']' | b'}' | b')' if depth == 0 => break,
                                _ => {}
                            }
                            self.pos += 1;
                        }
                        Ok(AttrValue::Other(
                            String::from_utf8_lossy(&self.s[start..self.pos]).into_owned(),
                        ))
                    }
                }
            }
        }
    }
}

/// The numeric tokens of a dense literal, in order.
fn span_numbers(text: &str) -> Vec<&str> {
    text.split(|c: char| matches!(c, '[' | ']' | ',' | '(' | ')') || c.is_whitespace())
        .filter(|t| !t.is_empty())
        .collect()
}

/// How to turn the bit pattern of one element into its value, for float element types.
fn hex_float_decoder(ty: &str) -> Option<fn(u64) -> f64> {
    let element = parse_tensor_type(ty).ok()?.element;
    Some(match element.as_str() {
        "f32" => |b| f32::from_bits(b as u32) as f64,
        "f64" => f64::from_bits,
        "f16" => |b| half::f16::from_bits(b as u16).to_f64(),
        "bf16" => |b| half::bf16::from_bits(b as u16).to_f64(),
        _ => return None,
    })
}

fn flatten_numbers(value: &AttrValue, out: &mut Vec<f64>) -> Option<()> {
    match value {
        AttrValue::Array(items) => items.iter().try_for_each(|i| flatten_numbers(i, out)),
        AttrValue::Bool(b) => {
            out.push(*b as i64 as f64);
            Some(())
        }
        other => {
            out.push(other.as_float()?);
            Some(())
        }
    }
}

fn decode_hex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

/// Decodes the little-endian raw data of a dense hex attribute given its tensor type.
fn decode_dense_bytes(bytes: &[u8], ty: &str) -> Option<Vec<f64>> {
    let element = parse_tensor_type(ty).ok()?.element;
    let width = match element.as_str() {
        "f64" | "i64" => 8,
        "f32" | "i32" => 4,
        "f16" | "bf16" | "i16" => 2,
        "i8" | "ui8" | "i1" => 1,
        _ => return None,
    };
    Some(
        bytes
            .chunks_exact(width)
            .map(|c| match element.as_str() {
                "f64" => f64::from_le_bytes(c.try_into().unwrap_or([0; 8])),
                "i64" => i64::from_le_bytes(c.try_into().unwrap_or([0; 8])) as f64,
                "f32" => f32::from_le_bytes(c.try_into().unwrap_or([0; 4])) as f64,
                "i32" => i32::from_le_bytes(c.try_into().unwrap_or([0; 4])) as f64,
                "f16" => half::f16::from_le_bytes([c[0], c[1]]).to_f64(),
                "bf16" => half::bf16::from_le_bytes([c[0], c[1]]).to_f64(),
                "i16" => i16::from_le_bytes([c[0], c[1]]) as f64,
                "i8" => c[0] as i8 as f64,
                _ => c[0] as f64,
            })
            .collect(),
    )
}

/// Quotes a string the way MLIR prints string attributes.
pub fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for b in text.bytes() {
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            0x20..=0x7e => out.push(b as char),
            _ => out.push_str(&format!("\\{b:02X}")),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameterized_element_types_are_kept_whole() {
        let t = parse_tensor_type("tensor<4xcomplex<f32>>").unwrap();
        assert_eq!(t.element, "complex<f32>");
        assert_eq!(
            parse_tensor_type("complex<f32>").unwrap().element,
            "complex<f32>"
        );
        let err = crate::graph::TensorType::parse_mlir("tensor<4xcomplex<f32>>").unwrap_err();
        assert!(
            err.to_string()
                .contains("unsupported element type 'complex<f32>'"),
            "{err}"
        );
        assert!(parse_tensor_type("tensor<4xcomplex<f32>").is_err());
    }

    #[test]
    fn parses_builtin_attributes() {
        assert_eq!(parse_attr("3 : i64"), Ok(AttrValue::Int(3)));
        assert_eq!(parse_attr("-7"), Ok(AttrValue::Int(-7)));
        assert_eq!(parse_attr("true"), Ok(AttrValue::Bool(true)));
        assert_eq!(parse_attr("1.500000e+00 : f32"), Ok(AttrValue::Float(1.5)));
        assert_eq!(
            parse_attr("0x7F800000 : f32"),
            Ok(AttrValue::Float(f64::INFINITY))
        );
        assert_eq!(parse_attr("\"a\\\"b\""), Ok(AttrValue::Str("a\"b".into())));
        assert_eq!(
            parse_attr("[1, -2]").ok().and_then(|v| v.as_ints()),
            Some(vec![1, -2])
        );
        assert_eq!(parse_attr("@k"), Ok(AttrValue::Symbol("k".into())));
    }

    #[test]
    fn parses_dialect_attributes() {
        let v = parse_attr("#ascir.view<[0, 1], [\"s0\", \"1\"], [\"1\", \"0\"]>").unwrap();
        let params = v.dialect_params("ascir.view").unwrap();
        assert_eq!(params.len(), 3);
        assert_eq!(params[1].as_strs(), Some(vec!["s0", "1"]));
    }

    #[test]
    fn parses_dense_forms() {
        let v = parse_attr("dense<[[1.0, 2.0], [3.0, 4.5]]> : tensor<2x2xf32>").unwrap();
        assert_eq!(
            v,
            AttrValue::Dense {
                values: vec![1.0, 2.0, 3.0, 4.5],
                splat: false,
                ty: "tensor<2x2xf32>".into()
            }
        );
        let s = parse_attr("dense<2> : tensor<4xi32>").unwrap();
        assert!(matches!(s, AttrValue::Dense { splat: true, ref values, .. } if values == &[2.0]));
        let inf = parse_attr("dense<0x7F800000> : tensor<f32>").unwrap();
        assert!(matches!(inf, AttrValue::Dense { ref values, .. } if values == &[f64::INFINITY]));
        let mixed = parse_attr("dense<[1.000000e+00, 0xFF800000]> : tensor<2xf32>").unwrap();
        assert!(
            matches!(mixed, AttrValue::Dense { ref values, .. } if values == &[1.0, f64::NEG_INFINITY])
        );
        let h = parse_attr("dense<\"0x0000803F00000040\"> : tensor<2xf32>").unwrap();
        assert!(matches!(h, AttrValue::Dense { ref values, .. } if values == &[1.0, 2.0]));
    }

    #[test]
    fn parses_tensor_types() {
        let t = parse_tensor_type("tensor<?x128xf16, #ascend.dims<[\"s0\", \"128\"]>>").unwrap();
        assert_eq!(t.dims, vec![None, Some(128)]);
        assert_eq!(t.element, "f16");
        assert!(t.encoding.is_some());
        let s = parse_tensor_type("tensor<i1>").unwrap();
        assert!(s.dims.is_empty());
        assert!(parse_tensor_type("tensor<*xf32>").is_err());
        assert!(parse_tensor_type("tensor<4xf32").is_err());
    }

    #[test]
    fn rejects_malformed_text() {
        assert!(parse_attr("\"open").is_err());
        assert!(parse_attr("[1, 2").is_err());
        assert!(parse_attr("").is_err());
    }
}

#[cfg(test)]
mod fuzz {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Arbitrary text never panics the attribute or type readers.
        #[test]
        fn readers_never_panic(text in "\\PC{0,80}") {
            let _ = parse_attr(&text);
            let _ = parse_tensor_type(&text);
        }

        /// Text built from attribute tokens (the likely near-misses) never panics either.
        #[test]
        fn token_soup_never_panics(tokens in proptest::collection::vec(
            prop_oneof![
                Just("["), Just("]"), Just("<"), Just(">"), Just(","), Just("\""), Just("#ascir.view"),
                Just("dense"), Just("tensor"), Just("0x"), Just(":"), Just("i64"), Just("f32"), Just("-"),
                Just("1"), Just("2.5e"), Just("@"), Just("::@"), Just("\\"), Just("?x"), Just("true"),
            ],
            0..24,
        )) {
            let text: String = tokens.concat();
            let _ = parse_attr(&text);
            let _ = parse_tensor_type(&text);
        }
    }
}
