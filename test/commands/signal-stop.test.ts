import {readFileSync} from 'node:fs';
import {afterEach, expect, test} from 'vitest';
import {type PythonChild, startPython} from '../helpers/python-child.js';
import {runCli} from '../helpers/run-cli.js';
import {until} from '../helpers/until.js';

// SIGSTOP cannot be handled or ignored: it stops the rank until a SIGCONT, which a training job (and its collective
// peers, waiting on it) treats as a hang. Like a signal that would terminate, it is sent only with --force.

let rank: PythonChild | null = null;
afterEach(() => {
	rank?.kill('SIGKILL');
	rank = null;
});

/** The process state letter of /proc/PID/stat (T = stopped). */
const stateOf = (pid: number): string => /\) (\S) /.exec(readFileSync(`/proc/${pid}/stat`, 'utf8'))?.[1] ?? '?';

test('SIGSTOP: refused without --force (exit 3, the rank keeps running); --force stops it', async () => {
	const tag = `traintop-stop-rank-${process.pid}`;
	rank = await startPython('', {RANK: '0'}, tag);
	const args = ['signal', 'SIGSTOP', '--yes', '--match', tag, '--nvidia-smi', '/nonexistent'];
	const refused = await runCli(args);
	expect(refused.code).toBe(3);
	// Said before it is sent, too: the target list names what SIGSTOP would do.
	expect(refused.stderr).toContain(
		`pid ${rank.pid}  SIGSTOP would STOP it until a SIGCONT — will be refused (--force sends it)`,
	);
	expect(refused.stdout).toContain(`pid ${rank.pid}  refused: SIGSTOP stops rank 0`);
	expect(refused.stdout).toContain('--force sends it anyway');
	expect(stateOf(rank.pid)).not.toBe('T');

	const forced = await runCli([...args, '--force']);
	expect(forced.code).toBe(0);
	expect(forced.stdout).toContain(`pid ${rank.pid}  sent: forced: rank 0 is stopped until it gets SIGCONT`);
	await until(
		() => stateOf(rank!.pid),
		state => state === 'T',
		'the rank to be stopped',
		5000,
	);
	process.kill(rank.pid, 'SIGCONT');
});
