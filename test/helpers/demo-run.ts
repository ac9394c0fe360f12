import {execFileSync} from 'node:child_process';
import {rm} from 'node:fs/promises';

// What the TUI tests beside `traintop demo` need of its run: the processes that name its run dir, and an end to
// them and it after each test, whatever the test left running.

/** PIDs of processes whose command line contains `text`. */
export const processesWith = (text: string): number[] => {
	try {
		return execFileSync('pgrep', ['-f', text], {encoding: 'utf8'}).trim().split('\n').map(Number);
	} catch {
		return [];
	}
};

/** Kills every process that names `runDir`, then removes it; nothing where no run dir was found ('' matches all). */
export async function endDemoRun(runDir: string): Promise<void> {
	if (runDir === '') return;
	for (const pid of processesWith(runDir)) {
		try {
			process.kill(pid, 'SIGKILL');
		} catch {
			// ESRCH: it exited between the listing and the kill, which is what this cleanup wants.
		}
	}
	// The demo, hung up by the closed terminal, may still be removing or writing in it: retry on ENOTEMPTY.
	await rm(runDir, {recursive: true, force: true, maxRetries: 10, retryDelay: 100});
}
