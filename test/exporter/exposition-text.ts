// A small reader of the Prometheus text format (0.0.4), as the tests check what the exporter wrote: each sample's
// name, labels (escapes \\ \" \n undone) and value, and each family's TYPE. It refuses a line it cannot read, so a
// malformed response fails the test rather than passing with fewer series.

export interface ParsedSample {
	readonly name: string;
	readonly labels: Readonly<Record<string, string>>;
	readonly value: number;
}

export interface Parsed {
	readonly samples: readonly ParsedSample[];
	readonly types: ReadonlyMap<string, string>;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;

export function parseExposition(text: string): Parsed {
	const samples: ParsedSample[] = [];
	const types = new Map<string, string>();
	for (const line of text.split('\n')) {
		if (line === '' || line.startsWith('# HELP ')) continue;
		if (line.startsWith('# TYPE ')) {
			const [name, type] = line.slice(7).split(' ');
			types.set(name!, type!);
			continue;
		}
		samples.push(sampleLine(line));
	}
	return {samples, types};
}

function sampleLine(line: string): ParsedSample {
	const name = NAME.exec(line)?.[0];
	if (!name) throw new Error(`not a sample line: ${line}`);
	let at = name.length;
	const labels: Record<string, string> = {};
	if (line[at] === '{') {
		at += 1;
		while (line[at] !== '}') {
			const key = /^([a-zA-Z_][a-zA-Z0-9_]*)="/.exec(line.slice(at));
			if (!key) throw new Error(`bad label at ${at}: ${line}`);
			at += key[0].length;
			let value = '';
			while (line[at] !== '"') {
				if (at >= line.length) throw new Error(`unterminated label value: ${line}`);
				if (line[at] === '\\') {
					const next = line[at + 1];
					value += next === 'n' ? '\n' : next;
					at += 2;
				} else value += line[at++];
			}
			labels[key[1]!] = value;
			at += 1;
			if (line[at] === ',') at += 1;
		}
		at += 1;
	}
	const rest = line.slice(at).trim().split(' ');
	const value = Number(rest[0]);
	if (rest[0] === undefined || rest[0] === '' || Number.isNaN(value)) throw new Error(`bad value: ${line}`);
	return {name, labels, value};
}

/** The samples of one family, optionally only those whose labels include `where`. */
export function series(parsed: Parsed, name: string, where: Readonly<Record<string, string>> = {}): ParsedSample[] {
	return parsed.samples.filter(
		sample => sample.name === name && Object.entries(where).every(([key, value]) => sample.labels[key] === value),
	);
}

/** The one value of a family with these labels; throws when there is none or more than one. */
export function valueAt(parsed: Parsed, name: string, where: Readonly<Record<string, string>> = {}): number {
	const found = series(parsed, name, where);
	if (found.length !== 1) throw new Error(`${found.length} series of ${name} ${JSON.stringify(where)}`);
	return found[0]!.value;
}
