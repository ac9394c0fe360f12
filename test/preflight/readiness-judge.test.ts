import {expect, test} from 'vitest';
import {readinessBeforeLaunch} from '../../src/preflight/readiness.js';
import {readinessHead} from '../../src/preflight/readiness-text.js';
import {readSlurmBatchScript, shellTrapKind} from '../../src/slurm/batch-readiness.js';
import {batchScriptWarning} from '../../src/slurm/parse-batch-script.js';
import {checkpointIndex, NOW} from '../helpers/checkpoint-data.js';

// The judgement itself, on data: saves of 40 s (the crafted index of test/helpers/checkpoint-data.ts; no test
// writes a 40-s save) under torchrun, whose 30 s cut decides; and the batch script's reading, line by line.

const TORCHRUN = ['#!/bin/bash', '#SBATCH --signal=TERM@60', '', 'srun torchrun --nproc-per-node 4 train.py', ''].join(
	'\n',
);

test("torchrun and --signal=TERM@60 with saves of 40 s: at-risk because of torchrun's 30 s cut", () => {
	const part = readinessBeforeLaunch({
		script: {file: 'job.sbatch', text: TORCHRUN},
		runDir: {path: '/runs/exp1', index: checkpointIndex()},
		graceS: null,
		now: NOW,
	});
	expect(part.readiness.verdict).toBe('at-risk');
	expect(part.readiness.leadS).toBe(30);
	expect(part.pathLeadS).toBe(60);
	expect(part.readiness.reasons).toContainEqual(
		expect.objectContaining({code: 'save-over-lead', seconds: 40, limitS: 30, name: 'checkpoint_step_500'}),
	);
	expect(part.readiness.reasons).toContainEqual(
		expect.objectContaining({code: 'launcher-kills', name: 'torchrun', seconds: 30}),
	);
	expect(part.readiness.reasons.some(r => r.pid !== undefined)).toBe(false);
	expect(readinessHead(part)).toBe(
		'at-risk: `#SBATCH --signal=TERM@60` (job.sbatch line 2) but saves in /runs/exp1 took up to 40 s (checkpoint_step_500): over the 30 s it leaves',
	);
	// The same saves without torchrun: the warning's 60 s covers them.
	const plain = readinessBeforeLaunch({
		script: {file: 'job.sbatch', text: TORCHRUN.replace('torchrun --nproc-per-node 4', 'python')},
		runDir: {path: '/runs/exp1', index: checkpointIndex()},
		graceS: null,
		now: NOW,
	});
	expect(plain.readiness.verdict).toBe('ready');
	expect(plain.readiness.leadS).toBe(60);
});

test('--grace comes first, as in the monitor: the lead the user knows of', () => {
	const part = readinessBeforeLaunch({
		script: {file: 'job.sbatch', text: TORCHRUN},
		runDir: null,
		graceS: 120,
		now: NOW,
	});
	// torchrun still cuts it to 30 s; no save times: unknown, saying so.
	expect(part.readiness).toMatchObject({verdict: 'unknown', leadS: 30, leadFrom: 'grace'});
	expect(part.readiness.reasons.map(r => r.code)).toEqual([
		'launcher-kills',
		'launcher-exit-code',
		'no-save-seen',
		'lead',
	]);
});

test("the batch script's --signal: the last directive before the first command, its target, its line", () => {
	const script = (lines: string[]) => ['#!/bin/bash', ...lines].join('\n');
	expect(readSlurmBatchScript(script(['echo no directives']))).toBeNull();
	expect(readSlurmBatchScript(script(['#SBATCH -N 1', 'srun x']))).toEqual({
		status: 'read',
		warning: null,
		directive: null,
	});
	expect(
		readSlurmBatchScript(
			script(['#SBATCH --signal=USR1@30', '#SBATCH --signal B:TERM', 'srun x', '#SBATCH --signal=HUP']),
		),
	).toEqual({
		status: 'read',
		// sbatch(1): a --signal without @TIME is 60 s.
		warning: {signal: 'TERM', leadS: 60, target: 'batch-shell', shellTrap: 'none'},
		directive: {text: '#SBATCH --signal B:TERM', line: 3},
	});
	expect(readSlurmBatchScript(script(['#SBATCH --signal=TERM@70000']))).toMatchObject({
		status: 'invalid',
		line: 2,
		reason: '--signal=TERM@70000: TIME must be 0 to 65535 (sbatch(1))',
	});
});

test("what a trap's command does to the job", () => {
	expect(shellTrapKind('', 'kill -TERM $pid; wait $pid; exit 0')).toBe('forwards');
	expect(shellTrapKind('', 'kill -9 $pid')).toBe('other');
	expect(shellTrapKind('', 'kill -s KILL $pid; exit')).toBe('ends');
	expect(shellTrapKind('', 'scontrol requeue $SLURM_JOB_ID; kill $pid')).toBe('requeues');
	expect(shellTrapKind('', 'scancel $SLURM_JOB_ID')).toBe('cancels');
	expect(shellTrapKind('', 'exit 1')).toBe('ends');
	expect(shellTrapKind('', '')).toBe('ignores');
	expect(shellTrapKind('', '-')).toBe('ignores');
	expect(shellTrapKind('', 'echo caught')).toBe('other');
	const script = ['function on_term {', '  scontrol requeue $SLURM_JOB_ID', '}', 'trap on_term TERM'].join('\n');
	expect(shellTrapKind(script, 'on_term')).toBe('requeues');
	expect(shellTrapKind(script, 'undefined_function')).toBe('other');
});

test("preflight's reading of --signal agrees with the running job's (parse-batch-script.ts)", () => {
	const scripts = [
		'#!/bin/bash\n#SBATCH --signal=USR1@30\nsrun x\n',
		'#!/bin/bash\n#SBATCH --signal="B:TERM@120"\nsrun x\n',
		'#!/bin/bash\n#SBATCH --signal RB:10\n#SBATCH -N 2\nsrun x\n',
		'#!/bin/bash\n#SBATCH -N 2\nsrun x\n#SBATCH --signal=USR2\n',
	];
	for (const text of scripts) {
		const live = batchScriptWarning(text);
		const before = readSlurmBatchScript(text);
		if (live.kind !== 'warning') {
			expect(before).toMatchObject({status: 'read', warning: null});
			continue;
		}
		expect(before).toMatchObject({
			status: 'read',
			warning: {
				signal: live.warning.signal,
				leadS: live.warning.leadS,
				target: live.warning.batchOnly ? 'batch-shell' : 'tasks',
			},
		});
	}
});
