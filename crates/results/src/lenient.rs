//! Numbers as the stored documents hold them: serde_json writes a NaN or an infinity as
//! `null`, which a plain `f64` field refuses to read back. A figure that was not a number
//! reads back as NaN (shown as "-" or n/a), and the rest of the document still opens.

use serde::{Deserialize, Deserializer};

/// An `f64` field that reads `null` as NaN.
pub fn f64<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
}

/// A list of figures that reads each `null` as NaN.
pub fn f64s<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<f64>, D::Error> {
    Ok(Vec::<Option<f64>>::deserialize(d)?
        .into_iter()
        .map(|v| v.unwrap_or(f64::NAN))
        .collect())
}

#[cfg(test)]
mod tests {
    #[derive(serde::Deserialize)]
    struct Doc {
        #[serde(deserialize_with = "super::f64")]
        x: f64,
        #[serde(deserialize_with = "super::f64s")]
        v: Vec<f64>,
    }

    #[test]
    fn a_stored_nan_reads_back() {
        let nan = serde_json::to_string(&serde_json::json!({"x": f64::NAN, "v": [1.0, f64::NAN]}))
            .unwrap();
        let d: Doc = serde_json::from_str(&nan).unwrap();
        assert!(d.x.is_nan() && d.v[0] == 1.0 && d.v[1].is_nan());
    }
}
