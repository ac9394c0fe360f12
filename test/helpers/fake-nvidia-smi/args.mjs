// Parses the part of nvidia-smi's command line the fake emulates. Anything else is a usage error, which the real
// tool reports as "Invalid combination of input arguments" (exit 2).

export const INVALID_COMBINATION = "Invalid combination of input arguments. Please run 'nvidia-smi -h' for help.";

/** nvidia-smi's `-l` without a value loops every 5 seconds. */
const DEFAULT_LOOP_SECONDS = 5;

/** @returns {{ok: true, query: string|null, fields: string[], format: string|null, loopMs: number|null, list: boolean, help: boolean, helpQuery: boolean} | {ok: false}} */
export function parseArgs(argv) {
	const parsed = {
		ok: true,
		query: null,
		fields: [],
		format: null,
		loopMs: null,
		list: false,
		help: false,
		helpQuery: false,
	};
	const invalid = {ok: false};
	for (let i = 0; i < argv.length; i++) {
		const arg = argv[i];
		const valueFor = inline => (inline !== undefined ? inline : argv[++i]);
		let match;
		if ((match = /^--(query-gpu|query-compute-apps)(?:=(.*))?$/.exec(arg))) {
			const fields = valueFor(match[2]);
			if (parsed.query !== null || fields === undefined) return invalid;
			parsed.query = match[1];
			parsed.fields = fields.split(',').map(field => field.trim());
		} else if ((match = /^--format(?:=(.*))?$/.exec(arg))) {
			const format = valueFor(match[1]);
			if (format === undefined) return invalid;
			parsed.format = format;
		} else if ((match = /^(?:-lms|--loop-ms)(?:=(.*))?$/.exec(arg))) {
			const ms = Number(valueFor(match[1]));
			if (!Number.isInteger(ms) || ms <= 0) return invalid;
			parsed.loopMs = ms;
		} else if ((match = /^--loop=(.*)$/.exec(arg))) {
			const seconds = Number(match[1]);
			if (!Number.isInteger(seconds) || seconds <= 0) return invalid;
			parsed.loopMs = seconds * 1000;
		} else if (arg === '-l' || arg === '--loop') {
			const next = argv[i + 1];
			const seconds = next !== undefined && /^\d+$/.test(next) ? Number(argv[++i]) : DEFAULT_LOOP_SECONDS;
			if (seconds <= 0) return invalid;
			parsed.loopMs = seconds * 1000;
		} else if (arg === '-L' || arg === '--list-gpus') {
			parsed.list = true;
		} else if (arg === '--help-query-gpu') {
			// The field list of `--query-gpu` (what the health query is built from).
			parsed.helpQuery = true;
		} else if (arg === '-h' || arg === '--help') {
			parsed.help = true;
		} else {
			return invalid;
		}
	}
	if (parsed.helpQuery && (parsed.query !== null || parsed.list || parsed.loopMs !== null)) return invalid;
	if (parsed.query !== null && (parsed.format === null || parsed.list)) return invalid;
	if (parsed.query === null && parsed.format !== null) return invalid;
	return parsed;
}
