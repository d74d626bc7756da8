//! One row per run, job, direction and figure: long format, for a spreadsheet or a dataframe.

use std::io::{self, Write};

use iolab_results::RunRecord;

use super::Exporter;

pub struct Csv;

/// A text field as a spreadsheet takes it as text: one that begins with `=`, `+`, `-`, `@`,
/// a tab or a carriage return (a formula to Excel, LibreOffice and Google Sheets) gets a
/// leading `'`, as OWASP's CSV-injection guidance says; then quoted when it holds a comma,
/// a quote or a line break (RFC 4180). Figures are written as numbers, never through this.
pub fn quote(s: &str) -> String {
    let s = match s.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        true => format!("'{s}"),
        false => s.to_string(),
    };
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s
    }
}

impl Exporter for Csv {
    fn name(&self) -> &'static str {
        "csv"
    }

    fn export(&self, runs: &[RunRecord], out: &mut dyn Write) -> io::Result<()> {
        writeln!(
            out,
            "run,job,step,group,engine,iodepth,rw,block_size,target,direction,metric,value"
        )?;
        for r in runs {
            for j in &r.jobs {
                for (dir, name, value) in j.metrics.iter() {
                    writeln!(
                        out,
                        "{},{},{},{},{},{},{},{},{},{dir},{name},{value}",
                        r.id,
                        quote(&j.name),
                        j.step,
                        j.group_id,
                        quote(&j.engine),
                        j.iodepth,
                        j.rw,
                        j.block_size,
                        quote(&j.target)
                    )?;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use iolab_results::{JobRecord, Metrics};

    #[test]
    fn a_cell_never_starts_a_formula() {
        assert_eq!(quote("=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"");
        assert_eq!(quote("+1"), "'+1");
        assert_eq!(quote("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(quote("-cmd"), "'-cmd");
        assert_eq!(quote("job"), "job");
    }

    #[test]
    fn rows_per_figure_with_quoted_fields() {
        let run = RunRecord {
            id: 3,
            jobs: vec![JobRecord {
                name: "a,b".into(),
                engine: "psync".into(),
                metrics: Metrics(vec![("read".into(), "iops".into(), 5.0)]),
                ..JobRecord::default()
            }],
            ..RunRecord::default()
        };
        let mut out = Vec::new();
        Csv.export(&[run], &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            text.lines().nth(1),
            Some("3,\"a,b\",,0,psync,0,,0,,read,iops,5")
        );
    }
}
