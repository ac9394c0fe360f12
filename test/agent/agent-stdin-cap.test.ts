import {afterEach, describe, expect, it} from 'vitest';
import {agentMessages} from '../helpers/agent-messages.js';
import {type CliRun, startCli} from '../helpers/run-cli.js';

// `traintop agent` reads commands from whatever connects it: a line that never ends (2 MiB of bytes without a
// newline) must neither grow without bound (V8 refuses a string at 512 MiB and the agent died with a stack trace)
// nor be taken for a command. It is said on stdout as an error message, and the agent ends cleanly.

let agent: CliRun | null = null;
afterEach(() => {
	agent?.child.kill('SIGKILL');
	agent = null;
});

describe('the agent stdin', () => {
	it('a line over 1 MiB without a newline: an error message, then the agent exits 0', async () => {
		agent = startCli(['agent', '--node-name', 'n1', '--interval', '0.5', '--nvidia-smi', '/nonexistent']);
		const a = agent;
		await a.waitFor(o => o.stdout.includes('"kind":"hello"'), 20_000);
		// The agent stops reading at the cap and exits: the rest of this write may find the pipe closed.
		a.child.stdin.on('error', () => {});
		a.child.stdin.write('x'.repeat(2 * 2 ** 20));
		await a.waitFor(o => o.stdout.includes('"kind":"error"'), 20_000);
		const error = agentMessages(a).find(message => message.kind === 'error');
		expect(error).toEqual({
			kind: 'error',
			host: 'n1',
			message: 'a line over 1 MiB without a newline on stdin: not a command, the agent ends',
		});
		expect(await a.exited).toBe(0);
		expect(a.stderr()).toMatch(/traintop agent on n1: a line over 1 MiB without a newline on stdin, exiting/);
		expect(a.stderr()).not.toMatch(/RangeError| {4}at /);
	}, 60_000);
});
