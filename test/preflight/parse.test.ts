import {describe, expect, test} from 'vitest';
import {UsageError} from '../../src/core/errors.js';
import {parseDtype} from '../../src/preflight/dtype.js';
import {resolveInputs} from '../../src/preflight/inputs.js';
import {lookupPath, parseKeyMapping} from '../../src/preflight/keys.js';
import {parseSampleShape} from '../../src/preflight/shape.js';
import {parseTrainConfig} from '../../src/preflight/train-config.js';

// What the user writes: dtypes, shapes, the key mapping, config text. Every refusal is a UsageError (exit 2) that
// names the flag or the file and key, and the rule.

function refusal(fn: () => unknown): string {
	try {
		fn();
	} catch (error) {
		expect(error).toBeInstanceOf(UsageError);
		return (error as Error).message;
	}
	throw new Error('accepted, expected a UsageError');
}

describe('dtype', () => {
	test('sizes, aliases and torch./np. prefixes', () => {
		expect(parseDtype('float32', '--dtype')).toEqual({name: 'float32', bytes: 4});
		expect(parseDtype('torch.bfloat16', '--dtype')).toEqual({name: 'bfloat16', bytes: 2});
		expect(parseDtype('half', '--dtype')).toEqual({name: 'float16', bytes: 2});
		expect(parseDtype('np.uint8', '--dtype')).toEqual({name: 'uint8', bytes: 1});
		expect(parseDtype('float64', '--dtype').bytes).toBe(8);
		expect(parseDtype('int32', '--dtype').bytes).toBe(4);
	});

	test('an unknown dtype names the flag or the key', () => {
		expect(refusal(() => parseDtype('float33', '--dtype'))).toMatch(
			/^--dtype must be a tensor dtype such as float32, bfloat16 or uint8 \(got 'float33'\); known: float64, float32/,
		);
		expect(refusal(() => parseDtype('fp8', 'cfg.yaml: key data.dtype'))).toMatch(/^cfg\.yaml: key data\.dtype must be/);
	});
});

describe('sample shape', () => {
	test('text, a list or one number', () => {
		expect(parseSampleShape('3x224x224', '--sample-shape')).toEqual([3, 224, 224]);
		expect(parseSampleShape(' 40 × 721 × 1440 ', '--sample-shape')).toEqual([40, 721, 1440]);
		expect(parseSampleShape([3, '32', 32], 'k')).toEqual([3, 32, 32]);
		expect(parseSampleShape(2048, 'k')).toEqual([2048]);
	});

	test('a zero, a fraction, a word or nothing is refused with the flag or key and the reason', () => {
		expect(refusal(() => parseSampleShape('3x0x224', '--sample-shape'))).toBe(
			"--sample-shape must be positive whole numbers joined by x, e.g. 3x224x224 (channels × height × width) (got '3x0x224': 0 is not above 0)",
		);
		expect(refusal(() => parseSampleShape('3x22.5', '--sample-shape'))).toContain('22.5 is not a whole number');
		expect(refusal(() => parseSampleShape('3,224,224', '--sample-shape'))).toContain('3,224,224 is not a whole number');
		expect(refusal(() => parseSampleShape('', '--sample-shape'))).toContain("(got '': empty)");
		expect(refusal(() => parseSampleShape([], 'train.yaml: key data.shape'))).toBe(
			'train.yaml: key data.shape must be positive whole numbers joined by x, e.g. 3x224x224 (channels × height × width) (got []: no dimensions)',
		);
	});
});

describe('--preflight-keys', () => {
	test('KEY=dotted.path pairs', () => {
		const mapping = parseKeyMapping('workers=data.loader.workers, sample_shape=data.shape');
		expect([...mapping]).toEqual([
			['workers', 'data.loader.workers'],
			['sample_shape', 'data.shape'],
		]);
	});

	test('an unknown key (with its likely meaning), a pair without =, an empty path and a key twice', () => {
		expect(refusal(() => parseKeyMapping('worker=a.b'))).toBe(
			'--preflight-keys: unknown key "worker" (did you mean "workers"?); known keys: workers, prefetch_factor, batch_size, sample_shape, channels, height, width, dtype, nproc_per_node',
		);
		expect(refusal(() => parseKeyMapping('workers'))).toMatch(/^--preflight-keys: 'workers' is not KEY=dotted\.path/);
		expect(refusal(() => parseKeyMapping('workers=a..b'))).toBe(
			'--preflight-keys: workers=a..b needs a dotted path such as data.loader.workers',
		);
		expect(refusal(() => parseKeyMapping('workers=a,workers=b'))).toBe('--preflight-keys: workers is mapped twice');
		expect(refusal(() => parseKeyMapping(','))).toMatch(/^--preflight-keys needs KEY=dotted\.path/);
	});

	test('paths step into maps and lists; a missing or null step is not found', () => {
		const data = {data: {loaders: [{workers: 6}], empty: null}};
		expect(lookupPath(data, 'data.loaders.0.workers')).toEqual({found: true, value: 6});
		expect(lookupPath(data, 'data.loaders.1.workers')).toEqual({found: false});
		expect(lookupPath(data, 'data.empty.x')).toEqual({found: false});
		expect(lookupPath(data, 'data.loaders.workers')).toEqual({found: false});
	});
});

describe('numbers in flags and files', () => {
	test('a bad flag value names the flag; a bad file value names the file and key', () => {
		expect(refusal(() => resolveInputs({workers: 'four'}, null))).toBe(
			"--workers must be a whole number of 0 or more (got 'four')",
		);
		expect(refusal(() => resolveInputs({workers: '2', prefetchFactor: '0'}, null))).toBe(
			"--prefetch-factor must be a whole number of 1 or more (got '0')",
		);
		const data = {trainer: {thread_workers: 2.5}};
		expect(refusal(() => resolveInputs({}, {file: 'train.yaml', data, mapping: null}))).toBe(
			'train.yaml: key trainer.thread_workers must be a whole number of 0 or more (got 2.5)',
		);
		expect(refusal(() => resolveInputs({dtype: 'f32'}, null))).toMatch(/^--dtype must be a tensor dtype/);
		// Flags that are not inputs (--fail-on-breach, --json) do not count as inputs given.
		const none = resolveInputs({failOnBreach: true, json: true} as never, null);
		expect(none).toMatchObject({
			status: 'skipped',
			missing: [
				'no inputs: give --train-config FILE, or --workers, --prefetch-factor, --batch-size and --sample-shape',
			],
		});
	});
});

describe('training config text', () => {
	test('YAML and JSON; a syntax error names the file and the line', () => {
		expect(parseTrainConfig('trainer:\n  thread_workers: 4\n', 'train.yaml')).toEqual({trainer: {thread_workers: 4}});
		expect(parseTrainConfig('{"trainer": {"thread_workers": 4}}', 'train.json')).toEqual({
			trainer: {thread_workers: 4},
		});
		expect(refusal(() => parseTrainConfig('trainer:\n  a: 1\n b: [\n', 'train.yaml'))).toMatch(
			/^training config train\.yaml is not valid YAML at line \d+, column \d+: /,
		);
		expect(refusal(() => parseTrainConfig('{"trainer": 1,\n}', 'train.json'))).toMatch(
			/^training config train\.json is not valid JSON at line 2, column 1: /,
		);
		expect(refusal(() => parseTrainConfig('', 'train.yaml'))).toBe('training config train.yaml is empty');
		expect(refusal(() => parseTrainConfig('- 1\n- 2\n', 'train.yaml'))).toBe(
			'training config train.yaml must hold a mapping of keys (trainer:, model:, data: …) at the top',
		);
	});
});
