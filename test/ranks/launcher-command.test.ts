import {describe, expect, test} from 'vitest';
import {launcherFromArgv, shellCommands} from '../../src/ranks/launcher-command.js';
import {launcherFromCommand} from '../../src/ranks/launcher-traps.js';

// The launcher a command runs, from its words. The argv are as /proc/PID/cmdline shows each launcher: torchrun run as
// a module (Debian's torch 1.13, test/helpers/ddp-job.ts) and as pip's console script (python + the script's path);
// DeepSpeed's per-node launcher as its runner starts it (deepspeed 0.16.5 deepspeed/launcher/runner.py: sys.executable
// -u -m deepspeed.launcher.launch --world_info=… --master_addr=… --master_port=…); accelerate's console script. The
// lines are a batch script's, as a preflight reads them.

const program = (argv: string[]) => launcherFromArgv(argv)?.program ?? null;

describe('launcherFromArgv: a running launcher as /proc shows it', () => {
	test('torchrun as a module and as a console script', () => {
		expect(
			launcherFromArgv([
				'/usr/bin/python3',
				'-m',
				'torch.distributed.run',
				'--nproc_per_node',
				'2',
				'--redirects',
				'1',
				'train.py',
			]),
		).toEqual({
			program: 'torchrun',
			args: ['--nproc_per_node', '2', '--redirects', '1', 'train.py'],
			assigned: {},
		});
		expect(program(['/opt/conda/bin/python3.11', '/opt/conda/bin/torchrun', '--standalone', 'train.py'])).toBe(
			'torchrun',
		);
		expect(program(['/usr/bin/python3', '-u', '-m', 'torch.distributed.launch', '--use_env', 'train.py'])).toBe(
			'torch.distributed.launch',
		);
		expect(program(['python', '-W', 'ignore', '-mtorch.distributed.run', 'train.py'])).toBe('torchrun');
	});

	test("DeepSpeed's per-node launcher and its runner", () => {
		expect(
			program([
				'/usr/bin/python',
				'-u',
				'-m',
				'deepspeed.launcher.launch',
				'--world_info=eyJsb2NhbGhvc3QiOiBbMCwgMV19',
				'--master_addr=127.0.0.1',
				'--master_port=29500',
				'train.py',
				'--deepspeed',
			]),
		).toBe('deepspeed.launcher.launch');
		expect(program(['/usr/bin/python3', '/usr/local/bin/deepspeed', '--num_gpus', '2', 'train.py'])).toBe('deepspeed');
	});

	test('accelerate launch, and accelerate doing something else', () => {
		expect(
			launcherFromArgv(['/usr/bin/python3', '/usr/local/bin/accelerate', 'launch', '--multi_gpu', 'train.py']),
		).toEqual({program: 'accelerate launch', args: ['--multi_gpu', 'train.py'], assigned: {}});
		expect(program(['/usr/bin/python3', '/usr/local/bin/accelerate', 'config'])).toBeNull();
	});

	test('a program that is no launcher: a script, a shell, python -c', () => {
		expect(program(['/usr/bin/python3', 'train.py', '--launcher', 'torchrun'])).toBeNull();
		expect(program(['bash', 'run.sh', 'torchrun'])).toBeNull();
		expect(program(['python3', '-c', 'import torch.distributed.run'])).toBeNull();
		expect(program(['mpirun', '-np', '2', 'torchrun', 'train.py'])).toBeNull();
	});
});

describe('a batch script line', () => {
	test('words: quotes, escapes, comments, and the commands of a line', () => {
		expect(shellCommands(`srun --job-name "my job" torchrun a.py # comment`)).toEqual([
			['srun', '--job-name', 'my job', 'torchrun', 'a.py'],
		]);
		expect(shellCommands(`cd /runs && srun torchrun x.py | tee log; echo done`)).toEqual([
			['cd', '/runs'],
			['srun', 'torchrun', 'x.py'],
			['tee', 'log'],
			['echo', 'done'],
		]);
		expect(shellCommands(String.raw`FOO='a b' python3 -m torch.distributed.run a\ b.py`)).toEqual([
			['FOO=a b', 'python3', '-m', 'torch.distributed.run', 'a b.py'],
		]);
		expect(shellCommands('# srun torchrun x.py')).toEqual([]);
	});

	test('the launcher past srun, its options and values, exec and env assignments', () => {
		const line = 'srun --ntasks-per-node 1 -c 8 --kill-on-bad-exit=1 torchrun --nproc_per_node 2 train.py';
		expect(launcherFromCommand(line)).toMatchObject({name: 'torchrun', killAfterS: 30, exitCode: 1});
		expect(launcherFromCommand('exec env OMP_NUM_THREADS=1 python -m torch.distributed.run t.py')?.name).toBe(
			'torchrun',
		);
		expect(launcherFromCommand('cd "$WORK" && srun deepspeed --num_gpus 4 train.py --deepspeed')).toMatchObject({
			name: 'deepspeed',
			forwards: ['SIGTERM', 'SIGINT'],
			killAfterS: 30,
			exitCode: 1,
		});
		expect(launcherFromCommand('srun apptainer exec --nv /images/pt.sif torchrun --standalone t.py')?.name).toBe(
			'torchrun',
		);
		expect(launcherFromCommand('srun python train.py')).toBeNull();
		expect(launcherFromCommand('srun bash -c "torchrun train.py"')).toBeNull();
		expect(launcherFromCommand('echo starting')).toBeNull();
	});
});
