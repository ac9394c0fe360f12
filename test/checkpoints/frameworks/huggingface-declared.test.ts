import {readFileSync} from 'node:fs';
import {afterEach, describe, expect, it} from 'vitest';
import {buildIndex} from '../../../src/checkpoints/retention.js';
import {scanRunDir} from '../../../src/checkpoints/scan.js';
import {makeTempDir, put, removeTempDirs} from '../fixtures.js';
import {hfCheckpoint} from './huggingface-fixture.js';
import {pickleObject, torchSave, type PyValue} from './huggingface-torch.js';

// What an HF Trainer run declares, beyond the real trees of test/commands/checkpoints-hf-recorded-cli.test.ts: the
// cases those runs did not write. Source: transformers 5.17 training_args.py (save_steps below 1 is a ratio of the
// total steps, resolved into TrainerState.save_steps by trainer.py _inner_training_loop), trainer_utils.py
// SaveStrategy ('no', 'steps', 'epoch', 'best').

afterEach(removeTempDirs);

const T0 = Date.UTC(2026, 0, 10, 12, 0, 0);

/** A checkpoint whose training_args.bin holds exactly `fields` (a TrainingArguments' __dict__, in pickle order). */
function run(fields: Array<readonly [string, PyValue]> | Buffer, stateSaveSteps = 100, padHistory = 0): string {
	const dir = makeTempDir();
	hfCheckpoint(dir, {step: 200, epoch: 1, time: T0, losses: [1, 0.5], padHistory});
	const args = Buffer.isBuffer(fields)
		? fields
		: torchSave('training_args', pickleObject('transformers.training_args', 'TrainingArguments', fields));
	put(dir, 'checkpoint-200/training_args.bin', args);
	if (stateSaveSteps !== 100) {
		// The fixture's trainer_state.json says save_steps 100: as the Trainer resolved it, here another figure.
		const state = readFileSync(`${dir}/checkpoint-200/trainer_state.json`, 'utf8');
		put(
			dir,
			'checkpoint-200/trainer_state.json',
			state.replace('"save_steps": 100', `"save_steps": ${stateSaveSteps}`),
		);
	}
	return dir;
}

async function group(dir: string) {
	const index = buildIndex(await scanRunDir(dir), {keep: null, now: T0, disk: null});
	return {group: index.retention.groups[0], warnings: index.warnings};
}

describe('Hugging Face declared settings', () => {
	it('save_steps 0.1 (a ratio): the cadence is trainer_state.json save_steps, as the Trainer resolved it', async () => {
		const dir = run(
			[
				['save_strategy', {enumOf: 'steps'}],
				['save_steps', {float: 0.1}],
				['save_total_limit', 3],
			],
			37,
		);
		const {group: g} = await group(dir);
		expect(g?.cadence).toEqual({
			everySteps: 37,
			everyEpochs: null,
			everySeconds: null,
			from: 'checkpoint-200/trainer_state.json save_steps',
		});
		expect(g?.facts).toContainEqual({key: 'save_steps', value: '0.1', from: 'checkpoint-200/training_args.bin'});
		expect(g?.keep).toBe(3);
	});

	it("save_strategy 'no': no periodic cadence, and trainer_state.json's default save_steps is not shown", async () => {
		const {group: g} = await group(
			run([
				['save_strategy', {enumOf: 'no'}],
				['save_steps', 500],
				['save_total_limit', null],
			]),
		);
		expect(g?.cadence).toBeUndefined();
		expect(g?.facts?.map(f => `${f.key} ${f.value}`)).toEqual([
			'save_total_limit None',
			"save_strategy 'no'",
			'global_step 200',
			'log_history 3 entries',
		]);
	});

	it('an unreadable training_args.bin: keep stays unknown, the state file still says what it says', async () => {
		const {group: g, warnings} = await group(run(Buffer.from('not a torch file at all')));
		expect(g).toMatchObject({keep: null, source: 'none', rule: 'HF save_total_limit unknown: keeps all (--keep N)'});
		expect(g?.cadence).toBeUndefined();
		expect(g?.facts?.map(f => f.from)).toEqual([
			'checkpoint-200/trainer_state.json',
			'checkpoint-200/trainer_state.json',
		]);
		expect(warnings).toContain(
			'checkpoint-200/training_args.bin: save_total_limit not read (neither a torch.save zip nor a pickle): --keep applies',
		);
	});

	it('a TrainingArguments without save_total_limit: unknown, said so', async () => {
		const {group: g, warnings} = await group(run([['save_strategy', {enumOf: 'epoch'}]]));
		expect(g?.keep).toBeNull();
		expect(g?.cadence).toMatchObject({everyEpochs: 1, from: 'checkpoint-200/training_args.bin save_strategy'});
		expect(warnings).toContain('checkpoint-200/training_args.bin: no save_total_limit in its pickle: --keep applies');
	});

	it('a trainer_state.json too large to parse whole: save_steps from its tail, log_history not counted', async () => {
		const dir = run(
			[
				['save_strategy', {enumOf: 'steps'}],
				['save_steps', 100],
				['save_total_limit', 2],
			],
			100,
			4000,
		);
		const {group: g} = await group(dir);
		expect(g?.cadence?.everySteps).toBe(100);
		expect(g?.cadence?.from).toBe('checkpoint-200/trainer_state.json save_steps');
		expect(g?.facts?.some(f => f.key === 'log_history')).toBe(false);
	});
});
