import path from 'node:path';
import {readFileSync} from 'node:fs';
import {afterEach, describe, expect, it} from 'vitest';
import {FS_IO} from '../../../src/checkpoints/scan.js';
import {readTorchFile, type TorchFile} from '../../../src/checkpoints/torch-file/torch-file.js';
import {
	attr,
	dictGet,
	dictKeys,
	globalName,
	pyInt,
	pyNumber,
	pyStr,
} from '../../../src/checkpoints/torch-file/py-value.js';
import {isTensor, tensorScalar} from '../../../src/checkpoints/torch-file/tensor.js';
import {makeTempDir, put, removeTempDirs} from '../fixtures.js';

// torch.save files as the real torch wrote them, read without Python: the zip layout (torch 2.11 and 1.13, both with
// data descriptors: sizes 0 in the local headers), the legacy run of pickles, and the same archive re-zipped by
// Python's zipfile (DEFLATED; ZIP64). Sources: test/fixtures/frameworks/recorded/torch-formats (torch 2.11.0+cu130,
// scripts/record-framework-trees.py) and test/fixtures/torch-files (torch 1.13.0a0, Debian's python3-torch, and
// Python 3.11's zipfile: scripts/make-torch-fixtures.py).

afterEach(removeTempDirs);

const RECORDED = path.resolve('test/fixtures/frameworks/recorded/torch-formats');
const MADE = path.resolve('test/fixtures/torch-files');
const CALLBACK = "ModelCheckpoint{'monitor': 'train_loss', 'mode': 'min'}";

async function ok(file: string): Promise<TorchFile> {
	const read = await readTorchFile(FS_IO, file);
	if (read.status !== 'ok') throw new Error(`${file}: ${read.why}`);
	return read;
}

/** What every torch 2.11 recorded file holds: {'epoch': 3, 'global_step': 120, 'state_dict': {'w': arange(6.)}, …}. */
async function expectRecordedObject(file: string, format: 'zip' | 'legacy') {
	const torch = await ok(file);
	expect(torch.format).toBe(format);
	expect(dictKeys(torch.root)).toEqual(['epoch', 'global_step', 'state_dict', 'hyper_parameters', 'callbacks']);
	expect(pyInt(dictGet(torch.root, 'epoch'))).toBe(3);
	expect(pyInt(dictGet(torch.root, 'global_step'))).toBe(120);
	expect(pyNumber(dictGet(dictGet(torch.root, 'hyper_parameters'), 'lr'))).toBe(0.1);
	expect(dictKeys(dictGet(torch.root, 'callbacks'))).toEqual([CALLBACK]);
	const w = dictGet(dictGet(torch.root, 'state_dict'), 'w');
	expect(globalName(w)).toBe('torch._utils._rebuild_tensor_v2');
	// Six elements: not a scalar, and said so.
	expect(await tensorScalar(torch, w)).toEqual({status: 'unreadable', why: '6 elements (shape [6]), not a scalar'});
}

describe('torch.save files, read as data', () => {
	it('torch 2.11 zip (data descriptors: the local headers say 0 bytes) and legacy', async () => {
		await expectRecordedObject(path.join(RECORDED, 'zip.pt'), 'zip');
		await expectRecordedObject(path.join(RECORDED, 'legacy.pt'), 'legacy');
	});

	it.each([
		['torch113-zip.pt', 'zip'],
		['torch113-legacy.pt', 'legacy'],
		['deflated.pt', 'zip'],
		['zip64.pt', 'zip'],
	] as const)('%s: every scalar dtype, a view at a storage offset, Lightning-like scores', async (name, format) => {
		const torch = await ok(path.join(MADE, name));
		expect(torch.format).toBe(format);
		const scores = dictGet(torch.root, 'scores');
		const values: Record<string, unknown> = {};
		for (const key of dictKeys(scores)) values[key] = await tensorScalar(torch, dictGet(scores, key));
		const value = (v: number) => ({status: 'ok', value: v});
		expect(values).toEqual({
			float32: value(0.25),
			float64: value(0.125),
			float16: value(1.5),
			bfloat16: value(-2.5),
			int64: value(7),
			int32: value(-9),
		});
		expect(isTensor(dictGet(torch.root, 'view'))).toBe(true);
		expect(await tensorScalar(torch, dictGet(torch.root, 'view'))).toEqual(value(4));
		const callback = dictGet(dictGet(torch.root, 'callbacks'), CALLBACK);
		expect(await tensorScalar(torch, dictGet(callback, 'best_model_score'))).toEqual(value(0.5));
		const best = dictGet(callback, 'best_k_models');
		expect(dictKeys(best)).toEqual(['/run/a.ckpt', '/run/b.ckpt']);
		expect(await tensorScalar(torch, dictGet(best, '/run/b.ckpt'))).toEqual(value(0.75));
	});

	it('a pickled TrainingArguments (transformers 5.17, torch 2.11): an object node with its __dict__, enums as calls', async () => {
		const torch = await ok(path.resolve('test/fixtures/frameworks/hf-limit2/checkpoint-50/training_args.bin'));
		expect(globalName(torch.root)).toBe('transformers.training_args.TrainingArguments');
		expect(pyInt(attr(torch.root, 'save_total_limit'))).toBe(2);
		expect(pyInt(attr(torch.root, 'save_steps'))).toBe(10);
		const strategy = attr(torch.root, 'save_strategy');
		expect(globalName(strategy)).toBe('transformers.trainer_utils.SaveStrategy');
		// Its value is a BINGET of the 'steps' memoised for eval_strategy's IntervalStrategy.
		expect(
			strategy?.type === 'call' && pyStr(strategy.args.type === 'tuple' ? strategy.args.items[0] : undefined),
		).toBe('steps');
	});
});

describe('what cannot be read says why, and never throws', () => {
	it('a torch 2.11 zip cut short: no end record', async () => {
		const whole = readFileSync(path.join(RECORDED, 'zip.pt'));
		const file = put(makeTempDir(), 'cut.pt', whole.subarray(0, whole.length - 100));
		expect(await readTorchFile(FS_IO, file)).toEqual({
			status: 'unreadable',
			why: 'truncated: no zip end-of-central-directory record in its last 64 KiB',
		});
	});

	it('a legacy file cut inside its object pickle', async () => {
		const whole = readFileSync(path.join(RECORDED, 'legacy.pt'));
		const file = put(makeTempDir(), 'cut.pt', whole.subarray(0, 300));
		expect(await readTorchFile(FS_IO, file)).toEqual({
			status: 'unreadable',
			why: 'legacy torch.save: its object pickle: pickle cut short: 3 bytes needed at offset 299, it ends at 300',
		});
	});

	it('an unknown opcode in data.pkl names itself and its offset', async () => {
		// The recorded zip.pt with data.pkl's opcode at offset 2 (EMPTY_DICT) overwritten by 0xff, CRC unchanged: the
		// reader does not check CRCs, the pickle machine refuses.
		const bytes = Buffer.from(readFileSync(path.join(RECORDED, 'zip.pt')));
		const dataAt = bytes.indexOf(Buffer.from([0x80, 0x02, 0x7d]));
		bytes[dataAt + 2] = 0xff;
		const file = put(makeTempDir(), 'odd.pt', bytes);
		expect(await readTorchFile(FS_IO, file)).toEqual({
			status: 'unreadable',
			why: 'zip/data.pkl: pickle opcode 0xff at offset 2 is not one this reader knows',
		});
	});

	it('neither a zip nor a pickle; too short; missing', async () => {
		const dir = makeTempDir();
		expect(await readTorchFile(FS_IO, put(dir, 'text.pt', 'hello world'))).toEqual({
			status: 'unreadable',
			why: 'neither a torch.save zip nor a pickle',
		});
		expect(await readTorchFile(FS_IO, put(dir, 'short.pt', 'PK'))).toEqual({
			status: 'unreadable',
			why: '2 bytes: too short for a torch.save file',
		});
		expect(await readTorchFile(FS_IO, path.join(dir, 'none.pt'))).toEqual({
			status: 'unreadable',
			why: 'cannot be read',
		});
	});
});
