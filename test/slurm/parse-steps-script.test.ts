import {readFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {batchScriptWarning, parseSignalOption} from '../../src/slurm/parse-batch-script.js';
import {isNoStepsAnswer, parseScontrolSteps} from '../../src/slurm/parse-steps.js';
import {durationSeconds, signalName} from '../../src/slurm/slurm-values.js';

// Steps and the warning signal, on outputs recorded from a real SLURM 22.05.8 (test/fixtures/slurm/README.md).

const fixture = (name: string) => readFileSync(path.join(import.meta.dirname, '../fixtures/slurm', name), 'utf8');

describe('scontrol show step -o', () => {
	it('reads the batch step and the 2-task srun step of a running job, with where its srun runs', () => {
		expect(parseScontrolSteps(fixture('running.steps.scontrol.txt'), ['8'])).toEqual([
			// SrunHost:Pid=(null):0: no srun launched the batch step.
			{id: '8.batch', name: 'batch', state: 'RUNNING', tasks: 1, nodes: 'vm', srun: null},
			{id: '8.0', name: 'bash', state: 'RUNNING', tasks: 2, nodes: 'vm', srun: {host: 'vm', pid: 31906}},
		]);
	});

	it('keeps only the asked task of an array (scontrol lists every task of the array id)', () => {
		const steps = parseScontrolSteps(fixture('array-running.steps.scontrol.txt'), ['13', '12_0']);
		// The fixture holds `show step -o 12` (both tasks) then `-o 12_0`: task 0's two steps, twice.
		expect(new Set(steps.map(step => step.id))).toEqual(new Set(['12_0.batch', '12_0.0']));
		expect(steps.every(step => !step.id.startsWith('12_1'))).toBe(true);
	});

	it('knows the "no steps" answer of a job without live steps from an error', () => {
		expect(isNoStepsAnswer(fixture('completed.steps.stdout'))).toBe(true);
		expect(isNoStepsAnswer(fixture('unknown.steps.scontrol.stderr'))).toBe(false);
		expect(parseScontrolSteps(fixture('completed.steps.stdout'), ['11'])).toEqual([]);
	});
});

describe('the warning signal in the batch script', () => {
	it('reads #SBATCH --signal=B:USR1@60 from the recorded script', () => {
		expect(batchScriptWarning(fixture('running.batch_script.txt'))).toEqual({
			kind: 'warning',
			warning: {signal: 'USR1', leadS: 60, batchOnly: true, from: 'batch script'},
		});
	});

	it('reads --signal=TERM@120 (the steps, not the batch shell) from the array script', () => {
		expect(batchScriptWarning(fixture('array.batch_script.txt'))).toMatchObject({
			warning: {signal: 'TERM', leadS: 120, batchOnly: false},
		});
	});

	it('finds none in a script without one (its --signal was on the sbatch command line)', () => {
		expect(batchScriptWarning(fixture('completed.batch_script.txt'))).toEqual({kind: 'none'});
	});

	it('ignores #SBATCH lines after the first command, and the last directive wins', () => {
		const script = '#!/bin/bash\n#SBATCH --signal=USR2@30\n\n#SBATCH --signal USR1\necho hi\n#SBATCH --signal=TERM@9\n';
		expect(batchScriptWarning(script)).toMatchObject({warning: {signal: 'USR1', leadS: 60}});
		expect(batchScriptWarning('#!/bin/sh\nsrun x\n#SBATCH --signal=TERM@9\n')).toEqual({kind: 'none'});
		expect(batchScriptWarning('#!/bin/sh\n##SBATCH --signal=TERM@9\n')).toEqual({kind: 'none'});
	});

	it.each([
		['USR1', {signal: 'USR1', leadS: 60, batchOnly: false}],
		['B:USR1@120', {signal: 'USR1', leadS: 120, batchOnly: true}],
		['R:TERM@5', {signal: 'TERM', leadS: 5, batchOnly: false}],
		['RB:SIGUSR2@300', {signal: 'USR2', leadS: 300, batchOnly: true}],
		['10@90', {signal: 'USR1', leadS: 90, batchOnly: false}],
		['"B:USR1@60"', {signal: 'USR1', leadS: 60, batchOnly: true}],
	])('--signal=%s', (value, warning) => {
		expect(parseSignalOption(value)).toEqual({kind: 'warning', warning: {...warning, from: 'batch script'}});
	});

	it.each([['B:@60'], ['USR1@soon'], ['USR1@70000'], ['99@5']])('rejects --signal=%s with the rule', value => {
		const parsed = parseSignalOption(value);
		expect(parsed.kind).toBe('invalid');
		expect(parsed.kind === 'invalid' && parsed.reason).toMatch(/--signal=.*(\[\{R\|B\}:\]SIG\[@TIME\]|0 to 65535)/);
	});
});

describe('SLURM values', () => {
	it.each([
		['00:05:00', 300],
		['1-02:03:04', 93_784],
		['2-00', 172_800],
		['45', 2_700],
		['10:30', 630],
		['UNLIMITED', null],
		['Partition_Limit', null],
		['N/A', null],
	])('duration %s', (text, seconds) => {
		expect(durationSeconds(text)).toBe(seconds);
	});

	it('names signals as sbatch takes them', () => {
		expect([signalName('10'), signalName('sigterm'), signalName('USR1'), signalName('7?')]).toEqual([
			'USR1',
			'TERM',
			'USR1',
			null,
		]);
	});
});
