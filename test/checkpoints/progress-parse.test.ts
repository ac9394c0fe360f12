// The step parsers on the files real frameworks wrote (test/fixtures/frameworks: transformers 5.17.0 and lightning
// 2.6.6, see its README) and on the cut and half-rewritten files a read can meet while the job writes.

import {readFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {csvFields, metricsCsvStep} from '../../src/checkpoints/progress-csv.js';
import {lineStep, logLineStep} from '../../src/checkpoints/progress-log-line.js';
import {
	trainerStateStep,
	trainerStateSteps,
	trainerStateStepsFromEnds,
} from '../../src/checkpoints/progress-trainer-state.js';

const FRAMEWORKS = path.join(import.meta.dirname, '..', 'fixtures', 'frameworks');
const LIGHTNING_CSV = path.join(FRAMEWORKS, 'lightning-topk2', 'lightning_logs', 'version_0', 'metrics.csv');
const HF = path.join(FRAMEWORKS, 'hf-limit2');
const read = (file: string) => readFileSync(file, 'utf8');

describe('metrics.csv (Lightning CSVLogger)', () => {
	it('reads the step of the last row Lightning 2.6.6 wrote: 49', () => {
		const text = read(LIGHTNING_CSV);
		expect(text).toContain('\r\n'); // csv.DictWriter's line ending
		expect(metricsCsvStep(text, text, true)).toBe(49);
	});

	it('takes the last complete row: a row being written (no newline yet) is not read', () => {
		const text = `${read(LIGHTNING_CSV)}2,99,1.3`;
		expect(metricsCsvStep(text, text, true)).toBe(49);
		const whole = `${text}4\r\n`;
		expect(metricsCsvStep(whole, whole, true)).toBe(99);
	});

	it('says nothing of a file just made or truncated by a rewrite: empty, or a header alone', () => {
		expect(metricsCsvStep('', '', true)).toBeNull();
		expect(metricsCsvStep('epoch,step,train_loss\r\n', 'epoch,step,train_loss\r\n', true)).toBeNull();
		expect(metricsCsvStep('epoch,step,tr', 'epoch,step,tr', true)).toBeNull();
	});

	it('finds the step column by the header (a rewrite with new keys sorts them again)', () => {
		const header = 'epoch,lr-SGD,step,train_loss,val_loss\r\n';
		const rows = '0,0.1,49,1.5,\r\n0,0.1,49,,1.4\r\n1,0.1,99,1.2,\r\n';
		expect(metricsCsvStep(header + rows, header + rows, true)).toBe(99);
	});

	it('drops the cut first piece of a tail that starts mid-file', () => {
		const header = 'epoch,step,train_loss\r\n';
		expect(metricsCsvStep(header, '9,1.2\r\n3,150,1.1\r\n', false)).toBe(150);
		// Only the cut piece: nothing complete to read.
		expect(metricsCsvStep(header, '3,150,1.1\r\n', false)).toBeNull();
	});

	it('reads no step from a row of another width or a step that is not whole', () => {
		const header = 'epoch,step,train_loss\r\n';
		expect(metricsCsvStep(header, `${header}0,49\r\n`, true)).toBeNull();
		expect(metricsCsvStep(header, `${header}0,4.5,1\r\n`, true)).toBeNull();
		expect(metricsCsvStep('epoch,loss\r\n', 'epoch,loss\r\n0,1\r\n', true)).toBeNull();
	});

	it('splits quoted fields as Python csv writes them', () => {
		expect(csvFields('a,"b,c","say ""hi""",')).toEqual(['a', 'b,c', 'say "hi"', '']);
	});
});

describe('trainer_state.json (Hugging Face Trainer)', () => {
	it('reads global_step and the last log_history step transformers 5.17 wrote: 50 and 50, 40 and 40', () => {
		const fifty = trainerStateSteps(read(path.join(HF, 'checkpoint-50', 'trainer_state.json')));
		expect(fifty).toEqual({globalStep: 50, lastLogStep: 50});
		expect(fifty && trainerStateStep(fifty)).toBe(50);
		expect(trainerStateSteps(read(path.join(HF, 'checkpoint-40', 'trainer_state.json')))).toEqual({
			globalStep: 40,
			lastLogStep: 40,
		});
	});

	it('reads nothing from a file cut anywhere mid-write (save_to_json truncates, then writes)', () => {
		const text = read(path.join(HF, 'checkpoint-50', 'trainer_state.json'));
		expect(text.endsWith('}\n')).toBe(true);
		for (let cut = 0; cut < text.length - 1; cut++) expect(trainerStateSteps(text.slice(0, cut))).toBeNull();
		for (let cut = 0; cut < text.length - 1; cut += 7) {
			const part = text.slice(0, cut);
			expect(trainerStateStepsFromEnds(part.slice(0, 4096), part.slice(-65536))).toBeNull();
		}
	});

	it('reads a large state from its ends: global_step in the head, the last log entry in the tail', () => {
		const state = JSON.parse(read(path.join(HF, 'checkpoint-50', 'trainer_state.json'))) as Record<string, unknown>;
		const entries = Array.from({length: 12_000}, (_, index) => ({
			epoch: index / 1000,
			grad_norm: 0.8,
			learning_rate: 4.1e-5,
			loss: 4.3,
			step: (index + 1) * 10,
		}));
		const big: Record<string, unknown> = {...state, global_step: 120_000, log_history: entries};
		// Keys sorted at every level, indent 2, a newline at the end: as save_to_json writes it.
		const sorted = (value: unknown): unknown =>
			Array.isArray(value)
				? value.map(sorted)
				: typeof value === 'object' && value !== null
					? Object.fromEntries(
							Object.keys(value)
								.sort()
								.map(key => [key, sorted((value as Record<string, unknown>)[key])]),
						)
					: value;
		const text = `${JSON.stringify(sorted(big), null, 2)}\n`;
		expect(text.length).toBeGreaterThan(1024 * 1024);
		expect(trainerStateStepsFromEnds(text.slice(0, 4096), text.slice(-65536))).toEqual({
			globalStep: 120_000,
			lastLogStep: 120_000,
		});
		expect(trainerStateStepsFromEnds(text.slice(0, 4096), text.slice(-65536, -20))).toBeNull();
	});

	it('is not fooled by JSON that is not a trainer state', () => {
		expect(trainerStateSteps('[1,2]')).toBeNull();
		expect(trainerStateSteps('{"global_step": "x"}')).toEqual({globalStep: null, lastLogStep: null});
	});
});

describe('a log line (--progress-file)', () => {
	it('reads the step the forms name', () => {
		expect(lineStep('step 1200 loss 0.3')).toBe(1200);
		expect(lineStep('INFO step=1200 lr=3e-4')).toBe(1200);
		expect(lineStep('Step: 1200, loss: 2.1')).toBe(1200);
		expect(lineStep('epoch 3 step [1200/5000]')).toBe(1200);
		expect(lineStep('global_step 1200 step 7')).toBe(1200);
		expect(lineStep('{"global_step": 1200}')).toBe(1200);
		expect(lineStep(' 24%|██▍       | 1200/5000 [00:10<00:31, 120.00it/s]')).toBe(1200);
		expect(lineStep('1200it [00:10, 120.00it/s]')).toBe(1200);
	});

	it('reads no step where none is named', () => {
		expect(lineStep('loss 0.3 lr 1e-4')).toBeNull();
		expect(lineStep('steps: 100')).toBeNull();
		expect(lineStep('step_time 1.5')).toBeNull();
		expect(lineStep('step 1.5')).toBeNull();
	});

	it('reads the last complete line only: a line half written, or tqdm redrawing, is not read', () => {
		expect(logLineStep('step 1\nstep 2\nstep 3', true)).toEqual({complete: true, step: 2});
		expect(logLineStep('step 1\nstep 2\n\n', true)).toEqual({complete: true, step: 2});
		expect(logLineStep('\r 10%| 10/100 [\r 11%| 11/100 [\r 12%| 1', true)).toEqual({complete: true, step: 11});
		expect(logLineStep('step 4', true)).toEqual({complete: false, step: null});
		expect(logLineStep('warming up\n', true)).toEqual({complete: true, step: null});
		// A tail cut mid-line: its first piece is not a line.
		expect(logLineStep('ep 5\nwarm\n', false)).toEqual({complete: true, step: null});
		expect(logLineStep('step 5\n', false)).toEqual({complete: false, step: null});
	});
});
