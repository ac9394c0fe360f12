import {execFileSync} from 'node:child_process';
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, expect, test} from 'vitest';
import {controllerAddress} from '../../src/slurm/slurm-exec.js';

// slurm.conf is read only to name the controller in a message; SLURM_CONF pointing at a FIFO or a device must not
// hold that message (and the command waiting on it) forever. Real files and a real FIFO.

let dir = '';
beforeAll(() => {
	dir = mkdtempSync(path.join(tmpdir(), 'traintop-slurm-conf-'));
});
afterAll(() => {
	rmSync(dir, {recursive: true, force: true});
});

test('the controller is named from a regular slurm.conf', async () => {
	const conf = path.join(dir, 'slurm.conf');
	writeFileSync(conf, 'ClusterName=t\nSlurmctldHost=ctl(10.0.0.1)\nSlurmctldPort=7817\n');
	expect(await controllerAddress({SLURM_CONF: conf})).toBe('ctl:7817');
});

test('a FIFO or a device as SLURM_CONF is not opened: the message says slurmctld at once', {
	timeout: 10_000,
}, async () => {
	const fifo = path.join(dir, 'fifo.conf');
	execFileSync('mkfifo', [fifo]);
	expect(await controllerAddress({SLURM_CONF: fifo})).toBe('slurmctld');
	expect(await controllerAddress({SLURM_CONF: '/dev/zero'})).toBe('slurmctld');
});
