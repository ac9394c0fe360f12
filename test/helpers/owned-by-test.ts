import {afterEach} from 'vitest';
import type {CliRun} from './run-cli.js';
import type {Terminal} from './tmux.js';

// What a test starts that must not outlive it, however it ends: the traintop it runs is killed and the tmux terminal
// it opened is closed after it, before the file's own clean-up (jobs cancelled, directories removed).

export interface OwnedByTest {
	/** `run`, killed (SIGKILL) after this test. */
	run(run: CliRun): CliRun;
	/** `term`, closed after this test. */
	term(term: Terminal): Terminal;
}

/** Registers the afterEach that ends them, then runs `then` (the file's own clean-up). */
export function ownedByTest(then?: () => void | Promise<void>): OwnedByTest {
	const runs: CliRun[] = [];
	const terms: Terminal[] = [];
	afterEach(async () => {
		for (const run of runs.splice(0)) run.child.kill('SIGKILL');
		for (const term of terms.splice(0)) term.close();
		await then?.();
	});
	return {
		run(run) {
			runs.push(run);
			return run;
		},
		term(term) {
			terms.push(term);
			return term;
		},
	};
}
