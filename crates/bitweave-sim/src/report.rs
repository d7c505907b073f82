//! The model report: the JSON contract of DESIGN.md ("Model JSON") and its table form.

use serde::Serialize;

/// How a row's model figure stands to the paper.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Not a prediction of its own: a parameter the paper states or the architecture
    /// forces (cited in the model's code), a figure the paper itself derives from another
    /// row (MX-1's 2048-PE rows), a restatement of another row (a paper figure recovered by
    /// the paper's own equations, a quoted figure of another platform, a ratio over a
    /// fitted row), or a bound. Not counted in the headline.
    Derived,
    /// A paper row on which a declared open parameter was fitted: its deviation is the
    /// fit's residual, not a prediction.
    Fitted,
    /// Computed by the model from the derived and fitted parameters: the rows the model is
    /// judged on.
    Predicted,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Derived => "derived",
            Kind::Fitted => "fitted",
            Kind::Predicted => "predicted",
        }
    }
}

/// Deviation within which a predicted row counts as agreeing with the paper.
pub const AGREEMENT: f64 = 0.15;

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
    pub kind: Kind,
}

impl Row {
    /// A predicted row; the deviation is computed from the two figures.
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
            kind: Kind::Predicted,
        }
    }

    /// This row as the one a parameter was fitted on.
    pub fn fitted(self) -> Row {
        Row {
            kind: Kind::Fitted,
            ..self
        }
    }

    /// This row as a stated or forced parameter.
    pub fn derived(self) -> Row {
        Row {
            kind: Kind::Derived,
            ..self
        }
    }
}

/// The headline: how many predicted rows with a paper figure are within [`AGREEMENT`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Predicted rows the paper gives a figure for.
    pub predicted: usize,
    /// Of those, the rows within ±15 %.
    pub within_15_percent: usize,
    /// Fitted rows (the fit's own rows, not counted above).
    pub fitted: usize,
}

impl Summary {
    pub fn of(rows: &[Row]) -> Summary {
        let compared = || {
            rows.iter()
                .filter(|r| r.kind == Kind::Predicted)
                .filter_map(|r| r.deviation)
        };
        Summary {
            predicted: compared().count(),
            within_15_percent: compared().filter(|d| d.abs() <= AGREEMENT).count(),
            fitted: rows.iter().filter(|r| r.kind == Kind::Fitted).count(),
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
    /// The predicted rows' agreement with the paper (computed from `rows`).
    pub summary: Summary,
    /// Free-text notes printed under the table (not part of the JSON contract's fields).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

impl Report {
    pub fn new(model: &str, verified: bool, rows: Vec<Row>, notes: Vec<String>) -> Report {
        Report {
            model: model.to_string(),
            verified,
            summary: Summary::of(&rows),
            rows,
            notes,
        }
    }

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
            "{:<w$}  {:<10} {:>12} {:>12} {:>10}  {}\n",
            "metric", "unit", "paper", "model", "deviation", "kind"
        );
        for r in &self.rows {
            let paper = r.paper.map_or("-".into(), |p| format!("{p:.4}"));
            let dev = r
                .deviation
                .map_or("-".into(), |d| format!("{:+.1}%", d * 100.0));
            s += &format!(
                "{:<w$}  {:<10} {:>12} {:>12.4} {:>10}  {}\n",
                r.metric,
                r.unit,
                paper,
                r.model,
                dev,
                r.kind.name()
            );
        }
        let h = self.summary;
        s += &format!(
            "predicted rows within 15 % of the paper: {} of {} ({} row{} fitted, not counted)\n",
            h.within_15_percent,
            h.predicted,
            h.fitted,
            if h.fitted == 1 { "" } else { "s" }
        );
        for n in &self.notes {
            s += &format!("note: {n}\n");
        }
        s
    }
}
