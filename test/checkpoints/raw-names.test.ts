import {mkdtempSync, rmSync, statSync, utimesSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, beforeEach, describe, expect, test} from 'vitest';
import {fsPath, nameFromBytes, shownName} from '../../src/system/byte-names.js';
import {runCli} from '../helpers/run-cli.js';

// File names that are not UTF-8 (issue 17). Read as strings, `model_step100_\xff.pt` became
// `model_step100_\ufffd.pt`: another name, here the name of another real file, which the listing then showed twice
// and which "the next save prunes" pointed at. Real files with such names, the built binary.

const bytes = (...parts: (string | number[])[]) =>
	Buffer.concat(parts.map(part => (typeof part === 'string' ? Buffer.from(part, 'utf8') : Buffer.from(part))));

describe('byte names', () => {
	test.each([
		['ascii', bytes('checkpoint-100')],
		['valid multi-byte and a real U+FFFD', bytes('Modèll_🚀_\ufffd')],
		['a lone 0xff', bytes('checkpoint-', [0xff])],
		['an overlong NUL', bytes('a', [0xc0, 0x80], 'b')],
		['an encoded UTF-16 surrogate', bytes([0xed, 0xa0, 0x80])],
		['a cut-short sequence at the end', bytes('x', [0xe2, 0x82])],
		['above U+10FFFF', bytes([0xf4, 0x90, 0x80, 0x80])],
		['Latin-1 text', bytes('caf', [0xe9], '_step', [0xb2])],
	])('%s: decodes to a string that maps back to the same bytes', (_, raw) => {
		const name = nameFromBytes(raw);
		const back = fsPath(name);
		expect(Buffer.isBuffer(back) ? back : Buffer.from(back, 'utf8')).toEqual(raw);
	});

	test('only invalid bytes are escaped, and they show as \\xNN; valid names stay plain strings', () => {
		const name = nameFromBytes(bytes('caf', [0xe9], '-🚀-', [0xff]));
		expect(name).toBe('caf\udce9-🚀-\udcff');
		expect(shownName(name)).toBe('caf\\xe9-🚀-\\xff');
		expect(fsPath('plain-é-🚀')).toBe('plain-é-🚀');
		// A surrogate pair whose low half is in U+DC80–U+DCFF (U+10080) is a real character, not an escaped byte.
		expect(shownName('\u{10080}')).toBe('\u{10080}');
		expect(fsPath('\u{10080}')).toBe('\u{10080}');
	});
});

describe('a checkpoint whose name is not UTF-8', () => {
	let dir = '';
	const raw = () => bytes(dir, '/model_step100_', [0xff], '.pt');
	// Exactly what the raw name turns into when read as a string: a real, different file.
	const lookalike = () => path.join(dir, 'model_step100_\ufffd.pt');
	beforeEach(() => {
		dir = mkdtempSync(path.join(tmpdir(), 'traintop-raw-names-'));
		writeFileSync(raw(), 'x'.repeat(100));
		writeFileSync(lookalike(), 'y'.repeat(200));
		// The raw one is older: with --keep 2 it, and only it, is what the next save prunes.
		utimesSync(raw(), new Date(Date.now() - 3_600_000), new Date(Date.now() - 3_600_000));
	});
	afterEach(() => rmSync(dir, {recursive: true, force: true}));

	test('is listed as itself, and "the next save prunes" points at it, not at its look-alike', async () => {
		const json = await runCli(['checkpoints', dir, '--json', '--keep', '2']);
		expect(json.code).toBe(0);
		const index = JSON.parse(json.stdout) as {
			checkpoints: {path: string; name: string; bytes: number}[];
			retention: {to_prune: string[]};
		};
		expect(index.checkpoints.map(c => c.name).sort()).toEqual(['model_step100_\udcff.pt', 'model_step100_\ufffd.pt']);
		expect(index.checkpoints.map(c => c.bytes).sort()).toEqual([100, 200]);
		expect(index.retention.to_prune).toHaveLength(1);
		const pruned = fsPath(index.retention.to_prune[0] ?? '');
		expect(pruned).toEqual(raw());
		expect(statSync(pruned).ino).toBe(statSync(raw()).ino);
		// JSON keeps it exact: the escaped byte is a \udcff escape, which Python reads back with surrogateescape.
		expect(json.stdout).toContain('model_step100_\\udcff.pt');

		const text = await runCli(['checkpoints', dir, '--keep', '2']);
		expect(text.code).toBe(0);
		expect(text.stdout).toMatch(/ model_step100_\\xff\.pt$/m);
		expect(text.stdout).toMatch(/ model_step100_\ufffd\.pt$/m);
		expect(text.stdout).toContain('the next save prunes model_step100_\\xff.pt');
	});
});
