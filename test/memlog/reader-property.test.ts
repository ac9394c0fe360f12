import {mkdtemp, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import {afterAll, beforeAll, expect, test} from 'vitest';
import {UsageError} from '../../src/core/errors.js';
import {readAllRecords, readSeries, type SkippedLine} from '../../src/memlog/reader.js';
import {outOfRange} from '../../src/memlog/plausible.js';
import {fillFromRecord, RecordFields} from '../../src/memlog/record-fields.js';
import {logRecordReadSchema} from '../../src/memlog/record.js';

let dir: string;
beforeAll(async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-reader-prop-'));
});
afterAll(async () => {
	await rm(dir, {recursive: true, force: true});
});

const num = fc.double({noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6});
/** A value the analysis reads: mostly in range (plausible.ts), any number now and then. */
const used = fc.oneof({arbitrary: fc.double({noNaN: true, min: 0, max: 100}), weight: 19}, {arbitrary: num, weight: 1});
// Strings in generated records hold no JSON structure (quotes, escapes, brackets).
const str = fc.string({maxLength: 8, unit: fc.constantFrom(...'abc XYZ-_.019')});
const gpu = fc.record({
	index: fc.nat(7),
	uuid: fc.option(str),
	name: fc.option(str),
	memory_used_gb: fc.option(num),
	memory_total_gb: fc.option(num),
	memory_percent: fc.option(used),
	peak_memory_percent: fc.option(used),
	utilization_percent: fc.option(num),
});
const body = fc.record({
	time: fc.integer({min: 0, max: 4_000_000_000_000}),
	memory: fc.option(fc.record({total_gb: num, used_gb: used, percent: used, available_gb: num}), {nil: null}),
	swap: fc.option(fc.record({total_gb: used, used_gb: num, percent: used}), {nil: null}),
	gpu: fc.option(fc.record({memory_allocated_gb: num, memory_total_gb: num, memory_percent: used}), {nil: null}),
	gpus: fc.array(gpu, {maxLength: 2}),
	extra: fc.option(str, {nil: undefined}),
});

// Garbage never holds JSON structure or blanks: those are what the reader resynchronises on.
const garbage = fc.string({minLength: 1, maxLength: 6, unit: fc.constantFrom(...'xyz#@!%~09:é\u0000\u00ff-')});
const corruption = fc.oneof(
	fc.record({kind: fc.constant('truncate' as const), at: fc.nat()}),
	fc.record({kind: fc.constant('garbage' as const), at: fc.nat(), text: garbage}),
	fc.record({kind: fc.constant('delete' as const), at: fc.nat()}),
	fc.record({kind: fc.constant('blank' as const), count: fc.integer({min: 1, max: 3})}),
	fc.record({kind: fc.constant('duplicate' as const)}),
);
type Corruption = typeof corruption extends fc.Arbitrary<infer T> ? T : never;

function corrupt(line: string, c: Corruption): string[] {
	switch (c.kind) {
		case 'truncate':
			return [line.slice(0, c.at % line.length)];
		case 'garbage': {
			const at = c.at % (line.length + 1);
			return [line.slice(0, at) + c.text + line.slice(at)];
		}
		case 'delete': {
			const at = c.at % line.length;
			return [line.slice(0, at) + line.slice(at + 1)];
		}
		case 'blank':
			return [line, ...Array.from({length: c.count}, () => '')];
		case 'duplicate':
			return [line, line];
	}
}

function validRecordLine(line: string): boolean {
	try {
		const v: unknown = JSON.parse(line);
		if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
		const parsed = logRecordReadSchema.safeParse(v);
		if (!parsed.success) return false;
		// And its values in range: a record that cannot be true is skipped (plausible.ts).
		const fields = new RecordFields();
		fillFromRecord(fields, parsed.data, Date.parse(parsed.data.timestamp));
		return outOfRange(fields) === null;
	} catch {
		return false;
	}
}

let run = 0;
test('corrupted JSON Lines: never throws but UsageError, every intact line is read, every bad line skipped once, by both read paths', async () => {
	await fc.assert(
		fc.asyncProperty(
			fc.array(fc.tuple(body, fc.option(corruption, {nil: undefined, freq: 3})), {minLength: 1, maxLength: 50}),
			fc.boolean(),
			async (rows, finalNewline) => {
				const intact: string[] = [];
				const lines: string[] = [];
				rows.forEach(([b, c], seq) => {
					const {time, extra, ...rest} = b;
					const rec = {
						timestamp: new Date(time).toISOString(),
						host: `seq-${seq}`,
						...rest,
						...(extra === undefined ? {} : {extra}),
					};
					const line = JSON.stringify(rec);
					// Intact: not corrupted, and no value out of range (those are skipped as impossible).
					const kept = c === undefined || c.kind === 'blank' || c.kind === 'duplicate';
					if (kept && validRecordLine(line)) intact.push(`seq-${seq}`);
					lines.push(...(c === undefined ? [line] : corrupt(line, c)));
				});
				const text = lines.join('\n') + (finalNewline ? '\n' : '');
				const expectedSkips = lines.filter(l => l.trim() !== '' && !validRecordLine(l)).length;
				const file = path.join(dir, `p${run++}.jsonl`);
				await writeFile(file, text);
				const skipped: SkippedLine[] = [];
				const hosts: string[] = [];
				try {
					for (const r of await readAllRecords([file], skipped)) hosts.push(r.record.host ?? '');
				} catch (error) {
					expect(error).toBeInstanceOf(UsageError);
					expect(hosts).toEqual([]);
				}
				// The path --analyze takes (the byte scanner first) reads the same records and skips the same lines.
				const seriesSkipped: SkippedLine[] = [];
				const series = await readSeries([file], seriesSkipped).catch((error: unknown) => {
					expect(error).toBeInstanceOf(UsageError);
					return null;
				});
				expect(series?.records ?? 0).toBe(hosts.length);
				expect([...(series?.hosts ?? [])].sort()).toEqual([...new Set(hosts.filter(h => h !== ''))].sort());
				expect(seriesSkipped).toEqual(skipped);
				const got = new Set(hosts);
				for (const h of intact) expect(got.has(h)).toBe(true);
				expect(skipped.length).toBe(expectedSkips);
				for (const s of skipped) {
					expect(s.line).toBeGreaterThanOrEqual(1);
					expect(s.line).toBeLessThanOrEqual(lines.length);
					expect(s.reason).not.toBe('');
				}
				await rm(file);
			},
		),
		// No shrinking: on a failure, the counterexample as found (shrinking through file I/O ran past the test timeout in CI).
		{numRuns: Number(process.env.PROP_RUNS ?? 100), endOnFailure: true},
	);
});
