import {afterEach, describe, expect, it} from 'vitest';
import {scanRunDir} from '../../../src/checkpoints/scan.js';
import {makeTempDir, mkdir, put, removeTempDirs, zipArchive} from '../fixtures.js';

// The fallback for checkpoints no framework's layout claims judges each file from its own bytes.

afterEach(removeTempDirs);

/** A .safetensors file as the format lays it out: u64 header length, the JSON header, then the tensors' bytes. */
function safetensors(tensorBytes: number[]): Buffer {
	const header: Record<string, unknown> = {__metadata__: {format: 'pt'}};
	let offset = 0;
	for (const [i, bytes] of tensorBytes.entries()) {
		header[`layer${i}.weight`] = {dtype: 'F32', shape: [bytes / 4], data_offsets: [offset, offset + bytes]};
		offset += bytes;
	}
	const json = Buffer.from(JSON.stringify(header));
	const length = Buffer.alloc(8);
	length.writeBigUInt64LE(BigInt(json.length));
	return Buffer.concat([length, json, Buffer.alloc(offset, 7)]);
}

async function statusOf(run: string): Promise<Record<string, [string, readonly string[]]>> {
	const scan = await scanRunDir(run);
	expect(scan.layouts).toEqual(['generic']);
	return Object.fromEntries(scan.checkpoints.map(c => [c.name, [c.status, c.warnings]]));
}

describe('generic layout: completeness from the file itself', () => {
	it('a whole torch zip is complete; one without its end record is partial', async () => {
		const run = makeTempDir();
		put(run, 'model_step100.pt', zipArchive(2000));
		put(run, 'model_step200.pt', zipArchive(2000).subarray(0, 1500));
		expect(await statusOf(run)).toEqual({
			'model_step100.pt': ['complete', []],
			'model_step200.pt': ['partial', ['truncated: no zip end record']],
		});
	});

	it('an empty file is partial', async () => {
		const run = makeTempDir();
		put(run, 'ckpt-300.pth', Buffer.alloc(0));
		expect(await statusOf(run)).toEqual({
			'ckpt-300.pth': ['partial', ['empty file: the save did not get to write it']],
		});
	});

	it('a safetensors file as long as its header says is complete; a shorter one is partial', async () => {
		const run = makeTempDir();
		const whole = safetensors([400, 800]);
		put(run, 'model_step400.safetensors', whole);
		put(run, 'model_step500.safetensors', whole.subarray(0, whole.length - 100));
		put(run, 'model_step600.safetensors', whole.subarray(0, 20)); // cut inside the header
		const status = await statusOf(run);
		expect(status['model_step400.safetensors']).toEqual(['complete', []]);
		expect(status['model_step500.safetensors']).toEqual([
			'partial',
			[`truncated: ${whole.length - 100} of the ${whole.length} bytes its safetensors header describes`],
		]);
		expect(status['model_step600.safetensors']?.[0]).toBe('partial');
	});

	it('a tmp suffix is partial without reading; a legacy pickle cannot be judged and counts as complete', async () => {
		const run = makeTempDir();
		put(run, 'model_step700.pt.tmp', zipArchive(100));
		put(run, 'model_step800.pt', Buffer.from([0x80, 0x02, 0x7d, 0x71, 0x00, 0x2e])); // pickle protocol 2: {}
		mkdir(run, 'ckpt_900');
		expect(await statusOf(run)).toEqual({
			'model_step700.pt.tmp': ['partial', ['the name marks it unfinished']],
			'model_step800.pt': ['complete', []],
			ckpt_900: ['complete', []],
		});
	});
});
