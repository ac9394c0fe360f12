import {expect, test} from 'vitest';
import {canBeLauncher, canBeRank, isTraintop, programName} from '../../src/ranks/programs.js';

const facts = (cmd: string, comm?: string) => ({argv: cmd.split(' '), ...(comm === undefined ? {} : {comm})});

test.each([
	['/usr/bin/python3 -u train.py', 'train.py'],
	['python3.11 -m torch.distributed.run --nproc-per-node 2 t.py', 'torch.distributed.run'],
	['/usr/bin/python3 /usr/bin/torchrun t.py', 'torchrun'],
	['python -c import x', 'python'],
	['/opt/bin/deepspeed train.py', 'deepspeed'],
	['-bash', 'bash'],
])('programName(%s) = %s', (cmd, name) => {
	expect(programName(facts(cmd))).toBe(name);
});

test.each([
	['python3 train.py', undefined, true],
	['bash', undefined, false],
	['/bin/sh -c python3 x.py', undefined, false],
	['srun python3 train.py', undefined, false],
	['slurmstepd: [12.0]', undefined, false],
	['anything', 'slurmstepd', false],
	['traintop --headless', undefined, false],
	['node /srv/traintop-main/dist/cli.js', undefined, false],
	['node /x/node_modules/.bin/traintop', undefined, false],
	['python3 train.py', 'pt_data_worker', true],
	['node server.js', undefined, true],
	['python3 /usr/bin/torchrun --nproc-per-node 8 t.py', undefined, false],
	['/opt/conda/bin/accelerate launch t.py', undefined, false],
	['uv run train.py', undefined, false],
])('canBeRank(%s, comm %s) = %s', (cmd, comm, expected) => {
	expect(canBeRank(facts(cmd, comm))).toBe(expected);
});

test('traintop by its title, its comm, or node running its cli', () => {
	expect(isTraintop(facts('traintop ranks'))).toBe(true);
	expect(isTraintop(facts('x', 'traintop --head'))).toBe(true);
	expect(isTraintop(facts('node /a/traintop/dist/cli.js'))).toBe(true);
	expect(isTraintop(facts('node /a/other/dist/cli.js'))).toBe(false);
});

test('a launcher may be torchrun or a Python script, never a shell, init or tmux', () => {
	expect(canBeLauncher(facts('python3 /usr/bin/torchrun t.py'))).toBe(true);
	expect(canBeLauncher(facts('python3 launcher.py'))).toBe(true);
	for (const cmd of ['bash', '/sbin/init', 'systemd --user', 'tmux', 'sshd: u@pts/0', 'srun -n 2 x'])
		expect(canBeLauncher(facts(cmd))).toBe(false);
});
