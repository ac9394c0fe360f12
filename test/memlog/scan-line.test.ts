import fc from 'fast-check';
import {describe, expect, test} from 'vitest';
import {checkRecord} from '../../src/memlog/check-record.js';
import {fillFromRecord, RecordFields} from '../../src/memlog/record-fields.js';
import type {LogRecord} from '../../src/memlog/record.js';
import {LineScanner} from '../../src/memlog/scan-line.js';

// The byte scanner must accept only what JSON.parse + the schema accept, and read exactly the
// values they give. These tests hold it to that on our writer's records, on hand-picked edge cases
// and on random JSON texts built key by key (any order, blanks, extra and duplicate keys, escapes,
// number literals of every shape).

function plain(f: RecordFields) {
	const devices = Array.from({length: f.devices}, (_, i) => ({
		index: f.devIndex[i],
		percent: f.devPercent[i],
		peak: f.devPeak[i],
		uuid: f.devUuid[i],
		name: f.devName[i],
		threshold: f.devThreshold[i],
	}));
	const {devIndex: _a, devPercent: _b, devPeak: _c, devUuid: _d, devName: _e, devThreshold: _f, ...rest} = f;
	return {...rest, devices};
}

/** What the slow path makes of the line: the fields, or null when it is no record. */
function slow(line: string) {
	let value: unknown;
	try {
		value = JSON.parse(line);
	} catch {
		return null;
	}
	const r = checkRecord(value);
	if (!('record' in r)) return null;
	const f = new RecordFields();
	fillFromRecord(f, r.record, r.time);
	return plain(f);
}

const scanner = new LineScanner();
/** The scanner's fields, or null when it declines the line. */
function fast(line: string) {
	const buf = Buffer.from(line);
	const f = new RecordFields();
	return scanner.scan(buf, 0, buf.length, f) ? plain(f) : null;
}

function ours(seq: number, over: Partial<LogRecord> = {}): LogRecord {
	return {
		timestamp: new Date(1_700_000_000_000 + seq * 30_123).toISOString(),
		host: 'gpu-node-7',
		interval_s: 30,
		samples: 30,
		memory: {
			total_gb: 503.7,
			used_gb: 201.48000000000002,
			percent: 40.01,
			available_gb: 302.22,
			peak_percent: 48.5,
			peak_used_gb: 241.776,
		},
		swap: {total_gb: 8, used_gb: 0.5, percent: 6.25, peak_percent: 7},
		gpu: {memory_allocated_gb: 120, memory_total_gb: 159.2, memory_percent: 75.4, peak_memory_percent: 76.1},
		gpus: [0, 1].map(index => ({
			index,
			uuid: `GPU-${index}`,
			name: 'NVIDIA H100 80GB HBM3',
			memory_used_gb: 61.212399999999995,
			memory_total_gb: 79.6,
			memory_percent: 76.9 - index,
			peak_memory_percent: 77.9,
			utilization_percent: index === 0 ? 97 : null,
		})),
		gpu_status: 'ok',
		alerts: [],
		...over,
	};
}

describe('what the writer writes', () => {
	test.each([
		['a full record', ours(1)],
		[
			'no swap, no GPU',
			ours(2, {swap: null, gpu: null, gpus: [], gpu_status: 'absent', gpu_message: 'nvidia-smi not found'}),
		],
		[
			'a GPU whose memory is unknown',
			ours(3, {
				gpus: [
					{
						index: 0,
						uuid: null,
						name: null,
						memory_used_gb: null,
						memory_total_gb: null,
						memory_percent: null,
						peak_memory_percent: null,
						utilization_percent: null,
					},
				],
			}),
		],
		['a non-ASCII host', ours(4, {host: 'nœud-7'})],
		[
			"a GPU with its own threshold, one without (the writer's per-GPU line)",
			ours(11, {gpus: ours(11).gpus.map((g, i) => (i === 0 ? {...g, threshold: 60} : g))}),
		],
		['a SLURM job', ours(7, {slurm: {job_id: '42', restart_count: 2}})],
		['outside SLURM', ours(8, {slurm: null})],
		[
			'a cgroup limit',
			ours(9, {
				memory: {
					...ours(9).memory!,
					cgroup: {
						scope: 'job',
						path: '/slurm/uid_0/job_42',
						version: 2,
						limit_gb: 16,
						used_gb: 15.1,
						percent: 94.38,
						peak_percent: 96.1,
					},
				},
			}),
		],
		[
			"traintop's own cgroup, v1",
			ours(10, {
				memory: {
					...ours(10).memory!,
					cgroup: {
						scope: 'traintop',
						path: '/docker/abc',
						version: 1,
						limit_gb: 8,
						used_gb: 2,
						percent: 25,
						peak_percent: 25,
					},
				},
			}),
		],
	])('%s: scanned, with the very values JSON.parse gives', (_name, record) => {
		const line = JSON.stringify(record);
		const got = fast(line);
		expect(got).not.toBeNull();
		expect(got).toEqual(slow(line));
	});

	test('a record with alerts is left to JSON.parse (and read by it)', () => {
		const line = JSON.stringify(
			ours(5, {alerts: [{time: 'x', metric: 'ram', value: 91, threshold: 90, from: 'ok', to: 'warn'}]}),
		);
		expect(fast(line)).toBeNull();
		expect(slow(line)).not.toBeNull();
	});
});

/** Blanks around every colon and comma between tokens (none inside strings). */
const blanks = (line: string) =>
	line.replaceAll('":', '" :\t').replaceAll(',"', ' ,\r "').replaceAll('{', '{ ').replaceAll('}', ' }');

describe('edge cases: declined or read exactly like JSON.parse', () => {
	const base = JSON.stringify(ours(6));
	test.each([
		['overflow to Infinity', base.replace('"percent":40.01', '"percent":1.5e323')],
		['overflow in a number only checked', base.replace('"available_gb":302.22', '"available_gb":-1e999')],
		[
			'just past the largest double, in a number only checked',
			base.replace('"available_gb":302.22', '"available_gb":1.8e308'),
		],
		[
			'the largest double, in a number only checked',
			base.replace('"available_gb":302.22', '"available_gb":1.7976931348623157e308'),
		],
		['underflow to 0', base.replace('"percent":40.01', '"percent":1e-999')],
		['a 17-digit mantissa', base.replace('"percent":40.01', '"percent":40.010000000000005')],
		['many digits', base.replace('"percent":40.01', '"percent":40.01000000000000000000000000000001')],
		['an exponent', base.replace('"percent":40.01', '"percent":4001E-2')],
		['minus zero', base.replace('"percent":40.01', '"percent":-0')],
		['a leading zero', base.replace('"percent":40.01', '"percent":040')],
		['a bare dot', base.replace('"percent":40.01', '"percent":40.')],
		['a string where a number goes', base.replace('"percent":40.01', '"percent":"40"')],
		['null where a number goes', base.replace('"percent":40.01', '"percent":null')],
		['an escaped key', base.replace('"percent":40.01', '"perc\\u0065nt":40.01')],
		['a duplicate key: the last wins', base.replace('"percent":40.01', '"percent":40.01,"percent":99')],
		['a duplicate memory: the last wins', base.replace('"swap":', '"memory":null,"swap":')],
		['blanks everywhere', blanks(base)],
		['a raw tab inside a string', base.replace('gpu-node-7', 'gpu-node\t7')],
		['a control character in a string', base.replace('gpu-node-7', 'gpu-node\u00017')],
		['an unknown nested value', base.replace('"samples":30', '"samples":30,"extra":{"a":[1,2,{"b":null}],"c":true}')],
		['an unknown key with a broken value', base.replace('"samples":30', '"samples":30,"extra":[1,,2]')],
		['day 31 of November', base.replace(/"timestamp":"[^"]*"/, '"timestamp":"2026-11-31T00:00:00.000Z"')],
		['hour 24', base.replace(/"timestamp":"[^"]*"/, '"timestamp":"2026-11-03T24:00:00.000Z"')],
		['year 0050', base.replace(/"timestamp":"[^"]*"/, '"timestamp":"0050-01-03T10:00:00.000Z"')],
		['a local time without zone', base.replace(/"timestamp":"[^"]*"/, '"timestamp":"2024-01-15T10:00:00"')],
		['not a date', base.replace(/"timestamp":"[^"]*"/, '"timestamp":"2026-13-03T10:00:00.000Z"')],
		['no memory key', base.replace(/"memory":\{[^}]*\},/, '')],
		['memory without percent', base.replace('"percent":40.01,', '')],
		['gpus entry without index', base.replace('"index":0,', '')],
		['a GPU threshold of null', base.replace('"index":0,', '"index":0,"threshold":null,')],
		['a GPU threshold as a string', base.replace('"index":0,', '"index":0,"threshold":"60",')],
		['a GPU threshold of 87.5', base.replace('"index":0,', '"index":0,"threshold":87.5,')],
		['gpus not an array', base.replace(/"gpus":\[.*\],"gpu_status"/, '"gpus":null,"gpu_status"')],
		['garbage after the object', `${base} x`],
		['slurm without restart_count', base.replace('"alerts":[]', '"alerts":[],"slurm":{"job_id":"42"}')],
		['slurm with a numeric job_id', base.replace('"alerts":[]', '"alerts":[],"slurm":{"job_id":42,"restart_count":1}')],
		['slurm a string', base.replace('"alerts":[]', '"alerts":[],"slurm":"42"')],
		[
			'a duplicate slurm: the last wins',
			base.replace('"alerts":[]', '"alerts":[],"slurm":{"job_id":"4","restart_count":1},"slurm":null'),
		],
		['cgroup null', base.replace('"peak_used_gb":241.776', '"peak_used_gb":241.776,"cgroup":null')],
		[
			'cgroup without limit_gb',
			base.replace('"peak_used_gb":241.776', '"peak_used_gb":241.776,"cgroup":{"used_gb":1,"percent":2}'),
		],
		[
			'cgroup with a numeric scope',
			base.replace(
				'"peak_used_gb":241.776',
				'"peak_used_gb":241.776,"cgroup":{"scope":1,"limit_gb":4,"used_gb":1,"percent":25}',
			),
		],
		[
			'a cgroup, then memory again without one',
			base.replace(
				'"peak_used_gb":241.776}',
				'"peak_used_gb":241.776,"cgroup":{"scope":"job","limit_gb":4,"used_gb":1,"percent":25}},"memory":{"total_gb":1,"used_gb":1,"percent":1}',
			),
		],
	])('%s', (_name, line) => {
		const want = slow(line);
		const got = fast(line);
		if (got !== null) expect(got).toEqual(want);
		if (want === null) expect(got).toBeNull();
	});

	test('the cases above that are clean records are read by the scanner itself', () => {
		for (const line of [
			base.replace('"percent":40.01', '"percent":4001E-2'),
			base.replace('"percent":40.01', '"percent":40.010000000000005'),
			blanks(base),
			base.replace('"percent":40.01', '"percent":40.01,"percent":99'),
			base.replace('"available_gb":302.22', '"available_gb":1.7976931348623157e308'),
		]) {
			expect(fast(line)).not.toBeNull();
		}
		expect(fast(base.replace('"percent":40.01', '"percent":40.01,"percent":99'))?.memPercent).toBe(99);
	});
});

// --- random JSON texts, built key by key ---------------------------------------------------------

const digits = (min: number, max: number) =>
	fc.string({unit: fc.constantFrom(...'0123456789'), minLength: min, maxLength: max});
/** A number literal of any shape JSON allows, and some it does not. */
const numberLiteral = fc.oneof(
	{arbitrary: fc.double({noNaN: true, noDefaultInfinity: true}).map(v => JSON.stringify(v)), weight: 20},
	{arbitrary: fc.integer({min: 0, max: 100}).map(String), weight: 10},
	{
		arbitrary: fc
			.tuple(
				fc.constantFrom('', '-'),
				fc.oneof(
					fc.constant('0'),
					fc.tuple(fc.constantFrom(...'123456789'), digits(0, 25)).map(([a, b]) => a + b),
				),
				fc.option(digits(1, 25), {nil: undefined}),
				fc.option(fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), digits(1, 4)), {nil: undefined}),
			)
			.map(([s, i, f, e]) => `${s}${i}${f === undefined ? '' : `.${f}`}${e === undefined ? '' : e.join('')}`),
		weight: 4,
	},
	{
		arbitrary: fc.constantFrom('1.5e308', '4.9e-324', '2e-324', '1e22', '1e23', '123456789012345.6', '0.1', '-0.0'),
		weight: 2,
	},
	{arbitrary: fc.constantFrom('01', '1.', '.5', '-', '1e', '1e+', '--1', '1.8e308'), weight: 1},
);
/**
 * For the values the analysis reads: mostly in range (plausible.ts skips a record with one out of range, on both
 * paths alike), so that enough random records are records; any literal now and then.
 */
const usedNumber = fc.oneof(
	{arbitrary: fc.double({min: 0, max: 100, noNaN: true}).map(v => JSON.stringify(v)), weight: 19},
	{arbitrary: numberLiteral, weight: 1},
);
const stringLiteral = fc.oneof(
	{arbitrary: fc.string({maxLength: 12}).map(s => JSON.stringify(s)), weight: 3},
	{arbitrary: fc.constantFrom('"gpu-node-7"', '"nœud"', '"GPU-0"', '""'), weight: 6},
	{arbitrary: fc.constantFrom('"a\\"b"', '"\\u00e9"', '"raw\ttab"'), weight: 1},
);
const blank = fc.constantFrom('', '', '', ' ', '\t', ' \r ');
const scalar = fc.oneof(numberLiteral, stringLiteral, fc.constantFrom('null', 'true', 'false'));
const anyValue: fc.Arbitrary<string> = fc.letrec(tie => ({
	value: fc.oneof({depthSize: 'small', withCrossShrink: true}, scalar, tie('array'), tie('object')),
	array: fc.array(tie('value'), {maxLength: 3}).map(v => `[${v.join(',')}]`),
	object: fc
		.array(fc.tuple(fc.constantFrom('"a"', '"percent"', '"x y"'), tie('value')), {maxLength: 3})
		.map(v => `{${v.map(([k, x]) => `${k}:${x}`).join(',')}}`),
})).value as fc.Arbitrary<string>;

type Field = readonly [string, fc.Arbitrary<string>];
/** An object of these fields, each present or not, some twice, in any order, plus unknown keys. */
function objectOf(fields: readonly Field[], requiredFrequency = 9): fc.Arbitrary<string> {
	const member = ([key, value]: Field) =>
		fc
			.tuple(fc.nat(10), value, blank, blank)
			.map(([n, v, b1, b2]) => (n < requiredFrequency ? [`${b1}"${key}"${b2}:${b1}${v}`] : []));
	return fc
		.tuple(
			fc.tuple(...fields.map(member)),
			fc.array(fc.tuple(fc.constantFrom('extra', 'peak', 'percen', 'percentt'), anyValue), {maxLength: 1}),
			fc.option(fc.constantFrom(...fields.map(f => f[0])), {nil: undefined}),
		)
		.chain(([present, extras, duplicate]) => {
			const members = present.flat();
			for (const [k, v] of extras) members.push(`"${k}":${v}`);
			const dup = fields.find(f => f[0] === duplicate);
			const withDup = dup ? fc.tuple(dup[1]).map(([v]) => [...members, `"${dup[0]}":${v}`]) : fc.constant(members);
			return withDup.chain(all => fc.shuffledSubarray(all, {minLength: all.length, maxLength: all.length}));
		})
		.map(members => `{${members.join(',')}}`);
}

const numberOrNull = fc.oneof({arbitrary: numberLiteral, weight: 4}, {arbitrary: fc.constant('null'), weight: 1});
const usedNumberOrNull = fc.oneof({arbitrary: usedNumber, weight: 4}, {arbitrary: fc.constant('null'), weight: 1});
const timestamp = fc.oneof(
	{arbitrary: fc.integer({min: -1e13, max: 1e13}).map(t => JSON.stringify(new Date(t).toISOString())), weight: 12},
	{
		arbitrary: fc.constantFrom('"2024-01-15T10:00:00"', '"2026-02-30T00:00:00.000Z"', '"2026-11-22T23:59:59.999Z"'),
		weight: 3,
	},
	{arbitrary: fc.constantFrom('"yesterday"', '42'), weight: 1},
);
const cgroup = fc.oneof(
	{arbitrary: fc.constant('null'), weight: 1},
	{
		arbitrary: objectOf([
			[
				'scope',
				fc.oneof(
					{arbitrary: fc.constantFrom('"job"', '"traintop"', '"jo"', '"jobs"'), weight: 4},
					{arbitrary: stringLiteral, weight: 1},
				),
			],
			['path', fc.oneof({arbitrary: stringLiteral, weight: 9}, {arbitrary: numberLiteral, weight: 1})],
			['version', fc.oneof({arbitrary: fc.constantFrom('1', '2'), weight: 9}, {arbitrary: stringLiteral, weight: 1})],
			['limit_gb', usedNumber],
			['used_gb', usedNumber],
			['percent', usedNumber],
			['peak_percent', usedNumber],
		]),
		weight: 5,
	},
);
const slurm = fc.oneof(
	{arbitrary: fc.constant('null'), weight: 2},
	{
		arbitrary: objectOf([
			[
				'job_id',
				fc.oneof(
					{arbitrary: fc.constantFrom('"42"', '"43_1"', '""'), weight: 4},
					{arbitrary: stringLiteral, weight: 1},
					{arbitrary: numberLiteral, weight: 1},
				),
			],
			['restart_count', fc.oneof({arbitrary: fc.nat(5).map(String), weight: 4}, {arbitrary: numberLiteral, weight: 1})],
		]),
		weight: 5,
	},
);
const memory = fc.oneof(
	{arbitrary: fc.constant('null'), weight: 1},
	{
		arbitrary: objectOf([
			['total_gb', numberLiteral],
			['used_gb', usedNumber],
			['percent', usedNumber],
			['available_gb', numberLiteral],
			['peak_percent', usedNumber],
			['peak_used_gb', numberLiteral],
			['cgroup', cgroup],
		]),
		weight: 5,
	},
);
const swap = fc.oneof(
	fc.constant('null'),
	objectOf([
		['total_gb', usedNumber],
		['used_gb', numberLiteral],
		['percent', usedNumber],
		['peak_percent', usedNumber],
	]),
);
const gpu = fc.oneof(
	fc.constant('null'),
	objectOf([
		['memory_allocated_gb', numberLiteral],
		['memory_total_gb', numberLiteral],
		['memory_percent', usedNumber],
		['peak_memory_percent', usedNumber],
	]),
);
const device = objectOf([
	['index', fc.oneof({arbitrary: fc.nat(8).map(String), weight: 9}, {arbitrary: numberLiteral, weight: 1})],
	['uuid', fc.oneof(stringLiteral, fc.constant('null'))],
	['name', fc.oneof(stringLiteral, fc.constant('null'))],
	['memory_used_gb', numberOrNull],
	['memory_total_gb', numberOrNull],
	['memory_percent', usedNumberOrNull],
	['peak_memory_percent', usedNumberOrNull],
	['utilization_percent', numberOrNull],
	['threshold', usedNumberOrNull],
]);
const recordText = objectOf(
	[
		['timestamp', timestamp],
		['host', fc.oneof({arbitrary: stringLiteral, weight: 9}, {arbitrary: numberLiteral, weight: 1})],
		['interval_s', fc.oneof({arbitrary: usedNumber, weight: 9}, {arbitrary: fc.constant('null'), weight: 1})],
		['samples', numberLiteral],
		['memory', memory],
		['swap', swap],
		['gpu', gpu],
		[
			'gpus',
			fc.oneof(
				{arbitrary: fc.array(device, {maxLength: 3}).map(d => `[${d.join(',')}]`), weight: 9},
				{arbitrary: fc.constant('null'), weight: 1},
			),
		],
		['gpu_status', stringLiteral],
		['gpu_message', stringLiteral],
		['slurm', slurm],
		[
			'alerts',
			fc.constantFrom(
				'[]',
				'[]',
				'[ ]',
				'null',
				'[{"time":"t","metric":"ram","value":1,"threshold":2,"from":"ok","to":"warn"}]',
			),
		],
	],
	10,
);
/** A text cut, a byte deleted or a character inserted. */
const corrupted = fc
	.tuple(recordText, fc.nat(), fc.constantFrom('', 'x', '"', ',', '}', '\u0000', '\\'))
	.map(([t, at, c]) => {
		const i = at % (t.length + 1);
		return c === '' ? t.slice(0, i) + t.slice(i + 1) : t.slice(0, i) + c + t.slice(i);
	});

test('random record texts: what the scanner reads, JSON.parse and the schema read the same', () => {
	let scanned = 0;
	let records = 0;
	fc.assert(
		fc.property(fc.oneof(recordText, corrupted), line => {
			const want = slow(line);
			const got = fast(line);
			if (want !== null) records++;
			if (got !== null) {
				scanned++;
				expect(got).toEqual(want);
			}
			if (want === null) expect(got).toBeNull();
		}),
		{numRuns: Number(process.env.PROP_RUNS ?? 3000)},
	);
	// The generator is not so wild that the scanner never gets to read a record. Over 3000 runs about 48 texts are
	// records and the scanner reads about 17 of them (11–22 in six seeds); a bound near those counts failed one seed
	// in ten, so these only say "some", which a generator gone wild fails.
	expect(records).toBeGreaterThan(5);
	expect(scanned).toBeGreaterThan(0);
});
