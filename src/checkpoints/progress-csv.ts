// The step of a Lightning metrics.csv: the `step` column of its last complete row. Pure, over the head (the header
// line) and the tail (the last rows) of the file as read.
// What writes it (Lightning-AI/pytorch-lightning at 7f0c343, as used by lightning 2.6.6, which wrote the fixture
// test/fixtures/frameworks/lightning-topk2):
//   - src/lightning/pytorch/loggers/csv_logs.py CSVLogger: the file is save_dir/name/version_N/metrics.csv
//     (name defaults to lightning_logs; log_dir); src/lightning/fabric/loggers/csv_logs.py _ExperimentWriter.
//   - _ExperimentWriter.log_metrics stores `metrics["step"] = step` in every row; save() writes them with
//     csv.DictWriter (rows end in \r\n) in mode "a", with the header first only when the file is new.
//   - save() REWRITES the whole file (open "w": truncated in place, then header and every row again) when a row
//     brings keys not seen before: a reader mid-rewrite sees a short file whose last complete row is an old one.
//   - When it is written: the Trainer's LoggerConnector.log_metrics calls logger.save() after each log_metrics, i.e.
//     every Trainer(log_every_n_steps) steps (default 50, trainer.py); CSVLogger.log_metrics itself saves every
//     flush_logs_every_n_steps (default 100), which is what Fabric's direct use gets.
//   - The step written is the fit loop's _batches_that_stepped at the time of logging (logger_connector.py).

/** Splits one CSV record as Python's csv module writes it (QUOTE_MINIMAL: "" escapes a quote inside quotes). */
export function csvFields(line: string): string[] {
	const fields: string[] = [];
	let field = '';
	let quoted = false;
	for (let at = 0; at < line.length; at++) {
		const char = line[at];
		if (quoted) {
			if (char === '"' && line[at + 1] === '"') {
				field += '"';
				at++;
			} else if (char === '"') quoted = false;
			else field += char;
		} else if (char === '"') quoted = true;
		else if (char === ',') {
			fields.push(field);
			field = '';
		} else field += char;
	}
	fields.push(field);
	return fields;
}

/**
 * The complete lines of `text`, last first: each ended by a newline (the piece after the last newline is a row being
 * written). When the text does not start at the file's start (`textIsWhole` false), its first piece may be the end
 * of a cut row and is never given. The CR of CRLF is dropped. Scans back from the end: the last row costs its length.
 */
function* linesFromEnd(text: string, textIsWhole: boolean): Generator<string> {
	let end = text.lastIndexOf('\n');
	while (end >= 0) {
		const start = text.lastIndexOf('\n', end - 1);
		if (start < 0 && !textIsWhole) return;
		const line = text.slice(start + 1, end);
		yield line.endsWith('\r') ? line.slice(0, -1) : line;
		end = start;
	}
}

const INTEGER = /^\d+(?:\.0*)?$/;

/**
 * The step of the last complete row, or null: no header with a `step` column, no complete row yet (a file just
 * created, or truncated mid-rewrite), or a step that is not a whole number. `tail` is the end of the file; when it
 * does not start at the file's start (`tailIsWhole` false), its first piece may be a cut row and is dropped.
 */
export function metricsCsvStep(head: string, tail: string, tailIsWhole: boolean): number | null {
	const ends = head.indexOf('\n');
	if (ends < 0) return null;
	const header = head.slice(0, head[ends - 1] === '\r' ? ends - 1 : ends);
	const names = csvFields(header);
	const column = names.indexOf('step');
	if (column < 0) return null;
	for (const row of linesFromEnd(tail, tailIsWhole)) {
		if (row === '' || row === header) continue;
		const fields = csvFields(row);
		// A row of another header's width is from before a rewrite that added keys: its columns are not these.
		if (fields.length !== names.length) return null;
		const value = fields[column] ?? '';
		return INTEGER.test(value) ? Number.parseInt(value, 10) : null;
	}
	return null;
}
