import {describe, expect, it} from 'vitest';
import {UsageError} from '../../src/core/errors.js';
import {slurmJobFromFlags} from '../../src/slurm/options.js';

// --slurm-job J, else the allocation traintop runs in.

describe('slurmJobFromFlags', () => {
	it.each([
		['4242', '4242'],
		['4242_3', '4242_3'],
		['4242.0', '4242'],
		['4242.batch', '4242'],
		[' 17 ', '17'],
	])('--slurm-job %s → %s', (flag, job) => {
		expect(slurmJobFromFlags(flag, {})).toBe(job);
	});

	it('without the flag: SLURM_JOB_ID inside an allocation, else none', () => {
		expect(slurmJobFromFlags(undefined, {SLURM_JOB_ID: '99'})).toBe('99');
		expect(slurmJobFromFlags(undefined, {SLURM_JOBID: '98'})).toBe('98');
		expect(slurmJobFromFlags(undefined, {})).toBeNull();
	});

	it('anything else is a usage error that names the flag and shows good ids', () => {
		expect(() => slurmJobFromFlags('train', {})).toThrow(UsageError);
		expect(() => slurmJobFromFlags('train', {})).toThrow(
			'--slurm-job needs a SLURM job id such as 4242, 4242_3 (an array task) or 4242.0 (got train)',
		);
	});
});
