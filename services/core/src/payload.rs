//! What a message carries. On the in-process bus a stage hands the next one
//! its value itself (a `Page`, an `Article`): no JSON is written or parsed
//! between stages. JSON appears only where a message leaves the process (a
//! Kafka topic, a sink file, a dead-letter excerpt) or comes in from outside
//! (the broker, a user's bytes), which is also where the schemas apply.

use serde::de::DeserializeOwned;
use serde::Serialize;
use std::any::Any;
use std::borrow::Cow;
use std::sync::Arc;

/// A message value that can leave the process as JSON.
pub trait Record: Any + Send + Sync {
    fn to_json(&self) -> Vec<u8>;
    fn as_any(&self) -> &dyn Any;
    fn into_any(self: Arc<Self>) -> Arc<dyn Any + Send + Sync>;
}

impl<T: Serialize + Any + Send + Sync> Record for T {
    fn to_json(&self) -> Vec<u8> {
        // Serialising our own message types cannot fail (no maps with
        // non-string keys, no custom serialisers).
        serde_json::to_vec(self).expect("message serialises")
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn into_any(self: Arc<Self>) -> Arc<dyn Any + Send + Sync> {
        self
    }
}

#[derive(Clone)]
pub enum Payload {
    /// Bytes as a broker or a user gave them: JSON expected, not assumed.
    Bytes(Arc<Vec<u8>>),
    /// A value on the in-process bus; shared, not copied, when one topic
    /// has several readers.
    Typed(Arc<dyn Record>),
}

impl Payload {
    pub fn typed<T: Serialize + Send + Sync + 'static>(value: T) -> Self {
        Payload::Typed(Arc::new(value))
    }

    /// The JSON form (serialised now for a typed value).
    pub fn bytes(&self) -> Cow<'_, [u8]> {
        match self {
            Payload::Bytes(b) => Cow::Borrowed(b.as_slice()),
            Payload::Typed(r) => Cow::Owned(r.to_json()),
        }
    }

    /// The same payload as bytes, for the wire.
    pub fn into_wire(self) -> Self {
        match self {
            Payload::Typed(r) => Payload::Bytes(Arc::new(r.to_json())),
            bytes => bytes,
        }
    }

    /// Its size on the wire. Exact for bytes; a typed value is serialised
    /// to count, so call [`Payload::into_wire`] first where that matters.
    pub fn wire_len(&self) -> usize {
        match self {
            Payload::Bytes(b) => b.len(),
            Payload::Typed(r) => r.to_json().len(),
        }
    }

    /// The value as `T`: a typed value of that type is cloned; anything
    /// else goes through JSON, so a stage reads the same whichever bus
    /// brought it (an `Article` out of a `Summarized`, say).
    pub fn decode<T: DeserializeOwned + Clone + 'static>(&self) -> anyhow::Result<T> {
        if let Payload::Typed(r) = self {
            if let Some(v) = r.as_any().downcast_ref::<T>() {
                return Ok(v.clone());
            }
        }
        serde_json::from_slice(&self.bytes()).map_err(|e| anyhow::anyhow!("malformed message: {e}"))
    }

    /// Like [`decode`](Self::decode), but a typed value of type `T` is
    /// shared, not cloned: a page's HTML or a cleaned page's blocks are
    /// not copied on their way to the stage that reads them.
    pub fn decode_shared<T: DeserializeOwned + Send + Sync + 'static>(
        &self,
    ) -> anyhow::Result<Arc<T>> {
        if let Payload::Typed(r) = self {
            if let Ok(v) = r.clone().into_any().downcast::<T>() {
                return Ok(v);
            }
        }
        serde_json::from_slice(&self.bytes())
            .map(Arc::new)
            .map_err(|e| anyhow::anyhow!("malformed message: {e}"))
    }

    /// The typed value itself, without a copy, when it is a `T`.
    pub fn typed_ref<T: 'static>(&self) -> Option<&T> {
        match self {
            Payload::Typed(r) => r.as_any().downcast_ref::<T>(),
            Payload::Bytes(_) => None,
        }
    }

    /// Whether it holds a typed value of type `T`.
    pub fn is<T: 'static>(&self) -> bool {
        matches!(self, Payload::Typed(r) if r.as_any().is::<T>())
    }
}

impl From<Vec<u8>> for Payload {
    fn from(b: Vec<u8>) -> Self {
        Payload::Bytes(Arc::new(b))
    }
}

impl From<&[u8]> for Payload {
    fn from(b: &[u8]) -> Self {
        Payload::Bytes(Arc::new(b.to_vec()))
    }
}

impl std::fmt::Debug for Payload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Payload::Bytes(b) => write!(f, "Bytes({} bytes)", b.len()),
            Payload::Typed(_) => f.write_str("Typed"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::messages::{Article, Summarized};

    fn article() -> Article {
        serde_json::from_value(serde_json::json!({
            "id": "a1", "url": "http://x.test/a", "title": "T", "text": "body",
            "extractor": "auto", "fetched_at": "2026-01-01T00:00:00Z"
        }))
        .unwrap()
    }

    #[test]
    fn typed_values_decode_without_json_and_across_types_through_it() {
        let a = article();
        let p = Payload::typed(a.clone());
        assert!(p.is::<Article>());
        assert_eq!(p.decode::<Article>().unwrap(), a);
        let s = Payload::typed(Summarized {
            article: a.clone(),
            summaries: vec![],
            engine: "x".into(),
        });
        assert_eq!(
            s.decode::<Article>().unwrap(),
            a,
            "an article out of a summarized one"
        );
        assert!(p.decode::<Summarized>().is_err(), "no summaries to read");
        let wire = p.clone().into_wire();
        assert!(matches!(wire, Payload::Bytes(_)));
        assert_eq!(wire.decode::<Article>().unwrap(), a);
        assert_eq!(wire.wire_len(), p.bytes().len());
        let bad = Payload::from(b"{not json".to_vec());
        assert!(bad
            .decode::<Article>()
            .unwrap_err()
            .to_string()
            .contains("malformed"));
    }

    #[test]
    fn a_shared_value_is_the_same_allocation_and_other_forms_go_through_json() {
        let a = article();
        let p = Payload::typed(a.clone());
        let (x, y) = (
            p.decode_shared::<Article>().unwrap(),
            p.decode_shared::<Article>().unwrap(),
        );
        assert!(Arc::ptr_eq(&x, &y), "shared, not cloned");
        assert_eq!(*x, a);
        let s = Payload::typed(Summarized {
            article: a.clone(),
            summaries: vec![],
            engine: "x".into(),
        });
        assert_eq!(*s.decode_shared::<Article>().unwrap(), a, "through JSON");
        assert_eq!(
            *p.clone().into_wire().decode_shared::<Article>().unwrap(),
            a
        );
        assert!(Payload::from(b"{not json".to_vec())
            .decode_shared::<Article>()
            .is_err());
    }
}
