import {mkdtemp, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, test} from 'vitest';
import {loadConfigFile, settingsFromFlags} from '../../src/config/load.js';
import {UsageError} from '../../src/core/errors.js';
import {runCli} from '../helpers/run-cli.js';

// Number flags take plain decimals (what a person types for seconds and percentages) and any other text is quoted
// back as it was typed; a config file saved with a UTF-8 byte-order mark (Windows editors) is read as JSON.

let dir = '';
beforeAll(async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-number-flags-'));
});
afterAll(async () => {
	await rm(dir, {recursive: true, force: true});
});

const PLAIN = 'a plain decimal number such as 30 or 0.5';

describe('number flags', () => {
	test.each([
		[{interval: '1e400'}, `--interval needs ${PLAIN} (got '1e400')`],
		[{interval: '0x10'}, `--interval needs ${PLAIN} (got '0x10')`],
		[{ramThreshold: '1e2'}, `--ram-threshold needs ${PLAIN} (got '1e2')`],
		[{ramThreshold: '0b11'}, `--ram-threshold needs ${PLAIN} (got '0b11')`],
		[{interval: 'Infinity'}, `--interval needs ${PLAIN} (got 'Infinity')`],
		[{interval: '1_000'}, `--interval needs ${PLAIN} (got '1_000')`],
		[{logInterval: '9'.repeat(400)}, `--log-interval needs ${PLAIN} (got '${'9'.repeat(400)}')`],
	])('%o → "%s"', (flags, message) => {
		expect(() => settingsFromFlags(flags)).toThrow(new UsageError(message));
	});

	test('plain decimals are numbers: integers, fractions, a leading dot, blanks around; range errors show the text', () => {
		expect(settingsFromFlags({interval: ' 2.50 ', ramThreshold: '85', swapThreshold: '.5'})).toEqual({
			interval: 2.5,
			ramThreshold: 85,
			swapThreshold: 0.5,
		});
		expect(() => settingsFromFlags({ramThreshold: '120.0'})).toThrow(
			new UsageError('--ram-threshold must be at most 100 (a percentage) (got 120.0)'),
		);
	});

	test('the real CLI: --interval 1e400 is refused with the text as typed (exit 2)', async () => {
		const {code, stderr} = await runCli(['--interval', '1e400', '--no-log']);
		expect(code).toBe(2);
		expect(stderr).toContain(`--interval needs ${PLAIN} (got '1e400')`);
		expect(stderr).not.toContain('null');
	});
});

describe('a config file with a UTF-8 BOM', () => {
	test('is read as the JSON after the mark', async () => {
		const file = path.join(dir, 'bom.json');
		await writeFile(file, `\uFEFF${JSON.stringify({ramThreshold: 70})}`);
		await expect(loadConfigFile(file)).resolves.toEqual({ramThreshold: 70});
	});

	test('the real CLI starts with it', async () => {
		const file = path.join(dir, 'bom-cli.json');
		await writeFile(file, `\uFEFF{"ramThreshold": 70}\n`);
		const {code, stdout, stderr} = await runCli(['ranks', '--config', file, '--match', 'no-such-job-[0-9a-f]{40}']);
		expect(stderr).not.toContain('not valid JSON');
		expect(code, stderr).toBe(0);
		expect(stdout).toContain('no ranks found');
	});
});
