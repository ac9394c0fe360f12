import {readFileSync} from 'node:fs';
import path from 'node:path';
import {expect, test} from 'vitest';
import {launcherFromCommand} from '../../src/ranks/launcher-traps.js';
import {ROOT} from '../helpers/dist.js';

// The launcher facts readiness weighs (ranks/launcher-traps.ts, read from torch's code) against what torch 2.11's
// torchrun did on a real node (test/fixtures/torchrun-term/, recorded): SIGTERM to the agent reached both ranks at once
// and ranks still saving were SIGKILLed 30 s later; a rank's exit 99 became the agent's failure (exit 1).

const RECORDED = path.join(ROOT, 'test/fixtures/torchrun-term');
const read = (name: string): string => readFileSync(path.join(RECORDED, name), 'utf8');

/** `W1128 06:11:18.905000 465 …` → seconds of the day. */
function secondsOf(line: string): number {
	const match = /^[WEI]\d{4} (\d\d):(\d\d):(\d\d\.\d+) /.exec(line);
	if (!match) throw new Error(`no time in ${line}`);
	return Number(match[1]) * 3600 + Number(match[2]) * 60 + Number(match[3]);
}

test("torchrun's kill delay and exit code, as recorded, are the facts the verdict uses", () => {
	const facts = launcherFromCommand('srun torchrun --nproc_per_node 2 term_rank.py');
	expect(facts?.name).toBe('torchrun');

	const agent = read('agent-sigterm.log').split('\n');
	const passed = agent.filter(line => /Sending process \d+ closing signal SIGTERM/.test(line));
	const killed = agent.filter(line => /Unable to shutdown process \d+ via 15, forcefully exiting via 9/.test(line));
	// Both ranks got the agent's SIGTERM, and both were SIGKILLed.
	expect(passed).toHaveLength(2);
	expect(killed).toHaveLength(2);
	expect(facts?.forwards).toContain('SIGTERM');
	const delay = secondsOf(killed[0]!) - secondsOf(passed[0]!);
	expect(Math.abs(delay - (facts?.killAfterS ?? 0))).toBeLessThan(0.5);
	// The rank saved for as long as that: its log stops before its 30th second.
	expect(read('agent-sigterm-rank0.log').trim().split('\n').at(-1)).toBe('saving 29 s');

	// SIGTERM to the ranks only: each saved and exited 99; the agent reported 99 and failed with its own code.
	const ranks = read('ranks-sigterm.log');
	expect(ranks.match(/exitcode\s*: 99/g)?.length ?? 0).toBeGreaterThanOrEqual(2);
	expect(ranks).toContain('torch.distributed.elastic.multiprocessing.errors.ChildFailedError');
	expect(read('ranks-sigterm-rank0.log').trim().split('\n').at(-1)).toBe('saved');
	// A ChildFailedError out of torchrun's main ends Python with exit 1 (launcher/api.py, run.py's @record main).
	expect(facts?.exitCode).toBe(1);
});
