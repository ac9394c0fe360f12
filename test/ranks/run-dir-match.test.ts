import {expect, test} from 'vitest';
import {evidenceOf, jobEvidence, jobsNaming} from '../../src/ranks/run-dir-match.js';

const place = (argv: string, cwd: string | null, openFiles: string[] | null = null) => ({
	argv: argv.split(' '),
	cwd,
	openFiles,
});

test.each([
	['python3 train.py --output_dir /runs/a', '/home/u', null, 'command line'],
	['python3 train.py --output_dir=runs/a', '/', null, 'command line'],
	['python3 train.py --output_dir runs/a/ckpt', '/', null, 'command line'],
	['python3 train.py', '/home/u', ['/runs/a/checkpoints/x.pt.tmp'], 'open file'],
	['python3 train.py', '/runs/a', null, 'working directory'],
	['python3 train.py', '/runs/a/sub', null, 'working directory'],
	['python3 train.py', '/runs', null, 'parent working directory'],
	['python3 train.py --output_dir /runs/ab', '/home/u', null, null],
	['python3 train.py --lr 0.1', '/home/u', ['/runs/b/x', 'socket:[123]'], null],
])('%s in %s (open %j) → %s', (argv, cwd, files, expected) => {
	expect(evidenceOf(place(argv, cwd, files), '/runs/a')).toBe(expected);
});

test('the strongest level wins; a tie at it names no one job', () => {
	const a = jobEvidence([place('python3 t.py', '/runs'), place('python3 t.py --out /runs/a', '/x')], '/runs/a');
	expect(a).toBe('command line');
	expect(
		jobsNaming(
			new Map([
				['A', 'command line'],
				['B', 'parent working directory'],
			]),
		),
	).toEqual({ids: ['A'], evidence: 'command line'});
	expect(
		jobsNaming(
			new Map([
				['A', 'parent working directory'],
				['B', 'parent working directory'],
				['C', null],
			]),
		),
	).toEqual({ids: ['A', 'B'], evidence: 'parent working directory'});
	expect(jobsNaming(new Map([['A', null]]))).toEqual({ids: [], evidence: null});
});
