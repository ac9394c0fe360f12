import {existsSync, readFileSync, writeFileSync} from 'node:fs';
import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, beforeEach, expect, test} from 'vitest';
import {CLI, requireBuild} from '../helpers/dist.js';
import {FAKE_BIN, fakeRuns, isAlive, killAll, readInvocations, waitFor} from '../helpers/fake-nvidia-smi/harness.js';
import {Terminal} from '../helpers/tmux.js';

// The TUI's terminal closed under it (tmux kill-session: the pty hangs up). It crashed: `write EIO` from Ink's
// unmount, then Node's own assertion in ResetStdio (exit 134/139). Now it ends quietly, exit 0 as for q, with no
// nvidia-smi left. A wrapper script records traintop's exit status and pid in files, since the pane is gone.

const H100 = 'cap-linux-h100-80gb-hbm3-590.48.01';

let dir: string;
let term: Terminal | null = null;
beforeEach(async () => {
	requireBuild();
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-hangup-'));
});
afterEach(async () => {
	term?.close();
	if (existsSync(path.join(dir, 'pid'))) killAll([Number(readFileSync(path.join(dir, 'pid'), 'utf8'))]);
	killAll(readInvocations(path.join(dir, 'nvsmi.jsonl')).map(entry => entry.pid));
	await rm(dir, {recursive: true, force: true});
});

/**
 * `script` runs in bash as the pane's command (the session leader, which the kernel sends SIGHUP); `traintop` there
 * runs it, with the fake nvidia-smi (a hung one-shot, so a child is running) and the memory log in `dir`.
 */
function startInTerminal(script: string): void {
	const env = [
		`PATH=${path.dirname(FAKE_BIN)}:$PATH`,
		`FAKE_NVSMI_SCENARIO=${H100}`,
		`FAKE_NVSMI_LOG=${dir}/nvsmi.jsonl`,
		'FAKE_NVSMI_MODE=hang',
		'FAKE_NVSMI_KNOBS_FOR=query-compute-apps',
	].join(' ');
	const wrapper = path.join(dir, 'wrapper.sh');
	writeFileSync(
		wrapper,
		[
			`cd ${dir}`,
			// Its pid for the test, then traintop itself in that process (exec), its stderr kept.
			`traintop() { echo $BASHPID > pid; exec env ${env} ${process.execPath} ${CLI} ${dir} --interval 0.5 2>stderr; }`,
			script,
		].join('\n'),
		{mode: 0o755},
	);
	term = new Terminal(100, 30, `bash ${wrapper}`);
}

async function closeTerminalAndExpectQuietEnd(): Promise<void> {
	await term!.until(text => /^GPU0 /m.test(text), 'the TUI with a GPU row');
	await waitFor(() => fakeRuns(`${dir}/nvsmi.jsonl`, '--query-compute-apps').length > 0, 'a hung one-shot', 5_000);
	const traintop = await waitFor(() => Number(readFileSync(path.join(dir, 'pid'), 'utf8')), 'its pid');
	term!.tmux('kill-session', '-t', 'term');
	term = null;
	// The shell's `echo $? > rc` creates the file before it writes: an empty one is not the status yet.
	const rc = await waitFor(
		() => existsSync(path.join(dir, 'rc')) && (readFileSync(path.join(dir, 'rc'), 'utf8').trim() || false),
		'the exit status',
		10_000,
	);
	const stderr = readFileSync(path.join(dir, 'stderr'), 'utf8');
	expect(stderr).not.toMatch(/EIO|Assertion|Error/);
	expect(rc).toBe('0');
	expect(isAlive(traintop)).toBe(false);
	const children = readInvocations(`${dir}/nvsmi.jsonl`).map(entry => entry.pid);
	await waitFor(() => children.every(pid => !isAlive(pid)), `nvidia-smi ${children.join(', ')} to be gone`, 3_000);
}

test('terminal closed, the hangup passed on (as an interactive shell does): exit 0, no child left', async () => {
	// Backgrounded so the trap runs at once and sends SIGHUP on, as bash does to its jobs when its terminal goes.
	startInTerminal(
		[
			'( traintop ) </dev/tty & p=$!',
			"trap 'kill -HUP $p; hup=1' HUP",
			'wait $p; rc=$?; if [ -n "$hup" ]; then wait $p; rc=$?; fi',
			'echo $rc > rc',
		].join('\n'),
	);
	await closeTerminalAndExpectQuietEnd();
}, 30_000);

test('terminal closed, no SIGHUP reaches traintop (its shell keeps it): EIO/EOF ends it, exit 0, no child left', async () => {
	// A trap that does nothing: the shell lives on and, as session leader, keeps the hangup from the job.
	startInTerminal(["trap ':' HUP", '( traintop )', 'echo $? > rc'].join('\n'));
	await closeTerminalAndExpectQuietEnd();
}, 30_000);
