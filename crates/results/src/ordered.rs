//! Named values that keep the order they were made in, serialized as JSON objects (a job's
//! options as written, its figures by direction and name): readable in an export, and the
//! same order when read back.

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// `Vec<(String, T)>` as a JSON object, order kept (for `#[serde(with = "ordered")]`).
pub fn serialize<S: Serializer, T: Serialize>(v: &[(String, T)], s: S) -> Result<S::Ok, S::Error> {
    let mut m = s.serialize_map(Some(v.len()))?;
    for (k, x) in v {
        m.serialize_entry(k, x)?;
    }
    m.end()
}

pub fn deserialize<'de, D, T>(d: D) -> Result<Vec<(String, T)>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    struct Pairs<T>(std::marker::PhantomData<T>);
    impl<'de, T: Deserialize<'de>> Visitor<'de> for Pairs<T> {
        type Value = Vec<(String, T)>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
            let mut v = Vec::new();
            while let Some((k, x)) = a.next_entry::<String, T>()? {
                v.push((k, x));
            }
            Ok(v)
        }
    }
    d.deserialize_map(Pairs(std::marker::PhantomData))
}

/// A job's figures: (direction, name, value), as `{"read": {"iops": 1.0, ...}, ...}`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Metrics(pub Vec<(String, String, f64)>);

impl Metrics {
    pub fn push(&mut self, dir: &str, name: &str, value: f64) {
        self.0.push((dir.to_string(), name.to_string(), value));
    }

    pub fn get(&self, dir: &str, name: &str) -> Option<f64> {
        let mut it = self.0.iter();
        it.find(|(d, n, _)| d == dir && n == name).map(|m| m.2)
    }

    /// The directions with figures, in the order they first appear.
    pub fn directions(&self) -> Vec<&str> {
        let mut v: Vec<&str> = Vec::new();
        for (d, _, _) in &self.0 {
            if !v.contains(&d.as_str()) {
                v.push(d);
            }
        }
        v
    }

    pub fn iter(&self) -> impl Iterator<Item = &(String, String, f64)> {
        self.0.iter()
    }
}

impl Serialize for Metrics {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let dirs: Vec<(String, Vec<(String, f64)>)> = self
            .directions()
            .into_iter()
            .map(|d| {
                let of_d = self.0.iter().filter(|m| m.0 == d);
                (d.to_string(), of_d.map(|m| (m.1.clone(), m.2)).collect())
            })
            .collect();
        let mut m = s.serialize_map(Some(dirs.len()))?;
        for (d, values) in &dirs {
            m.serialize_entry(d, &Object(values))?;
        }
        m.end()
    }
}

/// Borrowed pairs serialized as an object.
struct Object<'a>(&'a [(String, f64)]);

impl Serialize for Object<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serialize(self.0, s)
    }
}

/// Owned pairs deserialized from an object.
struct Pairs(Vec<(String, f64)>);

impl<'de> Deserialize<'de> for Pairs {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        deserialize(d).map(Pairs)
    }
}

impl<'de> Deserialize<'de> for Metrics {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let dirs: Vec<(String, Pairs)> = deserialize(d)?;
        let flat = dirs
            .into_iter()
            .flat_map(|(dir, p)| p.0.into_iter().map(move |(n, v)| (dir.clone(), n, v)))
            .collect();
        Ok(Metrics(flat))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metrics_round_trip_through_json_in_order() {
        let mut m = Metrics::default();
        m.push("write", "iops", 2.0);
        m.push("read", "iops", 1.0);
        m.push("write", "bytes", 8192.0);
        let text = serde_json::to_string(&m).unwrap();
        assert_eq!(
            text,
            r#"{"write":{"iops":2.0,"bytes":8192.0},"read":{"iops":1.0}}"#
        );
        let back: Metrics = serde_json::from_str(&text).unwrap();
        assert_eq!(back.directions(), vec!["write", "read"]);
        assert_eq!(back.get("write", "bytes"), Some(8192.0));
    }
}
