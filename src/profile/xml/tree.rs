//! A minimal element tree with line numbers, built with quick-xml, and typed accessors that record
//! which children were read so that anything unknown is reported.

use quick_xml::Reader;
use quick_xml::events::Event;

use super::XmlError;

/// The largest profile read (DiskSpd profiles are a few kilobytes).
const MAX_PROFILE_BYTES: usize = 16 << 20;
/// The deepest nesting accepted (DiskSpd's schema is 6 levels deep).
const MAX_DEPTH: usize = 32;

/// One element.
#[derive(Debug)]
pub struct Element {
    /// Tag name.
    pub name: String,
    /// Attributes, in document order.
    pub attrs: Vec<(String, String)>,
    /// Concatenated text content, trimmed.
    pub text: String,
    /// Child elements.
    pub children: Vec<Element>,
    /// 1-based line of the start tag.
    pub line: usize,
}

fn line_at(text: &str, offset: u64) -> usize {
    Lines::default().at(text, offset)
}

/// Line numbers of increasing offsets, counting each newline once (a profile of 10,000 targets is
/// read in linear time).
#[derive(Debug, Default, Clone, Copy)]
struct Lines {
    offset: usize,
    newlines: usize,
}

impl Lines {
    /// The 1-based line of `offset`, which is not before the last one asked.
    fn at(&mut self, text: &str, offset: u64) -> usize {
        let end = (offset as usize).min(text.len()).max(self.offset);
        self.newlines += text.as_bytes()[self.offset..end]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        self.offset = end;
        self.newlines + 1
    }
}

/// Parses a document into its root element.
pub fn parse(text: &str) -> Result<Element, XmlError> {
    if text.len() > MAX_PROFILE_BYTES {
        return Err(XmlError::Syntax {
            line: 1,
            message: format!("the profile is larger than {} MiB", MAX_PROFILE_BYTES >> 20),
        });
    }
    let mut reader = Reader::from_str(text);
    let mut stack: Vec<Element> = Vec::new();
    let mut root: Option<Element> = None;
    let mut lines = Lines::default();
    loop {
        let position = reader.buffer_position();
        let line = lines.at(text, position);
        let syntax = |message: String| XmlError::Syntax { line, message };
        let event = reader.read_event().map_err(|e| syntax(e.to_string()))?;
        match event {
            Event::Start(start) | Event::Empty(start) if root.is_some() => {
                let _ = start;
                return Err(syntax("content after the root element".into()));
            }
            Event::Start(start) => {
                if stack.len() >= MAX_DEPTH {
                    return Err(syntax(format!(
                        "elements nested deeper than {MAX_DEPTH} levels"
                    )));
                }
                stack.push(element(&start, line, &syntax)?);
            }
            Event::Empty(start) => {
                let element = element(&start, line, &syntax)?;
                match stack.last_mut() {
                    Some(parent) => parent.children.push(element),
                    None => root = Some(element),
                }
            }
            Event::End(_) => {
                let mut done = stack
                    .pop()
                    .ok_or_else(|| syntax("an end tag without a start tag".into()))?;
                done.text = done.text.trim().to_string();
                match stack.last_mut() {
                    Some(parent) => parent.children.push(done),
                    None => root = Some(done),
                }
            }
            Event::Text(t) => {
                let decoded = t.decode().map_err(|e| syntax(e.to_string()))?;
                let unescaped = quick_xml::escape::unescape(&decoded)
                    .map_err(|e| syntax(format!("{e} (only &lt; &gt; &amp; &apos; &quot; and character references are allowed)")))?;
                match stack.last_mut() {
                    Some(current) => current.text.push_str(&unescaped),
                    None if unescaped.trim().is_empty() => {}
                    None => return Err(syntax("text outside the root element".into())),
                }
            }
            Event::GeneralRef(r) => {
                let name = r.decode().map_err(|e| syntax(e.to_string()))?;
                let resolved = match name.as_ref() {
                    "lt" => "<".to_string(),
                    "gt" => ">".to_string(),
                    "amp" => "&".to_string(),
                    "apos" => "'".to_string(),
                    "quot" => "\"".to_string(),
                    other => match r.resolve_char_ref() {
                        Ok(Some(c)) => c.to_string(),
                        _ => {
                            return Err(syntax(format!(
                                "unknown entity &{other}; (entities are not allowed)"
                            )));
                        }
                    },
                };
                if let Some(current) = stack.last_mut() {
                    current.text.push_str(&resolved);
                }
            }
            Event::CData(data) => {
                if let Some(current) = stack.last_mut() {
                    current.text.push_str(&String::from_utf8_lossy(&data));
                }
            }
            Event::DocType(_) => {
                return Err(syntax(
                    "document type declarations (<!DOCTYPE …>) are not allowed in profiles".into(),
                ));
            }
            Event::Decl(_) | Event::PI(_) | Event::Comment(_) => {}
            Event::Eof => break,
        }
    }
    if !stack.is_empty() {
        return Err(XmlError::Syntax {
            line: line_at(text, text.len() as u64),
            message: format!(
                "<{}> is not closed",
                stack.last().map_or("", |e| e.name.as_str())
            ),
        });
    }
    root.ok_or(XmlError::Syntax {
        line: 1,
        message: "the document has no root element".into(),
    })
}

fn element(
    start: &quick_xml::events::BytesStart<'_>,
    line: usize,
    syntax: &dyn Fn(String) -> XmlError,
) -> Result<Element, XmlError> {
    let name = String::from_utf8_lossy(start.name().as_ref()).into_owned();
    let mut attrs = Vec::new();
    for attr in start.attributes() {
        let attr = attr.map_err(|e| syntax(e.to_string()))?;
        let key = String::from_utf8_lossy(attr.key.as_ref()).into_owned();
        let value = attr
            .normalized_value(quick_xml::XmlVersion::Implicit1_0)
            .map_err(|e| syntax(e.to_string()))?
            .into_owned();
        attrs.push((key, value));
    }
    Ok(Element {
        name,
        attrs,
        text: String::new(),
        children: Vec::new(),
        line,
    })
}

impl Element {
    /// A schema error at this element.
    pub fn error(&self, message: impl Into<String>) -> XmlError {
        XmlError::Schema {
            line: self.line,
            element: self.name.clone(),
            message: message.into(),
        }
    }

    /// The only child called `name`, if present; a second one is an error.
    pub fn child(&self, name: &str) -> Result<Option<&Element>, XmlError> {
        let mut found = self.children.iter().filter(|c| c.name == name);
        let first = found.next();
        if let Some(second) = found.next() {
            return Err(second.error(format!("appears twice in <{}>; give it once", self.name)));
        }
        Ok(first)
    }

    /// Every child called `name`.
    pub fn all(&self, name: &str) -> Vec<&Element> {
        self.children.iter().filter(|c| c.name == name).collect()
    }

    /// The child called `name`, which must be present.
    pub fn required(&self, name: &str) -> Result<&Element, XmlError> {
        self.child(name)?
            .ok_or_else(|| self.error(format!("needs a <{name}> element")))
    }

    /// Errors on the first child whose name is not in `known`.
    pub fn only(&self, known: &[&str]) -> Result<(), XmlError> {
        match self
            .children
            .iter()
            .find(|c| !known.contains(&c.name.as_str()))
        {
            Some(unknown) => Err(unknown.error(format!(
                "is not a DiskSpd element inside <{}>; the elements here are: {}",
                self.name,
                known.join(", ")
            ))),
            None => Ok(()),
        }
    }

    /// The value of attribute `name`.
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The text as an unsigned number.
    pub fn number(&self) -> Result<u64, XmlError> {
        let text = self.text.trim();
        if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
            return Err(self.error(format!("'{text}' is not a whole number")));
        }
        text.parse()
            .map_err(|_| self.error(format!("'{text}' is too large")))
    }

    /// The text as a number in `min..=max`.
    pub fn number_in(&self, min: u64, max: u64) -> Result<u64, XmlError> {
        let n = self.number()?;
        if n < min || n > max {
            return Err(self.error(format!("{n} is out of range {min}..={max}")));
        }
        Ok(n)
    }

    /// The text as `true`/`false` (also `1`/`0`, as xs:boolean allows).
    pub fn boolean(&self) -> Result<bool, XmlError> {
        match self.text.trim() {
            "true" | "1" => Ok(true),
            "false" | "0" => Ok(false),
            other => Err(self.error(format!("'{other}' is not true or false"))),
        }
    }
}

/// Helpers for optional children.
pub trait Optional {
    /// The child's number, if present.
    fn number_of(&self, name: &str) -> Result<Option<u64>, XmlError>;
    /// The child's boolean, false when absent.
    fn flag(&self, name: &str) -> Result<bool, XmlError>;
}

impl Optional for Element {
    fn number_of(&self, name: &str) -> Result<Option<u64>, XmlError> {
        self.child(name)?.map(Element::number).transpose()
    }

    fn flag(&self, name: &str) -> Result<bool, XmlError> {
        Ok(self
            .child(name)?
            .map(Element::boolean)
            .transpose()?
            .unwrap_or(false))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_a_tree_with_lines() {
        let root =
            parse("<?xml version=\"1.0\"?>\n<A>\n  <B x=\"1\">text &amp; more</B>\n  <C/>\n</A>\n")
                .unwrap();
        assert_eq!(root.name, "A");
        assert_eq!(root.line, 2);
        assert_eq!(root.children.len(), 2);
        assert_eq!(root.children[0].text, "text & more");
        assert_eq!(root.children[0].attr("x"), Some("1"));
        assert_eq!(root.children[0].line, 3);
        assert_eq!(root.children[1].line, 4);
    }

    #[test]
    fn refuses_doctypes_and_unknown_entities() {
        let bomb = "<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [<!ENTITY lol \"lol\"><!ENTITY lol2 \"&lol;&lol;\">]>\n<A>&lol2;</A>";
        let err = parse(bomb).unwrap_err();
        assert!(
            err.to_string().contains("line 2") && err.to_string().contains("not allowed"),
            "{err}"
        );
        let err = parse("<A>&lol;</A>").unwrap_err();
        assert!(err.to_string().contains("unknown entity"), "{err}");
        assert_eq!(parse("<A>&#65;&#x42;</A>").unwrap().text, "AB");
    }

    #[test]
    fn malformed_documents() {
        for bad in [
            "",
            "<A>",
            "<A></B>",
            "<A/><B/>",
            "text",
            "<A x=1/>",
            "<A><B></A>",
        ] {
            assert!(parse(bad).is_err(), "{bad:?} should fail");
        }
        let deep = "<A>".repeat(40) + &"</A>".repeat(40);
        assert!(
            parse(&deep)
                .unwrap_err()
                .to_string()
                .contains("nested deeper")
        );
    }

    #[test]
    fn accessors_report_unknown_and_repeated_children() {
        let root = parse("<T><N>5</N><B>true</B><X>1</X></T>").unwrap();
        assert_eq!(root.number_of("N").unwrap(), Some(5));
        assert!(root.flag("B").unwrap());
        let err = root.only(&["N", "B"]).unwrap_err();
        assert!(err.to_string().contains("<X>"), "{err}");
        let root = parse("<T><N>5</N><N>6</N></T>").unwrap();
        assert!(root.child("N").unwrap_err().to_string().contains("twice"));
        let root = parse("<T><N>x</N><B>yes</B></T>").unwrap();
        assert!(root.number_of("N").is_err());
        assert!(root.flag("B").is_err());
    }
}
