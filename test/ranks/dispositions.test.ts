import {readFileSync} from 'node:fs';
import path from 'node:path';
import {afterEach, describe, expect, test} from 'vitest';
import {signalStates, wouldTerminate} from '../../src/ranks/dispositions.js';
import {parseSignalName, terminatesByDefault} from '../../src/ranks/signals.js';
import {parseStatus, procReader} from '../../src/system/procfs.js';
import {startPython, type PythonChild} from '../helpers/python-child.js';
import {echoOn, ping} from '../helpers/python-signals.js';

const fixtureStatus = (name: string) =>
	parseStatus(readFileSync(path.join(import.meta.dirname, '../fixtures/proc', name, 'status'), 'utf8'))!;

describe('signal states from recorded /proc text', () => {
	test('a rank with USR1 and TERM handlers, started in the background (SIGINT ignored)', () => {
		const s = signalStates(fixtureStatus('rank-handlers'));
		expect(s.SIGUSR1).toEqual({disposition: 'handled', blocked: false, pending: false, terminatesByDefault: true});
		expect(s.SIGTERM.disposition).toBe('handled');
		expect(s.SIGINT.disposition).toBe('ignored');
		expect(s.SIGQUIT.disposition).toBe('ignored');
		expect(s.SIGUSR2).toEqual({disposition: 'default', blocked: false, pending: false, terminatesByDefault: true});
		expect(s.SIGCONT).toEqual({disposition: 'default', blocked: false, pending: false, terminatesByDefault: false});
		expect(s.SIGHUP.disposition).toBe('default');
	});

	test('a blocked signal that was sent is pending; an ignored one is ignored', () => {
		const s = signalStates(fixtureStatus('blocked-pending'));
		expect(s.SIGUSR2).toEqual({disposition: 'default', blocked: true, pending: true, terminatesByDefault: true});
		expect(s.SIGHUP.disposition).toBe('ignored');
	});

	test('wouldTerminate: only default disposition with a terminating default action', () => {
		const s = signalStates(fixtureStatus('rank-handlers'));
		expect(wouldTerminate(s.SIGUSR2)).toBe(true);
		expect(wouldTerminate(s.SIGUSR1)).toBe(false);
		expect(wouldTerminate(s.SIGINT)).toBe(false);
		expect(wouldTerminate(s.SIGCONT)).toBe(false);
	});
});

describe('signal states of live processes match what they installed', () => {
	let child: PythonChild | null = null;
	afterEach(() => child?.kill());

	test('handled, ignored, default and blocked', async () => {
		child = await startPython(
			[
				echoOn('SIGUSR1', 'USR1'),
				'on(signal.SIGTERM, "TERM")',
				'signal.signal(signal.SIGHUP, signal.SIG_IGN)',
				'signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR2})',
			].join('\n'),
		);
		const s = signalStates((await procReader().status(child.pid))!);
		expect(s.SIGUSR1.disposition).toBe('handled');
		expect(s.SIGTERM.disposition).toBe('handled');
		expect(s.SIGHUP.disposition).toBe('ignored');
		expect(s.SIGUSR2).toMatchObject({disposition: 'default', blocked: true, pending: false});
		expect(s.SIGQUIT.disposition).toBe('default');
		// Python installs its own SIGINT handler (KeyboardInterrupt) when SIGINT was not ignored at start.
		expect(s.SIGINT.disposition).toBe('handled');
		// Sent while blocked: pending as soon as kill(2) returns, and the process lives on: a SIGUSR1 sent after it is
		// handled ("got USR1"), and SIGUSR2 is still pending then.
		child.child.kill('SIGUSR2');
		expect(signalStates((await procReader().status(child.pid))!).SIGUSR2.pending).toBe(true);
		expect(await ping(child, 'SIGUSR1', 'USR1')).toEqual(['got USR1']);
		const after = signalStates((await procReader().status(child.pid))!);
		expect(after.SIGUSR2.pending).toBe(true);
		expect(child.child.exitCode).toBeNull();
	});
});

describe('signal names', () => {
	test.each([
		['SIGUSR2', 'SIGUSR2'],
		['USR2', 'SIGUSR2'],
		['usr1', 'SIGUSR1'],
		['15', 'SIGTERM'],
		['  sigterm ', 'SIGTERM'],
		['SIGFOO', null],
		['99', null],
		['', null],
	])('%j → %s', (text, name) => {
		expect(parseSignalName(text)).toBe(name);
	});

	test('default actions', () => {
		expect(terminatesByDefault('SIGUSR1')).toBe(true);
		expect(terminatesByDefault('SIGKILL')).toBe(true);
		expect(terminatesByDefault('SIGCONT')).toBe(false);
		expect(terminatesByDefault('SIGCHLD')).toBe(false);
	});
});
