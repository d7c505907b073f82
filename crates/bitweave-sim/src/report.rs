//! The model report: the JSON contract of DESIGN.md ("Model JSON") and its table form.

use serde::Serialize;

/// One compared figure.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// What is measured, e.g. "cipher transfer, 32-bit, DBUS bandwidth".
    pub metric: String,
    /// Unit, e.g. "cycles", "GB/s".
    pub unit: String,
    /// The paper's figure, where it gives one.
    pub paper: Option<f64>,
    /// The model's figure.
    pub model: f64,
    /// (model - paper) / paper, where the paper gives a non-zero figure.
    pub deviation: Option<f64>,
}

impl Row {
    /// A row; the deviation is computed from the two figures.
    pub fn new(
        metric: impl Into<String>,
        unit: impl Into<String>,
        paper: Option<f64>,
        model: f64,
    ) -> Row {
        let deviation = paper.filter(|p| *p != 0.0).map(|p| (model - p) / p);
        Row {
            metric: metric.into(),
            unit: unit.into(),
            paper,
            model,
            deviation,
        }
    }
}

/// A model's result: its name, whether its data matched the library, and the figures.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub model: String,
    /// True when every datum the model computed matched the bitweave library.
    pub verified: bool,
    pub rows: Vec<Row>,
    /// Free-text notes printed under the table (not part of the JSON contract's fields).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

impl Report {
    /// The JSON form.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("report serialises")
    }

    /// The table form.
    pub fn to_table(&self) -> String {
        let mut s = format!(
            "model {}: data {}\n",
            self.model,
            if self.verified {
                "verified against the library"
            } else {
                "NOT verified"
            }
        );
        let w = self
            .rows
            .iter()
            .map(|r| r.metric.len())
            .max()
            .unwrap_or(6)
            .max(6);
        s += &format!(
            "{:<w$}  {:<10} {:>12} {:>12} {:>10}\n",
            "metric", "unit", "paper", "model", "deviation"
        );
        for r in &self.rows {
            let paper = r.paper.map_or("-".into(), |p| format!("{p:.4}"));
            let dev = r
                .deviation
                .map_or("-".into(), |d| format!("{:+.1}%", d * 100.0));
            s += &format!(
                "{:<w$}  {:<10} {:>12} {:>12.4} {:>10}\n",
                r.metric, r.unit, paper, r.model, dev
            );
        }
        for n in &self.notes {
            s += &format!("note: {n}\n");
        }
        s
    }
}
